# Sourced by every benchmark script: the suite's one argument convention (bench/README.md).
# The first argument is the BUILD folder of a trident build (build/cuda, build/cpu, ...):
# trident is BUILD/src/trident, the benchmark helpers BUILD/bench/trident_*.
# shellcheck shell=bash

# bench_build USAGE ARGUMENTS...: checks the first of ARGUMENTS and sets `build` (its
# absolute path) and `trident`; exits 2 with USAGE when it is missing, is a file (the
# executable given instead of its build folder) or holds no built trident (not checked
# when the caller set bench_needs_trident=0: the scripts that run only a helper).
bench_build() {
  local usage=$1
  shift
  if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    echo "usage: $usage" >&2
    exit 2
  fi
  if [ -f "$1" ]; then
    echo "$0: $1 is a file; the first argument is the BUILD folder (the one holding src/trident)" >&2
    exit 2
  fi
  build=$(cd "$1" 2>/dev/null && pwd) || { echo "$0: no folder $1" >&2; exit 2; }
  trident=$build/src/trident
  [ "${bench_needs_trident:-1}" = 0 ] || [ -x "$trident" ] || { echo "$0: $trident is not built (cmake --build $1 --target trident)" >&2; exit 2; }
}

# bench_tool NAME: prints BUILD/bench/NAME (a helper built beside trident); exits 2 when it
# is not built. Call it after bench_build.
bench_tool() {
  local tool=$build/bench/$1
  [ -x "$tool" ] || { echo "$0: $tool is not built (cmake --build $build --target $1)" >&2; exit 2; }
  echo "$tool"
}

# bench_helper_tool NAME ARGUMENTS...: for the scripts that run only the helper NAME and take
# BUILD alone: checks ARGUMENTS as bench_build does (trident itself not needed) and sets
# `bench` (BUILD/bench/NAME) and `gpu` (yes where nvidia-smi lists a GPU, else no).
bench_helper_tool() {
  local name=$1
  shift
  bench_needs_trident=0
  bench_build "$0 BUILD" "$@"
  [[ $# -eq 1 ]] || { echo "usage: $0 BUILD" >&2; exit 2; }
  # shellcheck disable=SC2034  # set for the caller
  bench=$(bench_tool "$name")
  # shellcheck disable=SC2034  # set for the caller
  gpu=$(bench_gpu)
}

# bench_gpu: prints yes where nvidia-smi lists a GPU, else no.
bench_gpu() {
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then echo yes; else echo no; fi
}
