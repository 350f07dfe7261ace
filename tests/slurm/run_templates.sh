#!/bin/bash
# Submits every sbatch template in jobs/ to a real SLURM (slurmctld + two slurmd started
# here, see cluster.sh) and checks each job: its final state, that each rank got its own
# GPU, trident's per-rank lines, and the HDF5 output. The long-run template is stopped
# with SIGUSR1 (as --signal=B:USR1@120 would), must requeue itself ("long") or submit a
# follow-up job ("resub"), resume from its checkpoint and end with every frame equal to an
# uninterrupted run's; "timed" checks that SLURM itself delivers --signal=B:USR1@120; bad
# decks must fail the job with exit code 2 and never requeue. Every job must get the
# templates' CPUs per task; "gres" runs multi-node.sbatch with its commented --gres,
# --account and --partition lines in use, on an example deck that reads a CSV file.
# Every wait is for an event (a job's state, a held rank, a pending signal, a process's
# exit), never for a fixed time: the only clock is the hang guard below, under ctest's
# TIMEOUT, which ends the test (cluster stopped, holds released) if something never comes.
#
# usage: run_templates.sh TRIDENT SOURCE_DIR HOLD_TOOL   (exit 77: skipped, no SLURM or not root)
# HOLD_TOOL is the Kokkos Tools library built from hold_at_checkpoint.cpp.
# KEEP=DIR keeps the cluster's folder, logs and outputs in DIR.
set -u
trident=$(realpath "$1"); src=$(realpath "$2"); hold_tool=$(realpath "$3")
here=$(dirname "$(realpath "$0")")
for tool in slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not found (Debian: apt-get install slurm-wlm)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: starting slurmd needs root"; exit 77; }
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "SKIP: /usr/bin/python3 has no h5py"; exit 77; }

work=${KEEP:-$(mktemp -d /tmp/trident-slurm.XXXXXX)}
mkdir -p "$work"
source "$here/cluster.sh"
hold=$work/hold   # the hold tool's files: held.JOBID.PID per held rank, and "released"
held_pids=()
release_holds() {  # no rank holds any more (also when the test ends early)
  mkdir -p "$hold" && touch "$hold/released"
  [ ${#held_pids[@]} -eq 0 ] || kill -CONT "${held_pids[@]}" 2>/dev/null
  held_pids=()
}
guard=${TRIDENT_SLURM_TEST_GUARD:-780}   # seconds; below the TIMEOUT in CMakeLists.txt
guard_pid=
finish() {
  [ -z "$guard_pid" ] || kill "$guard_pid" 2>/dev/null
  release_holds
  cluster_stop
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap finish EXIT
trap 'exit 1' INT TERM
# The hang guard: after $guard s, what the queue holds, then SIGTERM to this script (whose
# trap stops the cluster); a wait in progress ends within its 0.1-1 s poll. Its sleep holds
# none of the test's output open, so that ctest is not kept waiting when finish() ends it.
( sleep "$guard" </dev/null >/dev/null 2>&1
  echo "FAIL: hang guard: the test is still waiting after $guard s; the queue:"
  squeue 2>&1; kill -TERM $$ ) &
guard_pid=$!
cluster_start "$work/cluster" || exit 1
start=$SECONDS

# The jobs run the build under test.
export TRIDENT=$trident
mkdir -p "$work/jobs" && cd "$work/jobs"

deck() {  # the small deck of a study; the diffusion one while a study has none yet
  if [ -f "$src/inputs/$1_small.yaml" ]; then echo "$src/inputs/$1_small.yaml"
  else echo "$src/inputs/diffusion_small.yaml"; fi
}
fail=0; pass=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
daemon_log() {  # JOB: what slurmctld and the slurmd said about the job (the cluster goes with the test)
  echo "--- SLURM's logs on job $1:"
  grep -h -w -- "$1" "$work"/cluster/log/*.log 2>/dev/null | tail -n 40
  scontrol show job "$1" 2>/dev/null
}

job_field() {  # JOB FIELD: a field of `scontrol show job`
  scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s|^$2=||p"
}
job_over() {  # JOB: the job has ended for good (a requeued job is PENDING again, not over)
  case $(job_field "$1" JobState) in
    COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED) return 0 ;;
  esac
  return 1
}
wait_done() {  # JOB: waits until the job has ended for good; sets state to its state
  # (in this shell, not a $(...) subshell, so that the hang guard's SIGTERM ends the wait)
  until job_over "$1"; do sleep 0.5; done
  state=$(job_field "$1" JobState)
}
# Open MPI 4.1 fails a launch ("mkdir ... ompi.HOST.UID: File exists", then orte_init) when
# another creates the same session folder at that moment (TridentTesting.cmake says more):
# the jobs and the reference runs below start together, so each gets a folder of its own.
session_folder() {  # NAME: a fresh session folder base for the launches of NAME
  mkdir -p "$work/ompi/$1" && echo "$work/ompi/$1"
}
submit() {  # NAME TEMPLATE DECK [SBATCH OPTIONS...]: submits, prints the job id
  local name=$1 template=$2 deck=$3; shift 3
  local job script=$src/jobs/$template.sbatch
  [ -f "$template" ] && script=$template   # a changed copy of a template
  local -x OMPI_MCA_orte_tmpdir_base
  OMPI_MCA_orte_tmpdir_base=$(session_folder "job-$name")
  job=$(sbatch --parsable --job-name="$name" "$@" "$script" "$deck") || return 1
  # What it took (with the Open MPI settings of its environment), to submit it again
  { env | grep '^OMPI_MCA_' | while read -r setting; do printf '%q ' "$setting"; done
    printf 'submit '; printf '%q ' "$name" "$template" "$deck" "$@"; } >"$work/jobs/.submit-$job"
  echo "$job"
}
template_cpus=8   # the templates' --cpus-per-task
check() {  # NAME JOB RANKS GPUS: the job completed and its ranks and output are right
  local name=$1 job=$2 ranks=$3 gpus=$4 state exit_code cpus
  wait_done "$job"
  # Open MPI 4.1's TCP transport (between the two "nodes", which share this host's cores)
  # can fail to connect and crash in MPI_Init when the machine is overloaded (its
  # EINPROGRESS handling, open-mpi/ompi#10734 and #11508). Such a job runs once more.
  if [ "$state" = FAILED ] && grep -q "Open MPI failed to TCP connect" "$work/jobs/$name-$job.out"; then
    echo "NOTE: $name (job $job) hit Open MPI's TCP connect failure under load; submitting it again"
    local again
    eval "again=\$($(cat "$work/jobs/.submit-$job"))"
    job=$again
    wait_done "$job"
  fi
  exit_code=$(job_field "$job" ExitCode)
  local log=$work/jobs/$name-$job.out out
  out=$(ls "$work"/jobs/*-"$job".h5 2>/dev/null | head -n 1)
  if [ "$state" != COMPLETED ] || [ "$exit_code" != 0:0 ]; then
    bad "$name (job $job): state $state, exit code $exit_code"; cat "$log"; daemon_log "$job"; return
  fi
  ok "$name (job $job) completed"
  cpus=$(job_field "$job" "CPUs/Task")
  [ "$cpus" = "$template_cpus" ] && ok "$name: $cpus CPUs a task" || bad "$name: $cpus CPUs a task, expected the templates' $template_cpus"
  if /usr/bin/python3 "$here/check_job.py" "$log" "$out" --ranks "$ranks" --gpus "$gpus"; then
    ok "$name: binding and output"
  else
    bad "$name: binding or output"; cat "$log"
  fi
}

# The long runs first: they are the slowest, and their deck runs long enough to be
# stopped. "long" requeues itself, "resub" submits a follow-up job. Their ranks load the
# hold tool (see "Stop the long runs" below); the other jobs do not.
mkdir -p "$hold"
major=$("$trident" info 2>/dev/null | sed -n 's/^ *Kokkos  *\([0-9]*\)\..*/\1/p' | head -n 1)
if [ "${major:-0}" -ge 4 ]; then tools_var=KOKKOS_TOOLS_LIBS; else tools_var=KOKKOS_PROFILE_LIBRARY; fi
held_submit() {  # as submit, with the hold tool in the job's environment (sbatch passes it on)
  ( export "$tools_var=$hold_tool" TRIDENT_HOLD_DIR="$hold" ${TRIDENT_HOLD_ENTER:+TRIDENT_HOLD_ENTER}; submit "$@" )
}
cat >"$work/jobs/long.yaml" <<'DECK'
output: {progress_seconds: 1}
diffusion: {nx: 128, ny: 96, steps: 12000, output_every: 3000, checkpoint_every: 1000,
            precision: float64, start: {kind: jagged, seed: 5}}
DECK
# They keep the template's 24-hour limit: SLURM's own warning (SIGUSR1 120 s before the
# limit) is then never due during the test, and the hold tool decides when they stop.
long=$(held_submit long long-run "$work/jobs/long.yaml" --ntasks-per-node=2)
resub=$(held_submit resub long-run "$work/jobs/long.yaml" --ntasks-per-node=2 \
          --export=ALL,TRIDENT_RESUME=resubmit)
# knn and ridge write no periodic checkpoint: their ranks are held where the work starts,
# so the signal is pending before the first batch (knn) or block of iterations (ridge) ends.
sed 's/batch_size: 1024/batch_size: 256/' "$src/inputs/knn_small.yaml" >"$work/jobs/knnlong.yaml"
cp "$src/inputs/ridge_small.yaml" "$work/jobs/ridgelong.yaml"
knnlong=$(TRIDENT_HOLD_ENTER=trident::knn::total held_submit knnlong long-run "$work/jobs/knnlong.yaml" \
            --ntasks-per-node=2)
ridgelong=$(TRIDENT_HOLD_ENTER=trident::ridge::sweep held_submit ridgelong long-run "$work/jobs/ridgelong.yaml" \
              --ntasks-per-node=1)
# SLURM's own delivery of --signal=B:USR1@120: with a 2-minute limit it is due at once (SLURM
# looks every 30 s). The limit kills nothing here (OverTimeLimit=UNLIMITED, cluster.sh): the
# stub waits for the signal however late it comes. It stands in for trident (whose stop and
# resume the jobs above check).
timed=$(TRIDENT=$here/stub_trident.sh submit timed long-run "$work/jobs/long.yaml" --ntasks-per-node=1 --time=2)
# Bad input: trident's exit code 2 must become the job's, and a long run must not requeue.
printf 'diffusion: {nx: 0, ny: 8, steps: 1}\n' >"$work/jobs/bad.yaml"
bad_one=$(submit badone single-gpu "$work/jobs/bad.yaml")
bad_long=$(submit badlong long-run "$work/jobs/bad.yaml" --ntasks-per-node=1)
one=$(submit one single-gpu "$(deck diffusion)")
node=$(submit node single-node "$(deck knn)")
# Where the two slurmd could not get host names of their own, their ranks share one host
# name, and Open MPI's shared-memory files of node1 and node2 would collide in /dev/shm:
# the two-node job then talks TCP over loopback.
if [ "$cluster_own_hostnames" -eq 1 ]; then
  nodes=$(submit nodes multi-node "$(deck diffusion)" --ntasks-per-node=2)
else
  nodes=$(OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo \
            submit nodes multi-node "$(deck diffusion)" --ntasks-per-node=2)
fi
cpu=$(submit cpu cpu-only "$(deck ridge)" --ntasks=3 --nodes=1)
# The commented alternatives in use: --gres instead of --gpus-per-task (each rank sees its
# node's GPUs and drives local rank mod count), --account and --partition (this cluster's).
sed -e 's/^#SBATCH --gpus-per-task=/##SBATCH --gpus-per-task=/' -e 's/^##SBATCH --gres=gpu:[0-9]*/#SBATCH --gres=gpu:2/' \
    -e 's/^##SBATCH --account=.*/#SBATCH --account=tridenttest/' -e 's/^##SBATCH --partition=.*/#SBATCH --partition=test/' \
    "$src/jobs/multi-node.sbatch" >"$work/jobs/gres-multi-node.sbatch"
gres=$(submit gres "$work/jobs/gres-multi-node.sbatch" "$src/inputs/knn_stations_csv.yaml" --nodes=1 --ntasks-per-node=2)
echo "submitted: long $long, resub $resub, knnlong $knnlong, ridgelong $ridgelong, timed $timed, bad $bad_one $bad_long, one $one, node $node, nodes $nodes, cpu $cpu, gres $gres"

# The reference for the long run: the same deck, uninterrupted, outside SLURM.
OMPI_MCA_orte_tmpdir_base=$(session_folder reference) \
  mpirun --allow-run-as-root --oversubscribe -n 2 --mca btl self,vader "$trident" run "$work/jobs/long.yaml" \
  --output "$work/jobs/reference.h5" >"$work/jobs/reference.log" 2>&1 &
reference_pid=$!
OMPI_MCA_orte_tmpdir_base=$(session_folder knn-reference) \
  mpirun --allow-run-as-root --oversubscribe -n 2 --mca btl self,vader "$trident" run "$work/jobs/knnlong.yaml" \
  --output "$work/jobs/knn-reference.h5" >"$work/jobs/knn-reference.log" 2>&1 || {
  bad "knn reference run failed"; cat "$work/jobs/knn-reference.log"; }
"$trident" run "$work/jobs/ridgelong.yaml" --output "$work/jobs/ridge-reference.h5" >"$work/jobs/ridge-reference.log" 2>&1 \
  || { bad "ridge reference run failed"; cat "$work/jobs/ridge-reference.log"; }

# Stop the long runs: SIGUSR1 to the batch shell only, which is what --signal=B:USR1@120
# delivers 120 s before the time limit. So that no run can end first however fast the
# machine, every rank of both jobs holds itself (SIGSTOP, from the hold tool) right after
# its first checkpoint; once all of them are held, both jobs are signalled, and the ranks
# go on only when the signal is pending at each of them.
usr1_pending() {  # PID: SIGUSR1 (10, bit 9) waits at the process or one of its threads
  local mask
  for mask in $(awk '/^(ShdPnd|SigPnd):/ {print $2}' "/proc/$1/status" 2>/dev/null); do
    (( 0x$mask & 0x200 )) && return 0
  done
  return 1
}
stopped() {  # PID: the process is stopped (state T)
  [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)" = T ]
}
held_ranks() {  # JOB: the pids of the job's ranks that the hold tool has stopped
  local f p
  for f in "$hold/held.$1".*; do
    [ -f "$f" ] || continue
    p=${f##*.}
    stopped "$p" && echo "$p"
  done
}
stop_all() {  # JOB:NAME:RANKS...: hold every rank of every job, signal each job, release them
  local spec job name ranks pids p signalled=()
  for spec in "$@"; do
    IFS=: read -r job name ranks <<<"$spec"
    # until all its ranks are held, or the job ended without (a failure, reported below)
    until [ "$(held_ranks "$job" | wc -l)" -ge "$ranks" ] || job_over "$job"; do sleep 0.1; done
    pids=$(held_ranks "$job")
    held_pids+=($pids)
    if [ "$(echo "$pids" | wc -w)" -ne "$ranks" ]; then
      bad "$name: $(echo "$pids" | wc -w) of job $job's $ranks ranks held at their first checkpoint"; cat "$work/jobs/$name-$job.out"
    fi
  done
  for spec in "$@"; do
    IFS=: read -r job name ranks <<<"$spec"
    scancel --batch --signal=USR1 "$job" && signalled+=("$job") || bad "$name: could not signal job $job"
  done
  # until the signal waits at every held rank (or the rank is gone: then it never will)
  for p in "${held_pids[@]}"; do
    until usr1_pending "$p" || ! [ -e "/proc/$p" ]; do sleep 0.1; done
    usr1_pending "$p" || bad "SIGUSR1 never reached held rank $p (jobs ${signalled[*]}): it ended"
  done
  release_holds
}
stop_all "$long:long:2" "$resub:resub:2" "$knnlong:knnlong:2" "$ridgelong:ridgelong:1"
# A requeued job starts again by itself, 6 s after its requeue (cluster.sh's cred_expire=5):
# SLURM keeps it out of the second in which slurmd revoked its old credential, which
# moving its start forward by hand did not (1 run in 5 failed so).

for job in "$bad_one" "$bad_long"; do
  wait_done "$job"
  log=$(ls "$work"/jobs/bad*-"$job".out)
  if [ "$state" = FAILED ] && [ "$(job_field "$job" ExitCode)" = 2:0 ] && [ "$(job_field "$job" Restarts)" = 0 ] \
     && grep -q "diffusion.nx" "$log"; then
    ok "bad deck (job $job): FAILED with exit code 2, the message in the log, no requeue"
  else
    bad "bad deck (job $job): state $state, exit code $(job_field "$job" ExitCode)"; cat "$log"
  fi
done

check one "$one" 1 task
check node "$node" 4 node
check nodes "$nodes" 4 task
check cpu "$cpu" 3 none
check gres "$gres" 2 node
[ "$(job_field "$gres" Account)" = tridenttest ] && [ "$(job_field "$gres" Partition)" = test ] \
  && ok "gres: the uncommented --account and --partition lines reached SLURM" \
  || bad "gres: account '$(job_field "$gres" Account)', partition '$(job_field "$gres" Partition)'"

wait $reference_pid || { bad "reference run failed"; cat "$work/jobs/reference.log"; }
same_as_reference() {  # OUTPUT: with the parts kept at stops, the reference's frames bit for bit
  /usr/bin/python3 - "$work/jobs/reference.h5" "$1" <<'PY'
import os, sys, h5py, numpy as np
ref = h5py.File(sys.argv[1], "r")["diffusion"]
final = sys.argv[2]
parts = [p for p in (final[:-3] + f".part{i}.h5" for i in range(10)) if os.path.exists(p)]
assert parts, "the stopped run's frames were not kept in a .part0.h5"
frames = {}
for path in parts + [final]:
    d = h5py.File(path, "r")["diffusion"]
    for i, step in enumerate(d["step"][:]):
        frames[int(step)] = d["field"][i]
for i, step in enumerate(ref["step"][:]):
    assert int(step) in frames, f"step {step} missing from {sorted(frames)}"
    assert np.array_equal(ref["field"][i].view(np.uint64), frames[int(step)].view(np.uint64)), f"step {step} differs"
PY
}
long_log=$work/jobs/long-$long.out
wait_done "$long"
restarts=$(job_field "$long" Restarts)
if [ "$state" = COMPLETED ] && [ "$restarts" = 1 ] && grep -q "requeueing job $long" "$long_log" \
   && ! grep -q "requeue failed" "$long_log" && grep -q -- "--restart $work/jobs/long-$long.checkpoint.h5" "$long_log"; then
  ok "long (job $long): stopped by SIGUSR1, requeued, resumed from its checkpoint, completed"
  /usr/bin/python3 "$here/check_job.py" "$long_log" "$work/jobs/long-$long.h5" --ranks 2 --gpus task \
    && ok "long: binding and output after the restart" || { bad "long: binding or output"; cat "$long_log"; }
  same_as_reference "$work/jobs/long-$long.h5" \
    && ok "long: every frame bitwise equal to the uninterrupted run's" || bad "long: frames differ from the uninterrupted run's"
  # The post-processing reads the parts and the final file as one series.
  /usr/bin/python3 "$src/postprocess/diffusion_frames.py" "$work"/jobs/long-"$long".part*.h5 "$work/jobs/long-$long.h5" \
    -o "$work/jobs/frames-$long" >"$work/jobs/frames.log" 2>&1
  frames=$(ls "$work/jobs/frames-$long" 2>/dev/null | wc -l)
  expected=$(/usr/bin/python3 -c "
import glob, h5py
steps = set()
for p in glob.glob('$work/jobs/long-$long.part*.h5') + ['$work/jobs/long-$long.h5']:
    steps.update(int(s) for s in h5py.File(p, 'r')['diffusion/step'][:])
print(len(steps))")
  [ "$frames" -eq "$expected" ] && [ "$frames" -ge 5 ] && ok "long: diffusion_frames.py reads the parts and the final file as one series ($frames frames)" || { bad "diffusion_frames.py over the parts: $frames frames, expected $expected"; cat "$work/jobs/frames.log"; }
  /usr/bin/python3 "$here/check_parts.py" "$work/jobs/long-$long.h5" \
    && ok "long: each part's XDMF names its part, long-$long.all.xdmf every frame once, no part's status says to resume" \
    || { bad "long: the parts' XDMF or status"; cat "$long_log"; }
else
  bad "long (job $long): state $state after $restarts restart(s)"; cat "$long_log"; daemon_log "$long"
fi

# knn and ridge under the long-run template: stopped, requeued, resumed with --restart; the
# final output holds the whole result, bitwise equal to an uninterrupted run's.
requeued_result() {  # NAME JOB RANKS REFERENCE CHECK-MODE
  local name=$1 job=$2 ranks=$3 reference=$4 mode=$5 log=$work/jobs/$1-$2.out state
  wait_done "$job"
  if [ "$state" = COMPLETED ] && [ "$(job_field "$job" Restarts)" = 1 ] && grep -q "requeueing job $job" "$log" \
     && ! grep -q "requeue failed" "$log" && grep -q "stopped by SIGUSR1" "$log" \
     && grep -q -- "--restart $work/jobs/$name-$job.checkpoint.h5" "$log"; then
    ok "$name (job $job): stopped by SIGUSR1, requeued, resumed from its checkpoint, completed"
    /usr/bin/python3 "$here/check_job.py" "$log" "$work/jobs/$name-$job.h5" --ranks "$ranks" --gpus task \
      && ok "$name: binding and output after the restart" || { bad "$name: binding or output"; cat "$log"; }
    /usr/bin/python3 "$src/tests/cli/stop_restart_check.py" "$mode" "$reference" "$work/jobs/$name-$job.h5" \
      && ok "$name: the result equals the uninterrupted run's bit for bit" || bad "$name: the result differs from the uninterrupted run's"
  else
    bad "$name (job $job): state $state after $(job_field "$job" Restarts) restart(s)"; cat "$log"; daemon_log "$job"
  fi
}
requeued_result knnlong "$knnlong" 2 "$work/jobs/knn-reference.h5" knn-equal
requeued_result ridgelong "$ridgelong" 1 "$work/jobs/ridge-reference.h5" ridge-equal

timed_log=$work/jobs/timed-$timed.out
wait_done "$timed"
if [ "$state" = COMPLETED ] && [ "$(job_field "$timed" Restarts)" = 1 ] \
   && grep -q "got SIGUSR1" "$timed_log" && grep -q "stub: got SIGUSR1" "$timed_log" \
   && grep -q "stub: resumed from $work/jobs/long-$timed.checkpoint.h5" "$timed_log"; then
  ok "timed (job $timed): SLURM sent --signal=B:USR1@120, the job requeued and resumed"
else
  bad "timed (job $timed): state $state after $(job_field "$timed" Restarts) restart(s)"; cat "$timed_log"; daemon_log "$timed"
fi

resub_log=$work/jobs/resub-$resub.out
wait_done "$resub"
next=$(sed -n 's/.*follow-up job \([0-9]*\) resumes it.*/\1/p' "$resub_log")
if [ "$state" = COMPLETED ] && [ -n "$next" ]; then
  ok "resub (job $resub): stopped by SIGUSR1, submitted follow-up job $next"
  wait_done "$next"
  next_log=$work/jobs/trident-long-$next.out
  if [ "$state" = COMPLETED ] && grep -q -- "--restart $work/jobs/long-$resub.checkpoint.h5" "$next_log"; then
    ok "resub: follow-up job $next resumed from the checkpoint and completed"
    /usr/bin/python3 "$here/check_job.py" "$next_log" "$work/jobs/long-$resub.h5" --ranks 2 --gpus task \
      && ok "resub: binding and output of the follow-up" || { bad "resub: binding or output"; cat "$next_log"; }
    same_as_reference "$work/jobs/long-$resub.h5" \
      && ok "resub: every frame bitwise equal to the uninterrupted run's" || bad "resub: frames differ from the uninterrupted run's"
    /usr/bin/python3 "$here/check_parts.py" "$work/jobs/long-$resub.h5" \
      && ok "resub: the parts' XDMF and status, long-$resub.all.xdmf" || { bad "resub: the parts' XDMF or status"; cat "$next_log"; }
  else
    bad "resub: follow-up job $next: state $state"; cat "$next_log"
  fi
else
  bad "resub (job $resub): state $state, follow-up '$next'"; cat "$resub_log"; daemon_log "$resub"
fi

echo "slurm templates: $pass passed, $fail failed in $((SECONDS - start)) s"
[ $fail -eq 0 ]
