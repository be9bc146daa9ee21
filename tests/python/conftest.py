"""pytest fixtures for the anygpu package's tests: `dev` runs a test once on every device
present (host, each OpenCL device, each CUDA device), named by its spec in the test id, and
`tol` gives the tolerance each dtype is held to."""

import numpy
import pytest

import anygpu

DEVICES = anygpu.devices()


@pytest.fixture(params=DEVICES, ids=[d.spec for d in DEVICES])
def dev(request):
    return request.param


# Relative tolerance per dtype against numpy's double-precision answer (or an exact answer for
# integers): f32 and c64 carry about 7 digits and reductions and FFTs lose a few more to the
# order of summation; f64 and c128 about 16.
RTOL = {
    "uint8": 0, "uint16": 0, "uint32": 0, "uint64": 0, "int8": 0, "int16": 0, "int32": 0, "int64": 0, "bool": 0,
    "float32": 2e-5, "complex64": 2e-5,
    "float64": 1e-12, "complex128": 1e-12,
}


def tol(dtype):
    return RTOL[numpy.dtype(dtype).name]


def need_fp64(dev, dtype):
    """Skips (with the reason) a double-precision case on a device without fp64 (rusticl)."""
    if numpy.dtype(dtype).name in ("float64", "complex128") and not dev.fp64:
        pytest.skip("%s has no double precision" % dev.spec)


def put(dev, values, dtype=None):
    """An anygpu array of @values on @dev (in @dtype when given)."""
    return anygpu.asarray(numpy.asarray(values, dtype=dtype), device=dev)


def assert_close(got, want, dtype=None, scale=1):
    """@got (an Array or a value) equals numpy's @want: exactly for integer dtypes, else within
    tol(dtype) * @scale relative to the largest magnitude of @want; dtypes must agree too."""
    want = numpy.asarray(want)
    dtype = numpy.dtype(dtype or want.dtype)
    if isinstance(got, anygpu.Array):
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    got = numpy.asarray(got)
    rtol = tol(dtype) * scale
    atol = rtol * (float(numpy.nanmax(numpy.abs(want))) if want.size else 0)
    numpy.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def normal(dtype, shape, seed=0):
    """Standard normal values of @shape in @dtype (complex: both parts drawn)."""
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)
