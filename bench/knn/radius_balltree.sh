#!/usr/bin/env bash
# Every neighbour within a distance (k: all) through trident's CPU build against
# scikit-learn's BallTree.query_radius (haversine, bench/knn/radius_balltree.py) on the same
# uniform points and as many CPU threads, the distance chosen for a mean count of 16
# (the cap holding 16/n of the sphere). Prints each side's seconds, observations a second
# and trident's over BallTree's (the target: above 1), and whether the rows agree.
#
#   bench/knn/radius_balltree.sh BUILD [LAUNCHER ARGS...]
#
# Sizes from the environment:
#   KNN_RADIUS_OBS      observations (65536)
#   KNN_RADIUS_REFS     references (262144)
#   KNN_RADIUS_COUNT    mean neighbours a row (16)
#   KNN_RADIUS_THREADS  threads of both (OMP_NUM_THREADS for trident; default: nproc)
# e.g. bench/knn/radius_balltree.sh build/cpu
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
bench_build "$0 BUILD [LAUNCHER ARGS...]" "$@"; shift
launcher=("$@")
python=${PYTHON:-$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
"$python" -c "import sklearn, h5py" 2>/dev/null || { echo "radius_balltree.sh: $python lacks sklearn or h5py (apt install python3-sklearn python3-h5py)" >&2; exit 2; }
n_obs=${KNN_RADIUS_OBS:-65536} n_refs=${KNN_RADIUS_REFS:-262144} count=${KNN_RADIUS_COUNT:-16}
threads=${KNN_RADIUS_THREADS:-$(nproc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/knn_radius.XXXXXX")
trap 'rm -rf "$work"' EXIT
radius=6371008.8
distance=$(awk -v c="$count" -v n="$n_refs" -v r="$radius" 'BEGIN { printf "%.17g", r * atan2(sqrt(1 - (1 - 2 * c / n) ^ 2), 1 - 2 * c / n) }')
"$python" - "$work/points.h5" "$n_obs" "$n_refs" <<'PY'
import sys, h5py, numpy as np
path, n_obs, n_refs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(1)
def uniform(n):  # uniform on the sphere: latitude from asin of a uniform z
    return np.column_stack([np.degrees(np.arcsin(rng.uniform(-1, 1, n))), rng.uniform(-180, 180, n)])
with h5py.File(path, "w") as f:
    f["observations"], f["references"] = uniform(n_obs), uniform(n_refs)
PY
cat >"$work/deck.yaml" <<DECK
output:
  file: $work/out.h5
  overwrite: true
knn:
  k: all
  max_distance: $distance
  observations: {hdf5: {file: $work/points.h5, dataset: /observations}}
  references: {hdf5: {file: $work/points.h5, dataset: /references}}
DECK
OMP_NUM_THREADS=$threads OMP_PROC_BIND=false "${launcher[@]}" "$trident" run "$work/deck.yaml" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
search=$(grep -E "knn: search [0-9]" "$work/log" | sed -E 's/.*search ([0-9.eE+-]+) s.*/\1/')
read -r build query used found check < <("$python" "$here/radius_balltree.py" "$work/points.h5" "$work/out.h5" "$distance" "$threads")
echo "radius_balltree: $n_obs observations x $n_refs references, uniform, within $distance m (mean count $count);" \
     "$threads threads; $(uname -m), $(date -u +%Y-%m-%d), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
printf '%-34s %10s %14s\n' side seconds observations/s
awk -v s="$search" -v n="$n_obs" 'BEGIN { printf "%-34s %10.4f %14.4g\n", "trident k: all (index build included)", s, n / s }'
awk -v b="$build" -v q="$query" -v n="$n_obs" 'BEGIN { printf "%-34s %10.4f %14.4g\n", "BallTree query_radius (+ build)", q + b, n / (q + b) }'
awk -v q="$query" -v n="$n_obs" 'BEGIN { printf "%-34s %10.4f %14.4g\n", "BallTree query_radius alone", q, n / q }'
awk -v s="$search" -v b="$build" -v q="$query" 'BEGIN { printf "trident over BallTree: %.2f x (with its build), %.2f x (query alone); target > 1\n", (q + b) / s, q / s }'
echo "neighbours: BallTree $found; rows: $check"
