#!/bin/bash
# Ridge sweeps on 1, 2, 4 ranks (one GPU each): speed-up and efficiency against one rank,
# and each run's bandwidth floor.
# usage: bench/scaling/ridge.sh BUILD [LAUNCHER ARGS...]
#   The launcher takes the rank count as its last argument; default: mpirun -n
#   (e.g. bench/scaling/ridge.sh build/cuda mpirun --allow-run-as-root -n).
# Decks: bench/ridge/ridge_tutorial.yaml (15000², 22.5 M nonzeros, 10 λ) and bench/ridge/ridge_large.yaml
# (4e6 x 2e5, 4e8 nonzeros; RIDGE_LARGE_ROWS, RIDGE_LARGE_COLUMNS, RIDGE_LARGE_PER_ROW scale
# it). Rank counts: 1, 2, 4 up to the GPUs nvidia-smi lists (RIDGE_SCALING_RANKS="1 2"
# overrides; 1 alone without GPUs; RIDGE_SCALING_DECKS="large" runs one deck). Both decks split the rows over every rank: the tutorial
# by the run's choice (22.5 M nonzeros is over 2^20 per rank), the large one by
# ridge.lambda_groups: 1.
# Per run: the sweep (LSMR iterations of the slowest rank, device fenced), the speed-up and
# efficiency against the 1-rank run of the same call, the time per iteration (sweep over the
# largest iteration count) and its speed-up, the largest rank's bytes of A and A^T
# per iteration, the floor (those bytes x the shared iterations / RIDGE_BANDWIDTH_BPS,
# default 4.2e12 B/s, the H200's measured copy bandwidth) and the ratio time / floor, and
# the run's layout line (rows per rank, λ groups), and the whole run (launch to exit: the
# matrix generated or read, the set-up, the sweep, the residuals and the output).
# Each run is recorded for bench/scaling/goals.sh when SCALING_RECORDS names a file, and
# with SCALING_NETWORK=1 run again through the forced network and compared bit for bit
# (bench/scaling/runs.sh; bench/scaling/bench.sh sets both).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
bench_build "$0 BUILD [LAUNCHER ARGS...]" "$@"; shift
launcher=("$@")
[ ${#launcher[@]} -gt 0 ] || launcher=(mpirun -n)
bandwidth=${RIDGE_BANDWIDTH_BPS:-4.2e12}
export NCCL_NVLS_ENABLE=0  # NVLink multicast off (the lent machines refuse it)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/common/gpu_rank_counts.sh
source "$here/../common/gpu_rank_counts.sh"
# shellcheck source=bench/scaling/runs.sh
source "$here/runs.sh"
gpu_rank_counts "${RIDGE_SCALING_RANKS:-}"

rows=${RIDGE_LARGE_ROWS:-4000000}
columns=${RIDGE_LARGE_COLUMNS:-200000}
per_row=${RIDGE_LARGE_PER_ROW:-100}
density=$(awk -v p="$per_row" -v c="$columns" 'BEGIN { printf "%.17g", p / c }')
sed -e "s/rows: 4000000, columns: 200000, density: 0.0005/rows: $rows, columns: $columns, density: $density/" \
  "$here/../ridge/ridge_large.yaml" >"$work/ridge_large.yaml"

printf '%-9s %5s %10s %8s %7s %7s %9s %8s %12s %10s %6s %7s\n' deck ranks "sweep s" speedup effic iters "us/iter" "speedup" "MB/iter/rank" "floor s" ratio "run s"
decks=()
for name in ${RIDGE_SCALING_DECKS:-tutorial large}; do
  case $name in
    tutorial) decks+=("$here/../ridge/ridge_tutorial.yaml") ;;
    large) decks+=("$work/ridge_large.yaml") ;;
    *) echo "ridge.sh: RIDGE_SCALING_DECKS names tutorial and large, not '$name'" >&2; exit 2 ;;
  esac
done
for deck in "${decks[@]}"; do
  name=$(basename "$deck" .yaml); name=${name#ridge_}
  base=""
  for n in "${rank_counts[@]}"; do
    log="$work/$name.$n.log"
    launched=$(date +%s.%N)
    if ! "${launcher[@]}" "$n" "$trident" run "$deck" --output "$work/$name.$n.h5" --overwrite >"$log" 2>&1; then
      cat "$log"; echo "ridge.sh: $name on $n ranks failed" >&2; exit 1
    fi
    run=$(awk -v s="$launched" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
    line=$(grep 'ridge: sweep ' "$log" | tail -1)
    layout=$(grep 'ridge: rows of A over' "$log" | tail -1 | sed 's/.*ridge: //')
    read -r seconds largest bytes < <(awk '{
        for (i = 1; i <= NF; ++i) {
          if ($i == "sweep") s = $(i + 1);
          if ($i == "largest" && l == "") { l = $(i + 1); sub(",", "", l) }
          if ($i == "iteration" && b == "") b = $(i + 1);
        }
        print s, l, b }' <<<"$line")
    [ -n "$base" ] || { base=$seconds; base_iteration=$(awk -v s="$seconds" -v l="$largest" 'BEGIN { print s / l }'); }
    awk -v name="$name" -v n="$n" -v s="$seconds" -v base="$base" -v bi="$base_iteration" -v l="$largest" -v b="$bytes" -v bw="$bandwidth" -v run="$run" 'BEGIN {
        floor = b * l / bw;
        printf "%-9s %5d %10.4f %7.2fx %6.0f%% %7d %9.1f %7.2fx %12.1f %10.4f %6.2f %7.2f\n", name, n, s, base / s, 100 * base / s / n, l,
               s / l * 1e6, bi / (s / l), b / 1e6, floor, s / floor, run }'
    echo "          layout: $layout"
    cp "$log" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
    record_run ridge "ridge_$name" "$n" "$run" "$log"
    network_rerun ridge "ridge_$name" "$n" "$work/$name.$n.h5" "$log" "$run" \
      "${launcher[@]}" "$n" "$own_gpu" "$trident" run "$deck" --output "$work/$name.$n.network.h5" --overwrite
  done
done
echo "bandwidth for the floors: $bandwidth B/s per GPU; speed-up and efficiency against the 1-rank run above"
echo "us/iter and its speedup: the sweep over its largest iteration count (float32 rounding moves where LSMR stops by a few iterations between rank counts)"
echo "targets (2 H200s): large >= 1.85x on 2 ranks (>= 3.5x on 4); tutorial >= 1.3x on 2; tutorial on 1 rank <= 0.100 s"
