# Sourced by the command-line test scripts, which take TRIDENT [HOLD_TOOL] [LAUNCHER ARGS...]:
#   source "$(dirname "$0")/common.sh" "$@"   (then shift what the script took)
# Sets trident (absolute), here (tests/cli), work (a new folder, the working folder from now
# on, removed at exit unless KEEP names one), python (one with h5py), tools_var (Kokkos Tools'
# variable for this Kokkos), pass/fail with ok and bad; and the process probes the tests hold
# ranks with, instead of sleeping: signal_pending PID SIGNUM, stopped PID. A rank the script
# holds goes in held_pid and is continued at exit, whatever happens.
trident=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${KEEP:-$(mktemp -d)}; mkdir -p "$work"
held_pid=""
trap '[ -z "$held_pid" ] || kill -CONT "$held_pid" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work" || exit 1
export OMPI_MCA_orte_tmpdir_base="$work/ompi"; mkdir -p "$work/ompi"
python=""
for p in /usr/bin/python3 python3; do "$p" -c 'import h5py' 2>/dev/null && { python=$p; break; }; done
[ -n "$python" ] || { echo "no Python with h5py found"; exit 1; }
major=$("$trident" info 2>/dev/null | sed -n 's/^ *Kokkos  *\([0-9]*\)\..*/\1/p' | head -n 1)
if [ "${major:-0}" -ge 4 ]; then tools_var=KOKKOS_TOOLS_LIBS; else tools_var=KOKKOS_PROFILE_LIBRARY; fi
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
signal_pending() {  # PID SIGNUM: the signal waits at the process or one of its threads
  local mask
  for mask in $(awk '/^(ShdPnd|SigPnd):/ {print $2}' "/proc/$1/status" 2>/dev/null); do
    (( 0x$mask & (1 << ($2 - 1)) )) && return 0
  done
  return 1
}
stopped() { [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)" = T ]; }
