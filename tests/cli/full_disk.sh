#!/bin/bash
# The disk fails under a running job: a full file system (a 1 MiB tmpfs) and a read-only
# folder, in a private mount namespace. A full disk ends with exit 1 and one message,
# never a signal; the old output stays as it was and no FILE.partial is left. A read-only
# folder is refused before any work (exit 2). Skipped (exit 77) where the machine gives
# no private mount namespace.
# usage: full_disk.sh TRIDENT MPIEXEC ARGS...   (MPIEXEC ARGS run the job's ranks)
set -u
if [ "${TRIDENT_IN_NAMESPACE:-}" != 1 ]; then
  if ! unshare -m --propagation private true 2>/dev/null; then
    echo "skipped: no private mount namespace here (unshare -m needs CAP_SYS_ADMIN)"; exit 77
  fi
  TRIDENT_IN_NAMESPACE=1 exec unshare -m --propagation private bash "$0" "$@"
fi
trident=$(realpath "$1"); shift
launcher=("$@")
work=$(mktemp -d); trap 'umount "$work/full" "$work/ro" "$work/mid" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
mkdir full ro mid
if ! mount -t tmpfs -o size=1m tmpfs full || ! mount -t tmpfs -o ro,size=1m tmpfs ro ||
   ! mount -t tmpfs -o size=12m tmpfs mid; then
  echo "skipped: cannot mount a tmpfs in the mount namespace"; exit 77
fi
cat > small.yaml <<'DECK'
diffusion: {nx: 16, ny: 16, steps: 2, start: {kind: gaussian}}
DECK
cat > big.yaml <<'DECK'
diffusion: {nx: 1024, ny: 1024, steps: 2, precision: float64, start: {kind: gaussian}}
DECK
ranks=$("${launcher[@]}" bash -c 'echo ${OMPI_COMM_WORLD_SIZE:-1}' | head -1)
fail=0; pass=0
check() { if eval "$1"; then pass=$((pass + 1)); else echo "FAIL: $2"; fail=$((fail + 1)); fi; }

"${launcher[@]}" "$trident" run small.yaml --output full/old.h5 >small.log 2>&1
check '[ -f full/old.h5 ]' "the small run wrote no full/old.h5: $(cat small.log)"
before=$(md5sum < full/old.h5)
# overwrite_on_full_disk LABEL DECK MESSAGE: a run of DECK over full/old.h5 (--overwrite)
# on the full disk, in both write modes, must end with exit 1 and one error line matching
# MESSAGE (the failing call depends on the write path; either way it names the file, the
# dataset and what failed), not crash, keep the old output and leave no partial file.
overwrite_on_full_disk() {
  local label=$1 deck=$2 message=$3 mode rc
  for mode in "" --gathered-io; do
    "${launcher[@]}" "$trident" run "$deck" --output full/old.h5 --overwrite $mode >run.log 2>&1; rc=$?
    check '[ $rc -eq 1 ]' "$label ${mode:-parallel}: exit $rc, expected 1 (a signal gives 128+N)"
    check 'grep -qxE "$message" run.log' "$label ${mode:-parallel}: message differs"
    check '[ "$(grep -c "trident: error" run.log)" -eq 1 ]' "$label ${mode:-parallel}: not one error line"
    check '! grep -qiE "segmentation|signal|core dumped" run.log' "$label ${mode:-parallel}: crashed"
    check '[ "$(md5sum < full/old.h5)" = "$before" ]' "$label ${mode:-parallel}: the old output changed"
    check '[ ! -e full/old.h5.partial ]' "$label ${mode:-parallel}: full/old.h5.partial left behind"
    [ $fail -eq 0 ] || sed 's/^/  | /' run.log
  done
}
overwrite_on_full_disk "full disk" big.yaml \
  "trident: error: full/old.h5: (extending|writing) /diffusion/field failed( \(No space left on device\))?"

# The disk fills up in the middle of the run: the first frames (2 MiB each, larger than
# HDF5's chunk cache, so each goes to the disk when written) fit, a later one does not.
# With the gathered path the write runs on rank 0's writer thread; its failure must still
# end every rank with one message and leave no partial file.
cat > mid.yaml <<'DECK'
diffusion: {nx: 512, ny: 512, steps: 40, output_every: 2, precision: float64, start: {kind: gaussian}}
DECK
for mode in "" --gathered-io; do
  "${launcher[@]}" "$trident" run mid.yaml --output mid/out.h5 $mode >mid.log 2>&1; rc=$?
  check '[ $rc -eq 1 ]' "disk full mid-run ${mode:-parallel}: exit $rc, expected 1"
  check 'grep -qxE "trident: error: mid/out.h5: (extending|writing) /diffusion/(field|step|time) failed( \(No space left on device\))?" mid.log' \
    "disk full mid-run ${mode:-parallel}: message differs"
  check '[ "$(grep -c "trident: error" mid.log)" -eq 1 ]' "disk full mid-run ${mode:-parallel}: not one error line"
  check '! grep -qiE "segmentation|signal|core dumped" mid.log' "disk full mid-run ${mode:-parallel}: crashed"
  # the run's log stays (the record of what failed, as far as the full disk let it be written)
  check '[ -z "$(ls -A mid | grep -vx out.log)" ]' "disk full mid-run ${mode:-parallel}: left $(ls -A mid | tr '\n' ' ')"
  rm -f mid/out.log
  [ $fail -eq 0 ] || sed 's/^/  | /' mid.log
done

# kNN rows larger than the disk: on several ranks in the gathered mode each rank writes its
# own rows into the file (io/direct_rows.hpp); a rank's failed write must end every rank
# with one message, and the old output must stay.
cat > knn.yaml <<'DECK'
knn:
  k: 8
  observations: {generate: {count: 16384, seed: 1}}
  references: {generate: {count: 512, seed: 2}}
DECK
overwrite_on_full_disk "knn full disk" knn.yaml \
  "trident: error: full/old.h5: (creating dataset|writing) /knn/[a-z]+ failed( \(No space left on device\))?"

"${launcher[@]}" "$trident" run small.yaml --output ro/x.h5 >ro.log 2>&1; rc=$?
check '[ $rc -eq 2 ]' "read-only folder: exit $rc, expected 2"
check 'grep -qxF "trident: error: ro/x.h5: cannot write the output file in the folder '"'ro'"': Read-only file system" ro.log' \
  "read-only folder: message differs: $(cat ro.log)"
check '! grep -q "^trident: diffusion:" ro.log' "read-only folder: the study started before the check"
echo "full disk ($ranks rank(s)): $pass passed, $fail failed"
[ $fail -eq 0 ]
