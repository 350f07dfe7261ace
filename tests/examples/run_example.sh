#!/bin/bash
# One example deck of inputs/ that reads a user-shaped file (inputs/data/): `trident
# validate` must call it valid, `trident run` must complete, and check_example.py checks
# the output against the input file. Without a launcher the run is one rank.
# usage: run_example.sh TRIDENT SOURCE_DIR DECK_NAME [LAUNCHER ARGS...]   (e.g. mpiexec -n 2)
# KEEP=DIR keeps the output and logs in DIR. Exit 77 (skipped) after the run where
# /usr/bin/python3 has no h5py and numpy to check it with.
set -u
trident=$(realpath "$1"); src=$(realpath "$2"); name=$3; shift 3
launcher=("$@")
deck=$src/inputs/$name.yaml
work=${KEEP:-$(mktemp -d)}; [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; mkdir -p "$work"
cd "$work" || exit 1

"${launcher[@]}" "$trident" validate "$deck" >validate.log 2>&1; rc=$?
if [ $rc -ne 0 ] || ! grep -qw "valid" validate.log; then
  echo "FAIL: trident validate $deck: exit $rc"; cat validate.log; exit 1
fi
echo "ok: $name.yaml is valid"
"${launcher[@]}" "$trident" run "$deck" --output "$work/out.h5" >run.log 2>&1; rc=$?
[ $rc -eq 0 ] || { echo "FAIL: trident run $deck: exit $rc"; cat run.log; exit 1; }
echo "ok: $name.yaml ran on ${launcher[*]:-1 rank}"
/usr/bin/python3 -c "import h5py, numpy" 2>/dev/null || { echo "SKIP: /usr/bin/python3 has no h5py and numpy"; exit 77; }
/usr/bin/python3 "$src/tests/examples/check_example.py" "$name" "$work/out.h5" "$src/inputs/data" \
  || { echo "FAIL: the output of $name.yaml"; cat run.log; exit 1; }
