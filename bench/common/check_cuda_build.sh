#!/bin/bash
# Compile-only check of the README's second GPU route, the cuda-in-tree preset: configures
# trident with Kokkos and Kokkos Kernels built from the named source folders (CUDA, Hopper)
# and builds everything: Kokkos, Kokkos Kernels, trident, its tests and the benchmark
# helpers. Needs nvcc (on the PATH or in /usr/local/cuda/bin), no GPU. Nothing runs.
#
# usage: bench/common/check_cuda_build.sh BUILD KOKKOS_SRC KOKKOSKERNELS_SRC
#   BUILD: the build folder to configure and fill (e.g. build/cuda-in-tree of this checkout;
#   made when missing); JOBS=N compile jobs (default 2).
# Exit codes: 0 built, 1 configure or build failed, 2 bad arguments, 77 no nvcc (skipped).
set -u
usage="usage: $0 BUILD KOKKOS_SRC KOKKOSKERNELS_SRC"
[ $# -eq 3 ] || { echo "$usage" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "$1"); shift
for dir in "$1" "$2"; do
  [ -f "$dir/CMakeLists.txt" ] || { echo "$0: $dir is not a source folder (no CMakeLists.txt)" >&2; exit 2; }
done
kokkos=$(realpath "$1"); kernels=$(realpath "$2")

if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
command -v nvcc >/dev/null || { echo "SKIP: no nvcc on the PATH or in /usr/local/cuda/bin"; exit 77; }

version() {  # SOURCE_DIR PREFIX: MAJOR.MINOR.PATCH from the project's set(PREFIX_VERSION_...) lines
  local part out=
  for part in MAJOR MINOR PATCH; do
    out+=$(sed -n "s/^ *[sS][eE][tT] *( *$2_VERSION_$part \([0-9]*\) *).*/\1/p" "$1/CMakeLists.txt" | head -n 1).
  done
  echo "${out%.}"
}
echo "check_cuda_build: Kokkos $(version "$kokkos" Kokkos) from $kokkos," \
     "Kokkos Kernels $(version "$kernels" KokkosKernels) from $kernels, $(nvcc --version | tail -n 1)"
echo "check_cuda_build: build folder $build"

start=$SECONDS
cd "$repo" || exit 1
KOKKOS_SOURCE_DIR=$kokkos KOKKOSKERNELS_SOURCE_DIR=$kernels \
  cmake --preset cuda-in-tree -B "$build" || { echo "FAIL: configuring the cuda-in-tree preset"; exit 1; }
cmake --build "$build" -j "${JOBS:-2}" || { echo "FAIL: building the cuda-in-tree preset"; exit 1; }
[ -x "$build/src/trident" ] || { echo "FAIL: the build made no $build/src/trident"; exit 1; }
echo "check_cuda_build: cuda-in-tree built in $((SECONDS - start)) s"
