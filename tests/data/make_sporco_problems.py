#!/usr/bin/env python3
"""Writes the inputs of SPORCO 0.2.2's seeded solver tests as .npy files
(float64, C order) into this directory; see README.md here for each file.

The problems are built by the builders in ../sporco_ref.py (PROBLEMS), which
repeat each SPORCO test's own construction: np.random.seed(12345) followed by
the same sequence of numpy.random calls. Only what a C test cannot cheaply and
deterministically recompute is stored (random draws, and FFT-synthesised
signals, plus the tiny s0 = D x0 of the BPDN test so that C reads the same
bits); clean TV/RPCA images and u u^T are rebuilt by the C test (README.md
says how).

  /usr/bin/python3 tests/data/make_sporco_problems.py          write the files
  /usr/bin/python3 tests/data/make_sporco_problems.py --check  compare them
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import sporco_ref as ref  # noqa: E402

# file stem -> (problem builder name, array key)
FILES = [
    ('sporco_bpdn_03_D', 'bpdn_03', 'D'),
    ('sporco_bpdn_03_S', 'bpdn_03', 'S'),
    ('sporco_bpdn_08_D', 'bpdn_08', 'D'),
    ('sporco_bpdn_08_x0', 'bpdn_08', 'x0'),
    ('sporco_bpdn_08_s0', 'bpdn_08', 'S'),
    ('sporco_tvl1_2d_V', 'tvl1_2d', 'V'),
    ('sporco_tvl1_3d_V', 'tvl1_3d', 'V'),
    ('sporco_tvl2_2d_V', 'tvl2_2d', 'V'),
    ('sporco_tvl2_3d_V', 'tvl2_3d', 'V'),
    ('sporco_rpca_01_u', 'rpca_01', 'u'),
    ('sporco_rpca_01_V', 'rpca_01', 'V'),
    ('sporco_cbpdn_08_D', 'cbpdn_08', 'D'),
    ('sporco_cbpdn_08_S', 'cbpdn_08', 'S'),
    ('sporco_cbpdn_10_D', 'cbpdn_10', 'D'),
    ('sporco_cbpdn_10_X0', 'cbpdn_10', 'X0'),
    ('sporco_cbpdn_10_S', 'cbpdn_10', 'S'),
    ('sporco_cbpdn_11_D', 'cbpdn_11', 'D'),
    ('sporco_cbpdn_11_X0', 'cbpdn_11', 'X0'),
    ('sporco_cbpdn_11_S', 'cbpdn_11', 'S'),
    ('sporco_cbpdn_12_D', 'cbpdn_12', 'D'),
    ('sporco_cbpdn_12_S', 'cbpdn_12', 'S'),
    ('sporco_cbpdn_13_D', 'cbpdn_13', 'D'),
    ('sporco_cbpdn_13_S', 'cbpdn_13', 'S'),
    ('sporco_pgm_cbpdn_10_S', 'pgm_cbpdn_10', 'S'),
]


def build_all():
    cache = {}
    out = {}
    for stem, prob, key in FILES:
        if prob not in cache:
            cache[prob] = ref.PROBLEMS[prob]()
        out[stem] = np.ascontiguousarray(cache[prob][key], dtype=np.float64)
    # The pgm test_10 problem shares D and X0 with the ADMM test_10 problem.
    p10, g10 = cache['cbpdn_10'], cache['pgm_cbpdn_10']
    assert np.array_equal(p10['D'], g10['D'])
    assert np.array_equal(p10['X0'], g10['X0'])
    return out


def main(argv):
    arrays = build_all()
    if argv[:1] == ['--check']:
        bad = 0
        for stem, a in arrays.items():
            path = os.path.join(HERE, stem + '.npy')
            b = np.load(path) if os.path.exists(path) else None
            ok = b is not None and b.dtype == a.dtype and \
                b.shape == a.shape and np.array_equal(a, b)
            bad += not ok
            print('%-26s %s' % (stem, 'ok' if ok else 'DIFFERS/MISSING'))
        return 1 if bad else 0
    total = 0
    for stem, a in arrays.items():
        path = os.path.join(HERE, stem + '.npy')
        np.save(path, a)
        total += os.path.getsize(path)
        print('%-26s %-16s %8d bytes' % (stem + '.npy', a.shape,
                                         os.path.getsize(path)))
    print('total %d bytes' % total)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
