#!/bin/bash
# Stands in for trident in the check that SLURM itself delivers the long-run template's
# --signal=B:USR1@120 (with --time=2 it is due at once): waits for SIGUSR1, then
# behaves like a stopped trident (writes the checkpoint, exits 75); started again with
# --restart it succeeds at once. Arguments as trident's: run DECK --output OUT [...].
output=
while [ $# -gt 0 ]; do
  case $1 in --output) output=$2; shift ;; --restart) echo "stub: resumed from $2"; exit 0 ;; esac
  shift
done
trap 'echo "stub: got SIGUSR1"; echo checkpoint >"${output%.h5}.checkpoint.h5"; exit 75' USR1
echo "stub: waiting for SIGUSR1"
# however long SLURM takes: the test's hang guard ends the wait if it never comes
while :; do sleep 1; done
