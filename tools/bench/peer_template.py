import os
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
def say(*a): print(*a, flush=True)
# The template matching row's peer: pyxem 0.16's matching of polar frames with a template
# library (indexation_utils.py: _prefilter_templates, _match_polar_to_polar_library_cpu,
# _mixed_matching_lib_to_polar), a frame at a time as pyxem's _index_chunk goes, with numpy's
# whole-array operations in float32, on the CPU whatever the device. argv[2]: the folder of
# template.c's frames.npy [frames, n_theta, n_r], r.npy, theta.npy and intensity.npy
# [templates, spots], read at "setup"; argv[3]: frac_keep; argv[4]: n_best. Templates are
# normalised, frames not (pyxem's normalize_templates and normalize_images defaults).
folder, frac_keep, n_best = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
# Templates a step: their spots' runs of n_theta values, [CHUNK, spots, n_theta] float32, are
# 3.7 MB for 40 spots and 360 angles.
CHUNK = 64

def norm_rows(a):
    # pyxem's _norm_rows (the row's templates have no row of zeros)
    return a / np.sqrt((a ** 2).sum(axis=1))[:, None]

class Library:
    def __init__(self, r, theta, intensity, n_theta, n_r):
        n, spots = r.shape
        # _get_integrated_polar_templates: the intensities summed per radius (coo_matrix's
        # toarray adds repeated radii), normalised
        integ = np.zeros((n, n_r), dtype=np.float32)
        np.add.at(integ, (np.repeat(np.arange(n), spots), r.ravel()), intensity.ravel())
        self.integ = norm_rows(integ)
        # pyxem's loop ends a template at its first spot at r = 0 (the padding of its rows)
        w = norm_rows(intensity) * (np.cumsum(r == 0, axis=1) == 0)
        self.w = w[:, None, :].astype(np.float32)
        # Spot k at shift s reads row (s + theta_k) mod n_theta of column r_k, and its mirror
        # row (s - theta_k) mod n_theta: in the frame transposed and tiled twice along theta,
        # flattened ([n_r, 2 n_theta]), the n_theta shifts are one run from these starts.
        self.starts = (r * 2 * n_theta + theta, r * 2 * n_theta + n_theta - theta)
        # _get_max_n without n_keep: max(round(frac_keep N), 1), at most N
        self.keep = int(min(max(round(frac_keep * n), 1), n))
        self.rrr = (np.arange(n_r) / n_r).astype(np.float32)

    def match(self, frame):
        """_mixed_matching_lib_to_polar: the n_best (template, correlation, shift, sign) of one
        frame [n_theta, n_r], best first."""
        n_theta = frame.shape[0]
        if self.keep < self.integ.shape[0]:
            # _prefilter_templates: the frame summed over theta, weighted by r / n_r
            fast = self.integ @ (frame.sum(axis=0) * self.rrr)
            kept = np.argsort(-fast, kind='stable')[:self.keep]
        else:
            kept = np.arange(self.keep)
        runs = sliding_window_view(np.concatenate((frame, frame)).T.ravel(), n_theta)
        corr = np.empty(self.keep, dtype=np.float32)
        shift = np.empty(self.keep, dtype=np.intp)
        sign = np.empty(self.keep, dtype=np.intp)
        for c in range(0, self.keep, CHUNK):
            t = kept[c:c + CHUNK]
            rows = np.arange(t.shape[0])
            best = []
            # _match_polar_to_polar_library_cpu: every shift, the template then its mirror;
            # argmax takes the first best shift
            for start in self.starts:
                cor = np.matmul(self.w[t], runs[start[t]])[:, 0, :]
                at = cor.argmax(axis=1)
                best.append((cor[rows, at], at))
            (cp, sp), (cm, sm) = best
            positive = cp >= cm
            corr[c:c + t.shape[0]] = np.where(positive, cp, cm)
            shift[c:c + t.shape[0]] = np.where(positive, sp, sm)
            sign[c:c + t.shape[0]] = np.where(positive, 1, -1)
        # ties to the template the prefilter ranked first, as anygpu (pyxem's sort is unstable)
        best = np.argsort(-corr, kind='stable')[:n_best]
        return kept[best], corr[best], shift[best], sign[best]

def run():
    global results
    results = [lib.match(f) for f in frames]

say('ready')
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'setup':
        try:
            frames = np.load(os.path.join(folder, 'frames.npy'))
            r, theta = (np.load(os.path.join(folder, f)).astype(np.intp) for f in ('r.npy', 'theta.npy'))
            intensity = np.load(os.path.join(folder, 'intensity.npy'))
            lib = Library(r, theta, intensity, frames.shape[1], frames.shape[2])
            first = timed(run)
        except Exception as e:
            say('skip %s: %s' % (type(e).__name__, e))
            continue
        say('ready %.6f' % first)
    elif cmd[0] == 'hits':
        # the first and last frames' templates and correlations, as template.c checks them
        say('hits ' + ' '.join('%d %.9g' % (i, c) for f in (results[0], results[-1]) for i, c in zip(f[0], f[1])))
    elif cmd[0] == 'round':
        say('time %.6f' % timed(run))
    else:
        frames = lib = results = None
        say('ok')
