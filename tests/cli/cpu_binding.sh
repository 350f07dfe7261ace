#!/bin/bash
# A rank bound to one CPU on a host with room for more gets one warning saying how to start
# it (its host work would run on that CPU alone); a rank with its share gets none. Each
# rank's line says how many CPUs it may use, and unbound ranks that see the same CPUs say
# that they share them out. Skipped (exit 77) on a host with one CPU.
# usage: cpu_binding.sh TRIDENT DECK MPIEXEC ARGS...   (MPIEXEC ARGS start 2 ranks)
set -u
trident=$(realpath "$1"); deck=$(realpath "$2"); shift 2
launcher=("$@")
online=$(getconf _NPROCESSORS_ONLN)
if [ "$online" -lt 2 ] || ! command -v taskset >/dev/null; then
  echo "skipped: needs two CPUs and taskset"; exit 77
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0; pass=0
check() { if eval "$1"; then pass=$((pass + 1)); else echo "FAIL: $2"; fail=$((fail + 1)); fi; }
warning="trident: warning: 1 of 1 rank(s) may use only one CPU, on a host with at least two for each of its ranks: reading, generating and writing run on that CPU alone; start them with 'mpirun --bind-to none' (or --map-by slot:PE=N for N CPUs a rank), or 'srun --cpus-per-task=N'"

taskset -c 0 "$trident" run "$deck" --output one.h5 >one.log 2>&1; rc=$?
check '[ $rc -eq 0 ]' "one CPU: exit $rc"
check '[ "$(grep -cxF "$warning" one.log)" -eq 1 ]' "one CPU: not exactly one warning: $(grep warning one.log)"
check 'grep -qE "^trident: rank 0 on .*, 1 of $online CPUs$" one.log' "one CPU: the rank line does not say 1 of $online CPUs"

cpus=$(taskset -c 0,1 "$trident" run "$deck" --output two.h5 2>&1 | tee two.log | grep -c "warning")
check '[ "$cpus" -eq 0 ]' "two CPUs: warned: $(grep warning two.log)"
check 'grep -qE "^trident: rank 0 on .*, 2 of $online CPUs$" two.log' "two CPUs: the rank line does not say 2 of $online CPUs"

# two ranks bound to a core each: a fair share unless the host has 4 CPUs or more
"${launcher[@]}" --bind-to core "$trident" run "$deck" --output ranks.h5 >ranks.log 2>&1; rc=$?
check '[ $rc -eq 0 ]' "two ranks bound to cores: exit $rc"
warned=$(grep -c "^trident: warning: 2 of 2 rank(s) may use only one CPU" ranks.log)
if [ "$online" -ge 4 ]; then
  check '[ "$warned" -eq 1 ]' "two ranks on $online CPUs bound to one each: no warning"
else
  check '[ "$warned" -eq 0 ]' "two ranks on $online CPUs bound to one each (their share): warned"
fi
# two ranks left unbound see every CPU: each takes half of them for its host work, and says so
"${launcher[@]}" --bind-to none "$trident" run "$deck" --output shared.h5 >shared.log 2>&1; rc=$?
check '[ $rc -eq 0 ]' "two unbound ranks: exit $rc"
half=$((online / 2)); threads="$half threads"; [ "$half" -eq 1 ] && threads="1 thread"
shared_line="of $online CPUs, shared with 1 other rank: $threads for host work"
check '[ "$(grep -cE "^trident: rank [01] on .*, $online $shared_line$" shared.log)" -eq 2 ]' \
  "two unbound ranks: not both rank lines end in '$online $shared_line'"
check '! grep -q "shared with" ranks.log one.log two.log' "ranks with CPUs of their own said they share them"
[ $fail -eq 0 ] || sed 's/^/  | /' one.log ranks.log shared.log
echo "cpu binding: $pass passed, $fail failed"
[ $fail -eq 0 ]
