# Sourced by bench/scaling/bench.sh and bench/scaling/ridge.sh: what each scaling run
# records for the goals table (bench/scaling/goals.sh) and the model's check
# (bench/scaling/model.py --check), and the same run again with the GPUs talking as they
# would across nodes (SCALING_NETWORK=1), compared with the first bit for bit.
# The caller sets `build` and `trident` (bench/common/build.sh's bench_build). Records go to $SCALING_RECORDS
# when it is set, one line each:
#   run STUDY CASE RANKS WALL_S EXIT_S STARTUP_S PREPARE_S RELEASE_S WORK_S
# (RELEASE: the table's release row and the shutdown after the table, where NCCL's teardown
# is joined, together)
#   network STUDY CASE RANKS same|DIFFERENT WALL_S NET_WALL_S WORK_S NET_WORK_S ROUTE NET_ROUTE
#   link RANKS LATENCY_S BANDWIDTH_BPS   (the forced network's link, trident_link_probe's fit)
#   allreduce RANKS BYTES SECONDS        (an all-reduce over that link, measured by the probe)
# WALL: launcher start to exit (what a job waits for); EXIT: trident's "process start to
# exit" (rank 0); the timer rows: the slowest rank's; WORK: the part that divides over
# GPUs (diffusion compute + exposed halo wait, knn search, ridge sweep).
# shellcheck shell=bash disable=SC2034  # own_gpu: used by the scripts that source this
scaling_runs_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# timer_max LOG PHASE: the slowest rank's seconds of a row of trident's timing table (0 if absent)
timer_max() {
  awk -v p="$2" '$1 == p && NF == 4 && !found { v = $3; found = 1 } END { print found ? v : 0 }' "$1"
}

# exit_seconds LOG: trident's "process start to exit" (rank 0), 0 if the line is missing
exit_seconds() {
  awk '/process start to exit/ { for (i = 1; i < NF; ++i) if ($i == "exit") { v = $(i + 1) } }
       END { print v == "" ? 0 : v }' "$1"
}

# work_seconds STUDY LOG: the part of the run that divides over GPUs
work_seconds() {
  case $1 in
    diffusion) awk '$1 == "diffusion.compute" || $1 == "diffusion.halo" { t += $3 } END { print t + 0 }' "$2" ;;
    knn) sed -nE 's/.*knn: search ([0-9.eE+-]+) s.*/\1/p' "$2" | awk 'NR == 1 { v = $1 } END { print v + 0 }' ;;
    ridge) sed -nE 's/.*ridge: sweep ([0-9.eE+-]+) s.*/\1/p' "$2" | awk '{ v = $1 } END { print v + 0 }' ;;
    *) echo 0 ;;
  esac
}

# route_of LOG: how device data went between ranks, as trident's log says, and the network
# NCCL took when its debug lines were kept beside the log (LOG.nccl.*)
route_of() {
  local route net
  route=$(sed -n 's/.*device data between ranks: \([^ ,(]*\).*/\1/p' "$1" | head -1)
  net=$(cat "$1".nccl.* 2>/dev/null | sed -n 's/.*NCCL INFO Using network \([A-Za-z_]*\).*/\1/p' | head -1)
  echo "${route:-none}${net:+/net=$net}"
}

# release_seconds LOG: the slowest rank's release row plus rank 0's shutdown after the table
release_seconds() {
  awk -v r="$(timer_max "$1" release)" '/Kokkos and MPI finalize, / {
         for (i = 1; i < NF; ++i) if ($i == "finalize,") s = $(i + 1) }
       END { print r + s }' "$1"
}

# record_run STUDY CASE RANKS WALL LOG
record_run() {
  [ -n "${SCALING_RECORDS:-}" ] || return 0
  echo "run $1 $2 $3 $4 $(exit_seconds "$5") $(timer_max "$5" startup) $(timer_max "$5" prepare)" \
       "$(release_seconds "$5") $(work_seconds "$1" "$5")" >>"$SCALING_RECORDS"
}

# network_rerun STUDY CASE RANKS OUTPUT LOG WALL COMMAND...: with SCALING_NETWORK=1, runs
# COMMAND (the run that wrote OUTPUT, launched through bench/common/own_gpu.sh and writing
# OUTPUT with .h5 replaced by .network.h5) with NCCL kept off peer and shared memory,
# compares the two outputs bit for bit (trident_h5_same), prints one line and records it
# (not on one rank, which sends nothing).
# Both outputs are removed afterwards (8192^2 frames are large), as is OUTPUT without
# SCALING_NETWORK. Exits 1 if the rerun fails.
network_rerun() {
  local study=$1 case=$2 ranks=$3 output=$4 log=$5 wall=$6
  shift 6
  if [ "${SCALING_NETWORK:-0}" != 1 ] || [ "$ranks" = 1 ]; then  # one rank sends nothing
    rm -f "$output"
    return 0
  fi
  local net_output=${output%.h5}.network.h5 net_log=${log%.log}.network.log start net_wall same
  local h5_same=${H5_SAME:-$build/bench/trident_h5_same}
  start=$(date +%s.%N)
  if ! env "${forced_network[@]}" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET \
       NCCL_DEBUG_FILE="$net_log.nccl.%h.%p" "$@" >"$net_log" 2>&1; then
    cat "$net_log"; echo "scaling: $case on $ranks ranks failed with the forced network" >&2; exit 1
  fi
  net_wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
  if "$h5_same" "$output" "$net_output" >"$net_log.same" 2>&1; then same=same; else same=DIFFERENT; fi
  local work net_work route net_route
  work=$(work_seconds "$study" "$log"); net_work=$(work_seconds "$study" "$net_log")
  route=$(route_of "$log"); net_route=$(route_of "$net_log")
  awk -v c="$case" -v r="$ranks" -v s="$same" -v w="$wall" -v nw="$net_wall" -v k="$work" -v nk="$net_work" \
      -v route="$route" -v nroute="$net_route" 'BEGIN {
    printf("  network %-20s %2d ranks: %-9s whole %7.2f -> %7.2f s (%5.2fx), work %8.4f -> %8.4f s (%5.2fx); %s -> %s\n",
           c, r, s, w, nw, nw / w, k, nk, (k > 0 ? nk / k : 0), route, nroute) }'
  [ "$same" = same ] || sed 's/^/    /' "$net_log.same"
  [ -z "${SCALING_RECORDS:-}" ] ||
    echo "network $study $case $ranks $same $wall $net_wall $work $net_work $route $net_route" >>"$SCALING_RECORDS"
  cp "$net_log" "${BENCH_LOG_DIR:-$(dirname "$net_log")}/" 2>/dev/null || true
  rm -f "$output" "$net_output" "$net_log".nccl.*
}

# what goes between the launcher's rank count and trident in a forced-network run, and its
# settings (TRIDENT_PEER_MEMORY=off: across nodes trident's own peer memory is out of reach too)
own_gpu="$scaling_runs_here/../common/own_gpu.sh"
forced_network=(TRIDENT_PEER_MEMORY=off NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1)

# probe_link PROBE RANKS LAUNCHER...: with SCALING_NETWORK=1, the forced network's link on
# RANKS ranks as trident_link_probe measures it (halo exchanges and all-reduces), printed
# and recorded for bench/scaling/model.py --check; a note instead when PROBE is not built
# (it needs NCCL).
probe_link() {
  local probe=$1 ranks=$2 out
  shift 2
  [ "${SCALING_NETWORK:-0}" = 1 ] && [ "$ranks" -gt 1 ] || return 0
  if [ ! -x "$probe" ]; then
    echo "  link: $probe is not built (NCCL builds only): the model's check keeps its assumed network"
    return 0
  fi
  if ! out=$(env "${forced_network[@]}" "$@" -n "$ranks" "$own_gpu" "$probe" 2>&1); then
    printf '%s\n' "$out"; echo "scaling: the link probe on $ranks ranks failed" >&2; exit 1
  fi
  awk -v r="$ranks" '$1 == "probe" { printf "  link %d ranks: %s\n", r, $0 }
    $1 == "link" { printf "  link %d ranks: latency %.1f us, bandwidth %.2f GB/s (a halo exchange: both ways at once)\n", r, $2 * 1e6, $3 / 1e9 }' <<<"$out"
  [ -z "${SCALING_RECORDS:-}" ] || awk -v r="$ranks" '$1 == "link" { print "link", r, $2, $3 }
    $1 == "probe" && $2 == "allreduce" { print "allreduce", $3, $4, $5 }' <<<"$out" >>"$SCALING_RECORDS"
}
