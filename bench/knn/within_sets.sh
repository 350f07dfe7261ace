#!/usr/bin/env bash
# Every reference within a distance (k: all) on the clustered point sets of refs.sh (1 km and
# 100 m squares, two cities, a polar cap, a strip across the dateline) against the uniform
# set at the same mean count, and against the k-nearest search of k = that count: through
# BUILD/bench/trident_knn_refs, one process a set, observations and references generated
# alike (another seed). The distance of mean count C is the set's area times C / n taken as
# a disc (refs.cpp: within_distance); the rows' actual mean is printed beside it. Targets: a
# clustered set at most 2 times the uniform one at the same mean count; on uniform points
# k: all at mean count 16 at most 1.5 times k = 16, at mean count 1 at most k = 1.
#
#   bench/knn/within_sets.sh BUILD
#
# Sizes from the environment (defaults: the GPU's on a machine with nvidia-smi, else seconds
# on a CPU core): KNN_WITHIN_SETS_N observations and references (GPU 16777216, CPU 65536),
# KNN_WITHIN_SETS_COUNTS mean counts (16 1), KNN_WITHIN_SETS_SETS the sets.
set -euo pipefail
# shellcheck source=bench/common/build.sh
source "$(dirname "$0")/../common/build.sh"
bench_helper_tool trident_knn_refs "$@"
n=${KNN_WITHIN_SETS_N:-$([[ $gpu == yes ]] && echo 16777216 || echo 65536)}
counts=(${KNN_WITHIN_SETS_COUNTS:-16 1})
sets=(${KNN_WITHIN_SETS_SETS:-uniform square_1km square_100m two_cities polar_cap dateline})
log2=$(awk -v n="$n" 'BEGIN { printf "%d", log(n) / log(2) + 0.5 }')
ks=""
for c in "${counts[@]}"; do ks="$ks${ks:+,}$c,w$c"; done
device=$([[ $gpu == yes ]] && nvidia-smi --query-gpu=name --format=csv,noheader | head -1 || echo "host")
echo "knn_within_sets: $n observations x 2^$log2 references; $device; $(date -u +%Y-%m-%d)," \
     "commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)"
printf '%-12s %6s %10s %10s %9s %11s %11s\n' set count "k: all s" "k = C s" "a row" "x k = C" "x uniform"
declare -A uniform
for set in "${sets[@]}"; do
  out=$("$bench" "$set" "$n" "$log2" "$ks" float32 0)
  for c in "${counts[@]}"; do
    all=$(awk -v c="w$c" '$3 == c { print $6, $9 }' <<<"$out")
    nearest=$(awk -v c="$c" '$3 == c && $5 == "index" { print $6 }' <<<"$out")
    [[ -n $all ]] || continue
    read -r seconds row <<<"$all"
    [[ $set == uniform ]] && uniform[$c]=$seconds
    awk -v s="$set" -v c="$c" -v a="$seconds" -v k="$nearest" -v r="$row" -v u="${uniform[$c]:-}" 'BEGIN {
      printf "%-12s %6d %10.4f %10.4f %9.2f %11.2f %11s\n", s, c, a, k, r, a / k, u == "" ? "-" : sprintf("%.2f", a / u) }'
  done
done
echo "targets: x uniform <= 2 (clustered sets); uniform x k = C <= 1.5 at C = 16, <= 1 at C = 1"
