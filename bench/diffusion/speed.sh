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
# 3. Whole runs through trident (the rule's steps per trip, named in the run log) of the
#    decks beside this script, as they are ("default") and with each of the study's rules (all
#    sides neumann, convective or periodic, dirichlet 1, a source as a number and as a field,
#    dx != dy, a diffusivity field), at each size of SIZES ("N:STEPS ...", default
#    "2000:20000 8192:4000", runs of about 0.3 s of steps, as trident's timing summary
#    counts milliseconds; diffusion_2000.yaml's jagged start up to 2000, else
#    diffusion_8192.yaml's gaussian) in each precision of PRECISIONS (default "float32
#    float64"): microseconds per step (compute and halo time of the slowest rank, from
#    trident's timing summary), the ratio to the default deck's of the same size and
#    precision (the goals: within 1.03 for every boundary rule, at most 1.5 for the field),
#    and the memory floor of the rule's trips: the bytes a cell a trip (u read and written,
#    2 x 4 in float32; a field s read, 4 more; a field c's faces, 16 more, 2 x 8 in float64) over
#    T steps a trip. VARIANTS
#    (names below, space-separated) picks the variants; VARIANTS= runs the default alone.
#    REPEAT=R runs each case R times and keeps the fastest (default 1). KERNELS=0 skips
#    part 2. The field files (c, s) are written by BUILD/bench/trident_disc_field.
#    On a CPU build, e.g.: KERNELS=0 SIZES=96:40 BANDWIDTH_BPS=1e10 bench/diffusion/speed.sh build/cpu
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
bench_build "$0 BUILD [LAUNCHER ARGS...]" "$@"; shift
launcher=("$@")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if [ -z "${BANDWIDTH_BPS:-}" ]; then
  limits_tool=$(bench_tool trident_device_limits)
  limits=$("$limits_tool")
  echo "$limits"
  BANDWIDTH_BPS=$(awk '/copy_bandwidth_Bps/ {print $2}' <<<"$limits")
fi
if [ "${KERNELS:-1}" != 0 ]; then
  trips=$(bench_tool trident_diffusion_trips)  # KERNELS=0 runs without it
  echo "== kernels alone, one run (trident_diffusion_trips)"
  # shellcheck disable=SC2086
  TRIPS_CHAIN=${TRIPS_CHAIN-1000} TRIPS_CHAIN_ROWS=${TRIPS_CHAIN_ROWS-0} \
    "$trips" "$BANDWIDTH_BPS" ${TRIPS_CASES:-}
fi
echo "== whole runs through trident (the rule's steps per trip)"
disc_field=$(bench_tool trident_disc_field)
# fields N NAME: writes $work/NAME_N.h5 (dataset /NAME, N x N float32) once: c, 0.25 with a
# disc of 0.05 (a harmonic mean at most 0.25 on every face: stable); s, small values
# (bench/diffusion/disc_field.cpp).
fields() {
  local file=$work/$2_$1.h5
  [ -e "$file" ] || "$disc_field" "$1" "$2" "$file" || { echo "speed.sh: writing $file failed" >&2; exit 1; }
  echo "$file"
}
# variant_keys NAME N: the keys the variant adds under diffusion: (c: 0.25 is the deck's;
# the variants that replace c drop it).
variant_keys() {
  case $1 in
    default) echo "  c: 0.25" ;;
    dirichlet_1) printf '  c: 0.25\n  boundary: {dirichlet: 1}\n' ;;
    periodic) printf '  c: 0.25\n  boundary: periodic\n' ;;
    neumann) printf '  c: 0.25\n  boundary: neumann\n' ;;
    convective) printf '  c: 0.25\n  boundary: {convective: {h: 0.1, ambient: 1}}\n' ;;
    source) printf '  c: 0.25\n  source: 0.0001\n' ;;
    source_field) printf '  c: 0.25\n  source: {file: %s, dataset: /s}\n' "$(fields "$2" s)" ;;
    anisotropic) printf '  D: 1\n  dx: 1\n  dy: 2\n  dt: 0.2\n' ;;  # c_x = 0.2, c_y = 0.05
    c_field) printf '  c: {file: %s, dataset: /c}\n' "$(fields "$2" c)" ;;
    *) echo "speed.sh: unknown variant '$1'" >&2; exit 2 ;;
  esac
}
# bytes a cell a trip of a variant's trips through memory, in precision P: u read and
# written, and a field c or s read
trip_bytes() {
  local size=4
  [ "$2" = float64 ] && size=8
  case $1 in
    c_field) # the faces (docs/diffusion.md): four a cell in float32, two in float64
      if [ "$2" = float64 ]; then echo $((4 * size)); else echo $((6 * size)); fi ;;
    source_field) echo $((3 * size)) ;;
    *) echo $((2 * size)) ;;
  esac
}
printf '%-34s %6s %3s %10s %9s %6s %10s %8s\n' case steps T "us/step" "x default" "B/trip" "floor us" "x floor"
for size in ${SIZES:-2000:20000 8192:4000}; do
  n=${size%%:*}; steps=${size##*:}
  base=$here/diffusion_8192.yaml
  [ "$n" -le 2000 ] && base=$here/diffusion_2000.yaml
  for precision in ${PRECISIONS:-float32 float64}; do
    default_us=
    for variant in default ${VARIANTS-dirichlet_1 periodic neumann convective source source_field anisotropic c_field}; do
      name=diffusion_${n}_${precision}.$variant
      yaml=$work/$name.yaml log=$work/$name.log
      { sed -e "s/^  nx: .*/  nx: $n/" -e "s/^  ny: .*/  ny: $n/" -e "s/^  steps: .*/  steps: $steps/" \
            -e "s/^  precision: .*/  precision: $precision/" -e '/^  c: /d' "$base"
        variant_keys "$variant" "$n"; } >"$yaml"
      us=
      for ((r = 0; r < ${REPEAT:-1}; r++)); do
        "${launcher[@]}" "$trident" run "$yaml" --output "$work/$name.h5" --verbose >"$log" 2>&1 || { cat "$log"; exit 1; }
        rm -f "$work/$name.h5" "$work/$name.h5.checkpoint.h5"
        seconds=$(awk '$1 == "diffusion.compute" || $1 == "diffusion.halo" {t += $3} END {print t}' "$log")
        us=$(awk -v s="$seconds" -v steps="$steps" -v best="$us" \
          'BEGIN {v = s / steps * 1e6; if (best != "" && best + 0 < v) v = best; printf "%.4f", v}')
      done
      trip=$(sed -n 's/.* \([0-9]*\) steps\{0,1\} per trip through memory.*/\1/p' "$log" | head -n 1)
      [ -n "$default_us" ] || default_us=$us
      awk -v name="$name" -v n="$n" -v steps="$steps" -v us="$us" -v d="$default_us" -v bw="$BANDWIDTH_BPS" \
          -v t="${trip:-1}" -v b="$(trip_bytes "$variant" "$precision")" 'BEGIN {
        floor = n * n * b / t / bw * 1e6;
        printf "%-34s %6d %3d %10.2f %9.3f %6d %10.2f %8.2f\n", name, steps, t, us, us / d, b, floor, us / floor }'
      cp "$log" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
    done
  done
done
