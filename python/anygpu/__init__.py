"""anygpu: the same array operations and scientific kernels on NVIDIA (CUDA), any OpenCL
device (AMD, Intel, NVIDIA, pocl, rusticl) and the CPU, from Python.

    >>> import anygpu, numpy
    >>> with anygpu.device("host"):
    ...     a = anygpu.asarray(numpy.arange(4, dtype="float32"))
    ...     numpy.asarray(a * 2 + 1)
    array([1., 3., 5., 7.], dtype=float32)

docs/python.md is the guide; every function's docstring says what it does.
"""

__array_api_version__ = "2023.12"  # the array API standard's version the namespace implements

from ._lib import (LIBRARY, AnygpuError, BackendUnavailableError, BuildError, DeviceError,
                   InvalidArgumentError, MismatchError, NoDeviceError, OutOfMemoryError,
                   OutOfRangeError, UnsupportedError)
from ._core import Array, Device, asarray, default_device, device, devices, empty
from ._queue import Event, to_device, to_host
from ._ops import *  # noqa: F401,F403  elementwise, reductions, BLAS, operators' functions
from ._namespace import *  # noqa: F401,F403  the array API's constants, dtypes, dtype functions
from ._dlpack import *  # noqa: F401,F403  from_dlpack
from ._info import __array_namespace_info__  # noqa: F401  the array API's inspection object
from . import fft  # noqa: F401  anygpu.fft.fft2, ifft2, rfft2, irfft2...
from . import linalg  # noqa: F401  the standard's linalg extension, as far as anygpu has it
from . import azint, learn, sporco, template  # noqa: F401  the scientific layers
