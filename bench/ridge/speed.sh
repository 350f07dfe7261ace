#!/bin/bash
# Ridge sweep speed against the memory-bandwidth floor.
# usage: bench/ridge/speed.sh BUILD [LAUNCHER ARGS...]   (e.g. mpirun -n 1)
# Runs bench/ridge/ridge_tutorial.yaml (or the deck in RIDGE_BENCH_DECK) and prints the sweep's
# time (the LSMR iterations of the slowest rank, device fenced; setup and output excluded),
# the total and the largest iteration count, and the floor: the bytes of A and A^T that one
# iteration must read (values, column indices and row offsets of both) over the device
# bandwidth (RIDGE_BANDWIDTH_BPS, default 4.2e12 B/s, the H200's measured copy bandwidth),
# times the largest iteration count (the sweep's length: all λ share the iterations).
# Then the cost of choosing λ beside the sweep's: the rules' step (corner, discrepancy,
# quasi-optimality: timer ridge.select) of that run, and GCV's probes (timer ridge.gcv) of a
# second run of the deck with `select: gcv` (its default probe count), each over the sweep,
# and a probe step's cost (GCV's time over the steps of its longest block of probes). GCV is
# held to its goal: at most 1.5 x the sweep on the tutorial deck, 2 x on ridge_large.yaml
# (RIDGE_GCV_GOAL sets another; other decks are held to 1.5 x), PASS or MISS.
# On a CPU build: RIDGE_BENCH_DECK=bench/ridge/ridge_cpu_small.yaml checks the script in seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
bench_build "$0 BUILD [LAUNCHER ARGS...]" "$@"; shift
launcher=("$@")
deck=${RIDGE_BENCH_DECK:-$here/ridge_tutorial.yaml}
bandwidth=${RIDGE_BANDWIDTH_BPS:-4.2e12}
work=$(mktemp -d)
# the GCV deck sits beside the bench deck, whose relative file names are read from its folder
gcv_deck=$(dirname "$deck")/.speed_gcv_$$.yaml
trap 'rm -rf "$work" "$gcv_deck"' EXIT
log="$work/ridge.console"  # not ridge.log: that is trident's own log file
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

# timer ROW LOG: the mean seconds of an indented row of the timer table
timer() { awk -v row="$1" '$1 == row && NF >= 4 { print $2; exit }' "$2"; }
# select: gcv in place of the deck's own select, or added (inputs/ridge_deblur.yaml has one)
if grep -q '^  select:' "$deck"; then
  sed 's/^  select:.*/  select: gcv/' "$deck" > "$gcv_deck"
else
  sed 's/^ridge:$/ridge:\n  select: gcv/' "$deck" > "$gcv_deck"
fi
grep -q '^  select: gcv' "$gcv_deck" || { echo "$0: no top-level 'ridge:' line in $deck" >&2; exit 1; }
("${launcher[@]}" "$trident" run "$gcv_deck" --output "$work/ridge_gcv.h5" --overwrite) >"$work/ridge_gcv.console" 2>&1 || { cat "$work/ridge_gcv.console"; exit 1; }
sweep=$(timer sweep "$log") select=$(timer select "$log")
gcv_sweep=$(timer sweep "$work/ridge_gcv.console") gcv=$(timer gcv "$work/ridge_gcv.console")
gcv_line=$(grep 'ridge: GCV' "$work/ridge_gcv.console" || true)
[ -z "$gcv_line" ] || echo "$gcv_line"
# the steps of the probes' block that took the most ("8 probes of 608 steps"), for the cost of a step
gcv_steps=$(sed -n 's/.* probes of \([0-9]*\) steps.*/\1/p' <<<"$gcv_line")
case "$(basename "$deck")" in
  ridge_large*) goal=${RIDGE_GCV_GOAL:-2} ;;
  *) goal=${RIDGE_GCV_GOAL:-1.5} ;;
esac
awk -v s="$sweep" -v r="$select" -v gs="$gcv_sweep" -v g="$gcv" -v steps="${gcv_steps:-0}" -v goal="$goal" -v deck="$(basename "$deck")" 'BEGIN {
    printf "%-28s %12.4f s  (%.3f x the sweep)\n", "corner, discrepancy, q-opt", r, r / s;
    printf "%-28s %12.4f s  (%.3f x its run'"'"'s sweep, %.4f s)\n", "GCV probes", g, g / gs, gs;
    if (steps > 0) printf "%-28s %12.1f us  (%d steps of a block of probes)\n", "GCV probe step", g / steps * 1e6, steps;
    printf "%-28s %12.3f x  goal <= %g x on %s: %s\n", "GCV / sweep", g / gs, goal, deck,
           g / gs <= goal ? "PASS" : "MISS";
  }'
cp "$log" "$work/ridge_gcv.console" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
