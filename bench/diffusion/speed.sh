#!/bin/bash
# Diffusion speed against the memory-bandwidth floor.
# usage: bench/diffusion/speed.sh BUILD [LAUNCHER ARGS...]   (e.g. mpirun -n 1)
# 1. Measures the device's copy bandwidth with BUILD/bench/trident_device_limits (or
#    takes BANDWIDTH_BPS from the environment).
# 2. The kernels alone, in one run (BUILD/bench/trident_diffusion_trips): today's one
#    step keeping L(u), then 1, 2, 3, 4, 6 and 8 steps per trip through memory, at 2000^2
#    and 8192^2 in float32 and float64, with the bytes a step moves, the floor they set,
#    the ratio to the one-pass floor (12 bytes a cell in float32) and whether the bits match
#    one step a trip, and the 8-step trips as a run takes them on large grids: chains of
#    trips by the chain's rule (TRIPS_CHAIN, TRIPS_CHAIN_ROWS: bench/diffusion/trips.cpp).
#    TRIPS_CASES="N:STEPS ..." changes the sizes.
# 3. Whole runs of the decks beside this script through trident (the rule's steps per
#    trip, named in the run log): microseconds per step (compute and halo time of the
#    slowest rank, from trident's timing summary) next to the floor for one step a trip
#    (8 bytes a cell in float32: read u, write u; L(u) only with the two frames) and for
#    the rule's trips (8 / T bytes a cell).
# 4. The same decks with each boundary rule and a source (issue 62: within 3 % of the
#    default's time a step where the rule keeps the trips: dirichlet and periodic; neumann,
#    convective and a source take one step a trip, so their floor is T = 1's). VARIANTS
#    (names below, space-separated) picks them; VARIANTS= skips the part.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
bench_build "$0 BUILD [LAUNCHER ARGS...]" "$@"; shift
launcher=("$@")
trips=$(bench_tool trident_diffusion_trips)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if [ -z "${BANDWIDTH_BPS:-}" ]; then
  limits_tool=$(bench_tool trident_device_limits)
  limits=$("$limits_tool")
  echo "$limits"
  BANDWIDTH_BPS=$(awk '/copy_bandwidth_Bps/ {print $2}' <<<"$limits")
fi
echo "== kernels alone, one run (trident_diffusion_trips)"
# shellcheck disable=SC2086
TRIPS_CHAIN=${TRIPS_CHAIN-1000} TRIPS_CHAIN_ROWS=${TRIPS_CHAIN_ROWS-0} \
  "$trips" "$BANDWIDTH_BPS" ${TRIPS_CASES:-}
echo "== whole runs through trident (the rule's steps per trip)"
printf '%-28s %8s %3s %12s %12s %12s %8s %8s\n' case steps T "us/step" "floor T=1" "floor T" "x T=1" "x T"
# The deck `base` with the variant's keys added under diffusion: (its last section).
variant_keys() {
  case $1 in
    dirichlet_1) echo "  boundary: {dirichlet: 1}" ;;
    periodic) echo "  boundary: periodic" ;;
    neumann) echo "  boundary: neumann" ;;
    convective) echo "  boundary: {convective: {h: 0.1, ambient: 1}}" ;;
    source) echo "  source: 0.0001" ;;
    *) echo "speed.sh: unknown variant '$1'" >&2; exit 2 ;;
  esac
}
cases=(diffusion_2000 diffusion_8192)
for variant in ${VARIANTS-dirichlet_1 periodic neumann convective source}; do
  for deck in diffusion_2000 diffusion_8192; do
    { cat "$here/$deck.yaml"; variant_keys "$variant"; } >"$work/$deck.$variant.yaml"
    cases+=("$deck.$variant")
  done
done
for deck in "${cases[@]}"; do
  log="$work/$deck.log"
  yaml="$here/$deck.yaml"; [ -e "$yaml" ] || yaml="$work/$deck.yaml"
  "${launcher[@]}" "$trident" run "$yaml" --output "$work/$deck.h5" --verbose >"$log" 2>&1 || { cat "$log"; exit 1; }
  read -r nx ny steps < <(awk '/^  nx:/ {nx=$2} /^  ny:/ {ny=$2} /^  steps:/ {s=$2} END {print nx, ny, s}' "$yaml")
  trip=$(sed -n 's/.* \([0-9]*\) steps\{0,1\} per trip through memory.*/\1/p' "$log" | head -n 1)
  seconds=$(awk '$1 == "diffusion.compute" || $1 == "diffusion.halo" {t += $3} END {print t}' "$log")
  awk -v name="$deck" -v nx="$nx" -v ny="$ny" -v steps="$steps" -v s="$seconds" -v bw="$BANDWIDTH_BPS" -v t="${trip:-1}" 'BEGIN {
    us = s / steps * 1e6; one = nx * ny * 8 / bw * 1e6; floor = one / t;
    printf "%-28s %8d %3d %12.2f %12.2f %12.2f %8.2f %8.2f\n", name, steps, t, us, one, floor, us / one, us / floor }'
  cp "$log" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
done
