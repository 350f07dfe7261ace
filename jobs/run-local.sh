#!/bin/bash
# trident on a workstation: RANKS MPI ranks (default 1) through mpirun. With GPUs, each
# rank drives GPU (local rank mod GPU count), so use as many ranks as GPUs.
#
#   jobs/run-local.sh DECK [RANKS [TRIDENT-RUN-OPTIONS...]]
#   jobs/run-local.sh inputs/diffusion_small.yaml 2 --output out/demo.h5 --overwrite
#
# The executable: TRIDENT_BINARY (or TRIDENT, as the sbatch templates name it), else this
# checkout's build/PRESET/src/trident for the presets cuda, cuda-in-tree, cpu (CUDA first
# where an NVIDIA GPU shows in /dev, else cpu first), then build/src/trident, else trident
# on the PATH. It says which it used. A build folder elsewhere: TRIDENT_BINARY=DIR/src/trident.
# Options after RANKS go to `trident run` (the folder of --output is created). As root it
# lets Open MPI run as root; it always allows more ranks than cores.
# Environment: TRIDENT_OUTPUT (default: trident's choice), TRIDENT_ARGS (more `trident run`
# arguments, e.g. "--overwrite"), MPIRUN (default mpirun), MPIRUN_ARGS.
# Stop a run with a checkpoint (exit 75): kill -USR1 PID (this script becomes mpirun, which
# passes SIGUSR1 on). Ctrl-C reaches only mpirun, which ends the ranks (SIGTERM, SIGKILL a
# second later): too soon for most checkpoints.
set -u
usage() { sed -n '2,18s/^# \{0,1\}//p' "$0"; }
case ${1:-} in -h|--help) usage; exit 0 ;; esac
[ $# -ge 1 ] || { usage >&2; exit 2; }
deck=$1
ranks=${2:-1}
shift $(( $# >= 2 ? 2 : 1 ))   # the rest: options for `trident run`
case $ranks in ''|*[!0-9]*|0) echo "run-local.sh: RANKS must be a positive integer, got '$ranks'" >&2; exit 2 ;; esac

# The builds of this checkout, in the order they are tried: a CUDA build cannot start
# where no GPU shows, so there the CPU build comes first.
checkout=$(cd "$(dirname "$0")/.." && pwd)
builds=(cuda cuda-in-tree cpu)
compgen -G '/dev/nvidia[0-9]*' >/dev/null || builds=(cpu cuda cuda-in-tree)
candidates=()
for preset in "${builds[@]}"; do candidates+=("$checkout/build/$preset/src/trident"); done
candidates+=("$checkout/build/src/trident")   # a build folder configured without a preset

if [ -n "${TRIDENT_BINARY:-}" ]; then trident=$TRIDENT_BINARY; chosen="TRIDENT_BINARY"
elif [ -n "${TRIDENT:-}" ]; then trident=$TRIDENT; chosen="TRIDENT"
else
  trident=
  for c in "${candidates[@]}"; do
    [ -x "$c" ] && [ -f "$c" ] && { trident=$c; break; }
  done
  chosen="this checkout's build"
  if [ -z "$trident" ]; then
    trident=$(command -v trident) && chosen="the PATH" || {
      echo "run-local.sh: no trident executable: none of ${candidates[*]} exists and there is no trident on the PATH;" \
           "build one (cmake --preset cpu && cmake --build --preset cpu) or set TRIDENT_BINARY" >&2
      exit 2; }
  fi
fi
[ -x "$trident" ] && [ -f "$trident" ] || {
  echo "run-local.sh: no trident executable at '$trident' (from $chosen)" >&2; exit 2; }
others=()
for c in "${candidates[@]}"; do [ -x "$c" ] && [ "$c" != "$trident" ] && others+=("$c"); done
echo "run-local.sh: using $trident (from $chosen)${others[*]:+; also built: ${others[*]} (TRIDENT_BINARY picks one)}" >&2

launcher=("${MPIRUN:-mpirun}" -n "$ranks")
if "${MPIRUN:-mpirun}" --version 2>/dev/null | grep -q "Open MPI"; then
  # Open MPI refuses root without these (a container's root, CI); the variables also reach
  # an mpirun that MPIRUN wraps.
  if [ "$(id -u)" -eq 0 ]; then
    launcher+=(--allow-run-as-root)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  # Open MPI counts a slot per core, not per hardware thread: 2 ranks on a 2-CPU virtual
  # machine with one hyperthreaded core would be refused.
  launcher+=(--oversubscribe)
  launcher+=(--bind-to none)  # a rank drives a GPU; pinning it to one core only slows its host side
fi
args=(run "$deck")
[ -n "${TRIDENT_OUTPUT:-}" ] && args+=(--output "$TRIDENT_OUTPUT")
args+=("$@")
# The output's folder (out/ for the README's demo) is made here: trident writes only into
# an existing folder.
output=${TRIDENT_OUTPUT:-}
for ((i = 1; i <= $#; i++)); do
  case ${!i} in
    --output|-o) j=$((i + 1)); output=${!j:-} ;;
    --output=*|-o=*) output=${!i#*=} ;;
  esac
done
case $output in */*) mkdir -p "$(dirname "$output")" || exit 2 ;; esac
set -x
exec "${launcher[@]}" ${MPIRUN_ARGS:-} "$trident" "${args[@]}" ${TRIDENT_ARGS:-}
