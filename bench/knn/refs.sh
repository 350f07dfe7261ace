#!/usr/bin/env bash
# kNN against growing reference sets: the brute force and the spatial index side
# by side (BUILD/bench/trident_knn_refs, one process a point set), references from
# 2^MIN_LOG2 to 2^MAX_LOG2 at a fixed number of observations, on the whole sphere and on
# clustered sets; then the targets at the largest size (k = 1 and 64, float64),
# and scikit-learn's BallTree (haversine, bench/knn/balltree.py) on the same points and as
# many CPU threads as trident's search where /usr/bin/python3 has sklearn, its rows checked
# against trident's. Each run line as it comes (BallTree's after its set's trident runs, so
# the two never share the CPUs), then a compact table and the targets' figures last.
#
#   bench/knn/refs.sh BUILD
#
# Sizes and cases from the environment (defaults: on a machine with nvidia-smi the GPU's,
# else a few seconds a run on one CPU core):
#   KNN_REFS_OBS          observations                     (GPU 16777216, CPU 65536)
#   KNN_REFS_MIN_LOG2     smallest reference count, log2   (14)
#   KNN_REFS_MAX_LOG2     largest reference count, log2    (GPU 24, CPU 20)
#   KNN_REFS_STEP         log2 step                        (2)
#   KNN_REFS_SETS         point sets   (uniform square_1km square_100m two_cities half_1km polar_cap dateline)
#   KNN_REFS_K            k values, comma-separated        (16)
#   KNN_REFS_PRECISIONS   comma-separated                  (float32)
#   KNN_REFS_BRUTE_PAIRS  largest observations x references the brute force runs (GPU 2^42, CPU 2^33)
#   KNN_REFS_TARGETS      1: also k = 1 and 64 and float64 k = 16, uniform, at the largest size (1)
#   KNN_REFS_PEER_MAX_LOG2  BallTree up to this reference count, log2 (20)
#   KNN_REFS_PEER_THREADS   BallTree's threads (trident_knn_refs threads: the host back end's
#                           threads, 1 on the Serial CPU build; on a GPU build every usable CPU)
# e.g. on one GPU, about five minutes: bench/knn/refs.sh build
#      the targets alone: KNN_REFS_SETS=uniform KNN_REFS_MIN_LOG2=24 bench/knn/refs.sh build
set -euo pipefail
# shellcheck source=bench/common/build.sh
source "$(dirname "$0")/../common/build.sh"
bench_helper_tool trident_knn_refs "$@"
n_obs=${KNN_REFS_OBS:-$([[ $gpu == yes ]] && echo 16777216 || echo 65536)}
min_log2=${KNN_REFS_MIN_LOG2:-14}
max_log2=${KNN_REFS_MAX_LOG2:-$([[ $gpu == yes ]] && echo 24 || echo 20)}
step=${KNN_REFS_STEP:-2}
sets=(${KNN_REFS_SETS:-uniform square_1km square_100m two_cities half_1km polar_cap dateline})
ks=${KNN_REFS_K:-16}
precisions=${KNN_REFS_PRECISIONS:-float32}
brute_pairs=${KNN_REFS_BRUTE_PAIRS:-$([[ $gpu == yes ]] && echo 4398046511104 || echo 8589934592)}
targets=${KNN_REFS_TARGETS:-1}
peer_max=${KNN_REFS_PEER_MAX_LOG2:-20}
peer_threads=${KNN_REFS_PEER_THREADS:-$("$bench" threads)}
work=$(mktemp -d "${TMPDIR:-/tmp}/knn_refs.XXXXXX")
trap 'rm -rf "$work"' EXIT
peer=no
if /usr/bin/python3 -c "import sklearn, numpy" 2>/dev/null; then peer=yes; fi
log2s=$(seq -s, "$min_log2" "$step" "$max_log2")
[[ $(( (max_log2 - min_log2) % step )) -eq 0 ]] || log2s="$log2s,$max_log2"

device=$([[ $gpu == yes ]] && nvidia-smi --query-gpu=name --format=csv,noheader | head -1 || echo "host")
echo "knn_refs: $n_obs observations, references 2^$min_log2 to 2^$max_log2; $device; $(date -u +%Y-%m-%d)," \
     "commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "set log2 k precision method search_s build_s cpu_s leaves_a_row widened auto"
[[ $peer == yes ]] && echo "set log2 k precision balltree search_s cpu_s threads check" \
  "(BallTree: $peer_threads threads)"
runs=$work/runs
: > "$runs"
run() {  # SET LOG2S KS PRECISIONS BRUTE_PAIRS [PEER]
  local extra=() prefix=$work/$1 peer_runs=$work/$1.peer
  [[ ${6:-no} == yes ]] && extra=("$prefix" "$peer_max")
  : > "$peer_runs"
  "$bench" "$1" "$n_obs" "$2" "$3" "$4" "$5" "${extra[@]}" | while read -r line; do
    echo "$line"
    echo "$line" >> "$runs"
    read -r _ log2 k precision method _ <<<"$line"
    if [[ ${6:-no} == yes && $method == index && $log2 -le $peer_max ]] && ! grep -q "^$log2 $k " "$peer_runs"; then
      echo "$log2 $k $precision" >> "$peer_runs"
    fi
  done
  # BallTree on each size and k the index ran, once trident's process has ended
  while read -r log2 k precision; do
    line="$1 $log2 $k $precision balltree $(/usr/bin/python3 "$(dirname "$0")/balltree.py" "$prefix" "$log2" "$k" \
      "$peer_threads")"
    echo "$line"
    echo "$line" >> "$runs"
  done < "$peer_runs"
  rm -f "$prefix".*
}
for set in "${sets[@]}"; do run "$set" "$log2s" "$ks" "$precisions" "$brute_pairs" "$peer"; done
if [[ $targets == 1 ]]; then
  run uniform "$max_log2" 1,64 float32 0
  run uniform "$max_log2" 16 float64 0
fi

# The compact table: a row per set, size, k and precision; brute and index seconds, the
# index's build and leaves a row, auto's choice and its time over the brute force's, the
# index's time over the uniform set's at the same size, k and precision.
awk -v max="$max_log2" -v min="$min_log2" -v n_obs="$n_obs" '
  { key = $1 " " $2 " " $3 " " $4
    if (!(key in seen)) { seen[key] = 1; order[++rows] = key }
    if ($5 == "balltree") { ball[key] = $6; ball_check[key] = $9; next }
    if ((key " " $5) in measured) next  # the targets ask again for what KNN_REFS_K ran: the first stays
    measured[key " " $5] = 1
    auto_of[key] = $11
    if ($5 == "brute") brute[key] = $6
    else { index_s[key] = $6; build[key] = $7; leaves[key] = $9 } }
  END {
    printf "\n%-12s %6s %3s %-7s | %9s %9s %8s %6s | %-5s %7s | %9s | %s\n", "set", "refs", "k", "prec", "brute s",
           "index s", "build s", "leaves", "auto", "/brute", "x uniform", "balltree s (x index, its rows)"
    for (r = 1; r <= rows; ++r) {
      key = order[r]; split(key, f, " ")
      u = "uniform " f[2] " " f[3] " " f[4]
      b = "-"; over_brute = "-"; over_uniform = "-"; peer_s = ""
      if (key in brute) {
        b = brute[key]
        over_brute = sprintf("%.2f", (auto_of[key] == "index" ? index_s[key] : brute[key]) / brute[key])
      }
      if ((u in index_s) && index_s[u] > 0) over_uniform = sprintf("%.2f", index_s[key] / index_s[u])
      if ((key in ball) && index_s[key] > 0)
        peer_s = sprintf("%s (%.1f, %s)", ball[key], ball[key] / index_s[key], ball_check[key])
      printf "%-12s 2^%-4s %3s %-7s | %9s %9s %8s %6s | %-5s %7s | %9s | %s\n", f[1], f[2], f[3], f[4], b,
             index_s[key], build[key], leaves[key], auto_of[key], over_brute, over_uniform, peer_s }
    # the targets, where this run measured them
    printf "\ntargets (%d observations; the targets are for 2^24 x 2^24 on one GPU):\n", n_obs
    t16 = "uniform " max " 16 float32"
    if (t16 in index_s) printf "  2^%d refs, k = 16, float32: index %s s (target <= 0.5)\n", max, index_s[t16]
    t1 = "uniform " max " 1 float32"
    if (t1 in index_s) printf "  2^%d refs, k = 1: index %s s (target <= 0.3)\n", max, index_s[t1]
    t64 = "uniform " max " 64 float32"
    if (t64 in index_s) printf "  2^%d refs, k = 64: index %s s (target <= 2)\n", max, index_s[t64]
    t64f = "uniform " max " 16 float64"
    if ((t64f in index_s) && (t16 in index_s))
      printf "  float64 over float32, k = 16: %.2f (target <= 2)\n", index_s[t64f] / index_s[t16]
    worst = 0
    for (r = 1; r <= rows; ++r) {
      key = order[r]; split(key, f, " ")
      u = "uniform " f[2] " " f[3] " " f[4]
      if (f[2] == max && f[1] != "uniform" && (u in index_s) && index_s[u] > 0 && index_s[key] / index_s[u] > worst) {
        worst = index_s[key] / index_s[u]; worst_set = f[1] }
    }
    if (worst > 0) printf "  clustered sets at 2^%d refs: the slowest, %s, %.2f times uniform (target <= 2)\n", max, worst_set, worst
    ta = "uniform " min " 16 float32"
    if ((ta in brute) && (ta in index_s))
      printf "  2^%d refs, k = 16: auto takes %s, %.2f times the brute force (target <= 1)\n", min, auto_of[ta],
             (auto_of[ta] == "index" ? index_s[ta] : brute[ta]) / brute[ta]
  }' "$runs"
