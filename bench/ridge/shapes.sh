#!/bin/bash
# Ridge products on matrices shaped like users' data, both engines, against the
# memory-bandwidth floor.
# usage: bench/ridge/shapes.sh BUILD [LOG2_NONZEROS ...]   (default: 24 27)
# For each size, bench/ridge/shapes.py writes (once; kept in RIDGE_SHAPES_DIR, default
# /tmp/trident-ridge-shapes) seven matrices of about 2^LOG2_NONZEROS nonzeros as HDF5 CSR:
# uniform, powerlaw (with four dense rows), densecols (8 dense columns), banded, blockdiag,
# tall (1024 columns) and wide (1024 a row). Each runs with the fused and the kokkos-kernels
# engine: float32 (RIDGE_SHAPES_PRECISION), 4 λ, 128 iterations with the tolerances off
# (so both engines do the same work). Prints per shape the time per iteration (sweep time
# of the log over the shared iterations), the floor (each engine's bytes of A and A^T per
# iteration over the copy bandwidth measured by BUILD/bench/trident_device_limits, or
# RIDGE_BANDWIDTH_BPS), the ratios, fused against kokkos-kernels and fused against its own
# uniform time; then each run's timer table in parts (read, setup, sweep, corner, output)
# against the whole run. RIDGE_SHAPES="uniform densecols" picks shapes; RIDGE_SHAPES_LAUNCHER
# (e.g. "mpirun --allow-run-as-root -n 1") starts trident; BENCH_LOG_DIR keeps the logs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
bench_build "$0 BUILD [LOG2_NONZEROS ...]" "$@"; shift
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(24 27)
shapes=(${RIDGE_SHAPES:-uniform powerlaw densecols banded blockdiag tall wide})
precision=${RIDGE_SHAPES_PRECISION:-float32}
read -r -a launcher <<<"${RIDGE_SHAPES_LAUNCHER:-}"
data=${RIDGE_SHAPES_DIR:-/tmp/trident-ridge-shapes}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import h5py, numpy' 2>/dev/null; then python=$p; break; fi
done
[ -n "$python" ] || { echo "shapes.sh: no Python with h5py and numpy" >&2; exit 1; }

if [ -n "${RIDGE_BANDWIDTH_BPS:-}" ]; then
  bandwidth=$RIDGE_BANDWIDTH_BPS; source="RIDGE_BANDWIDTH_BPS"
else
  limits=$(bench_tool trident_device_limits)
  bandwidth=$("$limits" | awk '/copy_bandwidth_Bps/ {print $2}')
  source="measured device copy (read + write)"
fi
echo "bandwidth $bandwidth B/s ($source)"

# The matrices, four writers at a time (each holds a few GB at 2^27).
mkdir -p "$data"
for size in "${sizes[@]}"; do for shape in "${shapes[@]}"; do echo "$size $shape"; done; done |
  xargs -P 4 -L 1 sh -c '"$0" "$1/shapes.py" "$2" "$3" "$4" >/dev/null' "$python" "$here" "$data"

run() {  # SIZE SHAPE ENGINE: prints "seconds largest bytes" and leaves the log
  local size=$1 shape=$2 engine=$3 name="$2_$1_$3"
  cat >"$work/$name.yaml" <<DECK
output: {file: $name.h5, overwrite: true, progress_seconds: 0}
ridge:
  matrix: {hdf5: {file: $data/${shape}_$size.h5, group: /A}}
  rhs: {generate: {mean: 3.0, std: 1.0, seed: 2}}
  lambdas: {geomspace: [0.1, 100, 4]}
  solver: {atol: 0, btol: 0, conlim: 0, max_iterations: 128, kernels: $engine}
  precision: $precision
  keep_solutions: false
DECK
  "${launcher[@]}" "$trident" run "$work/$name.yaml" --output "$work/$name.h5" --verbose >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; echo "shapes.sh: $name failed" >&2; exit 1; }
  rm -f "$work/$name.h5"
  cp "$work/$name.log" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
}

for size in "${sizes[@]}"; do
  started=$SECONDS
  for shape in "${shapes[@]}"; do
    for engine in fused kokkos-kernels; do run "$size" "$shape" "$engine"; done
  done
  "$python" "$here/shapes_table.py" "$bandwidth" "$size" "$precision" "$work" "${shapes[@]}"
  echo "2^$size: $(( SECONDS - started )) s for the runs"
done
echo "shapes.sh: $SECONDS s in all (matrices written or found in $data)"
