#!/bin/bash
# knn and ridge stopped by SIGUSR1 or SIGTERM: exit 75, the output kept with its status,
# a checkpoint; restarts from it (stopped again, then to the end) give a result bitwise
# identical to an uninterrupted run; a checkpoint that does not fit the deck is refused
# (exit 2, exact message). No timing: the signal is made pending before trident starts
# (pending_signal.py), so it stops at its first check, after one knn batch or one block
# of ridge iterations, on every rank even where only one rank got the signal.
# usage: stop_restart.sh [--index-only] TRIDENT [LAUNCHER ARGS...]
#   the launcher runs N ranks (none: 1 rank); --index-only runs the uninterrupted brute force
#   and the stops and restarts with knn.method: index (3 and 4 ranks: uneven splits)
set -u
index_only=0
[ "$1" = --index-only ] && { index_only=1; shift; }
trident=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); shift
launcher=("$@")
here=$(cd "$(dirname "$0")" && pwd)
work=${KEEP:-$(mktemp -d)}; [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; mkdir -p "$work"
cd "$work"
export OMPI_MCA_orte_tmpdir_base="$work/ompi"; mkdir -p "$work/ompi"
# A Python with h5py: Debian's /usr/bin/python3, or the first python3 on the PATH that has it.
python=""
for p in /usr/bin/python3 python3; do "$p" -c 'import h5py' 2>/dev/null && { python=$p; break; }; done
[ -n "$python" ] || { echo "no Python with h5py found"; exit 1; }
ranks=1
for ((i = 0; i < ${#launcher[@]}; ++i)); do
  case ${launcher[i]} in -n|-np) ranks=${launcher[i + 1]} ;; esac
done
last=$((ranks - 1))
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# run LOG [pending_signal.py SIGNAL RANKS] -- trident args...
run() {
  local log=$1; shift
  local pre=()
  if [ "$1" != -- ]; then pre=("$python" "$here/pending_signal.py" "$1" "$2"); shift 2; fi
  shift
  "${launcher[@]}" "${pre[@]}" "$trident" "$@" >"$log" 2>&1
}
# check.py MODE ARGS: h5py checks, each exits non-zero with a message
check() { "$python" "$here/stop_restart_check.py" "$@"; }

batch=256
cat > knn.yaml <<DECK
output: {progress_seconds: 0}
knn:
  k: 8
  precision: float32
  observations: {generate: {count: 4096, seed: 1}}
  references: {generate: {count: 2048, seed: 2}}
  batch_size: $batch
  tile_size: 512
DECK
sed 's/k: 8/k: 5/' knn.yaml > knn-k5.yaml
sed 's/count: 2048, seed: 2/count: 2048, seed: 3/' knn.yaml > knn-refs.yaml
cp "$here/../../inputs/ridge_small.yaml" ridge.yaml
# every rule computed, the discrepancy refined: their choices and the solution at the
# chosen λ must survive a restart bit for bit too
printf '  noise_level: 1.0\n  refine_discrepancy: 2\n  gcv_probes: 4\n' >> ridge.yaml
sed 's/precision: float32/precision: float64/' ridge.yaml > ridge-f64.yaml

# --- knn ---
run knn-full.log -- run knn.yaml --output knn-full.h5 && ok || { bad "knn: uninterrupted run"; cat knn-full.log; }
if [ $index_only -eq 0 ]; then
  run knn-1.log USR1 all -- run knn.yaml --output knn-1.h5
  rc=$?; [ $rc -eq 75 ] && ok || { bad "knn: SIGUSR1: exit $rc, expected 75"; cat knn-1.log; }
  grep -q "resume with --restart knn-1.checkpoint.h5" knn-1.log && ok || bad "knn: no resume hint"
  [ ! -e knn-1.h5.partial ] && [ ! -e knn-1.checkpoint.h5.partial ] && ok || bad "knn: partial files left"
  # one batch per rank, exactly, before the first check
  check knn-stopped knn-1.h5 knn-1.checkpoint.h5 knn-full.h5 $((ranks * batch)) SIGUSR1 && ok || bad "knn: first stop"
  # resumed and stopped again, the signal on the last rank only: every rank stops after one more batch
  run knn-2.log TERM $last -- run knn.yaml --restart knn-1.checkpoint.h5 --output knn-2.h5
  rc=$?; [ $rc -eq 75 ] && ok || { bad "knn: SIGTERM on rank $last: exit $rc, expected 75"; cat knn-2.log; }
  check knn-stopped knn-2.h5 knn-2.checkpoint.h5 knn-full.h5 $((2 * ranks * batch)) SIGTERM && ok || bad "knn: second stop"
  run knn-3.log -- run knn.yaml --restart knn-2.checkpoint.h5 --output knn-3.h5
  rc=$?; [ $rc -eq 0 ] && ok || { bad "knn: restart to the end: exit $rc"; cat knn-3.log; }
  check knn-equal knn-full.h5 knn-3.h5 && ok || bad "knn: restarted result differs from the uninterrupted one"
  if [ "$ranks" -gt 1 ]; then  # the checkpoint is per observation: another rank count resumes it
    "$trident" run knn.yaml --restart knn-2.checkpoint.h5 --output knn-3-one-rank.h5 >knn-3b.log 2>&1 \
      && check knn-equal knn-full.h5 knn-3-one-rank.h5 && ok || { bad "knn: restart on 1 rank"; cat knn-3b.log; }
  fi
fi
# knn.method: index: the same rows as the brute force, stopped and resumed alike
sed 's/^knn:/knn:\n  method: index/' knn.yaml > knn-index.yaml
run knn-i1.log USR1 all -- run knn-index.yaml --output knn-i1.h5
rc=$?; [ $rc -eq 75 ] && grep -q "knn: method index" knn-i1.log && ok || { bad "knn index: SIGUSR1: exit $rc, expected 75"; cat knn-i1.log; }
check knn-stopped knn-i1.h5 knn-i1.checkpoint.h5 knn-full.h5 $((ranks * batch)) SIGUSR1 && ok || bad "knn index: first stop"
run knn-i2.log -- run knn-index.yaml --restart knn-i1.checkpoint.h5 --output knn-i2.h5
rc=$?; [ $rc -eq 0 ] && ok || { bad "knn index: restart to the end: exit $rc"; cat knn-i2.log; }
check knn-equal knn-full.h5 knn-i2.h5 && ok || bad "knn index: the restarted result differs from the brute force's"
if [ "$ranks" -gt 1 ]; then  # stopped on N ranks, resumed on 1
  "$trident" run knn-index.yaml --restart knn-i1.checkpoint.h5 --output knn-i3.h5 >knn-i3.log 2>&1 \
    && check knn-equal knn-full.h5 knn-i3.h5 && ok || { bad "knn index: restart on 1 rank"; cat knn-i3.log; }
fi
# knn.max_distance: rows cut at 800 km (some short, padded), stopped and resumed through both
# methods, on this rank count and (the index) on 1: the uninterrupted run's bits
for method in brute index; do
  sed "s/^knn:/knn:\n  method: $method\n  max_distance: 8e5/" knn.yaml > knn-w-$method.yaml
done
run knn-w-full.log -- run knn-w-brute.yaml --output knn-w-full.h5 \
  && grep -q "knn: within knn.max_distance 800000: .* rows hold fewer than k = 8" knn-w-full.log && ok \
  || { bad "knn max_distance: uninterrupted run"; cat knn-w-full.log; }
for method in brute index; do
  run knn-w-$method-1.log USR1 all -- run knn-w-$method.yaml --output knn-w-$method-1.h5
  rc=$?; [ $rc -eq 75 ] && ok || { bad "knn max_distance $method: SIGUSR1: exit $rc, expected 75"; cat knn-w-$method-1.log; }
  check knn-stopped knn-w-$method-1.h5 knn-w-$method-1.checkpoint.h5 knn-w-full.h5 $((ranks * batch)) SIGUSR1 \
    && ok || bad "knn max_distance $method: first stop"
  run knn-w-$method-2.log -- run knn-w-$method.yaml --restart knn-w-$method-1.checkpoint.h5 --output knn-w-$method-2.h5 \
    && check knn-equal knn-w-full.h5 knn-w-$method-2.h5 && ok || { bad "knn max_distance $method: restart"; cat knn-w-$method-2.log; }
done
if [ "$ranks" -gt 1 ]; then
  "$trident" run knn-w-index.yaml --restart knn-w-index-1.checkpoint.h5 --output knn-w-index-3.h5 >knn-w-3.log 2>&1 \
    && check knn-equal knn-w-full.h5 knn-w-index-3.h5 && ok || { bad "knn max_distance: restart on 1 rank"; cat knn-w-3.log; }
fi
# k: all (ragged rows within 600 km): stopped and resumed through both methods (the
# checkpoint carries the ragged rows), and on 1 rank: the uninterrupted run's bits
for method in brute index; do
  sed -e "s/^knn:/knn:\n  method: $method\n  max_distance: 6e5/" -e "s/k: 8/k: all/" knn.yaml > knn-all-$method.yaml
done
run knn-all-full.log -- run knn-all-brute.yaml --output knn-all-full.h5 \
  && grep -q "knn: search .* neighbours within" knn-all-full.log && ok || { bad "knn k: all: uninterrupted run"; cat knn-all-full.log; }
for method in brute index; do
  run knn-all-$method-1.log USR1 all -- run knn-all-$method.yaml --output knn-all-$method-1.h5
  rc=$?; [ $rc -eq 75 ] && ok || { bad "knn k: all $method: SIGUSR1: exit $rc, expected 75"; cat knn-all-$method-1.log; }
  check knn-all-stopped knn-all-$method-1.h5 knn-all-$method-1.checkpoint.h5 knn-all-full.h5 $((ranks * batch)) SIGUSR1 \
    && ok || bad "knn k: all $method: first stop"
  run knn-all-$method-2.log -- run knn-all-$method.yaml --restart knn-all-$method-1.checkpoint.h5 --output knn-all-$method-2.h5 \
    && check knn-all-equal knn-all-full.h5 knn-all-$method-2.h5 && ok || { bad "knn k: all $method: restart"; cat knn-all-$method-2.log; }
done
if [ "$ranks" -gt 1 ]; then
  "$trident" run knn-all-index.yaml --restart knn-all-index-1.checkpoint.h5 --output knn-all-index-3.h5 >knn-all-3.log 2>&1 \
    && check knn-all-equal knn-all-full.h5 knn-all-index-3.h5 && ok || { bad "knn k: all: restart on 1 rank"; cat knn-all-3.log; }
fi
if [ $index_only -eq 1 ]; then
  echo "stop and restart, knn.method: index ($ranks rank(s)): $pass passed, $fail failed"
  [ $fail -eq 0 ]; exit
fi
# refusals: exact messages, exit 2, no output
expect_refusal() {  # LOG MESSAGE -- trident args
  local log=$1 message=$2; shift 3
  run "$log" -- "$@"; local rc=$?
  [ $rc -eq 2 ] && grep -qxF "trident: error: $message" "$log" && [ ! -e refused.h5 ] && ok \
    || { bad "exit $rc, expected 2 and: $message"; cat "$log"; }
}
expect_refusal refuse-k.log "knn-1.checkpoint.h5: the checkpoint was written with knn.k = 8, but the deck has 5; restart with the deck that wrote it" \
  -- run knn-k5.yaml --restart knn-1.checkpoint.h5 --output refused.h5
expect_refusal refuse-refs.log "knn-1.checkpoint.h5: the checkpoint was written with knn.references = generate(count=2048, seed=2), but the deck has generate(count=2048, seed=3); restart with the deck that wrote it" \
  -- run knn-refs.yaml --restart knn-1.checkpoint.h5 --output refused.h5
expect_refusal refuse-limit.log "knn-1.checkpoint.h5: the checkpoint was written with knn.max_distance = none, but the deck has 800000; restart with the deck that wrote it" \
  -- run knn-w-brute.yaml --restart knn-1.checkpoint.h5 --output refused.h5
sed 's/max_distance: 8e5/max_distance: 9e5/' knn-w-brute.yaml > knn-w-other.yaml
expect_refusal refuse-limit2.log "knn-w-brute-1.checkpoint.h5: the checkpoint was written with knn.max_distance = 800000, but the deck has 900000; restart with the deck that wrote it" \
  -- run knn-w-other.yaml --restart knn-w-brute-1.checkpoint.h5 --output refused.h5
expect_refusal refuse-all.log "knn-w-brute-1.checkpoint.h5: the checkpoint was written with knn.k = 8, but the deck has all; restart with the deck that wrote it" \
  -- run knn-all-brute.yaml --restart knn-w-brute-1.checkpoint.h5 --output refused.h5
expect_refusal refuse-study.log "--restart knn-1.checkpoint.h5: the checkpoint is a knn checkpoint, but the deck has no knn section" \
  -- run ridge.yaml --restart knn-1.checkpoint.h5 --output refused.h5
expect_refusal refuse-other.log "knn-full.h5: not a trident checkpoint (it holds none of /field, /knn/done, /ridge/done)" \
  -- run knn.yaml --restart knn-full.h5 --output refused.h5

# --- ridge ---
run ridge-full.log -- run ridge.yaml --output ridge-full.h5 && ok || { bad "ridge: uninterrupted run"; cat ridge-full.log; }
run ridge-1.log USR1 all -- run ridge.yaml --output ridge-1.h5
rc=$?; [ $rc -eq 75 ] && ok || { bad "ridge: SIGUSR1: exit $rc, expected 75"; cat ridge-1.log; }
grep -q "resume with --restart ridge-1.checkpoint.h5" ridge-1.log && ok || bad "ridge: no resume hint"
[ ! -e ridge-1.h5.partial ] && [ ! -e ridge-1.checkpoint.h5.partial ] && ok || bad "ridge: partial files left"
check ridge-stopped ridge-1.h5 ridge-1.checkpoint.h5 ridge-full.h5 SIGUSR1 && ok || bad "ridge: first stop"
run ridge-2.log TERM $last -- run ridge.yaml --restart ridge-1.checkpoint.h5 --output ridge-2.h5
rc=$?; [ $rc -eq 75 ] && ok || { bad "ridge: SIGTERM on rank $last: exit $rc, expected 75"; cat ridge-2.log; }
check ridge-stopped ridge-2.h5 ridge-2.checkpoint.h5 ridge-full.h5 SIGTERM && ok || bad "ridge: second stop"
run ridge-3.log -- run ridge.yaml --restart ridge-2.checkpoint.h5 --output ridge-3.h5
rc=$?; [ $rc -eq 0 ] && ok || { bad "ridge: restart to the end: exit $rc"; cat ridge-3.log; }
check ridge-equal ridge-full.h5 ridge-3.h5 && ok || bad "ridge: restarted result differs from the uninterrupted one"
# the rows of A split over the ranks (ridge.lambda_groups: 1; on one rank the same as
# above): stopped after the first block of iterations and restarted, bitwise equal too
cp ridge.yaml ridge-rows.yaml && printf '  lambda_groups: 1\n' >> ridge-rows.yaml
run ridge-rows-full.log -- run ridge-rows.yaml --output ridge-rows-full.h5 && ok \
  || { bad "ridge rows split: uninterrupted run"; cat ridge-rows-full.log; }
run ridge-rows-1.log USR1 all -- run ridge-rows.yaml --output ridge-rows-1.h5
rc=$?; [ $rc -eq 75 ] && ok || { bad "ridge rows split: SIGUSR1: exit $rc, expected 75"; cat ridge-rows-1.log; }
check ridge-stopped ridge-rows-1.h5 ridge-rows-1.checkpoint.h5 ridge-rows-full.h5 SIGUSR1 && ok || bad "ridge rows split: stop"
run ridge-rows-2.log -- run ridge-rows.yaml --restart ridge-rows-1.checkpoint.h5 --output ridge-rows-2.h5 \
  && check ridge-equal ridge-rows-full.h5 ridge-rows-2.h5 && ok || { bad "ridge rows split: restart"; cat ridge-rows-2.log; }
# the kokkos-kernels engine checks after its first iteration: no λ has finished yet, so the
# checkpoint is empty and the restart sweeps them all
sed 's/max_iterations: 0}/max_iterations: 0, kernels: kokkos-kernels}/' ridge.yaml > ridge-kk.yaml
grep -q "kernels: kokkos-kernels" ridge-kk.yaml || bad "ridge: could not make the kokkos-kernels deck"
run ridge-kk-full.log -- run ridge-kk.yaml --output ridge-kk-full.h5 || bad "ridge kokkos-kernels: uninterrupted run"
run ridge-kk-1.log USR1 all -- run ridge-kk.yaml --output ridge-kk-1.h5
rc=$?; [ $rc -eq 75 ] && grep -q "ridge: stopped by SIGUSR1 with 0 λ finished" ridge-kk-1.log && ok \
  || { bad "ridge kokkos-kernels: exit $rc, expected 75 with 0 λ finished"; cat ridge-kk-1.log; }
run ridge-kk-2.log -- run ridge-kk.yaml --restart ridge-kk-1.checkpoint.h5 --output ridge-kk-2.h5 \
  && check ridge-equal ridge-kk-full.h5 ridge-kk-2.h5 && ok || { bad "ridge kokkos-kernels: restart"; cat ridge-kk-2.log; }
expect_refusal refuse-precision.log "ridge-1.checkpoint.h5: the checkpoint was written with ridge.precision = float32, but the deck has float64; restart with the deck that wrote it" \
  -- run ridge-f64.yaml --restart ridge-1.checkpoint.h5 --output refused.h5

echo "stop and restart ($ranks rank(s)): $pass passed, $fail failed"
[ $fail -eq 0 ]
