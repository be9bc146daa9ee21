#!/usr/bin/env python3
"""fuzz/make_corpus.py - writes the fuzz targets' seed corpora (fuzz/corpus/<target>/), valid
files and invalid ones, about 40 KB in all (an HDF5 file takes 2 to 5 KB). The files are in
the tree; this script says how they were made and makes them again (Debian's python3 with
numpy and h5py, and the bitshuffle and hdf5-plugin-lzf packages for the compressed datasets).
Files it does not write, findings kept as regressions (docs/fuzzing.md), are left as they are.

usage: make_corpus.py [CORPUS_DIR]   (default: corpus/ beside this script)
"""
import io
import os
import struct
import sys


def npy_seeds(np):
    def save(a, version=None):
        f = io.BytesIO()
        np.lib.format.write_array(f, a, version=version)
        return f.getvalue()

    def by_hand(header, data, version=(1, 0)):
        text = header.encode("latin-1")
        length = struct.pack("<H" if version[0] == 1 else "<I", len(text))
        return b"\x93NUMPY" + bytes(version) + length + text + data

    f4 = np.array([[1.5, -2, 0], [3e38, 1e-38, -0.0]], np.float32)
    return {
        "f4_2x3.npy": save(f4),
        "u2_stack.npy": save(np.arange(12, dtype=np.uint16).reshape(2, 2, 3)),
        "u1_scalar.npy": save(np.array(7, np.uint8)),
        "i4_empty.npy": save(np.zeros((0, 3), np.int32)),
        "u4_v2.npy": save(np.array([1, 2**32 - 1], np.uint32), version=(2, 0)),
        "f8_v3.npy": save(np.array([0.25, -1e300]), version=(3, 0)),
        "spaced.npy": by_hand(" \t{ 'shape' :( 2 ,\n) , \"descr\":'<f4','fortran_order':False ,}\f \n", f4.tobytes()[:8]),
        "big_endian.npy": save(f4.astype(">f4")),
        "fortran.npy": save(np.asfortranarray(f4)),
        "twice.npy": by_hand("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'shape': (3, 2), }\n",
                             f4.tobytes()),
        "cut.npy": save(f4)[:-5],
        "not_npy.npy": b"\x93NUMPX\x01\x00{}",
    }


PONI2 = """# Nota: C-Order, 1 refers to the Y axis, 2 to the X axis
# Calibration done at Sat Nov 28 06:42:48 2026
poni_version: 2
Detector: Detector
Detector_config: {"pixel1": 0.0001, "pixel2": 0.0001, "max_shape": [48, 64]}
Distance: 0.05
Poni1: 0.0021
Poni2: 0.0033
Rot1: 0.05
Rot2: -0.03
Rot3: 0.2
Wavelength: 1e-10
"""

PONI_SEEDS = {
    "v2.poni": PONI2,
    "v2_pilatus.poni": PONI2.replace("Detector: Detector", "Detector: Pilatus1M").replace(
        'Detector_config: {"pixel1": 0.0001, "pixel2": 0.0001, "max_shape": [48, 64]}', "Detector_config: {}"),
    "v2_null_shape.poni": PONI2.replace("[48, 64]", "null"),
    "v1.poni": "PixelSize1: 0.0001\nPixelSize2: 0.0001\nDistance: 0.1\nPoni1: 0.02\nPoni2: 0.03\n"
               "Rot1: 0\nRot2: 0\nRot3: 0\nWavelength: 1e-10\nSplineFile: None\n",
    "no_distance.poni": PONI2.replace("Distance: 0.05\n", ""),
    "bad_number.poni": PONI2.replace("Rot2: -0.03", "Rot2: -0.03x"),
    "bad_json.poni": PONI2.replace('"max_shape": [48, 64]}', '"max_shape": [48, 64'),
    "version9.poni": PONI2.replace("poni_version: 2", "poni_version: 9"),
}


def hdf5_seeds(np, h5py, folder):
    """fuzz/hdf5_file.c's inputs: HDF5 files with a dataset /data, written with h5py."""
    rng = np.random.default_rng(3)
    stack = rng.poisson(2.0, size=(3, 4, 5)).astype(np.uint16)
    files = {
        "u2_stack.h5": lambda f: f.create_dataset("data", data=stack),
        "f4_frame_gzip.h5": lambda f: f.create_dataset("data", data=stack[0].astype(np.float32), chunks=(2, 5),
                                                       compression="gzip", shuffle=True),
        "i4_chunked.h5": lambda f: f.create_dataset("data", data=stack.astype(np.int32), chunks=(1, 4, 5),
                                                    fletcher32=True),
        "u1_lzf.h5": lambda f: f.create_dataset("data", data=stack.astype(np.uint8), chunks=(1, 4, 5),
                                                compression="lzf"),
        "u2_bitshuffle_lz4.h5": lambda f: f.create_dataset("data", data=stack, chunks=(1, 4, 5), compression=32008,
                                                           compression_opts=(0, 2)),
        "f8_big_endian.h5": lambda f: f.create_dataset("data", data=stack.astype(">f8")[:2]),
        "u2_4d.h5": lambda f: f.create_dataset("data", data=stack.reshape(1, 3, 4, 5)),
        "group.h5": lambda f: f.create_group("data"),
    }
    out = {}
    for name, make in files.items():
        path = os.path.join(folder, name)
        # HDF5's oldest formats (h5py's default): their superblock and object headers carry no
        # checksum, so a mutation reaches the reader instead of failing the checksum.
        with h5py.File(path, "w", libver="earliest") as f:
            make(f)
        with open(path, "rb") as f:
            out[name] = f.read()
        os.remove(path)
    return out


def hdf5_descriptions():
    """fuzz/hdf5.c's inputs: each byte a choice, in the order hdf5.c takes them (where, latest
    format, rank, dimensions, type, storage, chunk, filters, batch, whether data is written),
    then the data. Type indices: 0 u8, 1 u16, 2 >u2, 6 >i4, 8 >f4, 19 a compound."""
    data = bytes(range(7, 250, 3))
    return {
        "u2_stack.bin": bytes([0, 0, 3, 3, 4, 5, 1, 0, 1, 1]) + data,
        "f4be_frame_gzip_shuffle.bin": bytes([0, 1, 2, 4, 6, 8, 3, 1, 2, 2, 0, 4, 1, 0, 1]) + data,
        "i4be_in_group_chunked.bin": bytes([1, 0, 3, 2, 3, 3, 6, 2, 0, 1, 2, 2, 3]) + data,
        "u2_missing_bitshuffle.bin": bytes([0, 0, 3, 2, 3, 3, 1, 3, 0, 0, 0, 1, 3, 4, 0, 1]) + data,
        "u2_2e62_frames.bin": bytes([0, 0, 3, 252, 4, 4, 1, 2, 0, 0, 0, 0, 0]),
        "u1_2e20_frames.bin": bytes([0, 0, 3, 248, 3, 3, 0, 2, 0, 2, 2, 2, 0]),
        "u1_soft_link_compact.bin": bytes([4, 0, 2, 5, 5, 0, 1, 0, 1]) + data,
        "compound.bin": bytes([0, 0, 2, 3, 3, 19, 0, 0, 1]) + data,
        "u2_4d.bin": bytes([0, 0, 4, 2, 2, 3, 3, 1, 0, 0, 1]) + data,
        "group_at_data.bin": bytes([3, 0, 2, 3, 3, 1, 0, 0, 1]) + data,
        "external_link.bin": bytes([6, 0, 2, 3, 3, 1, 0, 0, 1]) + data,
    }


def main(argv):
    import numpy as np
    import h5py
    corpus = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    seeds = {"npy": npy_seeds(np), "poni": {k: v.encode() for k, v in PONI_SEEDS.items()}}
    seeds["hdf5"] = hdf5_descriptions()
    os.makedirs(os.path.join(corpus, "hdf5-file"), exist_ok=True)
    seeds["hdf5-file"] = hdf5_seeds(np, h5py, os.path.join(corpus, "hdf5-file"))
    total = 0
    for target, files in seeds.items():
        folder = os.path.join(corpus, target)
        os.makedirs(folder, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
            total += len(data)
    print("%d files, %d bytes" % (sum(len(f) for f in seeds.values()), total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
