#!/bin/bash
# knn ids carried to the output (knn.*.csv.id, knn.*.hdf5.ids): for CSV and HDF5 sources,
# integer and text ids, each /knn/reference_ids[i][j] is the id of reference indices[i][j]
# and /knn/observation_ids the observations' own, checked by knn_ids_check.py against the
# inputs read with Python's csv module and h5py and as xarray reads them with both engines;
# a run stopped by a pending signal has ids for its finished rows only, and its restart
# gives the uninterrupted run's file.
# usage: knn_ids.sh [--h5-same TRIDENT_H5_SAME] TRIDENT [LAUNCHER ARGS...]
#   the launcher runs N ranks (none: 1 rank); with trident_h5_same the restarted and the
#   uninterrupted outputs are also compared whole, every /knn dataset and attribute
set -u
h5_same=""
[ "$1" = --h5-same ] && { h5_same=$(realpath "$2"); shift 2; }
# shellcheck source=tests/cli/common.sh
source "$(dirname "$0")/common.sh" "$@"; shift  # trident, here, work, python, ok, bad
launcher=("$@")
check() { "$python" "$here/knn_ids_check.py" "$@"; }
run() {  # LOG [pending_signal.py SIGNAL RANKS] -- trident args...
  local log=$1; shift
  local pre=()
  if [ "$1" != -- ]; then pre=("$python" "$here/pending_signal.py" "$1" "$2"); shift 2; fi
  shift
  "${launcher[@]}" "${pre[@]}" "$trident" "$@" >"$log" 2>&1
}

check make . || { echo "could not make the inputs"; exit 1; }
cat > csv.yaml <<'DECK'
output: {progress_seconds: 0}
knn:
  k: 5
  observations: {csv: {file: obs.csv, latitude: lat, longitude: lon, id: name}}
  references: {csv: {file: refs.csv, latitude: lat, longitude: lon, id: code}}
  batch_size: 64
DECK
cat > h5.yaml <<'DECK'
output: {progress_seconds: 0}
knn:
  k: 3
  observations: {hdf5: {file: points.h5, dataset: /obs, ids: /obs_ids}}
  references: {hdf5: {file: points.h5, dataset: /refs, ids: /ref_ids}}
DECK
cat > fixed.yaml <<'DECK'
output: {progress_seconds: 0}
knn:
  k: 2
  observations: {hdf5: {file: points.h5, dataset: /obs, ids: /obs_names}}
  references: {generate: {count: 50}}
DECK
cat > mixed.yaml <<'DECK'
output: {progress_seconds: 0}
knn:
  k: 4
  observations: {csv: {file: mixed.csv, latitude: lat, longitude: lon, id: id}}
  references: {csv: {file: refs.csv, latitude: lat, longitude: lon, id: code}}
DECK

# k: all names every neighbour within the distance (ragged, beside /knn/indices); k: count
# the observations alone
sed -e 's/^  k: 5$/  k: all\n  max_distance: 2000e3/' csv.yaml > csv_all.yaml
sed -e 's/^  k: 3$/  k: all\n  max_distance: 1500e3/' h5.yaml > h5_all.yaml
sed -e 's/^  k: 3$/  k: count\n  max_distance: 1500e3/' h5.yaml > h5_count.yaml

# every run's rows against the inputs' ids (mixed: observation ids that are integers on
# every rank but the last stay texts on all)
for deck in csv h5 fixed mixed csv_all h5_all h5_count; do
  run "$deck.log" -- run "$deck.yaml" --output "$deck.h5" || { bad "$deck: exit $?"; cat "$deck.log"; continue; }
  case $deck in
    csv | csv_all) refs=csv:refs.csv:code obs=csv:obs.csv:name ;;
    h5 | h5_all | h5_count) refs=h5:points.h5:/ref_ids obs=h5:points.h5:/obs_ids ;;
    fixed) refs=none obs=h5:points.h5:/obs_names ;;
    mixed) refs=csv:refs.csv:code obs=csv:mixed.csv:id ;;
  esac
  check ids "$deck.h5" "$refs" "$obs" && ok || bad "$deck: ids"
done
# text ids are variable-length strings, which parallel HDF5 cannot write: gathered output
grep -q "(gathered to rank 0)" h5.log && ok || bad "h5: text ids not written gathered"

# stopped after a batch on each rank: ids for the finished rows only; the restart is the
# uninterrupted run (integer reference ids, text observation ids)
run stop.log USR1 all -- run csv.yaml --output stop.h5
rc=$?; [ $rc -eq 75 ] && ok || { bad "stop: exit $rc, expected 75"; cat stop.log; }
check ids stop.h5 csv:refs.csv:code csv:obs.csv:name && ok || bad "stop: ids"
"$python" -c "import h5py, sys; d = h5py.File('stop.h5')['knn/done'][()]; sys.exit(0 if 0 < d.sum() < len(d) else 1)" \
  && ok || bad "stop: the test needs some but not all rows finished"
run restart.log -- run csv.yaml --restart stop.checkpoint.h5 --output restart.h5 \
  && check equal csv.h5 restart.h5 && ok || { bad "restart differs from the uninterrupted run"; cat restart.log; }
if [ -n "$h5_same" ]; then "$h5_same" csv.h5 restart.h5 && ok || bad "restart: trident_h5_same finds a difference"; fi
# and with text reference ids (h5 deck: 400 observations, a batch each)
sed 's/^knn:/knn:\n  batch_size: 64/' h5.yaml > h5-batch.yaml
run h5-full.log -- run h5-batch.yaml --output h5-full.h5 || bad "h5 batches: uninterrupted run"
run h5-stop.log USR1 all -- run h5-batch.yaml --output h5-stop.h5
[ $? -eq 75 ] && check ids h5-stop.h5 h5:points.h5:/ref_ids h5:points.h5:/obs_ids && ok || { bad "h5 stop"; cat h5-stop.log; }
run h5-restart.log -- run h5-batch.yaml --restart h5-stop.checkpoint.h5 --output h5-restart.h5 \
  && check equal h5-full.h5 h5-restart.h5 && ok || { bad "h5 restart differs"; cat h5-restart.log; }
if [ -n "$h5_same" ]; then "$h5_same" h5-full.h5 h5-restart.h5 && ok || bad "h5 restart: trident_h5_same finds a difference"; fi

# k: all stopped and restarted: ids for the finished rows, the restart the uninterrupted run
sed 's/^knn:/knn:\n  batch_size: 64/' h5_all.yaml > h5-all-batch.yaml
run h5-all-full.log -- run h5-all-batch.yaml --output h5-all-full.h5 || bad "h5 k: all batches: uninterrupted run"
run h5-all-stop.log USR1 all -- run h5-all-batch.yaml --output h5-all-stop.h5
[ $? -eq 75 ] && check ids h5-all-stop.h5 h5:points.h5:/ref_ids h5:points.h5:/obs_ids && ok || { bad "h5 k: all stop"; cat h5-all-stop.log; }
run h5-all-restart.log -- run h5-all-batch.yaml --restart h5-all-stop.checkpoint.h5 --output h5-all-restart.h5 \
  && check equal h5-all-full.h5 h5-all-restart.h5 && ok || { bad "h5 k: all restart differs"; cat h5-all-restart.log; }

echo "knn ids: $pass passed, $fail failed"
[ $fail -eq 0 ]
