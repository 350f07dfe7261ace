#!/bin/bash
# Scaling over GPUs, measured in one call: each study on 1, 2 and 4 ranks (as many as the
# machine has GPUs), one GPU per rank.
# usage: bench/scaling/bench.sh BUILD LAUNCHER [ARGS...]
#   e.g. bench/scaling/bench.sh build/cuda mpirun --allow-run-as-root
#        bench/scaling/bench.sh build/cuda srun --gpus-per-task=1
# The launcher gets "-n N" appended (mpirun and srun both take it). RANKS="1 2" overrides
# the rank counts (a CPU build has no GPUs to count). For each case it prints the time per
# step of the slowest rank (from trident's timing table: compute + exposed halo wait),
# the floor (the bytes a step must move on one GPU over the copy bandwidth measured by
# BUILD/bench/trident_device_limits), the speed-up over one rank in this same call,
# the parallel efficiency (speed-up / ranks; for weak scaling, time on 1 / time on N),
# the halo width and transport trident chose, and the whole run's wall time.
# BENCH_LOG_DIR keeps each run's log (trident's timing table and layout lines).
# One function per study (study_diffusion, study_knn, study_ridge, and study_whole in
# bench/scaling/whole.sh: decks whose whole run is 15-30 s on one GPU); SCALING_STUDIES=
# "diffusion knn ridge whole" (the default) chooses which run, in that order. Last, the
# set-up of every run (startup + prepare + release) and the multi-GPU goals with the
# measured figure, PASS or MISS (bench/scaling/goals.sh), the model against the call
# (bench/scaling/model.py --check), then the records it read (for bench/scaling/model.py
# --check LOG).
# SCALING_NETWORK=1 runs every case a second time right after the first with the GPUs
# talking as across nodes (bench/common/own_gpu.sh between the launcher and trident: each rank
# sees only its GPU; NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 TRIDENT_PEER_MEMORY=off),
# compares the two outputs bit for bit (BUILD/bench/trident_h5_same) and prints the
# slowdown; both outputs are then removed. First, on each rank count past 1, it measures that
# network's link (BUILD/bench/trident_link_probe, NCCL builds), which the model's check
# then assumes. Sizes for a quick run (a CPU build): SCALING_DIFFUSION="SIDE:STEPS ..." (strong
# scaling grids, default "2000:20000 8192:2000"), SCALING_WEAK="SIDE:STEPS" (a GPU's block,
# default "8192:2000"), SCALING_HALO_WIDTH (diffusion.halo_width; default trident's rule),
# SCALING_KNN="OBSERVATIONS REFERENCES", RIDGE_* (bench/scaling/ridge.sh's header) and
# SCALING_WHOLE_* (bench/scaling/whole.sh's header). SCALING_WORK_DIR: where the outputs go while
# compared (default $TMPDIR or /tmp; the whole-run frames take GBs).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,8p' "$0"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
bench_build "$0 BUILD LAUNCHER [ARGS...]" "$@"; shift
launcher=("$@")
# NVLink multicast (NVLS) stays off: on shared hosts it can take the GPUs out of service.
export NCCL_NVLS_ENABLE=0
work=$(mktemp -d "${SCALING_WORK_DIR:-${TMPDIR:-/tmp}}/scaling.XXXXXX"); trap 'rm -rf "$work"' EXIT
export SCALING_RECORDS="$work/records" SCALING_NETWORK=${SCALING_NETWORK:-0} H5_SAME="$build/bench/trident_h5_same"
: >"$SCALING_RECORDS"
if [ "$SCALING_NETWORK" = 1 ] && [ ! -x "$H5_SAME" ]; then
  echo "$0: SCALING_NETWORK=1 compares outputs with $H5_SAME, which is not built" >&2; exit 2
fi

# shellcheck source=bench/common/gpu_rank_counts.sh
source "$here/../common/gpu_rank_counts.sh"
# shellcheck source=bench/scaling/runs.sh
source "$here/runs.sh"
# shellcheck source=bench/scaling/whole.sh
source "$here/whole.sh"
gpu_rank_counts "${RANKS:-}"
limits_tool=$(bench_tool trident_device_limits)
limits=$("$limits_tool")
bandwidth=$(awk '/copy_bandwidth_Bps/ {print $2}' <<<"$limits")
echo "GPUs: ${gpus:-0}; ranks: ${rank_counts[*]}; copy bandwidth $bandwidth B/s; NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE; forced network: $([ "$SCALING_NETWORK" = 1 ] && echo "yes (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 TRIDENT_PEER_MEMORY=off, one GPU a rank)" || echo no)"

# the forced network's link, for the model's check (SCALING_NETWORK=1 only)
for n in "${rank_counts[@]}"; do probe_link "$build/bench/trident_link_probe" "$n" "${launcher[@]}"; done

# run_deck STUDY CASE RANKS DECK_TEXT: runs trident on the deck, records the run, and with
# SCALING_NETWORK=1 runs it again through the forced network; sets seconds (wall), log.
run_deck() {
  local study=$1 case=$2 ranks=$3 text=$4 name=${2}_$3
  printf '%s\n' "$text" >"$work/$name.yaml"
  log="$work/$name.log"
  local start; start=$(date +%s.%N)
  "${launcher[@]}" -n "$ranks" "$trident" run "$work/$name.yaml" --output "$work/$name.h5" --verbose >"$log" 2>&1 ||
    { cat "$log"; exit 1; }
  seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {print e - s}')
  cp "$log" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
  record_run "$study" "$case" "$ranks" "$seconds" "$log"
  network_rerun "$study" "$case" "$ranks" "$work/$name.h5" "$log" "$seconds" \
    "${launcher[@]}" -n "$ranks" "$own_gpu" "$trident" run "$work/$name.yaml" --output "$work/$name.network.h5" --verbose
}

# diffusion_case NAME RANKS NX NY STEPS BASE_US WEAK: one run, one table row; sets us.
diffusion_case() {
  local name=$1 ranks=$2 nx=$3 ny=$4 steps=$5 base=$6 weak=$7
  # Laplacian kept (written every step), float32, the start field a Gaussian (the
  # jagged one costs more than the run at 8192^2; the step costs the same).
  run_deck diffusion "$name" "$ranks" "output: {progress_seconds: 0}
diffusion:
  nx: $nx
  ny: $ny
  steps: $steps
  precision: float32
  laplacian: true
  start: {kind: gaussian, width: 0.05}${SCALING_HALO_WIDTH:+
  halo_width: $SCALING_HALO_WIDTH}"
  local busy; busy=$(work_seconds diffusion "$log")
  local halos; halos=$(sed -n 's/.*halos \(.*\)$/\1/p' "$log" | head -1)
  local width transport
  width=$(sed -n 's/^\([0-9]*\) cell.*/\1/p' <<<"$halos"); width=${width:--}
  transport=$(sed -n 's/.*of the block, through \([A-Za-z-]*\).*/\1/p' <<<"$halos"); transport=${transport:-none}
  us=$(awk -v s="$busy" -v n="$steps" 'BEGIN {printf "%.2f", s / n * 1e6}')
  awk -v name="$name" -v r="$ranks" -v us="$us" -v nx="$nx" -v ny="$ny" -v bw="$bandwidth" -v base="${base:-$us}" \
      -v weak="$weak" -v w="$width" -v t="$transport" -v run="$seconds" 'BEGIN {
    floor = nx * ny * 12 / r / bw * 1e6; speedup = base / us;
    eff = weak ? base / us : speedup / r;
    printf "%-22s %5d %10.2f %10.2f %8.2f %8.2f %6.2f %5s %-14s %8.1f\n",
           name, r, us, floor, us / floor, weak ? base / us * r : speedup, eff, w, t, run }'
}

# Strong scaling of 2000^2 (the tutorial) and 8192^2, weak scaling at 8192^2 per GPU
# (blocks stay 8192^2: 16384 x 8192 on 2, 16384^2 on 4; SCALING_DIFFUSION and SCALING_WEAK
# change the sizes). Speed-ups and efficiencies are
# against the 1-rank run of the same case in this call.
study_diffusion() {
  local base n
  printf '%-22s %5s %10s %10s %8s %8s %6s %5s %-14s %8s\n' \
    case ranks "us/step" "floor us" ratio speedup eff w transport "run s"
  local side steps
  for spec in ${SCALING_DIFFUSION:-2000:20000 8192:2000}; do
    IFS=: read -r side steps <<<"$spec"
    name=diffusion_$side nx=$side ny=$side
    base=""
    for n in "${rank_counts[@]}"; do
      diffusion_case "$name" "$n" "$nx" "$ny" "$steps" "$base" 0
      [ -n "$base" ] || base=$us
    done
  done
  base=""
  IFS=: read -r side steps <<<"${SCALING_WEAK:-8192:2000}"
  for n in "${rank_counts[@]}"; do
    case $n in 1) nx=$side; ny=$side ;; 2) nx=$((2 * side)); ny=$side ;; 4) nx=$((2 * side)); ny=$((2 * side)) ;;
      *) echo "weak scaling: no grid for $n ranks" >&2; continue ;; esac
    diffusion_case "diffusion_weak_$side" "$n" "$nx" "$ny" "$steps" "$base" 1
    [ -n "$base" ] || base=$us
  done
}

# kNN at 2^24 x 2^14 (the tutorial's size; SCALING_KNN="OBSERVATIONS REFERENCES" for another), k = 1 and 16, float32, generated points: the
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
      run_deck knn "knn_k$k" "$n" "$deck"
      local search; search=$(work_seconds knn "$log")
      [ -n "$base" ] || base=$search
      awk -v name="knn_k$k" -v r="$n" -v s="$search" -v base="$base" -v run="$seconds" -v k="$k" \
          -v m="$observations" -v d="${download[$n]}" 'BEGIN {
        rows = m / r * k * 12 / d;
        printf "%-22s %5d %10.4f %8.2f %6.2f %10.4f %6.2f %8.1f\n", name, r, s, base / s, base / s / r, rows, s / rows, run }'
    done
  done
  echo "rows s: a rank's result rows (observations / ranks x k x 12 bytes) over the download rate measured with as many GPUs copying at once; ratio: search / rows s"
}

# Ridge: bench/scaling/ridge.sh on the same rank counts (the tutorial deck and
# bench/ridge/ridge_large.yaml), with this benchmark's launcher.
study_ridge() {
  # the floors over this machine's measured copy bandwidth (ridge.sh alone assumes an H200's)
  RIDGE_BANDWIDTH_BPS="${RIDGE_BANDWIDTH_BPS:-$bandwidth}" RIDGE_SCALING_RANKS="${rank_counts[*]}" bash "$here/ridge.sh" "$build" "${launcher[@]}" -n
}

for study in ${SCALING_STUDIES:-diffusion knn ridge whole}; do
  case $study in
    diffusion | knn | ridge | whole) echo "== $study"; "study_$study" ;;
    *) echo "$0: SCALING_STUDIES names diffusion, knn, ridge and whole, not '$study'" >&2; exit 2 ;;
  esac
done
bash "$here/goals.sh" "$SCALING_RECORDS"
if command -v python3 >/dev/null; then  # the model against this call (a miss is reported, not fatal)
  echo "== the model against this call (bench/scaling/model.py --check, fitted to H100s: docs/scaling.md, docs/multi-node.md)"
  python3 "$here/model.py" --check "$SCALING_RECORDS" || true
fi
echo "== records (bench/scaling/model.py --check THIS_LOG reads them)"
cat "$SCALING_RECORDS"
