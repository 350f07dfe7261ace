#!/bin/bash
# jobs/run-local.sh: --help, a bad rank count (exit 2 and a message), and a 3-rank run
# of the small diffusion deck whose output records 3 ranks.
# usage: run_local.sh TRIDENT SOURCE_DIR
set -u
trident=$(realpath "$1"); src=$(realpath "$2")
work=${KEEP:-$(mktemp -d)}; [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; mkdir -p "$work"
cd "$work"
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
script=$src/jobs/run-local.sh

bash "$script" --help >help.txt 2>&1 && grep -q "jobs/run-local.sh DECK \[RANKS\]" help.txt && ok \
  || { bad "--help"; cat help.txt; }
bash "$script" >usage.txt 2>&1; [ $? -eq 2 ] && grep -q "DECK \[RANKS\]" usage.txt && ok || bad "no deck: expected exit 2 and the usage"
bash "$script" deck.yaml two >err.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "RANKS must be a positive integer, got 'two'" err.txt && ok || { bad "RANKS=two: exit $rc"; cat err.txt; }
TRIDENT=$work/missing bash "$script" deck.yaml 1 >err.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "no trident executable at '$work/missing'" err.txt && ok || { bad "missing TRIDENT: exit $rc"; cat err.txt; }

TRIDENT=$trident TRIDENT_OUTPUT=$work/out.h5 bash "$script" "$src/inputs/diffusion_small.yaml" 3 >run.log 2>&1 \
  && ok || { bad "3-rank run"; cat run.log; }
[ "$(grep -c '^trident: rank [0-2] on ' run.log)" -eq 3 ] && ok || { bad "expected 3 rank lines"; cat run.log; }
# Read with h5py (Debian's /usr/bin/python3 or the first python3 on the PATH) or h5dump.
{ /usr/bin/python3 -c "import h5py, sys; sys.exit(int(h5py.File('out.h5', 'r').attrs['mpi_ranks']) != 3)" 2>/dev/null \
  || python3 -c "import h5py, sys; sys.exit(int(h5py.File('out.h5', 'r').attrs['mpi_ranks']) != 3)" 2>/dev/null \
  || h5dump -a /mpi_ranks out.h5 2>/dev/null | grep -q "(0): 3"; } && ok || bad "out.h5 does not record 3 ranks"
echo "run-local.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
