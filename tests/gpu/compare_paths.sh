#!/bin/bash
# The GPU-only paths checked on GPUs: CI has none, and on the CPU build these paths are
# right by construction (they do not exist there). Run it on a CUDA build whenever one of
# them changes, and record the last result in docs/developing.md ("GPU paths").
#  1. The unit and MPI tests of the build (on a CUDA build they run the on-device trip
#     chains against single trips, the device frame gathers, the peer-memory sums and the
#     side streams against their plain forms).
#  2. Whole runs compared bit for bit (trident_h5_same, built beside trident): the ridge
#     iteration recorded as a CUDA graph against plain launches (TRIDENT_RIDGE_GRAPHS), and
#     on N ranks the device transports against each other (peer memory, NCCL, MPI through
#     host staging: TRIDENT_PEER_MEMORY, TRIDENT_DEVICE_COMM), the kNN candidate lists' three
#     homes (TRIDENT_KNN_LISTS), and diffusion and knn on N ranks against one rank.
# usage: tests/gpu/compare_paths.sh BUILD_DIR [RANKS...]   (RANKS default: 2, and 4 where
#   there are 4 GPUs; several ranks may share one GPU). MPIRUN (default mpirun) launches.
# Prints one line per comparison and "N passed, N failed"; exit 1 on any failure.
set -u
build=$(realpath "${1:?usage: $0 BUILD_DIR [RANKS...]}"); shift
root=$(cd "$(dirname "$0")/../.." && pwd)
trident=$build/src/trident same_bin=$build/bench/trident_h5_same
[ -x "$trident" ] && [ -x "$same_bin" ] || { echo "$0: $trident or $same_bin not built" >&2; exit 2; }
read -r -a mpirun <<<"${MPIRUN:-mpirun}"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
ranks=("$@")
if [ ${#ranks[@]} -eq 0 ]; then ranks=(2); [ "${gpus:-0}" -ge 4 ] && ranks+=(4); fi
export NCCL_NVLS_ENABLE=0
work=${KEEP:-$(mktemp -d)}; mkdir -p "$work"; [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
pass=0 fail=0
result() {  # NAME STATUS [DETAIL]
  if [ "$2" = same ]; then pass=$((pass + 1)); echo "same       $1"
  else fail=$((fail + 1)); echo "DIFFERENT  $1 ${3:-}"; fi
}
# run N LABEL DECK [VAR=VALUE...]: runs DECK on N ranks with the variables set; the output
# is $work/LABEL.h5
run() {
  local n=$1 label=$2 deck=$3; shift 3
  env "$@" "${mpirun[@]}" -n "$n" "$trident" run "$deck" --output "$work/$label.h5" --overwrite -q \
    >"$work/$label.log" 2>&1 || { echo "run failed: $label"; cat "$work/$label.log"; return 1; }
}
compare() {  # NAME A B [ATTRIBUTE...]: two outputs of $work, the ATTRIBUTEs (a rank layout) left out
  local name=$1 a=$2 b=$3 why; shift 3
  why=$("$same_bin" "$work/$a.h5" "$work/$b.h5" "$@" 2>&1) && result "$name" same || result "$name" different "$why"
}

small_ridge=$root/inputs/ridge_small.yaml tutorial_ridge=$root/bench/ridge/ridge_tutorial.yaml
diffusion=$root/inputs/diffusion_small.yaml knn=$root/inputs/knn_small.yaml
echo "== whole runs, bit for bit"
for deck in "$small_ridge" "$tutorial_ridge"; do
  name=$(basename "$deck" .yaml)
  run 1 "$name-graphs" "$deck" TRIDENT_RIDGE_GRAPHS=on && run 1 "$name-plain" "$deck" TRIDENT_RIDGE_GRAPHS=off &&
    compare "$name: CUDA graph against plain launches, 1 rank" "$name-graphs" "$name-plain"
done
for lists in registers buffers select; do
  run 1 "knn-$lists" "$knn" TRIDENT_KNN_LISTS=$lists
done
compare "knn_small: candidate lists in registers against buffers" knn-registers knn-buffers
compare "knn_small: candidate lists in registers against the any-k screen" knn-registers knn-select
run 1 diffusion-1 "$diffusion"
run 1 knn-1 "$knn"
for n in "${ranks[@]}"; do
  for deck in "$diffusion" "$knn" "$small_ridge"; do
    name=$(basename "$deck" .yaml)
    run "$n" "$name-np$n-auto" "$deck" || continue
    run "$n" "$name-np$n-nccl" "$deck" TRIDENT_PEER_MEMORY=off &&
      compare "$name, $n ranks: peer memory against NCCL" "$name-np$n-auto" "$name-np$n-nccl"
    run "$n" "$name-np$n-staged" "$deck" TRIDENT_DEVICE_COMM=host-staging &&
      compare "$name, $n ranks: peer memory against MPI through host buffers" "$name-np$n-auto" "$name-np$n-staged"
  done
  compare "diffusion_small: $n ranks (device gathers of the frames) against 1 rank" diffusion-1 "diffusion_small-np$n-auto" \
    ranks_x ranks_y
  compare "knn_small: $n ranks against 1 rank" knn-1 "knn_small-np$n-auto"
  run "$n" "tutorial-np$n-graphs" "$tutorial_ridge" TRIDENT_RIDGE_GRAPHS=on &&
    run "$n" "tutorial-np$n-plain" "$tutorial_ridge" TRIDENT_RIDGE_GRAPHS=off &&
    compare "ridge_tutorial, $n ranks: CUDA graph (sum between recordings) against plain launches" \
      "tutorial-np$n-graphs" "tutorial-np$n-plain"
done
echo "== unit and MPI tests on $(nvidia-smi -L 2>/dev/null | head -n 1)"
if ctest --test-dir "$build" --timeout 300 -R '^(core|diffusion|knn|ridge|io)\.' --output-on-failure >"$work/ctest.log" 2>&1; then
  pass=$((pass + 1)); echo "passed     $(grep -E 'tests passed' "$work/ctest.log")"
else
  fail=$((fail + 1)); echo "FAILED     ctest:"; grep -E 'Failed|FAILED|Failure' "$work/ctest.log" | head -40
fi

echo "GPU paths: $pass passed, $fail failed"
[ $fail -eq 0 ]
