#!/bin/bash
# jobs/run-local.sh: --help, a bad rank count (exit 2 and a message), which executable it
# picks (copies of the script in made-up checkouts, stub executables and a stub launcher),
# a 2-rank run of an example deck with the build found as build/cpu/src/trident, and a
# 3-rank run of the small diffusion deck, from the checkout's own script with the build
# under test named by TRIDENT_BINARY (the build folder may be anywhere), options after
# RANKS passed to trident (--output into a folder that does not exist yet) and, as root,
# no OMPI_ALLOW_RUN_AS_ROOT* in the environment: its output must record 3 ranks.
# Every step waits for its process to exit; ctest's TIMEOUT is only a hang guard.
# usage: run_local.sh TRIDENT SOURCE_DIR
set -u
trident=$(realpath "$1"); src=$(realpath "$2")
work=${KEEP:-$(mktemp -d)}; [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; mkdir -p "$work"
cd "$work"
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
script=$src/jobs/run-local.sh

bash "$script" --help >help.txt 2>&1 && grep -q "jobs/run-local.sh DECK \[RANKS \[TRIDENT-RUN-OPTIONS...\]\]" help.txt \
  && grep -q "TRIDENT_BINARY=DIR/src/trident" help.txt && ok || { bad "--help"; cat help.txt; }
bash "$script" >usage.txt 2>&1; [ $? -eq 2 ] && grep -q "DECK \[RANKS" usage.txt && ok || bad "no deck: expected exit 2 and the usage"
bash "$script" deck.yaml two >err.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "RANKS must be a positive integer, got 'two'" err.txt && ok || { bad "RANKS=two: exit $rc"; cat err.txt; }
TRIDENT=$work/missing bash "$script" deck.yaml 1 >err.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "no trident executable at '$work/missing' (from TRIDENT)" err.txt && ok || { bad "missing TRIDENT: exit $rc"; cat err.txt; }

# Which executable: made-up checkouts (CHECKOUT/jobs/run-local.sh and the builds named),
# stubs that print their path, and a launcher that drops "-n N" and runs the rest.
printf '#!/bin/sh\n[ "$1" = -n ] || exit 0\nshift 2\nexec "$@"\n' >launch && chmod +x launch
stub() { mkdir -p "$(dirname "$1")" && printf '#!/bin/sh\necho "stub $0"\n' >"$1" && chmod +x "$1"; }
checkout() {  # NAME BUILD...: a checkout with the script and a stub for each build folder
  rm -rf "$work/$1"; mkdir -p "$work/$1/jobs"; cp "$script" "$work/$1/jobs/"
  local name=$1 b; shift
  for b in "$@"; do stub "$work/$name/$b/src/trident"; done
}
picks() {  # WHAT CHECKOUT EXPECTED [VAR=VALUE...]: the checkout's script runs EXPECTED and says so
  local what=$1 co=$work/$2 expected=$3; shift 3
  env MPIRUN="$work/launch" PATH=/usr/bin:/bin "$@" bash "$co/jobs/run-local.sh" deck.yaml 2 >pick.log 2>&1; local rc=$?
  if [ $rc -eq 0 ] && grep -q "^run-local.sh: using $expected (" pick.log && grep -qx "stub $expected" pick.log; then ok
  else bad "$what: expected $expected (exit $rc)"; cat pick.log; fi
}
checkout both build/cpu build
picks "cpu and build/ built" both "$work/both/build/cpu/src/trident"
grep -q "also built: $work/both/build/src/trident (TRIDENT_BINARY picks one)" pick.log && ok || { bad "the other build not named"; cat pick.log; }
checkout old build
picks "only build/ built" old "$work/old/build/src/trident"
stub "$work/elsewhere/trident"
picks "TRIDENT_BINARY first" both "$work/elsewhere/trident" TRIDENT_BINARY="$work/elsewhere/trident" TRIDENT="$work/both/build/src/trident"
grep -q "(from TRIDENT_BINARY)" pick.log && ok || { bad "TRIDENT_BINARY not named as the source"; cat pick.log; }
picks "TRIDENT as the templates name it" both "$work/elsewhere/trident" TRIDENT="$work/elsewhere/trident"
checkout gpu build/cuda build/cuda-in-tree build/cpu
if compgen -G '/dev/nvidia[0-9]*' >/dev/null; then first=cuda; else first=cpu; fi
picks "cuda, cuda-in-tree and cpu built ($first first on this machine)" gpu "$work/gpu/build/$first/src/trident"
checkout in-tree build/cuda-in-tree
picks "only cuda-in-tree built" in-tree "$work/in-tree/build/cuda-in-tree/src/trident"
checkout none
picks "no build: the PATH" none "$work/elsewhere/trident" PATH="$work/elsewhere:/usr/bin:/bin"
if ! [ -x /usr/bin/trident ] && ! [ -x /bin/trident ]; then
  MPIRUN=$work/launch PATH=/usr/bin:/bin bash "$work/none/jobs/run-local.sh" deck.yaml >err.txt 2>&1; rc=$?
  [ $rc -eq 2 ] && grep -q "no trident executable: none of $work/none/build/cpu/src/trident" err.txt \
    && grep -q "set TRIDENT_BINARY" err.txt && ok || { bad "nothing built: exit $rc"; cat err.txt; }
fi
TRIDENT_BINARY=$work/both/build/cuda/src/trident bash "$work/both/jobs/run-local.sh" deck.yaml >err.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "no trident executable at '$work/both/build/cuda/src/trident' (from TRIDENT_BINARY)" err.txt \
  && ok || { bad "missing TRIDENT_BINARY: exit $rc"; cat err.txt; }

# The build under test as a checkout's build/cpu/src/trident, on an example deck that reads a file.
mkdir -p "$work/real/jobs" "$work/real/build/cpu/src" && cp "$script" "$work/real/jobs/"
ln -s "$trident" "$work/real/build/cpu/src/trident"
(unset TRIDENT TRIDENT_BINARY; TRIDENT_OUTPUT=$work/stations.h5 bash "$work/real/jobs/run-local.sh" \
   "$src/inputs/knn_stations_csv.yaml" 2 >stations.log 2>&1) && ok || { bad "2-rank run of knn_stations_csv.yaml"; cat stations.log; }
grep -q "^run-local.sh: using $work/real/build/cpu/src/trident (from this checkout's build)" stations.log && ok \
  || { bad "the run did not say it used build/cpu/src/trident"; cat stations.log; }
if /usr/bin/python3 -c "import h5py, numpy" 2>/dev/null; then
  /usr/bin/python3 "$src/tests/examples/check_example.py" knn_stations_csv stations.h5 "$src/inputs/data" >check.log 2>&1 \
    && ok || { bad "the output of knn_stations_csv.yaml"; cat check.log; }
fi

(unset TRIDENT OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
 TRIDENT_BINARY=$trident bash "$script" "$src/inputs/diffusion_small.yaml" 3 --output "$work/new/folder/out.h5" \
   --overwrite >run.log 2>&1) && ok || { bad "3-rank run"; cat run.log; }
[ "$(grep -c '^trident: rank [0-2] on ' run.log)" -eq 3 ] && ok || { bad "expected 3 rank lines"; cat run.log; }
grep -q "^run-local.sh: using $trident (from TRIDENT_BINARY)" run.log && ok || { bad "TRIDENT_BINARY not used"; cat run.log; }
[ -f "$work/new/folder/out.h5" ] && cp "$work/new/folder/out.h5" out.h5 && ok || bad "no output in new/folder/"
if [ "$(id -u)" -eq 0 ]; then
  grep -q -- "--allow-run-as-root" run.log && ok || { bad "as root, no --allow-run-as-root"; cat run.log; }
fi
# Read with h5py (Debian's /usr/bin/python3 or the first python3 on the PATH) or h5dump.
{ /usr/bin/python3 -c "import h5py, sys; sys.exit(int(h5py.File('out.h5', 'r').attrs['mpi_ranks']) != 3)" 2>/dev/null \
  || python3 -c "import h5py, sys; sys.exit(int(h5py.File('out.h5', 'r').attrs['mpi_ranks']) != 3)" 2>/dev/null \
  || h5dump -a /mpi_ranks out.h5 2>/dev/null | grep -q "(0): 3"; } && ok || bad "out.h5 does not record 3 ranks"
echo "run-local.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
