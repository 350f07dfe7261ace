#!/bin/bash
# bench/scaling/bench.sh end to end at CPU sizes (the script behind issue 45's figures):
# diffusion and a small generated ridge deck on 1 and 2 ranks, each 2-rank run again through
# the forced network (SCALING_NETWORK=1). It must finish, record every run, find each forced
# output the same bits as the default route's, and print the goals table and the model's check.
# usage: scaling_bench_smoke.sh BUILD_DIR SOURCE_DIR LAUNCHER [ARGS...]   (no rank count: the
#   bench appends "-n N")
# Skipped (exit 77) on a host with one GPU: two ranks would share it, which the forced
# network's one GPU a rank (bench/common/own_gpu.sh) cannot give.
set -u
[ $# -ge 3 ] || { sed -n '6,7p' "$0"; exit 2; }
build=$(realpath "$1") source=$(realpath "$2"); shift 2
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -eq 1 ]; then echo "SKIP: one GPU for two ranks"; exit 77; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export OMPI_MCA_orte_tmpdir_base="$work/ompi"; mkdir -p "$work/ompi"
log=$work/scaling.log
SCALING_WORK_DIR=$work SCALING_NETWORK=1 RANKS="1 2" SCALING_STUDIES="diffusion ridge" \
  SCALING_DIFFUSION="200:200" SCALING_WEAK="200:100" RIDGE_SCALING_DECKS=large RIDGE_LARGE_ROWS=20000 \
  RIDGE_LARGE_COLUMNS=2000 RIDGE_LARGE_PER_ROW=10 bash "$source/bench/scaling/bench.sh" "$build" "$@" >"$log" 2>&1
rc=$?
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ $rc -eq 0 ] || bad "scaling_bench.sh exited $rc"
for c in "diffusion diffusion_200" "diffusion diffusion_weak_200" "ridge ridge_large"; do
  for n in 1 2; do
    grep -q "^run $c $n " "$log" || bad "no record of $c on $n ranks"
  done
  grep -q "^network $c 2 same " "$log" || bad "the forced network's output of $c is not the same (or missing)"
done
! grep -q "^network .* DIFFERENT " "$log" || bad "a forced-network output differs"
grep -q "^== goals on " "$log" || bad "no goals table"
grep -q "^largest miss: " "$log" || bad "no model check"
[ $fail -eq 0 ] || { cat "$log"; exit 1; }
echo "PASS: 6 runs recorded, 3 forced-network outputs the same bits, goals and model check printed"
