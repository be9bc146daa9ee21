"""Every public function and method of the package, called with bad input (something that is
not an array, a dtype anygpu lacks or the function refuses, shapes that do not fit, a value out
of range), raises an AnygpuError whose message starts with the name the caller used
(``anygpu.full: ...``, ``anygpu.Array.__add__: ...``) and speaks Python: no C function, C
dtype name or C struct field. The survey's completeness is checked too: a public callable
without a case here fails test_every_public_callable_is_surveyed."""

import re

import numpy
import pytest

import anygpu
import anygpu.fft
import anygpu.learn
import anygpu.sporco
import anygpu.template
from anygpu import _namespace, _ops
from conftest import DEVICES

# What a message must not hold: a C function or operation code, a C dtype name, a C struct.
C_WORDS = re.compile(r"\bag_[a-z]|\bAG_(CMP|OP)_|\b(u8|u16|u32|u64|i8|i16|i32|i64|f32|f64|c64|c128)\b|->")


def f32(dev, shape=(2, 3)):
    return anygpu.ones(shape, "float32", dev)


def c64(dev, shape=(2, 3)):
    return anygpu.ones(shape, "complex64", dev)


def i32(dev, shape=(2, 3)):
    return anygpu.ones(shape, "int32", dev)


F16 = numpy.arange(6, dtype="float16").reshape(2, 3)  # a dtype anygpu lacks


def other_device(dev):
    return next(d for d in DEVICES if d != dev) if len(DEVICES) > 1 else None


CASES = []


def case(name, status, *calls):
    """Cases for the callable the user knows as @name: each call(dev) must raise the
    AnygpuError of @status with a message starting with "@name: "."""
    for i, call in enumerate(calls):
        CASES.append(pytest.param(name, status, call, id="%s-%d" % (name, i)))


INVALID, UNSUPPORTED, MISMATCH, RANGE = "AG_ERR_INVALID_ARGUMENT", "AG_ERR_UNSUPPORTED", "AG_ERR_MISMATCH", \
    "AG_ERR_OUT_OF_RANGE"

# ---- creation and conversion ----
case("anygpu.asarray", UNSUPPORTED, lambda d: anygpu.asarray(F16, device=d),
     lambda d: anygpu.asarray(numpy.ones(2, "complex64"), d, "float32"))
case("anygpu.asarray", INVALID, lambda d: anygpu.asarray(["x"], device=d, dtype="int32"),
     lambda d: anygpu.asarray([[1, 2], [3]], device=d),
     lambda d: anygpu.asarray([1.0], device=d, dtype="no such dtype"))
case("anygpu.empty", INVALID, lambda d: anygpu.empty("x", device=d), lambda d: anygpu.empty((2.5,), device=d),
     lambda d: anygpu.empty((1,) * 9, device=d), lambda d: anygpu.empty((-1,), device=d))
case("anygpu.empty", RANGE, lambda d: anygpu.empty(2 ** 64 + 5, device=d))
case("anygpu.zeros", RANGE, lambda d: anygpu.zeros((2 ** 40, 2 ** 40), device=d))
case("anygpu.ones", INVALID, lambda d: anygpu.ones(None, device=d))
case("anygpu.ones", UNSUPPORTED, lambda d: anygpu.ones(3, "float16", d))
case("anygpu.full", INVALID, lambda d: anygpu.full(3, 1.5, "int32", d), lambda d: anygpu.full(3, "x", device=d),
     lambda d: anygpu.full(3, 2 ** 40, "int32", d))
case("anygpu.empty_like", UNSUPPORTED, lambda d: anygpu.empty_like(F16))
case("anygpu.zeros_like", UNSUPPORTED, lambda d: anygpu.zeros_like(f32(d), dtype="float16"))
case("anygpu.ones_like", INVALID, lambda d: anygpu.ones_like([[1], [2, 3]]))
case("anygpu.full_like", INVALID, lambda d: anygpu.full_like(i32(d), 0.5))
case("anygpu.astype", UNSUPPORTED, lambda d: anygpu.astype(c64(d), "float32"), lambda d: anygpu.astype(f32(d), "float16"))
case("anygpu.astype", INVALID, lambda d: anygpu.astype("x", "float32"), lambda d: anygpu.astype(f32(d), "int8", copy=2))
case("anygpu.reshape", MISMATCH, lambda d: anygpu.reshape(f32(d), (4, 2)), lambda d: anygpu.reshape(f32(d), (-1, 4)))
case("anygpu.reshape", INVALID, lambda d: anygpu.reshape(f32(d), (2.0, 3)), lambda d: anygpu.reshape(f32(d), (-1, -1)),
     lambda d: anygpu.reshape(f32(d), (3, 2), copy="no"))
case("anygpu.ravel", INVALID, lambda d: anygpu.ravel(None))
case("anygpu.permute_dims", INVALID, lambda d: anygpu.permute_dims(f32(d), (1, 1)))
case("anygpu.broadcast_to", MISMATCH, lambda d: anygpu.broadcast_to(f32(d), (2, 4)))
case("anygpu.broadcast_to", INVALID, lambda d: anygpu.broadcast_to(f32(d), (1,) * 9))
case("anygpu.expand_dims", INVALID, lambda d: anygpu.expand_dims(f32(d), 3), lambda d: anygpu.expand_dims(f32(d), "a"))
case("anygpu.squeeze", INVALID, lambda d: anygpu.squeeze(f32(d), 0), lambda d: anygpu.squeeze(f32(d), 5))
case("anygpu.flip", INVALID, lambda d: anygpu.flip(f32(d), 2), lambda d: anygpu.flip(f32(d), (0, 0)))
case("anygpu.transpose", INVALID, lambda d: anygpu.transpose(f32(d), (0, 0)), lambda d: anygpu.transpose(f32(d), "ab"))
case("anygpu.device", NO_DEVICE := "AG_ERR_NO_DEVICE", lambda d: anygpu.device("cuda:9"))
case("anygpu.device", INVALID, lambda d: anygpu.device(3), lambda d: anygpu.device("opencl:"))
case("anygpu.to_device", "AG_ERR_NO_DEVICE", lambda d: anygpu.to_device({"w": numpy.ones(2, "float32")}, "cuda:9"))
case("anygpu.to_device", UNSUPPORTED, lambda d: anygpu.to_device([F16], d))
case("anygpu.from_dlpack", INVALID, lambda d: anygpu.from_dlpack(f32(d), copy="x"))
case("anygpu.from_dlpack", INVALID, lambda d: anygpu.from_dlpack([1.0]),
     lambda d: anygpu.from_dlpack(numpy.arange(3, dtype="float16")))
case("anygpu.from_dlpack", UNSUPPORTED, lambda d: anygpu.from_dlpack(numpy.ones((1,) * 9, "float32")))

# ---- elementwise ----
for name in _ops.UNARY + ["absolute", "conjugate"]:
    case("anygpu." + name, INVALID, lambda d, f=getattr(anygpu, name): f("x"),
         lambda d, f=getattr(anygpu, name): f(f32(d), out=numpy.ones((2, 3), "float32")))
    case("anygpu." + name, UNSUPPORTED, lambda d, f=getattr(anygpu, name): f(F16))
for name in _ops.BINARY + _ops.COMPARE + ["true_divide"]:
    case("anygpu." + name, INVALID, lambda d, f=getattr(anygpu, name): f(f32(d), "x"),
         lambda d, f=getattr(anygpu, name): f(None, f32(d)))
    case("anygpu." + name, MISMATCH, lambda d, f=getattr(anygpu, name): f(f32(d), f32(d, (4,))))
    if name not in _ops.COMPARE and name not in _ops._LOGICAL:  # bool takes comparisons and logic, not arithmetic
        case("anygpu." + name, UNSUPPORTED,
             lambda d, f=getattr(anygpu, name): f(anygpu.ones(2, "bool", d), anygpu.ones(2, "bool", d)))
for name in _ops._LOGICAL + ("bitwise_left_shift", "bitwise_right_shift", "bitwise_invert"):  # integers only
    case("anygpu." + name, UNSUPPORTED,
         lambda d, f=getattr(anygpu, name), k=1 + (name != "bitwise_invert"): f(*(f32(d),) * k))
for name in ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "logical_not", "positive"):
    case("anygpu." + name, INVALID, lambda d, f=getattr(anygpu, name): f("x"))
    case("anygpu." + name, UNSUPPORTED, lambda d, f=getattr(anygpu, name): f(F16))
case("anygpu.positive", UNSUPPORTED, lambda d: anygpu.positive(anygpu.ones(2, "bool", d)))
for name in ("arctan2", "logical_and", "logical_or", "logical_xor"):
    case("anygpu." + name, INVALID, lambda d, f=getattr(anygpu, name): f(f32(d), "x"))
    case("anygpu." + name, MISMATCH, lambda d, f=getattr(anygpu, name): f(f32(d), f32(d, (4,))))
for name in ("atan2", "hypot", "copysign", "logaddexp", "arctan2"):  # real floats (integers as float64)
    case("anygpu." + name, UNSUPPORTED, lambda d, f=getattr(anygpu, name): f(c64(d), c64(d)))
for name in ("floor", "ceil", "trunc", "signbit"):
    case("anygpu." + name, UNSUPPORTED, lambda d, f=getattr(anygpu, name): f(F16))
# ---- the standard's dtype functions and views ----
case("anygpu.finfo", INVALID, lambda d: anygpu.finfo(anygpu.int32), lambda d: anygpu.finfo(2.5))
case("anygpu.finfo", UNSUPPORTED, lambda d: anygpu.finfo("float16"))
case("anygpu.iinfo", INVALID, lambda d: anygpu.iinfo(f32(d)), lambda d: anygpu.iinfo("no such dtype"))
case("anygpu.isdtype", INVALID, lambda d: anygpu.isdtype(anygpu.float32, "floating"), lambda d: anygpu.isdtype(3, "bool"))
case("anygpu.result_type", INVALID, lambda d: anygpu.result_type(), lambda d: anygpu.result_type(f32(d), 1.5))
case("anygpu.result_type", UNSUPPORTED, lambda d: anygpu.result_type(f32(d), "float16"))
case("anygpu.can_cast", INVALID, lambda d: anygpu.can_cast("x", "int8"), lambda d: anygpu.can_cast(1, "int8"))
case("anygpu.__array_namespace_info__.dtypes", INVALID,
     lambda d: anygpu.__array_namespace_info__().dtypes(device=d, kind="floating"),
     lambda d: anygpu.__array_namespace_info__().dtypes(device=d, kind=("bool", 3)),
     lambda d: anygpu.__array_namespace_info__().dtypes(device=d, kind=anygpu.float32),
     lambda d: anygpu.__array_namespace_info__().dtypes(device=d.spec))
case("anygpu.__array_namespace_info__.default_dtypes", INVALID,
     lambda d: anygpu.__array_namespace_info__().default_dtypes(device=d.spec))
case("anygpu.pow", MISMATCH, lambda d: anygpu.pow(f32(d), f32(d, (4,))))
case("anygpu.pow", UNSUPPORTED, lambda d: anygpu.pow(anygpu.ones(2, "bool", d), anygpu.ones(2, "bool", d)))
case("anygpu.matrix_transpose", INVALID, lambda d: anygpu.matrix_transpose(f32(d, (3,))),
     lambda d: anygpu.matrix_transpose("x"))
case("anygpu.broadcast_arrays", MISMATCH, lambda d: anygpu.broadcast_arrays(f32(d), f32(d, (4,))))
case("anygpu.broadcast_arrays", INVALID, lambda d: anygpu.broadcast_arrays(f32(d), None))
case("anygpu.moveaxis", INVALID, lambda d: anygpu.moveaxis(f32(d), 2, 0), lambda d: anygpu.moveaxis(f32(d), (0, 1), 0),
     lambda d: anygpu.moveaxis(f32(d), "a", 0))
case("anygpu.arange", INVALID, lambda d: anygpu.arange(0, 3, 0, device=d), lambda d: anygpu.arange("x", device=d),
     lambda d: anygpu.arange(0.5, 3, dtype="int32", device=d))
case("anygpu.arange", UNSUPPORTED, lambda d: anygpu.arange(3, dtype="complex64", device=d),
     lambda d: anygpu.arange(3, dtype="float16", device=d))
case("anygpu.linspace", INVALID, lambda d: anygpu.linspace(0, 1, 2.5, device=d),
     lambda d: anygpu.linspace(0, float("inf"), 3, device=d), lambda d: anygpu.linspace(0, None, 3, device=d))
case("anygpu.linspace", UNSUPPORTED, lambda d: anygpu.linspace(0, 1, 3, dtype="int8", device=d))
case("anygpu.eye", INVALID, lambda d: anygpu.eye(2, k=0.5, device=d), lambda d: anygpu.eye(-1, device=d))
case("anygpu.eye", UNSUPPORTED, lambda d: anygpu.eye(2, dtype="float16", device=d))
case("anygpu.tril", INVALID, lambda d: anygpu.tril(f32(d, (3,))), lambda d: anygpu.tril(f32(d), k="a"))
case("anygpu.triu", INVALID, lambda d: anygpu.triu(f32(d, (3,))), lambda d: anygpu.triu(None))
case("anygpu.meshgrid", INVALID, lambda d: anygpu.meshgrid(f32(d)), lambda d: anygpu.meshgrid(f32(d, (3,)), indexing=1))
for name in ("any", "all", "var", "std"):
    case("anygpu." + name, INVALID, lambda d, f=getattr(anygpu, name): f("x"),
         lambda d, f=getattr(anygpu, name): f(f32(d), axis=(0, 0)))
    case("anygpu." + name, RANGE, lambda d, f=getattr(anygpu, name): f(f32(d), axis=2))
for name in ("var", "std"):
    case("anygpu." + name, INVALID, lambda d, f=getattr(anygpu, name): f(f32(d), correction=-1),
         lambda d, f=getattr(anygpu, name): f(f32(d), correction="x"))
    case("anygpu." + name, UNSUPPORTED, lambda d, f=getattr(anygpu, name): f(F16))
for name in ("concat", "concatenate", "stack"):
    case("anygpu." + name, INVALID, lambda d, f=getattr(anygpu, name): f(f32(d)), lambda d, f=getattr(anygpu, name): f([]),
         lambda d, f=getattr(anygpu, name): f([f32(d), "x"]))
    case("anygpu." + name, MISMATCH, lambda d, f=getattr(anygpu, name): f([f32(d), f32(d, (2, 4))]))
case("anygpu.concat", INVALID, lambda d: anygpu.concat([f32(d)], axis=2), lambda d: anygpu.concat([f32(d)], axis="a"))
case("anygpu.unstack", INVALID, lambda d: anygpu.unstack(f32(d), axis=2), lambda d: anygpu.unstack("x"))
case("anygpu.roll", INVALID, lambda d: anygpu.roll(f32(d), 1, axis=3), lambda d: anygpu.roll(f32(d), (1, 2)),
     lambda d: anygpu.roll(f32(d), 1.5))
case("anygpu.tile", INVALID, lambda d: anygpu.tile(f32(d), (2, -1)), lambda d: anygpu.tile(f32(d), "a"),
     lambda d: anygpu.tile("x", 2))
case("anygpu.repeat", INVALID, lambda d: anygpu.repeat(f32(d), -1), lambda d: anygpu.repeat(f32(d), 2, axis=2),
     lambda d: anygpu.repeat(f32(d), 1.5))
case("anygpu.repeat", MISMATCH, lambda d: anygpu.repeat(f32(d), [1, 2], axis=1))
case("anygpu.cumulative_sum", INVALID, lambda d: anygpu.cumulative_sum(f32(d)), lambda d: anygpu.cumulative_sum("x"),
     lambda d: anygpu.cumulative_sum(anygpu.asarray(1.0, device=d)),
     lambda d: anygpu.cumulative_sum(f32(d), axis=0, include_initial=1))
case("anygpu.cumulative_sum", RANGE, lambda d: anygpu.cumulative_sum(f32(d), axis=2))
case("anygpu.cumulative_sum", UNSUPPORTED, lambda d: anygpu.cumulative_sum(f32(d), axis=0, dtype="float16"))
case("anygpu.cumsum", INVALID, lambda d: anygpu.cumsum("x"), lambda d: anygpu.cumsum(f32(d), axis="a"))
case("anygpu.cumsum", RANGE, lambda d: anygpu.cumsum(f32(d), axis=-3))
for name in ("sort", "argsort"):
    case("anygpu." + name, INVALID, lambda d, f=getattr(anygpu, name): f("x"),
         lambda d, f=getattr(anygpu, name): f(anygpu.asarray(1.0, device=d)),
         lambda d, f=getattr(anygpu, name): f(f32(d), stable=None))
    case("anygpu." + name, RANGE, lambda d, f=getattr(anygpu, name): f(f32(d), axis=2))
    case("anygpu." + name, UNSUPPORTED, lambda d, f=getattr(anygpu, name): f(F16))
case("anygpu.take", INVALID, lambda d: anygpu.take("x", [0]), lambda d: anygpu.take(f32(d), [0.5], axis=0))
case("anygpu.take", RANGE, lambda d: anygpu.take(f32(d), [2], axis=0), lambda d: anygpu.take(f32(d), [0], axis=2))
case("anygpu.take_along_axis", INVALID, lambda d: anygpu.take_along_axis(f32(d), [0]),
     lambda d: anygpu.take_along_axis("x", [[0]]))
case("anygpu.take_along_axis", MISMATCH, lambda d: anygpu.take_along_axis(f32(d), anygpu.zeros((3, 1), "int64", d)))
case("anygpu.searchsorted", INVALID, lambda d: anygpu.searchsorted(f32(d), f32(d)),
     lambda d: anygpu.searchsorted(f32(d, (3,)), f32(d), side="up"))
case("anygpu.searchsorted", UNSUPPORTED, lambda d: anygpu.searchsorted(c64(d, (3,)), c64(d)))
case("anygpu.nonzero", INVALID, lambda d: anygpu.nonzero("x"), lambda d: anygpu.nonzero(anygpu.asarray(1.0, device=d)))
case("anygpu.count_nonzero", INVALID, lambda d: anygpu.count_nonzero("x"))
case("anygpu.count_nonzero", RANGE, lambda d: anygpu.count_nonzero(f32(d), axis=2))
for name in ("unique_all", "unique_counts", "unique_inverse", "unique_values"):
    case("anygpu." + name, INVALID, lambda d, f=getattr(anygpu, name): f("x"))
    case("anygpu." + name, UNSUPPORTED, lambda d, f=getattr(anygpu, name): f(F16))
case("anygpu.vecdot", MISMATCH, lambda d: anygpu.vecdot(f32(d), f32(d, (2,))))
case("anygpu.vecdot", INVALID, lambda d: anygpu.vecdot(f32(d), f32(d, (3,)), axis=0), lambda d: anygpu.vecdot("x", f32(d)))
case("anygpu.vecdot", UNSUPPORTED, lambda d: anygpu.vecdot(anygpu.ones(3, "bool", d), anygpu.ones(3, "bool", d)))
case("anygpu.tensordot", MISMATCH, lambda d: anygpu.tensordot(f32(d), f32(d), axes=1))
case("anygpu.tensordot", INVALID, lambda d: anygpu.tensordot(f32(d), f32(d), axes=3),
     lambda d: anygpu.tensordot(f32(d), f32(d), axes=([0], [0, 1])), lambda d: anygpu.tensordot(f32(d), f32(d), axes="a"))
case("anygpu.tensordot", UNSUPPORTED, lambda d: anygpu.tensordot(anygpu.ones((2, 3), "bool", d),
                                                                 anygpu.ones((3, 2), "bool", d), axes=1))
case("anygpu.floor_divide", UNSUPPORTED, lambda d: anygpu.floor_divide(c64(d), c64(d)))
case("anygpu.remainder", UNSUPPORTED, lambda d: anygpu.remainder(c64(d), 1))
for name in ("less", "less_equal", "greater", "greater_equal", "minimum", "maximum"):
    case("anygpu." + name, UNSUPPORTED, lambda d, f=getattr(anygpu, name): f(c64(d), c64(d)))
case("anygpu.power", UNSUPPORTED, lambda d: anygpu.power(anygpu.ones(2, "bool", d), anygpu.ones(2, "bool", d)))
case("anygpu.where", INVALID, lambda d: anygpu.where(None, 1.0, 2.0), lambda d: anygpu.where(f32(d), "x", 2.0))
case("anygpu.where", MISMATCH, lambda d: anygpu.where(f32(d), f32(d, (4,)), 0.0))
case("anygpu.clip", INVALID, lambda d: anygpu.clip([[1, 2]], "a", 3))
case("anygpu.clip", UNSUPPORTED, lambda d: anygpu.clip(c64(d), 0, 1))

# ---- reductions and products ----
for name in ("sum", "prod", "mean", "min", "max", "amin", "amax", "argmin", "argmax"):
    f = getattr(anygpu, name)
    case("anygpu." + name, RANGE, lambda d, f=f: f(f32(d), axis=2))
    if not name.startswith("arg"):  # argmin and argmax take one axis
        case("anygpu." + name, RANGE, lambda d, f=f: f(f32(d), axis=(0, -3)))
    case("anygpu." + name, INVALID, lambda d, f=f: f("x"), lambda d, f=f: f(f32(d), axis=1.0),
         lambda d, f=f: f(f32(d), out=numpy.zeros(3, "float32"), axis=0))
    case("anygpu." + name, UNSUPPORTED, lambda d, f=f: f(f32(d), initial=0), lambda d, f=f: f(F16))
    case("anygpu." + name, MISMATCH, lambda d, f=f: f(f32(d), axis=0, out=f32(d, (2,))))
case("anygpu.sum", INVALID, lambda d: anygpu.sum(f32(d), axis=(0, 0)))
case("anygpu.sum", UNSUPPORTED, lambda d: anygpu.sum(c64(d), dtype="float32"))
case("anygpu.mean", UNSUPPORTED, lambda d: anygpu.mean(f32(d), dtype="int32"))
case("anygpu.prod", UNSUPPORTED, lambda d: anygpu.prod(c64(d), dtype="float32"))
case("anygpu.argmax", UNSUPPORTED, lambda d: anygpu.argmax(f32(d), axis=(0, 1)))
case("anygpu.min", UNSUPPORTED, lambda d: anygpu.min(c64(d)))
case("anygpu.dot", MISMATCH, lambda d: anygpu.dot(f32(d, (3,)), f32(d, (4,))), lambda d: anygpu.dot(f32(d), f32(d)))
case("anygpu.dot", INVALID, lambda d: anygpu.dot("x", f32(d)))
case("anygpu.dot", UNSUPPORTED, lambda d: anygpu.dot(f32(d, (2, 2, 2)), f32(d, (2,))))
case("anygpu.vdot", MISMATCH, lambda d: anygpu.vdot(f32(d), f32(d, (4,))))
case("anygpu.vdot", INVALID, lambda d: anygpu.vdot(f32(d), {}))
case("anygpu.matmul", MISMATCH, lambda d: anygpu.matmul(f32(d), f32(d)))
case("anygpu.matmul", UNSUPPORTED, lambda d: anygpu.matmul(f32(d, (3,)), f32(d, (3,))))
case("anygpu.matmul", INVALID, lambda d: anygpu.matmul(f32(d), 2.0))

# ---- the Array's methods and operators ----
for dunder in ("add", "sub", "mul", "truediv", "pow", "floordiv", "mod", "and", "or", "xor", "lshift", "rshift"):
    for form in ("__%s__", "__r%s__", "__i%s__"):
        method = form % dunder
        case("anygpu.Array." + method, INVALID, lambda d, m=method: getattr(f32(d), m)("x"))
        case("anygpu.Array." + method, MISMATCH, lambda d, m=method: getattr(f32(d), m)(f32(d, (4,))))
for dunder in ("eq", "ne", "lt", "le", "gt", "ge"):
    method = "__%s__" % dunder
    case("anygpu.Array." + method, MISMATCH, lambda d, m=method: getattr(f32(d), m)(f32(d, (4,))))
case("anygpu.Array.__add__", UNSUPPORTED, lambda d: f32(d, (2,)) + anygpu.ones(2, "complex128", d)
     if not d.fp64 else anygpu.ones(2, "bool", d) + anygpu.ones(2, "bool", d))
case("anygpu.Array.__array_namespace__", UNSUPPORTED, lambda d: f32(d).__array_namespace__(api_version="2021.12"))
case("anygpu.Array.__array_ufunc__", UNSUPPORTED, lambda d: numpy.cbrt(f32(d)), lambda d: numpy.add.reduce(f32(d)),
     lambda d: numpy.add(f32(d), 1, where=True))
case("anygpu.Array.__array_function__", UNSUPPORTED, lambda d: numpy.median(f32(d)),
     lambda d: numpy.linalg.norm(f32(d)))
case("anygpu.Array.__index__", INVALID, lambda d: f32(d, ()).__index__())
case("anygpu.Array.__iadd__", UNSUPPORTED, lambda d: i32(d).__iadd__(1.5))
case("anygpu.Array.__matmul__", MISMATCH, lambda d: f32(d) @ f32(d))
case("anygpu.Array.__rmatmul__", MISMATCH, lambda d: f32(d).__rmatmul__(f32(d)))
case("anygpu.Array.__neg__", UNSUPPORTED, lambda d: -anygpu.ones(2, "bool", d))
case("anygpu.Array.__invert__", UNSUPPORTED, lambda d: ~f32(d))
case("anygpu.Array.__getitem__", RANGE, lambda d: f32(d)[5], lambda d: f32(d)[0, 0, 0])
case("anygpu.Array.__getitem__", UNSUPPORTED, lambda d: f32(d)[0, [0]], lambda d: f32(d)[f32(d)[0] > 0, 0])
case("anygpu.Array.__getitem__", INVALID, lambda d: f32(d)[f32(d)])
case("anygpu.Array.__getitem__", MISMATCH, lambda d: f32(d)[f32(d, (3,)) > 0])
case("anygpu.Array.__getitem__", INVALID, lambda d: f32(d)[::0], lambda d: f32(d)[..., ...], lambda d: f32(d)[1.5:],
     lambda d: f32(d)[1.5])
case("anygpu.Array.__setitem__", INVALID, lambda d: i32(d).__setitem__(0, 1.5))
case("anygpu.Array.__setitem__", RANGE, lambda d: f32(d).__setitem__(9, 1.0))
case("anygpu.Array.item", INVALID, lambda d: f32(d).item())
case("anygpu.Array.__float__", INVALID, lambda d: float(f32(d)))
case("anygpu.Array.__int__", INVALID, lambda d: int(f32(d)))
case("anygpu.Array.__complex__", INVALID, lambda d: complex(f32(d)))
case("anygpu.Array.__bool__", INVALID, lambda d: bool(f32(d)))
case("anygpu.Array.reshape", MISMATCH, lambda d: f32(d).reshape(7))
case("anygpu.Array.astype", UNSUPPORTED, lambda d: c64(d).astype("float32"))
case("anygpu.Array.transpose", INVALID, lambda d: f32(d).transpose(0, 2))
case("anygpu.Array.mT", INVALID, lambda d: f32(d, (3,)).mT)
case("anygpu.Array.T", INVALID, lambda d: f32(d, (3,)).T, lambda d: f32(d, (2, 2, 2)).T)
for name in ("sum", "mean", "min", "max", "argmin", "argmax"):
    case("anygpu.Array." + name, RANGE, lambda d, n=name: getattr(f32(d), n)(axis=5))
    case("anygpu.Array." + name, UNSUPPORTED, lambda d, n=name: getattr(f32(d), n)(where=True))
case("anygpu.Array.dot", MISMATCH, lambda d: f32(d).dot(f32(d)))
case("anygpu.Array.clip", UNSUPPORTED, lambda d: c64(d).clip(0, 1))
case("anygpu.Array.conj", INVALID, lambda d: f32(d).conj(out=3))
case("anygpu.Array.conjugate", INVALID, lambda d: f32(d).conjugate(out=3))
case("anygpu.Array.to_device", "AG_ERR_NO_DEVICE", lambda d: f32(d).to_device("cuda:9"))
case("anygpu.Array.to_device", INVALID, lambda d: f32(d).to_device(d, stream=0))

# ---- linalg ----
case("anygpu.linalg.matmul", MISMATCH, lambda d: anygpu.linalg.matmul(f32(d), f32(d)))
case("anygpu.linalg.matrix_transpose", INVALID, lambda d: anygpu.linalg.matrix_transpose(f32(d, (3,))))
case("anygpu.linalg.tensordot", MISMATCH, lambda d: anygpu.linalg.tensordot(f32(d), f32(d), axes=1))
case("anygpu.linalg.vecdot", MISMATCH, lambda d: anygpu.linalg.vecdot(f32(d), f32(d, (2,))))
case("anygpu.linalg.diagonal", INVALID, lambda d: anygpu.linalg.diagonal(f32(d, (3,))),
     lambda d: anygpu.linalg.diagonal(f32(d), offset=0.5))
case("anygpu.linalg.trace", INVALID, lambda d: anygpu.linalg.trace(f32(d, (3,))))
case("anygpu.linalg.outer", INVALID, lambda d: anygpu.linalg.outer(f32(d), f32(d, (3,))))
case("anygpu.linalg.cross", MISMATCH, lambda d: anygpu.linalg.cross(f32(d, (3, 2)), f32(d, (3, 2))))
case("anygpu.linalg.cross", INVALID, lambda d: anygpu.linalg.cross(f32(d), f32(d), axis=4))
case("anygpu.linalg.vector_norm", INVALID, lambda d: anygpu.linalg.vector_norm(f32(d), ord=None))
case("anygpu.linalg.vector_norm", RANGE, lambda d: anygpu.linalg.vector_norm(f32(d), axis=5))
case("anygpu.linalg.vector_norm", UNSUPPORTED, lambda d: anygpu.linalg.vector_norm(i32(d)))
case("anygpu.linalg.matrix_norm", INVALID, lambda d: anygpu.linalg.matrix_norm(f32(d), ord=3))
case("anygpu.linalg.matrix_norm", UNSUPPORTED, lambda d: anygpu.linalg.matrix_norm(f32(d), ord="nuc"))

# ---- FFTs ----
for name in [n for n in anygpu.fft.__all__ if not n.endswith("freq")]:
    f = getattr(anygpu.fft, name)
    case("anygpu.fft." + name, INVALID, lambda d, f=f: f("x"))
    if "shift" in name or name.endswith(("2", "n")):
        case("anygpu.fft." + name, INVALID, lambda d, f=f: f(f32(d), axes=(0, 5)), lambda d, f=f: f(f32(d), axes=(1, -1)))
    else:
        case("anygpu.fft." + name, INVALID, lambda d, f=f: f(f32(d), axis=2), lambda d, f=f: f(f32(d), n=0))
    case("anygpu.fft." + name, UNSUPPORTED, lambda d, f=f: f(F16))
case("anygpu.fft.rfft", UNSUPPORTED, lambda d: anygpu.fft.rfft(c64(d)))
for name in ("fftfreq", "rfftfreq"):
    case("anygpu.fft." + name, INVALID, lambda d, f=getattr(anygpu.fft, name): f(0, device=d),
         lambda d, f=getattr(anygpu.fft, name): f(4.5), lambda d, f=getattr(anygpu.fft, name): f(4, d=0),
         lambda d, f=getattr(anygpu.fft, name): f(4, dtype="int32"))
case("anygpu.fft.hfft", INVALID, lambda d: anygpu.fft.hfft(c64(d), norm="twice"))
case("anygpu.fft.fft2", INVALID, lambda d: anygpu.fft.fft2(c64(d), norm="twice"))

# ---- devices and events ----
case("anygpu.Event", "AG_ERR_NO_DEVICE", lambda d: anygpu.Event("cuda:9"))
case("anygpu.Event.record", "AG_ERR_NO_DEVICE", lambda d: anygpu.Event.record("cuda:9"))
case("anygpu.Event.elapsed_time", INVALID, lambda d: anygpu.Event(d).elapsed_time(None))
if len(DEVICES) > 1:
    case("anygpu.Event.elapsed_time", MISMATCH, lambda d: anygpu.Event(d).elapsed_time(anygpu.Event(other_device(d))))

# ---- the scientific layers ----
D, S = numpy.ones((4, 6), "float32"), numpy.ones((4, 1), "float32")
case("anygpu.sporco.BPDN", UNSUPPORTED, lambda d: anygpu.sporco.BPDN(D + 1j, S, 0.1, device=d),
     lambda d: anygpu.sporco.BPDN(D, S + 1j, 0.1, device=d), lambda d: anygpu.sporco.BPDN(D, S, 0.1, {"DataType": "int32"}))
case("anygpu.sporco.BPDN", INVALID, lambda d: anygpu.sporco.BPDN(D, S, "x", device=d),
     lambda d: anygpu.sporco.BPDN(D, S, 0.1, {"MaxIter": 3}, device=d))
case("anygpu.sporco.BPDN", MISMATCH, lambda d: anygpu.sporco.BPDN(D, numpy.ones((5, 1), "float32"), 0.1, device=d))
case("anygpu.sporco.ConvBPDN", UNSUPPORTED, lambda d: anygpu.sporco.ConvBPDN(
    numpy.ones((2, 3, 3), "complex64"), numpy.ones((8, 8), "float32"), 0.1, device=d))
case("anygpu.sporco.PGMConvBPDN", UNSUPPORTED, lambda d: anygpu.sporco.PGMConvBPDN(
    numpy.ones((2, 3, 3), "float32"), numpy.ones((8, 8), "complex64"), 0.1, device=d))
case("anygpu.sporco.TVL1Denoise", UNSUPPORTED, lambda d: anygpu.sporco.TVL1Denoise(S + 1j, 0.1, device=d))
case("anygpu.sporco.TVL2Denoise", UNSUPPORTED, lambda d: anygpu.sporco.TVL2Denoise(S + 1j, 0.1, device=d))
case("anygpu.sporco.TVL2Denoise", INVALID, lambda d: anygpu.sporco.TVL2Denoise(S, 0.1, {"ReturnX": True}, device=d))
case("anygpu.sporco.RobustPCA", UNSUPPORTED, lambda d: anygpu.sporco.RobustPCA(D + 1j, device=d))
case("anygpu.sporco.RobustPCA", INVALID, lambda d: anygpu.sporco.RobustPCA(D, None, {"ReturnX": False}, device=d))
case("anygpu.sporco.BPDN.iterate", INVALID, lambda d: anygpu.sporco.BPDN(D, S, 0.1, device=d).iterate(-1))
case("anygpu.sporco.np2cp", UNSUPPORTED, lambda d: anygpu.sporco.np2cp(F16, d))
case("anygpu.learn.SGD", INVALID, lambda d: anygpu.learn.SGD(numpy.ones(3), 0.1), lambda d: anygpu.learn.SGD(f32(d), "x"))
case("anygpu.learn.Adam", INVALID, lambda d: anygpu.learn.Adam(f32(d), betas=0.9))
case("anygpu.learn.Descent", INVALID, lambda d: anygpu.learn.Descent(f32(d), eta=None))
case("anygpu.learn.Momentum", INVALID, lambda d: anygpu.learn.Momentum(f32(d), rho="x"))
case("anygpu.learn.FluxAdam", INVALID, lambda d: anygpu.learn.FluxAdam(f32(d), beta=(1,)))
case("anygpu.learn.Adam.step", UNSUPPORTED, lambda d: anygpu.learn.Adam(f32(d)).step(f32(d), numpy.ones((2, 3)) * 1j),
     lambda d: anygpu.learn.Adam(f32(d)).step(f32(d), c64(d)))
case("anygpu.learn.Adam.step", MISMATCH, lambda d: anygpu.learn.Adam(f32(d)).step(f32(d), f32(d, (3,))))
case("anygpu.learn.mse", UNSUPPORTED, lambda d: anygpu.learn.mse(f32(d), c64(d)),
     lambda d: anygpu.learn.mse(f32(d), numpy.ones((2, 3)) + 1j))
case("anygpu.learn.mse", MISMATCH, lambda d: anygpu.learn.mse(f32(d), f32(d, (3, 2))))
case("anygpu.learn.logitcrossentropy", INVALID, lambda d: anygpu.learn.logitcrossentropy(f32(d, (6,)), f32(d, (6,))))
case("anygpu.learn.nll_gridded", UNSUPPORTED, lambda d: anygpu.learn.nll_gridded(
    c64(d, (1, 2, 2)), c64(d, (1, 2, 2)), numpy.ones((1, 2, 2)) + 1j, numpy.ones((1, 2, 2))))
case("anygpu.learn.sparsity", INVALID, lambda d: anygpu.learn.sparsity("x"))
case("anygpu.learn.entropy", INVALID, lambda d: anygpu.learn.entropy(f32(d), f32(d), tot_flux=0))
case("anygpu.learn.tv_image", INVALID, lambda d: anygpu.learn.tv_image(f32(d)))
case("anygpu.learn.tsv", INVALID, lambda d: anygpu.learn.tsv(f32(d)))
case("anygpu.template.match_template", UNSUPPORTED,
     lambda d: anygpu.template.match_template(numpy.ones((8, 8)) + 1j, numpy.ones((3, 3)), device=d),
     lambda d: anygpu.template.match_template(numpy.ones((8, 8)), numpy.ones((3, 3)) + 1j, device=d))
case("anygpu.template.match_template", INVALID,
     lambda d: anygpu.template.match_template(numpy.ones((2, 2)), numpy.ones((3, 3)), device=d))
case("anygpu.template.TemplateLibrary", UNSUPPORTED,
     lambda d: anygpu.template.TemplateLibrary([[1]], [[0]], [[1 + 1j]], 4, 4, device=d))
case("anygpu.template.TemplateLibrary", INVALID,
     lambda d: anygpu.template.TemplateLibrary([[9]], [[0]], [[1.0]], 4, 4, device=d))
case("anygpu.template.TemplateLibrary.match", UNSUPPORTED,
     lambda d: anygpu.template.TemplateLibrary([[1]], [[0]], [[1.0]], 4, 4, device=d).match(numpy.ones((4, 4)) * 1j))
case("anygpu.template.TemplateLibrary.match", INVALID,
     lambda d: anygpu.template.TemplateLibrary([[1]], [[0]], [[1.0]], 4, 4, device=d).match(numpy.ones((4, 4)), 0))


@pytest.mark.parametrize("name, status, call", CASES)
def test_bad_input_raises_an_anygpu_error_named_as_called(dev, name, status, call):
    with pytest.raises(anygpu.AnygpuError) as e:
        call(dev)
    message = e.value.message
    assert message.startswith(name + ": "), message
    assert e.value.status == status, message
    assert not C_WORDS.search(message), message
    assert str(e.value) == "%s: %s" % (status, message)


def _public_callables():
    """The names a user calls: the package's functions and classes, the fft, linalg, sporco, learn and
    template modules' (anygpu.azint has its own tests), and the public methods of Array,
    Event, sporco's, learn's and template's classes and of the array API's inspection namespace."""
    names = set()
    modules = [(anygpu, "anygpu", list(_ops.__all__) + ["asarray", "empty", "device", "to_device", "to_host",
                                                        "from_dlpack", "Event"]
                + [n for n in _namespace.__all__ if callable(getattr(anygpu, n))]),
               (anygpu.fft, "anygpu.fft", anygpu.fft.__all__), (anygpu.linalg, "anygpu.linalg", anygpu.linalg.__all__),
               (anygpu.sporco, "anygpu.sporco", anygpu.sporco.__all__),
               (anygpu.learn, "anygpu.learn", [n for n in anygpu.learn.__all__ if n != "flux"]),
               (anygpu.template, "anygpu.template", anygpu.template.__all__)]
    for module, prefix, public in modules:
        for n in public:
            names.add("%s.%s" % (prefix, n))
    for cls, prefix, methods in ((anygpu.Array, "anygpu.Array", None), (anygpu.Event, "anygpu.Event", None),
                                 (anygpu.sporco.BPDN, "anygpu.sporco.BPDN", ("iterate",)),
                                 (anygpu.learn.Adam, "anygpu.learn.Adam", ("step",)),
                                 (anygpu.template.TemplateLibrary, "anygpu.template.TemplateLibrary", ("match",)),
                                 (anygpu.__array_namespace_info__, "anygpu.__array_namespace_info__", None)):
        for n in methods or dir(cls):
            attr = getattr(cls, n)
            fallible = callable(attr) or isinstance(attr, property) and n in ("T", "mT", "real", "imag")
            if (n.startswith("__") and n in _TRIVIAL) or (n.startswith("_") and not n.startswith("__")) or not fallible:
                continue
            if isinstance(attr, type):
                continue
            names.add("%s.%s" % (prefix, n))
    return names


# Methods that cannot fail on a valid array (copies, views of the whole array such as ravel, conversions to
# numpy), the DLPack export (whose refusal the array API makes a BufferError), and Python's own
# machinery.
_TRIVIAL = {"copy", "to_host", "__array__", "__dlpack__", "__dlpack_device__", "__abs__", "ravel", "flatten", "real",
            "imag", "__getstate__", "__class__", "__delattr__", "__dir__", "__eq__", "__format__", "__ge__", "__getattribute__", "__gt__",
            "__hash__", "__init__", "__init_subclass__", "__le__", "__lt__", "__ne__", "__new__", "__reduce__",
            "__reduce_ex__", "__repr__", "__setattr__", "__sizeof__", "__str__", "__subclasshook__", "__pos__",
            "__del__", "__len__", "synchronize"}
_COMPARISONS = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"}


def test_every_public_callable_is_surveyed():
    surveyed = {p.values[0] for p in CASES}
    trivial = {"anygpu.Array." + n for n in _TRIVIAL - _COMPARISONS} | {
        "anygpu.sporco.cp2np", "anygpu.to_host", "anygpu.Event.synchronize", "anygpu.Event.__getstate__"} | {
        "anygpu.__array_namespace_info__." + n for n in ("capabilities", "default_device", "devices")}
    missing = _public_callables() - surveyed - trivial
    assert not missing, "no bad-input case for %s" % ", ".join(sorted(missing))
