#!/bin/bash
# Diffusion speed against the memory-bandwidth floor.
# usage: bench/diffusion_bench.sh BUILD_DIR [LAUNCHER ARGS...]   (e.g. mpirun -n 1)
# Measures the device's copy bandwidth with BUILD_DIR/bench/trident_device_limits, runs
# the decks beside this script and prints microseconds per step (compute and halo time
# of the slowest rank, from trident's timing summary) next to the floor: the bytes a
# step must move (read u, write u_new, write L: 12 bytes a cell in float32) over the
# measured bandwidth.
set -euo pipefail
build=$(cd "$1" && pwd); shift
launcher=("$@")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
limits=$("$build/bench/trident_device_limits")
echo "$limits"
bandwidth=$(awk '/copy_bandwidth_Bps/ {print $2}' <<<"$limits")
printf '%-16s %8s %12s %12s %8s\n' case steps "us/step" "floor us" ratio
for deck in diffusion_2000 diffusion_8192; do
  log="$work/$deck.log"
  "${launcher[@]}" "$build/src/trident" run "$here/$deck.yaml" --output "$work/$deck.h5" --verbose >"$log" 2>&1 || { cat "$log"; exit 1; }
  read -r nx ny steps < <(awk '/^  nx:/ {nx=$2} /^  ny:/ {ny=$2} /^  steps:/ {s=$2} END {print nx, ny, s}' "$here/$deck.yaml")
  seconds=$(awk '$1 == "diffusion.compute" || $1 == "diffusion.halo" {t += $3} END {print t}' "$log")
  awk -v name="$deck" -v nx="$nx" -v ny="$ny" -v steps="$steps" -v s="$seconds" -v bw="$bandwidth" 'BEGIN {
    us = s / steps * 1e6; floor = nx * ny * 12 / bw * 1e6;
    printf "%-16s %8d %12.2f %12.2f %8.2f\n", name, steps, us, floor, us / floor }'
  cp "$log" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
done
