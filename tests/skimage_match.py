#!/usr/bin/env python3
"""tests/skimage_match.py - scikit-image's normalised cross-correlation of a stack of images with a
template, for tests/test_template.c to compare with anygpu's ag_match_template.

usage: skimage_match.py IMAGE TEMPLATE PAD CONSTANT OUT

IMAGE is a .npy stack [B, H, W] and TEMPLATE a .npy [h, w], of one dtype (float32 or float64);
PAD is 0 or 1 (pad_input), CONSTANT the padding value (mode "constant"). Writes to OUT, as .npy,
skimage.feature.match_template(IMAGE[b], TEMPLATE, pad_input=PAD, mode="constant",
constant_values=CONSTANT) for every frame b, stacked. Prints scikit-image's version. Exits 2 on
bad arguments, 1 when scikit-image fails.
"""
import sys


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    import numpy
    import skimage
    from skimage.feature import match_template

    image = numpy.load(argv[1])
    template = numpy.load(argv[2])
    pad = argv[3] == "1"
    constant = float(argv[4])
    frames = [match_template(frame, template, pad_input=pad, mode="constant", constant_values=constant)
              for frame in image]
    numpy.save(argv[5], numpy.ascontiguousarray(numpy.stack(frames)))
    sys.stdout.write(skimage.__version__ + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
