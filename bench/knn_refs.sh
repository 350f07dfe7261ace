#!/usr/bin/env bash
# kNN against growing reference sets: the brute force and the spatial index side by side
# (BUILD_DIR/bench/trident_knn_refs, one process a run), references from 2^14 to
# 2^MAX_LOG2 at a fixed number of observations, on the whole sphere and on clustered sets.
# For each run: the index's build, the whole search with it (wall and CPU seconds: on a
# shared machine the wall time also holds the time the process waited for a core), pairs/s
# (brute force) or leaves screened a row (index), rows searched again, rows whose heap of
# cells overflowed (dfs: searched depth first), and the index's time over the brute force's. Brute-force runs of more than KNN_REFS_BRUTE_PAIRS pairs
# are skipped (their time is then estimated from the largest one run, marked ~).
# scikit-learn's BallTree (haversine) runs on the same points where /usr/bin/python3 has
# sklearn (python3-sklearn), one thread like the host back end.
#
#   bench/knn_refs.sh BUILD_DIR [OBSERVATIONS [MAX_LOG2]]
#   e.g. bench/knn_refs.sh build/cpu 65536 22
#
# KNN_REFS_SETS (default "uniform square_1km square_100m two_cities half_1km polar_cap
# dateline"), KNN_REFS_K (default "16"), KNN_REFS_PRECISIONS (default float32) and
# KNN_REFS_BRUTE_PAIRS (default 2^33) narrow the runs.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [OBSERVATIONS [MAX_LOG2]]" >&2
  exit 2
fi
bench=$(realpath "$1")/bench/trident_knn_refs
[[ -x $bench ]] || { echo "$bench: not built (cmake --build BUILD_DIR --target trident_knn_refs)" >&2; exit 2; }
n_obs=${2:-65536}
max_log2=${3:-22}
sets=(${KNN_REFS_SETS:-uniform square_1km square_100m two_cities half_1km polar_cap dateline})
ks=(${KNN_REFS_K:-16})
precisions=(${KNN_REFS_PRECISIONS:-float32})
brute_pairs=${KNN_REFS_BRUTE_PAIRS:-8589934592}
work=$(mktemp -d "${TMPDIR:-/tmp}/knn_refs.XXXXXX")
trap 'rm -rf "$work"' EXIT
peer=no
if /usr/bin/python3 -c "import sklearn, numpy" 2>/dev/null; then peer=yes; fi

# BallTree on the points the last index run wrote: seconds to build and query.
balltree_seconds() {  # K
  /usr/bin/python3 - "$work/points" "$1" <<'EOF'
import sys, time
import numpy as np
from sklearn.neighbors import BallTree
prefix, k = sys.argv[1], int(sys.argv[2])
obs = np.radians(np.fromfile(prefix + ".obs").reshape(-1, 2))
refs = np.radians(np.fromfile(prefix + ".refs").reshape(-1, 2))
t = time.perf_counter()
BallTree(refs, metric="haversine").query(obs, k=k)
print(f"{time.perf_counter() - t:.3f}")
EOF
}

echo "$n_obs observations; $(date -u +%Y-%m-%d), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)"
printf '%-12s %3s %-7s %6s | %8s %8s %8s %9s | %8s %8s %9s %7s %5s %5s | %7s %s\n' set k prec refs \
  "brute s" "cpu s" "pairs/s" "again" "build s" "index s" "cpu s" "leaves" "again" "dfs" "x brute" \
  "$([[ $peer == yes ]] && echo 'balltree s')"
for set in "${sets[@]}"; do
  for k in "${ks[@]}"; do
    for precision in "${precisions[@]}"; do
      rate=""  # the brute force's pairs/s at the largest size it ran
      for ((log2 = 14; log2 <= max_log2; log2 += 2)); do
        n_ref=$((1 << log2))
        pairs=$((n_obs * n_ref))
        if ((pairs <= brute_pairs)); then
          read -r _ b_wall _ b_cpu _ b_again _ <<<"$("$bench" brute "$set" "$n_obs" "$n_ref" "$k" "$precision")"
          rate=$(awk -v p="$pairs" -v s="$b_wall" 'BEGIN { printf "%.3g", p / s }')
          b_shown=$b_wall
        elif [[ -n $rate ]]; then
          b_shown="~$(awk -v p="$pairs" -v r="$rate" 'BEGIN { printf "%.1f", p / r }')"
          b_wall=${b_shown#\~} b_cpu="-" b_again="-"
        else
          b_shown="-" b_wall="" b_cpu="-" b_again="-"
        fi
        write=()
        [[ $peer == yes ]] && write=("$work/points")
        read -r i_build i_wall _ i_cpu leaves i_again i_depth <<<"$("$bench" index "$set" "$n_obs" "$n_ref" "$k" "$precision" "${write[@]}")"
        ball=""
        [[ $peer == yes ]] && ball=$(balltree_seconds "$k")
        printf '%-12s %3d %-7s 2^%-4d | %8s %8s %8s %9s | %8s %8s %9s %7s %5s %5s | %7s %s\n' "$set" "$k" "$precision" \
          "$log2" "$b_shown" "$b_cpu" "$rate" "$b_again" "$i_build" "$i_wall" "$i_cpu" "$leaves" "$i_again" "$i_depth" \
          "$(awk -v a="$i_wall" -v b="$b_wall" 'BEGIN { if (b == "") print "-"; else printf "%.3f", a / b }')" "$ball"
      done
    done
  done
done
