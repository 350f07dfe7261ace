#!/bin/bash
# Ridge sweep speed against the memory-bandwidth floor.
# usage: bench/ridge/speed.sh BUILD [LAUNCHER ARGS...]   (e.g. mpirun -n 1)
# Runs bench/ridge/ridge_tutorial.yaml (or the deck in RIDGE_BENCH_DECK) and prints the sweep's
# time (the LSMR iterations of the slowest rank, device fenced; setup and output excluded),
# the total and the largest iteration count, and the floor: the bytes of A and A^T that one
# iteration must read (values, column indices and row offsets of both) over the device
# bandwidth (RIDGE_BANDWIDTH_BPS, default 4.2e12 B/s, the H200's measured copy bandwidth),
# times the largest iteration count (the sweep's length: all λ share the iterations).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
bench_build "$0 BUILD [LAUNCHER ARGS...]" "$@"; shift
launcher=("$@")
deck=${RIDGE_BENCH_DECK:-$here/ridge_tutorial.yaml}
bandwidth=${RIDGE_BANDWIDTH_BPS:-4.2e12}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
log="$work/ridge.log"
"${launcher[@]}" "$trident" run "$deck" --output "$work/ridge.h5" --overwrite >"$log" 2>&1 || { cat "$log"; exit 1; }
line=$(grep 'ridge: sweep ' "$log" | tail -1)
[ -n "$line" ] || { cat "$log"; echo "$0: no sweep line in the log" >&2; exit 1; }
grep -E 'ridge: [0-9]+ x|corner' "$log" || true
awk -v bw="$bandwidth" '{
    for (i = 1; i <= NF; ++i) {
      if ($i == "sweep") seconds = $(i + 1);
      if ($i == "total") total = $(i + 1);
      if ($i == "largest") { largest = $(i + 1); sub(",", "", largest) }
      if ($i == "iteration") bytes = $(i + 1);
    }
    sub(",", "", total);
    floor = bytes * largest / bw;
    printf "%-28s %12.4f s\n", "sweep time", seconds;
    printf "%-28s %12d\n", "iterations, total over λ", total;
    printf "%-28s %12d\n", "iterations, largest (shared)", largest;
    printf "%-28s %12.1f MB\n", "A and A^T bytes / iteration", bytes / 1e6;
    printf "%-28s %12.4f s  (%.3g B/s)\n", "bandwidth floor", floor, bw;
    printf "%-28s %12.2f\n", "ratio time / floor", seconds / floor;
    printf "%-28s %12.1f us\n", "time per iteration", seconds / largest * 1e6;
  }' <<<"$line"
cp "$log" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
