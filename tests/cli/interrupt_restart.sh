#!/bin/bash
# Ctrl-C keeps the work: SIGINT (and SIGHUP) stop each study like SIGTERM (exit 75, a
# checkpoint, the results so far, a status naming the signal and the restart command), a
# restart from that checkpoint ends bitwise equal to an uninterrupted run, and no .partial
# file is left. A second SIGINT during the stop ends the process at once (killed by SIGINT),
# leaves no .partial and keeps the output that was there before. No timing: the first
# signal is pending before trident starts (pending_signal.py); for the second, the process
# holds itself where its stop checkpoint begins (the hold tool of tests/slurm) until the
# test has made the second signal pending at it.
# usage: interrupt_restart.sh TRIDENT HOLD_TOOL [LAUNCHER ARGS...]  (none: 1 rank)
set -u
hold_tool=$(realpath "$2")
source "$(dirname "$0")/common.sh" "$@"
shift 2
launcher=("$@")
ranks=1
for ((i = 0; i < ${#launcher[@]}; ++i)); do
  case ${launcher[i]} in -n|-np) ranks=${launcher[i + 1]} ;; esac
done
# run LOG SIGNAL|- -- trident args: SIGNAL pending at every rank before it starts
run() {
  local log=$1 signal=$2; shift 3
  local pre=()
  [ "$signal" = - ] || pre=("$python" "$here/pending_signal.py" "$signal" all)
  "${launcher[@]}" "${pre[@]}" "$trident" "$@" >"$log" 2>&1
}
check() { "$python" "$here/stop_restart_check.py" "$@"; }
no_partials() { ! ls ./*.partial >/dev/null 2>&1; }
same_field() {  # two diffusion outputs: the same final field and step, bit for bit
  "$python" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
assert a["diffusion/step"][-1] == b["diffusion/step"][-1], "final steps differ"
assert a["diffusion/field"][-1].tobytes() == b["diffusion/field"][-1].tobytes(), "final fields differ"
PY
}

cat > diffusion.yaml <<DECK
output: {progress_seconds: 0}
diffusion: {nx: 64, ny: 48, steps: 300, output_every: 100, precision: float64, start: {kind: jagged, seed: 3}}
DECK
cat > knn.yaml <<DECK
output: {progress_seconds: 0}
knn: {k: 4, observations: {generate: {count: 2048, seed: 1}}, references: {generate: {count: 1024, seed: 2}},
      batch_size: 256}
DECK
cp "$here/../../inputs/ridge_small.yaml" ridge.yaml

for study in diffusion knn ridge; do
  run $study-full.log - -- run $study.yaml --output $study-full.h5 || { bad "$study: uninterrupted run"; cat $study-full.log; continue; }
  for signal in INT HUP; do
    run $study-$signal.log $signal -- run $study.yaml --output $study-$signal.h5
    rc=$?; [ $rc -eq 75 ] && ok || { bad "$study: SIG$signal: exit $rc, expected 75"; cat $study-$signal.log; }
    grep -q "$study: stopped by SIG$signal" $study-$signal.log && ok || bad "$study: SIG$signal: no status line naming it"
    grep -qF "to resume: " $study-$signal.log && grep -qF -- "--restart $study-$signal.checkpoint.h5" $study-$signal.log \
      && ok || { bad "$study: SIG$signal: no restart command"; cat $study-$signal.log; }
    no_partials && ok || bad "$study: SIG$signal: partial files left: $(ls ./*.partial)"
    "$python" -c "import h5py,sys; s=h5py.File(sys.argv[1],'r').attrs['status']; assert 'SIG$signal' in str(s), s" \
      $study-$signal.h5 && ok || bad "$study: SIG$signal: the output's status does not name the signal"
  done
  run $study-resumed.log - -- run $study.yaml --restart $study-INT.checkpoint.h5 --output $study-resumed.h5
  rc=$?; [ $rc -eq 0 ] && ok || { bad "$study: restart after SIGINT: exit $rc"; cat $study-resumed.log; }
  case $study in
    diffusion) same_field $study-full.h5 $study-resumed.h5 ;;
    knn) check knn-equal knn-full.h5 knn-resumed.h5 ;;
    ridge) check ridge-equal ridge-full.h5 ridge-resumed.h5 ;;
  esac && ok || bad "$study: the run resumed after SIGINT differs from the uninterrupted one"
  no_partials && ok || bad "$study: partial files left after the restart"
done

# A second SIGINT, on one rank: the run holds where its stop checkpoint begins; the test
# makes SIGINT pending at it, then lets it go on.
if [ "$ranks" -eq 1 ]; then
  for study in diffusion knn ridge; do
    hold=$work/hold-$study; mkdir -p "$hold"
    echo "an earlier result" > $study-twice.h5
    ( export "$tools_var=$hold_tool" TRIDENT_HOLD_DIR="$hold" TRIDENT_HOLD_ENTER="trident::$study::checkpoint"
      exec "$python" "$here/pending_signal.py" INT all "$trident" run $study.yaml --output $study-twice.h5 --overwrite
    ) >$study-twice.log 2>&1 &
    pid=$!
    # held, or ended without holding (a failure): the run takes seconds, the guard is ctest's timeout
    while ! { [ -n "$(ls "$hold"/held.* 2>/dev/null)" ] && stopped $pid; } && kill -0 $pid 2>/dev/null; do sleep 0.05; done
    if ! stopped $pid; then bad "$study: never held at its stop checkpoint"; cat $study-twice.log; wait $pid; continue; fi
    held_pid=$pid
    [ -e $study-twice.h5.partial ] && ok || bad "$study: no partial output while held (the test holds too late)"
    kill -INT $pid
    while ! signal_pending $pid 2; do sleep 0.05; done
    kill -CONT $pid; held_pid=""
    wait $pid; rc=$?
    [ $rc -eq 130 ] && ok || { bad "$study: second SIGINT: exit $rc, expected 130 (killed by SIGINT)"; cat $study-twice.log; }
    grep -q "a second stop signal: ending at once" $study-twice.log && ok || bad "$study: second SIGINT: no message"
    no_partials && ok || bad "$study: second SIGINT: partial files left: $(ls ./*.partial)"
    [ "$(cat $study-twice.h5)" = "an earlier result" ] && ok || bad "$study: second SIGINT: the earlier output was replaced"
  done
fi

# Ctrl-C at an Open MPI mpirun: it sends its ranks SIGCONT, then after
# odls_base_sigkill_timeout seconds SIGTERM, then after as many again SIGKILL, and exits 1
# itself. The ranks stop on that SIGTERM with a checkpoint (docs/running.md). The timeout
# is raised from its 1 s so that a loaded machine still writes the small checkpoint in time.
if [ "$ranks" -gt 1 ] && [[ "$(basename "${launcher[0]}")" == mpirun* || "$(basename "${launcher[0]}")" == mpiexec* ]] \
   && "${launcher[0]}" --version 2>&1 | grep -q "Open MPI"; then
  cat > endless.yaml <<DECK
output: {progress_seconds: 0}
diffusion: {nx: 64, ny: 48, steps: 100000000, output_every: 0, precision: float64, start: {kind: jagged, seed: 3}}
DECK
  ( export OMPI_MCA_odls_base_sigkill_timeout=5; exec "${launcher[@]}" "$trident" run endless.yaml --output endless.h5 ) >endless.log 2>&1 &
  pid=$!
  while [ ! -e endless.h5.partial ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done  # the ranks are stepping
  kill -INT $pid
  wait $pid; rc=$?
  [ $rc -eq 1 ] && ok || { bad "mpirun Ctrl-C: mpirun exit $rc, expected Open MPI's 1"; cat endless.log; }
  grep -q "diffusion: stopped by SIGTERM at step" endless.log && [ -f endless.checkpoint.h5 ] && no_partials && ok \
    || { bad "mpirun Ctrl-C: the ranks did not stop with a checkpoint"; cat endless.log; ls; }
  "$python" -c "import h5py,sys; s=h5py.File(sys.argv[1],'r').attrs['status']; assert 'stopped by SIGTERM' in str(s), s" endless.h5 \
    && ok || bad "mpirun Ctrl-C: the output's status does not say it stopped"
fi

echo "interrupt and restart ($ranks rank(s)): $pass passed, $fail failed"
[ $fail -eq 0 ]
