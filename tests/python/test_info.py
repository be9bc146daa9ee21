"""The array API standard's inspection object, anygpu.__array_namespace_info__(): the dtypes of
each kind against numpy's, float64 and complex128 left out on a device without double
precision, the default dtypes the creation functions really give, the devices, the
capabilities, and the arguments each method refuses."""

import os
import re

import numpy
import pytest

import anygpu
from conftest import DEVICES

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
         "complex64", "complex128"]
# Each kind's dtypes as the standard lists them, by numpy's kind letters.
KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu", "real floating": "f",
         "complex floating": "c", "numeric": "iufc"}
INFO = anygpu.__array_namespace_info__()
WHO = "anygpu.__array_namespace_info__"


def want(dev, kinds):
    """The standard's dtypes of any of @kinds (numpy kind letters) that @dev computes in."""
    return [n for n in NAMES if numpy.dtype(n).kind in kinds and (dev.fp64 or n not in ("float64", "complex128"))]


def test_it_is_the_standard_s_namespace():
    assert callable(anygpu.__array_namespace_info__)
    for method in ("capabilities", "default_device", "default_dtypes", "dtypes", "devices"):
        assert callable(getattr(INFO, method)), method
    assert repr(INFO) == "anygpu.__array_namespace_info__()"


def test_dtypes_of_every_kind(dev):
    everything = INFO.dtypes(device=dev)
    assert list(everything) == want(dev, "biufc")
    for name, dt in everything.items():
        assert dt == numpy.dtype(name) and dt is getattr(anygpu, name)
    for kind, letters in KINDS.items():
        got = INFO.dtypes(device=dev, kind=kind)
        assert list(got) == want(dev, letters), kind
        assert all(got[n] == numpy.dtype(n) for n in got)
    assert list(INFO.dtypes(device=dev, kind=("bool", "complex floating"))) == want(dev, "bc")
    assert list(INFO.dtypes(device=dev, kind=("signed integer", "integral"))) == want(dev, "iu")
    assert INFO.dtypes(device=dev, kind=()) == {}


def test_double_precision_only_where_the_device_has_it(dev):
    names = set(INFO.dtypes(device=dev))
    assert ({"float64", "complex128"} <= names) == dev.fp64
    assert names.isdisjoint({"float64", "complex128"}) == (not dev.fp64)
    assert len(names) == (13 if dev.fp64 else 11)


def test_device_none_means_the_default_device(dev):
    with anygpu.device(dev.spec):
        assert INFO.default_device() == dev
        assert INFO.dtypes() == INFO.dtypes(device=dev)
        assert INFO.dtypes(kind="real floating") == INFO.dtypes(device=dev, kind="real floating")
        assert INFO.default_dtypes() == INFO.default_dtypes(device=dev)
    assert INFO.default_device() == anygpu.default_device()


def test_default_dtypes_are_what_the_creation_functions_give(dev):
    got = INFO.default_dtypes(device=dev)
    assert got == {"real floating": anygpu.float32, "complex floating": anygpu.complex64,
                   "integral": anygpu.int64, "indexing": anygpu.int64}
    real, cplx, integral, index = (got[k] for k in ("real floating", "complex floating", "integral", "indexing"))
    for kind, dt in got.items():
        assert dt.name in INFO.dtypes(device=dev), kind
    assert anygpu.zeros(2, device=dev).dtype == real
    assert anygpu.ones(2, device=dev).dtype == real
    assert anygpu.empty(2, device=dev).dtype == real
    assert anygpu.full(2, 1.5, device=dev).dtype == real
    assert anygpu.arange(0.5, 3, device=dev).dtype == real
    assert anygpu.linspace(0, 1, 3, device=dev).dtype == real
    assert anygpu.eye(2, device=dev).dtype == real
    assert anygpu.full(2, 1j, device=dev).dtype == cplx
    assert anygpu.linspace(0, 1j, 3, device=dev).dtype == cplx
    assert anygpu.arange(3, device=dev).dtype == integral
    assert anygpu.asarray([1, 2], device=dev).dtype == integral
    assert anygpu.argmax(anygpu.zeros((2, 3), device=dev), axis=1).dtype == index


def test_devices_are_every_device():
    assert INFO.devices() == anygpu.devices() == DEVICES
    assert all(isinstance(d, anygpu.Device) for d in INFO.devices())
    assert INFO.devices()[0].spec == "host"


def test_capabilities():
    caps = INFO.capabilities()
    assert set(caps) == {"boolean indexing", "data-dependent shapes", "max dimensions"}
    assert type(caps["boolean indexing"]) is bool and type(caps["data-dependent shapes"]) is bool
    assert type(caps["max dimensions"]) is int
    with open(os.path.join(ROOT, "include", "anygpu", "array.h"), encoding="utf-8") as f:
        limit = int(re.search(r"#define AG_MAX_DIMS (\d+)", f.read()).group(1))
    assert caps["max dimensions"] == limit


def test_capabilities_say_what_the_package_does(dev):
    caps = INFO.capabilities()
    a = anygpu.zeros((2, 3), device=dev)
    try:
        a[a > 0]
        boolean = True
    except anygpu.UnsupportedError:
        boolean = False
    assert caps["boolean indexing"] == boolean
    dependent = all(hasattr(anygpu, n) for n in ("nonzero", "unique_all", "unique_counts", "unique_inverse",
                                                 "unique_values"))
    assert caps["data-dependent shapes"] == dependent
    shape = (1,) * caps["max dimensions"]
    assert anygpu.zeros(shape, device=dev).shape == shape
    with pytest.raises(anygpu.InvalidArgumentError):
        anygpu.zeros(shape + (1,), device=dev)


@pytest.mark.parametrize("call, message", [
    (lambda: INFO.dtypes(kind="floating"), WHO + ".dtypes: kind 'floating' is none of 'bool', "),
    (lambda: INFO.dtypes(kind=("bool", "float")), WHO + ".dtypes: kind 'float' is none of "),
    (lambda: INFO.dtypes(kind=anygpu.float32), WHO + ".dtypes: kind is dtype('float32'), neither a kind name "),
    (lambda: INFO.dtypes(kind=3), WHO + ".dtypes: kind is 3, neither a kind name"),
    (lambda: INFO.dtypes(kind=["bool"]), WHO + ".dtypes: kind is ['bool'], neither a kind name"),
    (lambda: INFO.dtypes(kind=("bool", anygpu.int8)), WHO + ".dtypes: kind ('bool', dtype('int8')) holds "
                                                            "dtype('int8'), not a kind name"),
    (lambda: INFO.dtypes(kind=(("bool",),)), WHO + ".dtypes: kind (('bool',),) holds ('bool',), not a kind name"),
    (lambda: INFO.dtypes(device="host"), WHO + ".dtypes: device is 'host', not a Device or None"),
    (lambda: INFO.dtypes(device=0), WHO + ".dtypes: device is 0, not a Device or None"),
    (lambda: INFO.default_dtypes(device="host"), WHO + ".default_dtypes: device is 'host', not a Device or None"),
    (lambda: INFO.default_dtypes(device=1.5), WHO + ".default_dtypes: device is 1.5, not a Device or None"),
], ids=["unknown-kind", "unknown-kind-in-tuple", "dtype-kind", "int-kind", "list-kind", "dtype-in-tuple",
        "nested-tuple", "dtypes-spec-device", "dtypes-int-device", "default_dtypes-spec-device",
        "default_dtypes-float-device"])
def test_bad_arguments_raise_naming_the_method_and_argument(call, message):
    with pytest.raises(anygpu.InvalidArgumentError) as e:
        call()
    assert e.value.message.startswith(message), e.value.message
    assert e.value.status == "AG_ERR_INVALID_ARGUMENT"


def test_arguments_are_keywords_only():
    with pytest.raises(TypeError):
        INFO.dtypes(DEVICES[0])
    with pytest.raises(TypeError):
        INFO.default_dtypes(DEVICES[0])
