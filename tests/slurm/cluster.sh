# A throw-away SLURM cluster on this host, for tests: one slurmctld and two slurmd
# ("node1", "node2", each 32 CPUs and 4 GPUs), free ports, everything under one folder.
# The CPUs are declared (config_overrides), not real: 8 for each GPU, what the templates
# ask for a rank, so that the templates' own --cpus-per-task fits as on a GPU node.
# Source it, then: cluster_start DIR; ...; cluster_stop.
#
# The GPUs are character devices made with mknod (SLURM checks that gres.conf's File=
# exists; plain files leave CUDA_VISIBLE_DEVICES empty). AuthType=auth/none, so no munge.
# Both slurmd run on this host: each gets its own spool, TmpFS (PMIx puts its per-step
# folders there) and port.
# Timing, so that the tests wait on events rather than clocks: a requeued job may start
# again cred_expire + 1 seconds after its requeue (5, the least SLURM takes, instead of 120;
# SLURM itself keeps it out of the second in which slurmd revoked its old credential), the
# scheduler looks at pending jobs every second, and a time limit only times the
# --signal warning: OverTimeLimit=UNLIMITED, no job is killed for its time.

cluster_pids=()

_free_ports() {  # N free TCP ports on 127.0.0.1
  /usr/bin/python3 - "$1" <<'PY'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

cluster_start() {  # DIR: writes the configuration, starts the daemons, waits for idle nodes
  local dir=$1 host ports
  host=$(hostname -s)
  read -r -a ports <<<"$(_free_ports 4)"
  # Job ids of their own, so that two test clusters on one host (concurrent ctest runs)
  # never give Open MPI the same PMIx namespace and with it the same /dev/shm names.
  local first_job_id=$(( (RANDOM * 32768 + RANDOM) % 60000000 + 1000 ))
  mkdir -p "$dir/state" "$dir/dev" "$dir/log"
  local n g
  for n in 1 2; do mkdir -p "$dir/spool/node$n" "$dir/tmp/node$n"; done
  for g in 0 1 2 3 4 5 6 7; do
    mknod "$dir/dev/nvidia$g" c 195 "$g" || return 1
  done
  cat >"$dir/slurm.conf" <<CONF
ClusterName=tridenttest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
GresTypes=gpu
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
AuthInfo=cred_expire=5
OverTimeLimit=UNLIMITED
MpiDefault=none
ReturnToService=2
MinJobAge=3600
FirstJobId=$first_job_id
KillWait=10
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
MailProg=/bin/true
PlugStackConfig=/dev/null
NodeName=node1 NodeHostname=$host NodeAddr=127.0.0.1 Port=${ports[2]} CPUs=32 Gres=gpu:4 RealMemory=2000 State=UNKNOWN
NodeName=node2 NodeHostname=$host NodeAddr=127.0.0.1 Port=${ports[3]} CPUs=32 Gres=gpu:4 RealMemory=2000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  cat >"$dir/gres.conf" <<CONF
NodeName=node1 Name=gpu File=$dir/dev/nvidia[0-3]
NodeName=node2 Name=gpu File=$dir/dev/nvidia[4-7]
CONF
  export SLURM_CONF=$dir/slurm.conf
  # In the foreground (-D) so that $! is the daemon, under `timeout` so that a test killed
  # outright (SIGKILL) leaves no daemon behind for more than 15 minutes.
  timeout 900 slurmctld -D -i -f "$dir/slurm.conf" >"$dir/log/slurmctld.stdout" 2>&1 &
  cluster_pids+=($!)
  # Each slurmd gets a host name of its own where the system allows (a UTS namespace,
  # CAP_SYS_ADMIN), so that its jobs' processes see "node1" or "node2" as a real second
  # host would; Open MPI then keeps the shared-memory files of the two apart.
  cluster_own_hostnames=0
  unshare --uts true 2>/dev/null && cluster_own_hostnames=1
  for n in 1 2; do
    if [ $cluster_own_hostnames -eq 1 ]; then
      timeout 900 unshare --uts sh -c 'hostname "$1" && shift && exec "$@"' sh "node$n" \
        slurmd -D -N "node$n" -f "$dir/slurm.conf" >"$dir/log/slurmd.node$n.stdout" 2>&1 &
    else
      timeout 900 slurmd -D -N "node$n" -f "$dir/slurm.conf" >"$dir/log/slurmd.node$n.stdout" 2>&1 &
    fi
    cluster_pids+=($!)
  done
  # Until both nodes are idle, or a daemon has ended (then the test cannot go on).
  local pid
  until [ "$(sinfo -h -o '%T %D' 2>/dev/null)" = "idle 2" ]; do
    for pid in "${cluster_pids[@]}"; do
      kill -0 "$pid" 2>/dev/null && continue
      echo "cluster: a daemon ended before the nodes were idle:"; sinfo 2>&1; tail -n 20 "$dir"/log/*.log
      return 1
    done
    sleep 0.5
  done
}

cluster_stop() {  # cancels what is left, then stops the daemons this file started, by PID
  # (the PIDs of their `timeout` wrappers, which pass SIGTERM on)
  [ ${#cluster_pids[@]} -gt 0 ] || return 0
  squeue -h -o %i 2>/dev/null | xargs -r scancel >/dev/null 2>&1
  local i
  for i in $(seq 1 20); do
    [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
    sleep 0.5
  done
  kill "${cluster_pids[@]}" 2>/dev/null
  for i in $(seq 1 20); do
    local alive=0 pid
    for pid in "${cluster_pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.5
  done
  for pid in "${cluster_pids[@]}"; do kill -0 "$pid" 2>/dev/null && kill -9 "$pid"; done
  wait "${cluster_pids[@]}" 2>/dev/null
  cluster_pids=()
}
