"""Devices, the default-device scope, errors as exceptions, and arrays to and from the host."""

import ctypes
import sys

import numpy
import pytest

import anygpu
from conftest import DEVICES, need_fp64

ALL_DTYPES = ["uint8", "uint16", "uint32", "int32", "float32", "float64", "complex64", "complex128", "bool", "int8",
              "int16", "int64", "uint64"]


def test_devices_start_with_the_host_and_have_distinct_specs():
    specs = [d.spec for d in DEVICES]
    assert specs[0] == "host"
    assert len(set(specs)) == len(specs)
    for d in DEVICES:
        assert anygpu.device(d.spec) == d
        assert d.backend in ("host", "opencl", "cuda")
        assert d.info["spec"] == d.spec


def test_a_device_that_is_not_there_raises_no_device_with_the_library_message():
    with pytest.raises(anygpu.NoDeviceError) as e:
        anygpu.device("cuda:7")
    assert e.value.status == "AG_ERR_NO_DEVICE"
    assert e.value.message.startswith("anygpu.device: no device matches") and "cuda:7" in e.value.message
    assert e.value.library_message.startswith("ag_device_select: ")  # the C library's own words
    assert str(e.value) == "AG_ERR_NO_DEVICE: " + e.value.message
    assert isinstance(e.value, LookupError)


def test_a_malformed_spec_raises_invalid_argument():
    with pytest.raises(anygpu.InvalidArgumentError) as e:
        anygpu.device("opencl:")
    assert e.value.status == "AG_ERR_INVALID_ARGUMENT"
    assert e.value.message.startswith("anygpu.device: ")
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.device: spec"):
        anygpu.device(3)


def test_with_scope_sets_the_default_device_and_restores_it(dev):
    outer = anygpu.default_device()
    with anygpu.device(dev.spec) as d:
        assert d == dev
        assert anygpu.default_device() == dev
        assert anygpu.asarray([1.0, 2.0]).device == dev
        with anygpu.device("host"):
            assert anygpu.asarray([1.0]).device.spec == "host"
        assert anygpu.default_device() == dev
    assert anygpu.default_device() == outer


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_asarray_and_back_keep_values_shape_and_dtype(dev, dtype):
    need_fp64(dev, dtype)
    rng = numpy.random.default_rng(1)
    host = (rng.random((3, 5, 2)) * 200).astype(dtype)
    if host.dtype.kind == "c":
        host = host + 1j * host[::-1].astype(dtype)
    a = anygpu.asarray(host, device=dev)
    assert a.shape == (3, 5, 2) and a.ndim == 3 and a.size == 30
    assert a.dtype == host.dtype and a.device == dev
    assert a.nbytes == host.nbytes
    numpy.testing.assert_array_equal(a.to_host(), host)
    numpy.testing.assert_array_equal(numpy.asarray(a), host)
    numpy.testing.assert_array_equal(anygpu.to_host(a), host)


def test_asarray_converts_dtype_lists_scalars_and_non_contiguous_input(dev):
    a = anygpu.asarray([[1, 2], [3, 4]], device=dev, dtype="float32")
    assert a.dtype == numpy.float32
    numpy.testing.assert_array_equal(numpy.asarray(a), [[1, 2], [3, 4]])
    s = anygpu.asarray(numpy.float32(2.5), device=dev)
    assert s.shape == () and numpy.asarray(s)[()] == 2.5  # a 0-d array, as numpy.asarray gives
    t = numpy.arange(12, dtype="int32").reshape(3, 4).T
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.asarray(t, device=dev)), t)
    b = anygpu.asarray(bytearray(b"\x01\x02\x03"), device=dev)
    assert b.dtype == numpy.uint8
    numpy.testing.assert_array_equal(numpy.asarray(b), [1, 2, 3])


def test_arrays_move_between_devices(dev):
    host = numpy.arange(10, dtype="float32")
    a = anygpu.asarray(host, device="host")
    b = a.to_device(dev)
    assert b.device == dev
    assert anygpu.asarray(a, device=dev).device == dev
    assert anygpu.asarray(b) is b
    numpy.testing.assert_array_equal(numpy.asarray(b.copy()), host)


def test_empty_arrays_are_valid(dev):
    a = anygpu.empty((0, 3), "float32", device=dev)
    assert a.shape == (0, 3) and a.size == 0
    assert numpy.asarray(a).shape == (0, 3)


def test_bad_shapes_and_dtypes_raise_named_errors(dev):
    with pytest.raises(anygpu.UnsupportedError, match="float16 has no anygpu counterpart"):
        anygpu.asarray(numpy.zeros(3, dtype="float16"), device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.empty: shape .* 9 dimensions; anygpu arrays have 0 to 8"):
        anygpu.empty((1,) * 9, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="negative"):
        anygpu.empty((2, -1), device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="not a dtype"):
        anygpu.empty(3, dtype="no such type", device=dev)


def test_events_time_device_work_and_order_it(dev):
    a = anygpu.asarray(numpy.ones(1000, dtype="float32"), device=dev)
    start = anygpu.Event(dev)
    b = a.copy()
    end = anygpu.Event.record(dev)
    end.synchronize()
    if "no-profiling" in dev.info["quirks"]:
        # A driver without command timestamps (rusticl 22) is refused, never timed as 0.
        with pytest.raises(anygpu.UnsupportedError, match="^AG_ERR_UNSUPPORTED: anygpu.Event.elapsed_time: "):
            start.elapsed_time(end)
    else:
        assert start.elapsed_time(end) >= 0.0
    numpy.testing.assert_array_equal(numpy.asarray(b), numpy.ones(1000, dtype="float32"))


def test_structures_move_to_the_device_and_back_as_flux_gpu_and_cpu(dev):
    model = {"W": numpy.eye(3, dtype="float32"), "layers": [numpy.arange(2.0, dtype="float32"), "relu"],
             "b": (numpy.zeros(2, dtype="float32"), 3)}
    on = anygpu.to_device(model, dev)
    assert isinstance(on["W"], anygpu.Array) and on["W"].device == dev
    assert on["layers"][1] == "relu" and on["b"][1] == 3
    back = anygpu.to_host(on)
    numpy.testing.assert_array_equal(back["W"], model["W"])
    numpy.testing.assert_array_equal(back["layers"][0], model["layers"][0])
    assert isinstance(back["b"], tuple)
    single = anygpu.to_device(numpy.ones(2, dtype="float32"), dev)
    assert isinstance(single, anygpu.Array)
    numpy.testing.assert_array_equal(anygpu.to_host(single), [1, 1])


@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_asarray_takes_either_byte_order(dev, dtype, order):
    """numpy data in either byte order (a big-endian '>f4' file, say) reaches the device as its
    values: asarray swaps what is not in the machine's order before C reads the bytes."""
    need_fp64(dev, dtype)
    want = (numpy.arange(-3, 9) * 37).astype(dtype).reshape(3, 4)
    if want.dtype.kind == "c":
        want = want + 1j * want[::-1].astype(dtype)
    src = want.astype(want.dtype.newbyteorder(order))
    assert src.dtype.byteorder in ("=", "|", order) and numpy.array_equal(src, want)
    for a in (anygpu.asarray(src, device=dev), anygpu.asarray(src[:, ::2], device=dev),  # strided too
              anygpu.asarray(want, device=dev, dtype=want.dtype.newbyteorder(order))):
        assert a.dtype == want.dtype and a.dtype.isnative
    numpy.testing.assert_array_equal(anygpu.asarray(src, device=dev).to_host(), want)
    numpy.testing.assert_array_equal(anygpu.asarray(src[:, ::2], device=dev).to_host(), want[:, ::2])


def test_python_integers_and_bools_become_int64_and_bool(dev):
    """As in numpy: Python integers make int64 arrays, bools bool ones, numpy.arange int64."""
    a = anygpu.asarray([1, -2, 3], device=dev)
    assert a.dtype == numpy.int64
    numpy.testing.assert_array_equal(a.to_host(), [1, -2, 3])
    s = anygpu.asarray(3, device=dev)
    assert s.dtype == numpy.int64 and s.shape == () and int(s) == 3  # 0-d, as numpy
    edge = anygpu.asarray([[2 ** 63 - 1], [-2 ** 63]], device=dev)
    numpy.testing.assert_array_equal(edge.to_host(), [[2 ** 63 - 1], [-2 ** 63]])
    r = anygpu.asarray(numpy.arange(3), device=dev)
    assert r.dtype == numpy.int64
    numpy.testing.assert_array_equal(r.to_host(), [0, 1, 2])
    b = anygpu.asarray([True, False, True], device=dev)
    assert b.dtype == numpy.bool_
    numpy.testing.assert_array_equal(b.to_host(), [True, False, True])
    big = numpy.array([0, 2 ** 64 - 1], "uint64")
    numpy.testing.assert_array_equal(anygpu.asarray(big, device=dev).to_host(), big)


def test_shape_lengths_are_integers_that_fit(dev):
    """Shape lengths go through operator.index (numpy integers work, floats do not) and must
    fit a size_t: ctypes would keep the low bits of 2**64 + 5 and make an array of 5."""
    assert anygpu.ones(numpy.int64(3), device=dev).shape == (3,)
    assert anygpu.zeros((numpy.uint8(2), numpy.int32(3)), device=dev).shape == (2, 3)
    assert anygpu.empty([2, 3], device=dev).reshape(numpy.int64(3), 2).shape == (3, 2)
    for shape in ((2 ** 64 + 5,), (3, 2 ** 64)):
        with pytest.raises(anygpu.OutOfRangeError, match="anygpu.zeros: shape .* past 18446744073709551615"):
            anygpu.zeros(shape, device=dev)
    with pytest.raises(anygpu.OutOfRangeError, match="anygpu.zeros: .*overflow"):
        anygpu.zeros((2 ** 40, 2 ** 40), device=dev)
    with pytest.raises(anygpu.OutOfRangeError, match="anygpu.empty: .*overflow"):
        anygpu.empty((0, 2 ** 63), "float32", device=dev)  # as numpy: an empty array's lengths too
    for bad in (2.0, (2, 3.0), "3", None):
        with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.empty: shape"):
            anygpu.empty(bad, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.Array.reshape: shape"):
        anygpu.ones(6, device=dev).reshape(2.0, 3)


def test_result_type_is_numpys_for_every_pair():
    """ag_result_type, the C library's promotion, gives numpy's result_type for every pair of
    anygpu's dtypes (the array API's table, and numpy's choices where the standard has none)."""
    from anygpu._lib import AG_DTYPE, DTYPES, fn
    result_type = fn("ag_result_type", [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)])
    for a in DTYPES:
        for b in DTYPES:
            got = ctypes.c_int(-1)
            result_type(AG_DTYPE[a], AG_DTYPE[b], ctypes.byref(got))
            assert DTYPES[got.value] == numpy.result_type(a, b).name, (a, b)


def test_an_array_freed_at_interpreter_exit_raises_nothing(monkeypatch):
    """At exit the interpreter sets a module's globals to None before it frees the last arrays
    (hypothesis's caches held some): __del__ then frees nothing rather than raising."""
    from anygpu import _core
    x = anygpu.asarray([1.0, 2.0], device=DEVICES[0])
    ptr, free = x._ptr, _core._array_free
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    monkeypatch.setattr(_core, "_array_free", None)
    del x
    monkeypatch.undo()
    free(ptr)  # what the exiting process would not need to do
    assert not seen, [str(u.exc_value) for u in seen]
