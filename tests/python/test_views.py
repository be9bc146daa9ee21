"""The Array's views against numpy's on every device: basic indexing (a table of keys on arrays
of 0 to 5 dimensions, chained views, the keys numpy refuses), .T, .mT, permute_dims,
broadcast_to, expand_dims, squeeze, flip and reshape, writes through views, broadcasting
between shapes, reductions over axes of views, and views as operands and as ``out``."""

import numpy
import pytest

import anygpu
from conftest import assert_close, need_fp64, put

DTYPES = ["float32", "float64", "int32", "uint8", "complex64"]
REAL = ["float32", "float64", "int32", "uint8"]


def sample(dtype, shape):
    """Distinct values in C order (so that a wrong element or order shows), small enough for
    every dtype: 0, 1, 2... (uint8 wraps past 255; floats get a fraction, complex numbers an
    imaginary part of their own)."""
    n = int(numpy.prod(shape, dtype=numpy.int64))
    x = numpy.arange(n).reshape(shape)
    if numpy.dtype(dtype).kind == "f":
        return (x * 0.5 - 3).astype(dtype)
    if numpy.dtype(dtype).kind == "c":
        return (x - 2 + 1j * (n - x)).astype(dtype)
    return (x % 251).astype(dtype)


def same(got, want, what):
    """@got (an Array) holds exactly numpy's @want: shape, dtype and values (views copy
    elements, so no tolerance)."""
    assert isinstance(got, anygpu.Array), what
    assert got.shape == want.shape, (what, got.shape, want.shape)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    numpy.testing.assert_array_equal(got.to_host(), want, err_msg=str(what))


E = Ellipsis
S = slice
# (shape, key): every kind of basic index on 0 to 5 dimensions, each compared with numpy.
KEYS = [
    ((), ()), ((), E), ((), None), ((), (None, E, None)),
    ((5,), 0), ((5,), -1), ((5,), -5), ((5,), 4), ((5,), S(None)), ((5,), S(1, 4)), ((5,), S(None, None, 2)),
    ((5,), S(None, None, -1)), ((5,), S(None, None, -2)), ((5,), S(4, 0, -1)), ((5,), S(-2, None)),
    ((5,), S(-100, 100)), ((5,), S(100, -100, -1)), ((5,), S(3, 1)), ((5,), S(10, 20)), ((5,), S(1, 1)),
    ((5,), S(-1, -6, -2)), ((5,), S(2, None, 7)), ((5,), (None,)), ((5,), (S(1, None, 3), None)), ((5,), (E, 2)),
    ((5,), numpy.int32(-2)), ((5,), S(numpy.int64(1), numpy.uint8(4))),
    ((3, 4), 1), ((3, 4), -3), ((3, 4), (1, -1)), ((3, 4), (S(None), 2)), ((3, 4), (S(None, None, -1), S(1, None, 2))),
    ((3, 4), (None, 1)), ((3, 4), (E, None)), ((3, 4), (E, -1)), ((3, 4), (0, E)), ((3, 4), (0, E, 1)),
    ((3, 4), (S(2, 0, -1), None, S(None, None, -3))), ((3, 4), (S(5, None),)), ((3, 4), (S(None), S(0, 0))),
    ((3, 4), (S(-1, -100, -1), S(-100, -2))), ((3, 4), (numpy.uint8(2), S(numpy.int64(1), None))),
    ((3, 4), numpy.array(-1)), ((3, 4), (S(None, None, 2), numpy.array(3, "uint8"))),
    ((2, 3, 4), (1,)), ((2, 3, 4), (E, 1, S(None, None, -1))), ((2, 3, 4), (S(None, None, -1), E, None)),
    ((2, 3, 4), (-1, -1, -1)), ((2, 3, 4), (None, 0, None, S(1, 3), None)),
    ((2, 3, 4), (S(None), None, S(None, None, 2))),
    ((2, 3, 4), (0, S(None, None, -2))), ((2, 3, 4), E), ((2, 3, 4), (E, S(1, 2), 0)),
    ((2, 1, 3, 2), (S(None), 0)), ((2, 1, 3, 2), (E, S(None, None, -1), 1)), ((2, 1, 3, 2), (1, E, None, 0)),
    ((2, 1, 3, 2), (S(None, None, -1), S(None), S(1, None), S(None, None, -1))),
    ((2, 3, 1, 2, 3), (1, E, S(None, None, -2))), ((2, 3, 1, 2, 3), (S(None), S(None, None, 2), 0, None, -1)),
    ((2, 3, 1, 2, 3), (None, None, None)), ((2, 3, 1, 2, 3), (S(None, None, -1), 1, E, 0, S(1, 2))),
    ((2, 3, 1, 2, 3), (E, S(None, None, -1), None, S(2, None, -2))),
    ((0, 3), (S(None), 1)), ((0, 3), (None, E, S(None, None, -1))), ((3, 0, 2), (1,)),
    ((3, 0, 2), (S(None, None, -1), S(None), 1)), ((3, 0, 2), (S(1, None, 2), S(5, None), None)),
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_keys_as_numpys(dev, dtype):
    """Each key of KEYS gives numpy's view: values, shape and dtype."""
    need_fp64(dev, dtype)
    assert len(KEYS) >= 40
    arrays = {}
    for shape, key in KEYS:
        if shape not in arrays:
            h = sample(dtype, shape)
            arrays[shape] = (h, put(dev, h))
        h, a = arrays[shape]
        same(a[key], h[key], (shape, key))


def test_chained_views_as_numpys(dev):
    h = sample("float32", (4, 6))
    a = put(dev, h)
    same(a[::2].mT[1:, None], h[::2].T[1:, None], "a[::2].T[1:, None]")
    same(a[::-1, 1::2].mT[::-2][..., 0], h[::-1, 1::2].T[::-2][..., 0], "a[::-1, 1::2].T[::-2][..., 0]")
    same(a[None][0, 2:, ::3][1], h[None][0, 2:, ::3][1], "a[None][0, 2:, ::3][1]")
    h3 = sample("int32", (3, 4, 5))
    a3 = put(dev, h3)
    same(anygpu.permute_dims(a3[:, ::-2], (2, 0, 1))[1:, ::2, None][..., 0, :],
         numpy.transpose(h3[:, ::-2], (2, 0, 1))[1:, ::2, None][..., 0, :], "permute_dims then index")
    same(anygpu.flip(a3, 1)[::2].reshape(2, 20), numpy.flip(h3, 1)[::2].reshape(2, 20), "flip, step, reshape")
    same(anygpu.broadcast_to(a3[1, ::2, None, 1], (3, 2, 4))[1, ::-1],
         numpy.broadcast_to(h3[1, ::2, None, 1], (3, 2, 4))[1, ::-1], "broadcast_to then index")


# (shape, key) numpy refuses: the same exception class from anygpu, an AnygpuError whose
# message names the key.
BAD_KEYS = [
    ((3, 4), 1.5), ((3, 4), "a"), ((3, 4), (0, 1.0)), ((3, 4), (E, E)), ((3, 4), (E, 0, E)),
    ((3, 4), (0, 0, 0)), ((3, 4), (None, 0, 0, 0)), ((), 0), ((5,), 5), ((5,), -6), ((3, 4), (0, 4)),
    ((3, 4), (E, -5)), ((3, 4), S(1.0, 2)), ((3, 4), (0, S(None, "x"))), ((3, 4), S(None, None, 0)),
    ((0, 3), 0), ((3, 4), numpy.float32(1)),
]


@pytest.mark.parametrize("shape,key", BAD_KEYS, ids=[repr(k) for _, k in BAD_KEYS])
def test_bad_keys_raise_numpys_class(dev, shape, key):
    h = sample("float32", shape)
    with pytest.raises(Exception) as numpys:
        h[key]
    with pytest.raises(anygpu.AnygpuError, match="anygpu.Array.__getitem__: key") as ours:
        put(dev, h)[key]
    assert isinstance(ours.value, type(numpys.value)), (ours.value, numpys.value)


def test_indices_numpy_takes_but_anygpu_lacks(dev):
    """One integer or boolean array as the whole key is taken (a gather, a mask); arrays among
    other keys, and a bool scalar, are numpy's advanced indexing, which anygpu lacks:
    UnsupportedError naming the key."""
    h = sample("float32", (3, 4))
    a = put(dev, h)
    for key in ([0, 2], numpy.array([True, False, True]), numpy.array([[2, 0], [1, -1]])):
        same(a[key], h[key], "a[%r]" % (key,))
    same(a[a > 0], h[h > 0], "a[a > 0]")
    for key in ((0, [1, 2]), True, (a > 0, 0)):
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.Array.__getitem__: key .*boolean or integer"):
            a[key]
    # numpy has up to 32 dimensions, anygpu 8
    a5 = put(dev, sample("float32", (2, 1, 2, 1, 2)))
    key = (None, S(1, None), S(None), None, E, None)
    same(a5[key], sample("float32", (2, 1, 2, 1, 2))[key], "8 dimensions")
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.Array.__getitem__: key .* makes 9 dimensions"):
        a5[None, ..., None, 0, None, None, None]


@pytest.mark.parametrize("dtype", DTYPES)
def test_transposes_as_numpys(dev, dtype):
    """.T of a 2-D array (a view), .mT of 2 to 5 dimensions and permute_dims of any, as numpy's;
    .T of any other ndim is InvalidArgumentError, as the array API standard says."""
    need_fp64(dev, dtype)
    for shape in ((3, 4), (1, 5), (0, 2)):
        h = sample(dtype, shape)
        a = put(dev, h)
        same(a.T, h.T, (shape, ".T"))
        same(a[::-1, ::2].T, h[::-1, ::2].T, (shape, "[::-1, ::2].T"))
    for shape in ((3, 4), (2, 3, 4), (2, 1, 3, 2), (2, 1, 2, 3, 2)):
        h = sample(dtype, shape)
        a = put(dev, h)
        same(a.mT, numpy.swapaxes(h, -1, -2), (shape, ".mT"))
        perm = tuple(range(len(shape)))[::-1][1:] + (len(shape) - 1,)
        same(anygpu.permute_dims(a, perm), numpy.transpose(h, perm), (shape, perm))
        negative = tuple(p - len(shape) for p in perm)
        same(anygpu.permute_dims(a[..., ::-1], negative), numpy.transpose(h[..., ::-1], perm), (shape, negative))
    for shape in ((), (4,), (2, 3, 4), (1, 2, 1, 2, 1)):
        with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.Array.T: x has %d dimension" % len(shape)):
            put(dev, sample(dtype, shape)).T
    for shape in ((), (4,)):
        with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.Array.mT"):
            put(dev, sample(dtype, shape)).mT
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.permute_dims: axes"):
        anygpu.permute_dims(put(dev, sample(dtype, (2, 3))), (0, 0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_view_functions_as_numpys(dev, dtype):
    """broadcast_to, expand_dims, squeeze and flip (axis None, int, negative, tuple), on arrays
    and on views, against numpy's."""
    need_fp64(dev, dtype)
    h = sample(dtype, (2, 1, 3))
    a = put(dev, h)
    z = put(dev, sample(dtype, ()))
    same(anygpu.broadcast_to(z, (2, 3)), numpy.broadcast_to(z.to_host(), (2, 3)), "0-d to (2, 3)")
    for shape in ((2, 1, 3), (2, 4, 3), (5, 2, 2, 3), (0, 2, 4, 3), (2, 0, 3)):
        same(anygpu.broadcast_to(a, shape), numpy.broadcast_to(h, shape), ("broadcast_to", shape))
    same(anygpu.broadcast_to(a[::-1, :, ::2], (3, 2, 4, 2)), numpy.broadcast_to(h[::-1, :, ::2], (3, 2, 4, 2)),
         "broadcast_to of a view")
    with pytest.raises(ValueError, match="anygpu.broadcast_to"):
        anygpu.broadcast_to(a, (2, 2, 2))
    for axis in (0, 1, 3, -1, -4, (0, 2), (-1, 0), (1, 2, 4)):
        same(anygpu.expand_dims(a, axis), numpy.expand_dims(h, axis), ("expand_dims", axis))
    same(anygpu.expand_dims(a.mT[::-1], (0, -1)), numpy.expand_dims(numpy.swapaxes(h, -1, -2)[::-1], (0, -1)),
         "expand_dims of a view")
    for axis, exc in ((4, ValueError), (-5, ValueError), ((0, 0), ValueError), ((0, 5), ValueError)):
        with pytest.raises(exc):
            numpy.expand_dims(h, axis)
        with pytest.raises(exc, match="anygpu.expand_dims: axis"):
            anygpu.expand_dims(a, axis)
    h4 = sample(dtype, (1, 3, 1, 2))
    a4 = put(dev, h4)
    for axis in (None, 0, 2, -2, (0, 2), (-4, -2), ()):
        same(anygpu.squeeze(a4, axis), numpy.squeeze(h4, axis), ("squeeze", axis))
    same(anygpu.squeeze(a4[:, ::-2, :, 1:]), numpy.squeeze(h4[:, ::-2, :, 1:]), "squeeze of a view")
    with pytest.raises(ValueError):
        numpy.squeeze(h4, 1)
    with pytest.raises(ValueError, match="anygpu.squeeze: axis 1"):
        anygpu.squeeze(a4, 1)
    for axis in (None, 0, 1, -1, (0, 3), (-1, 1, 2), ()):
        same(anygpu.flip(a4, axis), numpy.flip(h4, axis), ("flip", axis))
    same(anygpu.flip(a4[..., ::-1].mT, (1, -1)), numpy.flip(numpy.swapaxes(h4[..., ::-1], -1, -2), (1, -1)),
         "flip of a view")
    same(anygpu.flip(z), numpy.flip(z.to_host()), "flip of 0-d")


@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
def test_reshape_views_and_copies_as_numpys(dev, dtype):
    """reshape is a view where numpy's is (a write through it reaches the parent) and a copy
    where numpy's is (a write through it does not): the parents agree with numpy's after the
    same writes."""
    h = sample(dtype, (4, 6))
    cases = [
        (lambda x: x.reshape(3, 8), "contiguous"),
        (lambda x: x.reshape(2, 2, -1), "contiguous, -1"),
        (lambda x: x[::2].reshape(2, 2, 3), "stepped rows split: a view"),
        (lambda x: x[1:3].reshape(-1), "rows 1 to 2: a view"),
        (lambda x: x[:, ::-1][:, None].reshape(4, 2, 3), "reversed columns split: a view"),
        (lambda x: x.mT.reshape(-1), "transposed: a copy"),
        (lambda x: x[:, ::2].reshape(12), "every other column merged: a view (rows of 3 at a 6 pitch)"),
        (lambda x: x[:, 1:4].reshape(12), "a column range merged: a copy"),
        (lambda x: x[::-1, 1:].reshape(5, 4), "reversed rows merged: a copy"),
    ]
    for f, what in cases:
        want = h.copy()
        a = put(dev, h)
        got_view = f(a)
        want_view = f(want) if "transposed" not in what else want.T.reshape(-1)
        same(got_view, want_view, what)
        want_view[...] = 7
        got_view[...] = 7
        same(a, want, (what, "the parent after a write"))
        assert numpy.shares_memory(want, want_view) == ("a view" in what or "contiguous" in what), what


def test_writes_through_views_as_numpys(dev):
    """a[key] = value (a scalar, an array of the view's shape or one that broadcasts to it) and
    writes into .mT, flip and chained views reach the parent as numpy's do."""
    h = sample("float32", (3, 4, 5))
    a = put(dev, h)
    want = h.copy()
    writes = [
        ((1, S(None, None, -2)), 9.5),
        ((E, 0), numpy.arange(12, dtype="float32").reshape(3, 4)),
        ((S(None), None, 2, S(1, None, 3)), numpy.array([[-1.0, -2.0]], "float32")),
        ((-1, S(None), -1), -4.0),
        ((S(2, 0, -1), 3), [[1.5, 2.5, 3.5, 4.5, 5.5]]),
        ((), 0.25),
    ]
    for key, value in writes:
        a[key] = value
        want[key] = value
        same(a, want, key)
    a.mT[0, ::2] = 11.0
    numpy.swapaxes(want, -1, -2)[0, ::2] = 11.0
    anygpu.flip(a, (0, 2))[0, 1:3] = 12.0
    numpy.flip(want, (0, 2))[0, 1:3] = 12.0
    a[::2][1].mT[::-1, 0] = put(dev, numpy.arange(5, dtype="float32"))
    want[::2][1].T[::-1, 0] = numpy.arange(5, dtype="float32")
    same(a, want, "writes through .mT, flip and chained views")
    i = put(dev, sample("uint8", (2, 3)))
    wi = sample("uint8", (2, 3))
    i[:, ::-1] = put(dev, numpy.array([7, 8, 9], "int32"))  # converted to the view's dtype, as numpy's
    wi[:, ::-1] = numpy.array([7, 8, 9], "int32")
    same(i, wi, "uint8 view from int32")
    with pytest.raises(ValueError):
        numpy.broadcast_to(want[0, 0], (3, 5))[:, 1:3] = 1.0
    with pytest.raises(ValueError, match="anygpu.Array.__setitem__"):
        anygpu.broadcast_to(a[0, 0], (3, 5))[:, 1:3] = 1.0


# ---- broadcasting ----------------------------------------------------------------------------

PAIRS = [((3, 1), (1, 3)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((2, 3), ()), ((0, 3), (1, 3)), ((2, 0), (2, 1)),
         ((4,), (3, 1)), ((1, 2, 1, 3), (2, 1, 3, 1))]


@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcasting_as_numpys(dev, dtype):
    """Binary operations and comparisons between shapes that broadcast, on arrays and on views
    of them, as numpy's (comparisons in bool); shapes that do not are ValueError, as
    numpy's."""
    need_fp64(dev, dtype)
    ops = [("add", numpy.add), ("subtract", numpy.subtract), ("multiply", numpy.multiply), ("equal", numpy.equal),
           ("not_equal", numpy.not_equal)]
    if dtype != "complex64":
        ops += [("greater", numpy.greater), ("maximum", numpy.maximum)]
    scale = 4 if numpy.dtype(dtype).kind in "fc" else 1
    for sa, sb in PAIRS:
        ha, hb = sample(dtype, sa), sample(dtype, sb)
        a, b = put(dev, ha), put(dev, hb)
        if sb:  # b a reversed view
            hb, b = hb[..., ::-1], b[..., ::-1]
        for name, ref in ops:
            want = ref(ha, hb)
            assert_close(getattr(anygpu, name)(a, b), want, dtype, scale)
        assert_close(a + b, ha + hb, dtype, scale)
        assert_close(a < b if dtype != "complex64" else a == b, ha < hb if dtype != "complex64" else ha == hb)
    for sa, sb in (((3, 2), (3,)), ((2, 3, 4), (3, 1, 5)), ((0,), (2,))):
        with pytest.raises(ValueError):
            numpy.add(sample(dtype, sa), sample(dtype, sb))
        with pytest.raises(ValueError, match="anygpu.add: shapes"):
            anygpu.add(put(dev, sample(dtype, sa)), put(dev, sample(dtype, sb)))
        with pytest.raises(ValueError, match="anygpu.less_equal: shapes"):
            anygpu.less_equal(put(dev, sample("float32", sa)), put(dev, sample("float32", sb)))


# ---- reductions over views -------------------------------------------------------------------

AXES = [None, 0, -1, (0, 2), (-1, 1), (2, 0, 1), (), (-3,)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_over_views_as_numpys(dev, dtype):
    """sum, mean, min and max over axis None, ints, negative axes, tuples and (), keepdims or
    not, of transposed, stepped, flipped and broadcast views, as numpy's."""
    need_fp64(dev, dtype)
    h = sample(dtype, (4, 3, 6))
    a = put(dev, h)
    views = [(a, h, "array"), (anygpu.permute_dims(a, (2, 0, 1)), numpy.transpose(h, (2, 0, 1)), "permuted"),
             (a[::-2, :, 1::2], h[::-2, :, 1::2], "stepped"), (a.mT, numpy.swapaxes(h, -1, -2), ".mT"),
             (anygpu.broadcast_to(a[:1, 1:2], (2, 3, 6)), numpy.broadcast_to(h[:1, 1:2], (2, 3, 6)), "broadcast")]
    names = ["sum", "mean"] + (["min", "max"] if dtype != "complex64" else [])
    for x, hx, what in views:
        for name in names:
            for axis in AXES:
                for keepdims in (False, True):
                    if (name == "mean" and dtype in ("int32", "uint8") and not dev.fp64
                            and (axis, keepdims) != (None, False)):
                        # integer means into an Array are float64, which this device lacks
                        with pytest.raises(anygpu.UnsupportedError, match="no double precision"):
                            anygpu.mean(x, axis=axis, keepdims=keepdims)
                        continue
                    want = getattr(numpy, name)(hx, axis=axis, keepdims=keepdims)
                    got = getattr(anygpu, name)(x, axis=axis, keepdims=keepdims)
                    label = (what, name, axis, keepdims)
                    if axis is None and not keepdims:
                        assert isinstance(got, anygpu.Array) and got.shape == (), label
                        # a 0-d Array; an integer mean is the exact total over the count
                        assert_close(got, want, "float64" if want.dtype.kind == "f" and dtype in REAL[2:] else dtype, 8)
                        continue
                    assert got.shape == want.shape, (label, got.shape, want.shape)
                    assert_close(got, want, "float64" if want.dtype.kind == "f" and dtype in REAL[2:] else dtype, 8)
    with pytest.raises(IndexError, match="anygpu.sum: axis 3"):
        anygpu.sum(a.mT, axis=(0, 3))
    with pytest.raises(ValueError, match="anygpu.sum: axis"):
        anygpu.sum(a, axis=(0, -3))


@pytest.mark.parametrize("dtype", DTYPES + ["int8", "int16", "int64", "uint16", "uint32", "uint64", "bool"])
def test_prod_as_numpys(dev, dtype):
    """prod over axis None, ints, tuples and (), keepdims or not, of an array and of permuted,
    stepped and broadcast views, and with numpy's dtype=, as numpy's: integers (and bool) in
    int64 / uint64, wrapping as numpy's do (48 factors up to 3 overflow 64 bits), floats within
    48 factors' rounding."""
    need_fp64(dev, dtype)
    rng = numpy.random.default_rng(7)
    kind = numpy.dtype(dtype).kind
    if kind in "iu":
        h = rng.integers(0 if kind == "u" else -3, 4, (4, 3, 4)).astype(dtype)
    elif kind == "b":
        h = rng.integers(0, 2, (4, 3, 4)).astype(dtype)
        h[0, 0, 0] = h[3, 2, 3] = True
    else:
        h = rng.uniform(0.5, 1.5, (4, 3, 4)).astype(dtype)
        if kind == "c":
            h = (h + 0.4j * rng.uniform(-1, 1, (4, 3, 4))).astype(dtype)
    a = put(dev, h)
    views = [(a, h), (anygpu.permute_dims(a, (2, 0, 1)), numpy.transpose(h, (2, 0, 1))),
             (a[::-2, :, 1::2], h[::-2, :, 1::2]), (anygpu.broadcast_to(a[:1, 1:2], (2, 3, 4)),
                                                     numpy.broadcast_to(h[:1, 1:2], (2, 3, 4)))]
    for x, hx in views:
        for axis in AXES:
            for keepdims in (False, True):
                want = numpy.prod(hx, axis=axis, keepdims=keepdims)
                got = anygpu.prod(x, axis=axis, keepdims=keepdims)
                assert got.shape == want.shape, (axis, keepdims, got.shape, want.shape)  # 0-d for axis None
                assert_close(got, want, want.dtype, 48)
    if kind in "iu":
        for dt in ("int32", "uint8") + (("float64",) if dev.fp64 else ()):
            assert_close(anygpu.prod(a, axis=(0, 2), dtype=dt), numpy.prod(h, axis=(0, 2), dtype=dt), dt, 48)
        assert_close(anygpu.prod(a, dtype="int16"), numpy.prod(h, dtype="int16"), "int16")
    assert_close(anygpu.prod(a[:0], axis=0), numpy.prod(h[:0], axis=0))  # empty: ones
    with pytest.raises(TypeError, match="anygpu.prod: keyword initial"):
        anygpu.prod(a, initial=2)


# ---- views as operands and as out ------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_views_as_operands_and_out(dev, dtype):
    """Elementwise operations read views and write into views given as ``out`` (a stepped,
    transposed or flipped part of a larger array, the rest untouched), and reductions write
    into a view given as ``out``, as numpy's with the same out."""
    need_fp64(dev, dtype)
    h = sample(dtype, (4, 6))
    a = put(dev, h)
    big = put(dev, numpy.zeros((6, 8), dtype))
    want = numpy.zeros((6, 8), dtype)
    anygpu.add(a[::2], a[1::2, ::-1], out=big[1:5:2, 1:7])
    numpy.add(h[::2], h[1::2, ::-1], out=want[1:5:2, 1:7])
    same(big, want, "add into big[1:5:2, 1:7]")
    anygpu.multiply(a.mT[::2], a.mT[1::2], out=big.mT[1:4, ::-1][:, :4])
    numpy.multiply(h.T[::2], h.T[1::2], out=want.T[1:4, ::-1][:, :4])
    same(big, want, "multiply into big.mT[1:4, ::-1][:, :4]")
    anygpu.multiply(a[:, 1], 2, out=anygpu.flip(big[5, :4]))
    numpy.multiply(h[:, 1], numpy.array(2, dtype), out=numpy.flip(want[5, :4]))
    anygpu.conj(a[1:3, ::-2].mT, out=big[2:5, 5:7])
    numpy.conj(h[1:3, ::-2].T, out=want[2:5, 5:7])
    same(big, want, "multiply and conj into views")
    b = big[::2, ::-3]
    b += put(dev, sample(dtype, (3,)))  # in place: the view itself is out
    want[::2, ::-3] += sample(dtype, (3,))
    same(big, want, "+= on a view")
    anygpu.sum(a, axis=0, out=big[0, 2:])
    numpy.sum(h, axis=0, out=want[0, 2:])
    if dtype != "complex64":
        anygpu.max(a.mT, axis=-1, keepdims=True, out=big[:, ::-2][:, :1])
        numpy.max(h.T, axis=-1, keepdims=True, out=want[:, ::-2][:, :1])
    same(big, want, "reductions into views")
