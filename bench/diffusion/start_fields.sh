#!/bin/bash
# The diffusion start fields at 8192² float32 (gaussian, an HDF5 file, jagged) on 1 rank,
# and on 2 when the machine has 2 GPUs (more: NPROCS="1 2 4"): the first build and the
# best of 3, beside the device's copy bandwidth; the file beside the disk's plain read of
# the same warm file (dd) and the 1.5 GB/s target.
#
# usage: bench/diffusion/start_fields.sh BUILD [FOLDER]
#   FOLDER holds the 8192² file (default: a temporary folder, removed at the end).
set -u
# shellcheck source=bench/common/build.sh
source "$(dirname "$0")/../common/build.sh"
# shellcheck disable=SC2034  # read by bench_build: this script runs only BUILD/bench/trident_start_field_bench
bench_needs_trident=0
bench_build "$0 BUILD [FOLDER]" "$@"
bench=$(bench_tool trident_start_field_bench) || exit 2
folder=${2:-$(mktemp -d)}
[ $# -ge 2 ] || trap 'rm -rf "$folder"' EXIT
n=${N:-8192}
file=$folder/start_${n}.h5
mpirun_flags=()
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
nprocs=${NPROCS:-$([ "$gpus" -ge 2 ] && echo "1 2" || echo 1)}
for p in $nprocs; do
  mpirun "${mpirun_flags[@]}" --oversubscribe -n "$p" "$bench" "$n" "$n" "$file" 3 || exit 1
  if [ "$p" = "$(echo $nprocs | cut -d' ' -f1)" ]; then
    dd if="$file" of=/dev/null bs=16M 2>&1 | tail -n 1 | sed 's/^/plain read of the warm file (dd): /'
  fi
done
