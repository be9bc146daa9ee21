"""Array conversions, views (reshape, indexing, slicing), assignment, creation and scalar
conversions on every device, against numpy."""

import numpy
import pytest

import anygpu
from conftest import assert_close, need_fp64, put

DTYPES = ["uint8", "uint16", "uint32", "int32", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_astype(dev, src, dst):
    need_fp64(dev, src)
    need_fp64(dev, dst)
    a = numpy.arange(1, 7, dtype=src).reshape(2, 3)
    x = put(dev, a)
    if src.startswith("complex") and not dst.startswith("complex"):
        with pytest.raises(anygpu.UnsupportedError):
            x.astype(dst)
        return
    got = anygpu.astype(x, dst)
    assert_close(got, a.astype(dst))
    assert got is not x
    assert_close(anygpu.asarray(x, dtype=dst), a.astype(dst))


def test_reshape_views_share_memory(dev):
    a = numpy.arange(24, dtype="float32")
    x = put(dev, a)
    v = x.reshape(2, -1, 4)
    assert v.shape == (2, 3, 4)
    assert anygpu.reshape(x, (4, 6)).shape == (4, 6)
    assert x.ravel().shape == (24,)
    v[1] = -1.0  # write through the view, read the parent
    a[12:] = -1
    assert_close(x, a)
    del x  # the view keeps the memory alive
    assert_close(v, a.reshape(2, 3, 4))
    with pytest.raises(anygpu.MismatchError, match="anygpu.Array.reshape: cannot reshape"):
        v.reshape(-1, 5)
    with pytest.raises(anygpu.MismatchError):
        v.reshape(5, 5)
    with pytest.raises(anygpu.InvalidArgumentError, match="more than one -1"):
        v.reshape(-1, -1)


def test_indexing(dev):
    a = numpy.arange(60, dtype="int32").reshape(3, 4, 5)
    x = put(dev, a)
    assert_close(x[1], a[1])
    assert_close(x[-1], a[-1])
    assert_close(x[1, 2], a[1, 2])
    assert_close(x[2, -1, 1:4], a[2, -1, 1:4])
    assert_close(x[1:3], a[1:3])
    assert_close(x[:-1, :], a[:-1, :])
    assert_close(x[..., :, :], a)
    assert_close(x[1, ...], a[1])
    assert x[5:].shape == (0, 4, 5)
    assert x[0, 0, 3].shape == ()  # as numpy: a 0-d view
    assert int(x[0, 0, 3]) == 3
    assert len(x) == 3
    assert [int(r.sum()) for r in x] == [int(r.sum()) for r in a]  # iteration ends at IndexError
    with pytest.raises(IndexError, match="index 3 is out of range for axis 0, of length 3"):
        x[3]
    with pytest.raises(IndexError, match="index -4"):
        x[-4]
    assert_close(x[::2], a[::2])  # steps and selections after a slice are views now
    assert_close(x[1:2, 3], a[1:2, 3])
    assert_close(x[[0, 1]], a[[0, 1]])  # one integer array as the key: a gather
    with pytest.raises(anygpu.UnsupportedError, match="not with boolean or integer arrays"):
        x[0, [0, 1]]
    with pytest.raises(anygpu.OutOfRangeError, match="4 indices for 3 dimensions"):
        x[0, 0, 0, 0]


def test_setitem(dev):
    a = numpy.zeros((3, 4), dtype="float32")
    x = put(dev, a)
    x[1] = 5
    a[1] = 5
    x[0, 1:3] = [7, 8]  # a list, converted to the view's dtype
    a[0, 1:3] = [7, 8]
    x[2] = put(dev, numpy.arange(4, dtype="int32"))  # converted to the view's dtype
    a[2] = numpy.arange(4)
    x[:] = x + 1  # the whole array
    a[:] = a + 1
    x[1:] = put(dev, numpy.full(4, 9, dtype="float32"))  # broadcast over the rows
    a[1:] = 9
    assert_close(x, a)
    c = put(dev, numpy.zeros(3, dtype="complex64"))
    c[1] = 2 - 1j
    assert_close(c, numpy.array([0, 2 - 1j, 0], dtype="complex64"))


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64", "complex64"])
def test_creation(dev, dtype):
    need_fp64(dev, dtype)
    assert_close(anygpu.zeros((2, 3), dtype, dev), numpy.zeros((2, 3), dtype))
    assert_close(anygpu.ones(4, dtype, dev), numpy.ones(4, dtype))
    assert_close(anygpu.full((2, 2), 7, dtype, dev), numpy.full((2, 2), 7, dtype))
    x = anygpu.full((3,), 2, dtype, dev)
    for like, want in ((anygpu.zeros_like(x), numpy.zeros(3, dtype)), (anygpu.ones_like(x), numpy.ones(3, dtype)),
                       (anygpu.full_like(x, 5), numpy.full(3, 5, dtype))):
        assert like.device == dev
        assert_close(like, want)
    e = anygpu.empty_like(x, dtype="uint16")
    assert (e.shape, e.dtype, e.device) == ((3,), numpy.dtype("uint16"), dev)


def test_creation_defaults(dev):
    with dev:
        assert anygpu.zeros(3).dtype == numpy.float32
        assert anygpu.full(3, 1j).dtype == numpy.complex64
        assert anygpu.full(3, 1.5).device == dev
    with pytest.raises(anygpu.InvalidArgumentError):
        anygpu.full(3, 1.5, "int32", dev)  # never rounded into an integer array


def test_scalars(dev):
    x = put(dev, [2.5])
    assert x.item() == 2.5
    assert float(x) == 2.5 and int(x) == 2 and complex(x) == 2.5
    assert bool(x) and not bool(put(dev, [0.0]))
    with pytest.raises(anygpu.InvalidArgumentError, match="an array of 3 elements has no single value"):
        bool(put(dev, [1.0, 2.0, 3.0]))
    with pytest.raises(TypeError):
        hash(x)
