#!/bin/bash
# Scaling over GPUs, measured in one call: each study on 1, 2 and 4 ranks (as many as the
# machine has GPUs), one GPU per rank.
# usage: bench/scaling_bench.sh BUILD_DIR LAUNCHER [ARGS...]
#   e.g. bench/scaling_bench.sh build/cuda mpirun --allow-run-as-root
#        bench/scaling_bench.sh build/cuda srun --gpus-per-task=1
# The launcher gets "-n N" appended (mpirun and srun both take it). RANKS="1 2" overrides
# the rank counts (a CPU build has no GPUs to count). For each case it prints the time per
# step of the slowest rank (from trident's timing table: compute + exposed halo wait),
# the floor (the bytes a step must move on one GPU over the copy bandwidth measured by
# BUILD_DIR/bench/trident_device_limits), the speed-up over one rank in this same call,
# the parallel efficiency (speed-up / ranks; for weak scaling, time on 1 / time on N),
# the halo width and transport trident chose, and the whole run's wall time.
# BENCH_LOG_DIR keeps each run's log (trident's timing table and layout lines).
# One function per study (study_diffusion, study_knn, study_ridge); SCALING_STUDIES="diffusion
# knn ridge" (the default) chooses which run, in that order.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,8p' "$0"; exit 2; }
build=$(cd "$1" && pwd); shift
launcher=("$@")
trident="$build/src/trident"
# NVLink multicast (NVLS) stays off: on shared hosts it can take the GPUs out of service.
export NCCL_NVLS_ENABLE=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

source "$(dirname "$0")/gpu_rank_counts.sh"
gpu_rank_counts "${RANKS:-}"
limits=$("$build/bench/trident_device_limits")
bandwidth=$(awk '/copy_bandwidth_Bps/ {print $2}' <<<"$limits")
echo "GPUs: ${gpus:-0}; ranks: ${rank_counts[*]}; copy bandwidth $bandwidth B/s; NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"

# run_deck NAME RANKS DECK_TEXT: runs trident on the deck; sets seconds (wall), log.
run_deck() {
  local name=$1 ranks=$2 text=$3
  printf '%s\n' "$text" >"$work/$name.yaml"
  log="$work/$name.log"
  local start; start=$(date +%s.%N)
  "${launcher[@]}" -n "$ranks" "$trident" run "$work/$name.yaml" --output "$work/$name.h5" --verbose >"$log" 2>&1 ||
    { cat "$log"; exit 1; }
  seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {print e - s}')
  rm -f "$work/$name.h5"
  cp "$log" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
}

# diffusion_case NAME RANKS NX NY STEPS BASE_US WEAK: one run, one table row; sets us.
diffusion_case() {
  local name=$1 ranks=$2 nx=$3 ny=$4 steps=$5 base=$6 weak=$7
  # Laplacian kept (written every step), float32, the start field a Gaussian (the
  # jagged one costs more than the run at 8192^2; the step costs the same).
  run_deck "${name}_$ranks" "$ranks" "output: {progress_seconds: 0}
diffusion:
  nx: $nx
  ny: $ny
  steps: $steps
  precision: float32
  laplacian: true
  start: {kind: gaussian, width: 0.05}"
  local busy; busy=$(awk '$1 == "diffusion.compute" || $1 == "diffusion.halo" {t += $3} END {print t}' "$log")
  local halos; halos=$(sed -n 's/.*halos \(.*\)$/\1/p' "$log" | head -1)
  local width transport
  width=$(sed -n 's/^\([0-9]*\) cell.*/\1/p' <<<"$halos"); width=${width:--}
  transport=$(sed -n 's/.* through \([a-z-]*\).*/\1/p' <<<"$halos"); transport=${transport:-none}
  us=$(awk -v s="$busy" -v n="$steps" 'BEGIN {printf "%.2f", s / n * 1e6}')
  awk -v name="$name" -v r="$ranks" -v us="$us" -v nx="$nx" -v ny="$ny" -v bw="$bandwidth" -v base="${base:-$us}" \
      -v weak="$weak" -v w="$width" -v t="$transport" -v run="$seconds" 'BEGIN {
    floor = nx * ny * 12 / r / bw * 1e6; speedup = base / us;
    eff = weak ? base / us : speedup / r;
    printf "%-22s %5d %10.2f %10.2f %8.2f %8.2f %6.2f %5s %-14s %8.1f\n",
           name, r, us, floor, us / floor, weak ? base / us * r : speedup, eff, w, t, run }'
}

# Strong scaling of 2000^2 (the tutorial) and 8192^2, weak scaling at 8192^2 per GPU
# (blocks stay 8192^2: 16384 x 8192 on 2, 16384^2 on 4). Speed-ups and efficiencies are
# against the 1-rank run of the same case in this call.
study_diffusion() {
  local base n
  printf '%-22s %5s %10s %10s %8s %8s %6s %5s %-14s %8s\n' \
    case ranks "us/step" "floor us" ratio speedup eff w transport "run s"
  for spec in "diffusion_2000 2000 2000 20000" "diffusion_8192 8192 8192 2000"; do
    read -r name nx ny steps <<<"$spec"
    base=""
    for n in "${rank_counts[@]}"; do
      diffusion_case "$name" "$n" "$nx" "$ny" "$steps" "$base" 0
      [ -n "$base" ] || base=$us
    done
  done
  base=""
  for n in "${rank_counts[@]}"; do
    case $n in 1) nx=8192; ny=8192 ;; 2) nx=16384; ny=8192 ;; 4) nx=16384; ny=16384 ;;
      *) echo "weak scaling: no grid for $n ranks" >&2; continue ;; esac
    diffusion_case diffusion_weak_8192 "$n" "$nx" "$ny" 2000 "$base" 1
    [ -n "$base" ] || base=$us
  done
}

# kNN at 2^24 x 2^14 (the issue's size; SCALING_KNN="OBSERVATIONS REFERENCES" for another), k = 1 and 16, float32, generated points: the
# search of the slowest rank as trident prints it (transfers, screen, settling, longer
# lists), against the 1-rank run of this call, and the whole run (start to exit, with the
# result rows written: 2^24 x k x 12 bytes: 4-byte index, 8-byte distance).
study_knn() {
  local k n base deck observations references
  read -r observations references <<<"${SCALING_KNN:-16777216 16384}"
  # the rate of copies into page-locked host memory with n GPUs copying at once (one
  # process each, started together; the slowest process's median): the result rows
  # (observations x k x 12 bytes, a rank's share each) cross it
  declare -A download
  for n in "${rank_counts[@]}"; do
    download[$n]=$("${launcher[@]}" -n "$n" "$build/bench/trident_device_limits" download |
      awk '/^download_Bps/ {v = $2 + 0; if (min == "" || v < min) min = v} END {print min}')
    echo "download into host memory, $n GPU(s) at once: ${download[$n]} B/s each (slowest)"
  done
  printf '%-22s %5s %10s %8s %6s %10s %6s %8s\n' case ranks "search s" speedup eff "rows s" ratio "run s"
  for k in 1 16; do
    base=""
    for n in "${rank_counts[@]}"; do
      deck="knn:
  k: $k
  precision: float32
  observations: {generate: {count: $observations, seed: 1}}
  references: {generate: {count: $references, seed: 2}}"
      run_deck "knn_k${k}_$n" "$n" "$deck"
      local search; search=$(sed -nE 's/.*knn: search ([0-9.eE+-]+) s.*/\1/p' "$log" | head -1)
      [ -n "$base" ] || base=$search
      awk -v name="knn_k$k" -v r="$n" -v s="$search" -v base="$base" -v run="$seconds" -v k="$k" \
          -v m="$observations" -v d="${download[$n]}" 'BEGIN {
        rows = m / r * k * 12 / d;
        printf "%-22s %5d %10.4f %8.2f %6.2f %10.4f %6.2f %8.1f\n", name, r, s, base / s, base / s / r, rows, s / rows, run }'
    done
  done
  echo "rows s: a rank's result rows (observations / ranks x k x 12 bytes) over the download rate measured with as many GPUs copying at once; ratio: search / rows s"
}

# Ridge: bench/ridge_scaling.sh on the same rank counts (the tutorial deck and
# bench/ridge_large.yaml), with this benchmark's launcher.
study_ridge() {
  # the floors over this machine's measured copy bandwidth (ridge_scaling.sh alone assumes an H200's)
  RIDGE_BANDWIDTH_BPS="${RIDGE_BANDWIDTH_BPS:-$bandwidth}" RIDGE_SCALING_RANKS="${rank_counts[*]}" bash "$(dirname "$0")/ridge_scaling.sh" "$trident" "${launcher[@]}" -n
}

for study in ${SCALING_STUDIES:-diffusion knn ridge}; do
  case $study in
    diffusion | knn | ridge) echo "== $study"; "study_$study" ;;
    *) echo "scaling_bench.sh: SCALING_STUDIES names diffusion, knn and ridge, not '$study'" >&2; exit 2 ;;
  esac
done
