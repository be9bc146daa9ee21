#!/bin/sh
# quickstart.sh — on Debian 12: install what is missing, build in ./build, then run the demo
# (./quickstart.sh demo) or the whole test suite (./quickstart.sh test). Extra options for a
# new build folder may be given in ANYGPU_MESON_OPTIONS (CI passes -Dwerror=true).
set -eu
cd "$(dirname "$0")"

what=${1:-demo}
case $what in
demo | test) ;;
*)
  echo "usage: $0 demo|test" >&2
  exit 2
  ;;
esac

# Build tools; OpenBLAS and FFTW for the host; DLPack's header (dlpack.h); the OpenCL loader and headers, CLBlast, clFFT
# and VkFFT for the OpenCL backend; two CPU OpenCL implementations, pocl and Mesa's rusticl
# (enabled with RUSTICL_ENABLE=llvmpipe; the tests do), so the OpenCL backend runs on any
# machine; Check and oclgrind (which checks the kernels for races and uninitialised reads)
# for the tests; numpy, the peer anygpu-bench measures against; pyFAI and scikit-image, the
# references the diffraction layer is compared with (scikit-image's TV denoiser also with
# TVL2); scikit-learn, whose Lasso the BPDN solver is compared with; HDF5, which
# anygpu-integrate reads (and h5py, with which its test writes an HDF5 file), and the HDF5 filter
# plugins of detector files, which Debian's libhdf5 finds by itself (bitshuffle for bitshuffle/LZ4,
# hdf5-filter-plugin for LZ4 and bzip2, hdf5-plugin-lzf for LZF; docs/anygpu-integrate.md); pyopencl, for
# pyFAI's OpenCL integrator, the peer of anygpu-bench's azint rows on OpenCL devices; PyTorch
# (CPU), the reference for the learning layer's gradients and optimisers and its rows' peer;
# Open MPI, for examples/mpi_integrate and its test under mpirun (the library does not link it);
# CMake, which writes the CMake package's version file and builds the test's CMake project
# against the installed library; DLPack's header, for ag_array_to_dlpack / ag_array_from_dlpack.
# pytest, which runs the Python package's tests (python/, tests/python/). The Python packages
# are Debian's, for /usr/bin/python3: the build runs its tests with that interpreter even when
# another python3 (pyenv, conda) comes first on PATH (README, "Building options").
packages="gcc libc6-dev meson ninja-build pkg-config cmake python3 python3-numpy python3-pytest python3-pyfai python3-skimage python3-sklearn python3-h5py python3-pyopencl python3-torch libhdf5-dev
bitshuffle hdf5-filter-plugin hdf5-plugin-lzf
libopenblas-dev libfftw3-dev libdlpack-dev
ocl-icd-opencl-dev opencl-c-headers libclblast-dev libclfft-dev libvkfft-dev pocl-opencl-icd
mesa-opencl-icd clinfo check libsubunit-dev oclgrind
libopenmpi-dev openmpi-bin"
missing=
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "quickstart: installing$missing"
  sudo=
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

# shellcheck disable=SC2086
[ -f build/build.ninja ] || meson setup build ${ANYGPU_MESON_OPTIONS:-}
meson compile -C build

if [ "$what" = demo ]; then
  # devenv points the library at the backend modules in the build tree.
  meson devenv -C build examples/vector_add
else
  meson test -C build --print-errorlogs
fi
