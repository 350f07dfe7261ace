#!/usr/bin/env bash
# knn as a user waits for it: whole runs (process start to exit) of generated decks, in the
# phases of trident's timing table, beside the floor that the disk sets on them.
#
#   bench/knn/whole_run.sh BUILD [LAUNCHER ARGS...]
#   e.g. bench/knn/whole_run.sh build/cuda
#
# Cases (KNN_WHOLE_CASES, "OBSERVATIONS:REFERENCES:K" each, float32): 2^22 x 2^14 at k = 16
# and 64 (1.1 and 4.4 GB of result rows) and the tutorial's 2^24 x 2^14 at k = 16 (4.6 GB).
# The disk is measured in the same call: dd writing the largest file's bytes into the page
# cache, as trident's writes go (no fdatasync). "floor" is the search plus the file's bytes
# at dd's rate: what is left of a run that only searched and wrote; "whole/floor" is the
# ratio. The phases: start-up (MPI, Kokkos, the device), knn.read (points generated or
# read, result rows allocated and filled), knn.stage (the observations' unit vectors,
# page-locked), knn.page_lock (locking the rows for the search, unlocking them after),
# knn.search, knn.output (writing /knn).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/knn/timed_run.sh
source "$here/timed_run.sh"
knn_bench_arguments knn_whole "$@"
cases=(${KNN_WHOLE_CASES:-4194304:16384:16 4194304:16384:64 16777216:16384:16})

phase() {  # NAME: the phase's mean seconds in the timing table of the last run's log
  awk -v p="$1" '$1 == p { print $2; exit }' "$log"
}

largest=0
for c in "${cases[@]}"; do
  IFS=: read -r n_obs n_ref k <<<"$c"
  bytes=$((n_obs * k * 16))
  [[ $bytes -gt $largest ]] && largest=$bytes
done
mb=$((largest / 1048576))
t0=$(date +%s.%N)
dd if=/dev/zero of="$work/dd.bin" bs=1M count="$mb" status=none
dd_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
rm -f "$work/dd.bin"
dd_rate=$(awk -v b="$mb" -v s="$dd_s" 'BEGIN { printf "%.3g", b * 1048576 / s }')
echo "disk: dd wrote $mb MiB into the page cache at $dd_rate B/s"
printf '%-20s %5s %8s %8s %8s %8s %8s %8s %8s %8s %8s %7s\n' "observations x refs" k "whole s" startup read stage "lock" search output "floor s" "out B/s" "x floor"
for c in "${cases[@]}"; do
  IFS=: read -r n_obs n_ref k <<<"$c"
  knn_timed_run "$(knn_generated_deck "$n_obs" "$n_ref" "$k" float32)" "$c"
  search=$(phase knn.search)
  output=$(phase knn.output)
  floor=$(awk -v s="$search" -v b="$file_bytes" -v r="$dd_rate" 'BEGIN { printf "%.3f", s + b / r }')
  printf '%-20s %5s %8s %8s %8s %8s %8s %8s %8s %8s %8.3g %7.2f\n' "$n_obs x $n_ref" "$k" "$whole" \
    "$(phase startup)" "$(phase knn.read)" "$(phase knn.stage)" "$(phase knn.page_lock)" "$search" "$output" \
    "$floor" "$(awk -v b="$file_bytes" -v s="$output" 'BEGIN { print b / s }')" \
    "$(awk -v w="$whole" -v f="$floor" 'BEGIN { print w / f }')"
done
