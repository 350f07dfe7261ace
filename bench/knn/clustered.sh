#!/usr/bin/env bash
# knn on point sets shaped like users' data, read from HDF5: dense squares from 10 km to
# 1 m, a square with references half over the globe, observations interleaved between a
# square and the globe, squares at the pole and across the dateline, two cities
# (bench/knn/make_clustered_points.py describes them). Prints the search time (slowest rank),
# the whole run (process start to exit), the observations searched again, and the ratio
# of the search time to the uniform set's in the same precision and k (target: every set
# within 1.5 times the uniform one).
#
#   bench/knn/clustered.sh BUILD [OBSERVATIONS [REFERENCES [LAUNCHER ARGS...]]]
#   e.g. bench/knn/clustered.sh build/cuda                     (2^24 x 2^14)
#        bench/knn/clustered.sh build/cuda 65536 1024
#
# KNN_CLUSTERED_CASES="float32:1 float32:16 float64:16" (precision:k), KNN_CLUSTERED_SETS
# (names, default all) and KNN_CLUSTERED_DATA (a folder to keep the generated files in
# between runs; default a temporary one) narrow or reuse the runs. At 2^24 x 2^14 the
# generator writes 5.4 GB; each k = 16 run writes 4.3 GB of results.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/knn/timed_run.sh
source "$here/timed_run.sh"
bench_build "$0 BUILD [OBSERVATIONS [REFERENCES [LAUNCHER ARGS...]]]" "$@"
n_obs=${2:-16777216}
n_ref=${3:-16384}
shift $(( $# < 3 ? $# : 3 ))
launcher=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/knn_clustered.XXXXXX")
trap 'rm -rf "$work"' EXIT
data=${KNN_CLUSTERED_DATA:-$work/data}
python=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c "import h5py, numpy" 2>/dev/null; then python=$candidate; break; fi
done
if [[ -z "$python" ]]; then
  echo "$0: needs a python3 with h5py and numpy" >&2
  exit 2
fi
stamp="$data/.size_${n_obs}_${n_ref}_${KNN_CLUSTERED_SETS:-all}"
if [[ ! -e "$stamp" ]]; then
  t0=$(date +%s.%N)
  KNN_CLUSTERED_SETS="${KNN_CLUSTERED_SETS:-}" "$python" "$here/make_clustered_points.py" "$data" "$n_obs" "$n_ref" >/dev/null
  touch "$stamp"
  echo "generated the sets in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
fi
sets=(${KNN_CLUSTERED_SETS:-uniform square_10km square_1km square_100m square_1m mixed interleaved pole dateline two_cities})
echo "$n_obs observations x $n_ref references from HDF5"
printf '%-12s %-8s %5s %10s %9s %12s %10s\n' set precision k "search s" "whole s" "searched again" "x uniform"
for case in ${KNN_CLUSTERED_CASES:-float32:1 float32:16 float64:16}; do
  precision=${case%%:*}
  k=${case##*:}
  uniform=""
  for set in "${sets[@]}"; do
    deck="$work/$set.yaml"
    cat >"$deck" <<DECK
output: {file: $work/out.h5, overwrite: true}
knn:
  k: $k
  precision: $precision
  observations: {hdf5: {file: $data/${set}_obs.h5, dataset: /points}}
  references: {hdf5: {file: $data/${set}_refs.h5, dataset: /points}}
DECK
    knn_timed_run "$deck" "$set, $precision, k = $k"
    [[ "$set" == uniform ]] && uniform=$seconds
    awk -v n="$set" -v p="$precision" -v k="$k" -v s="$seconds" -v whole="$whole" -v w="$widened" -v u="$uniform" 'BEGIN {
      printf "%-12s %-8s %5d %10.4f %9.2f %12d %10s\n", n, p, k, s, whole, w, u == "" ? "-" : sprintf("%.2f", s / u) }'
  done
done
