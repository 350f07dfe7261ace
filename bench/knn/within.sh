#!/usr/bin/env bash
# The distance queries (k: all, k: count, knn.match) against the k-nearest searches they replace, on uniform
# points, through `trident run` (the search time trident prints, slowest rank):
#   k: all at the distance D16 whose mean count is 16     vs  k: 16        (target <= 1.5x)
#   k: 16 within D16 (the k nearest cut at D16)           vs  k: 16
#   k: count at D16                                       vs  k: 16
#   k: all at D1 (mean count 1)                           vs  k: 1         (target <= 1x)
#   match: best at D1                                     vs  k: 1
#   a set against itself, k: 16 (exclude_self: 17 found)  vs  k: 17 of two sets (target <= 1x)
#   match: mutual of a set against itself at D1           vs  k: 17 of two sets
# D for a mean count c among n uniform references: the cap holding c/n of the sphere,
# D = radius * acos(1 - 2c/n). Each line: case, search s, whole run s, the neighbours the
# log counts, the ratio to its k-nearest baseline and the target where one is set.
#
#   bench/knn/within.sh BUILD [LAUNCHER ARGS...]
#
# Sizes from the environment (defaults: on a machine with nvidia-smi the GPU's, else seconds
# on a CPU core):
#   KNN_WITHIN_N      observations = points of the self set (GPU 16777216, CPU 65536)
#   KNN_WITHIN_REFS   references of the two-set cases (KNN_WITHIN_N); D16 and D1 are theirs
#   KNN_WITHIN_BATCH  knn.batch_size of the distance queries' rounds (0: the study's default)
#   KNN_WITHIN_CASES  the cases to run besides the k-nearest baselines, a grep -E pattern of
#                     their names (all of them)
#   KNN_WITHIN_PARTS  1: after each distance query, its --verbose search parts line (rounds,
#                     upload and place order, count pass, fill pass, download, host)
#   KNN_WITHIN_REPEAT every case R times (1), the cases in turn each time, so that a ratio's
#                     two searches run minutes apart at most; then each targeted case's
#                     median ratio over the R (the baselines alone move by 10-30 % a run)
# e.g. on one H200: bench/knn/within.sh build/cuda
#      here, small:  KNN_WITHIN_N=16384 bench/knn/within.sh build/cpu
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/knn/timed_run.sh
source "$here/timed_run.sh"
knn_bench_arguments knn_within "$@"
gpu=$(bench_gpu)
n=${KNN_WITHIN_N:-$([[ $gpu == yes ]] && echo 16777216 || echo 65536)}
refs=${KNN_WITHIN_REFS:-$n}
batch=${KNN_WITHIN_BATCH:-0}
cases=${KNN_WITHIN_CASES:-.}
radius=6371008.8
distance() { awk -v c="$1" -v n="$refs" -v r="$radius" 'BEGIN { printf "%.17g", r * atan2(sqrt(1 - (1 - 2 * c / n) ^ 2), 1 - 2 * c / n) }'; }
d16=$(distance 16)
d1=$(distance 1)

# deck NAME LINES: a deck of the knn section LINES (two generated sets unless LINES name them)
deck() {
  local file="$work/$1.yaml"
  {
    printf 'output:\n  file: %s/out.h5\n  overwrite: true\nknn:\n' "$work"
    printf '%b' "$2"
    grep -q "observations" <<<"$2" || printf '  observations: {generate: {count: %s, seed: 1}}\n' "$n"
    grep -q "references" <<<"$2" || printf '  references: {generate: {count: %s, seed: 2}}\n' "$refs"
  } >"$file"
  echo "$file"
}

declare -A base ratios
run() {  # NAME BASELINE TARGET LINES
  local name=$1 baseline=$2 target=$3 found ratio
  [[ -z $baseline ]] || grep -qE -- "$cases" <<<"$name" || return 0
  knn_timed_run "$(deck "$name" "$4")" "$name"
  seconds=$(grep -E "knn: search [0-9]" "$log" | sed -E 's/.*search ([0-9.eE+-]+) s.*/\1/')
  found=$(grep -oE "[0-9]+ neighbours( within)?" "$log" | head -1 | grep -oE "^[0-9]+" || echo -)
  base[$name]=$seconds
  ratio=-
  [[ -n $baseline ]] && ratio=$(awk -v a="$seconds" -v b="${base[$baseline]}" 'BEGIN { printf "%.2f", a / b }')
  [[ -z $target ]] || ratios[$name]+=" $ratio"
  printf '%-34s %10s %8s %12s %7s %s\n' "$name" "$seconds" "$whole" "$found" "$ratio" "$target"
  if [[ ${KNN_WITHIN_PARTS:-0} == 1 ]]; then grep -E "search parts: [0-9]+ round" "$log" | sed -E 's/.*search parts: /    /' || true; fi
}

device=$([[ $gpu == yes ]] && nvidia-smi --query-gpu=name --format=csv,noheader | head -1 || echo "host")
echo "knn_within: n = $n uniform observations, $refs references; D16 = $d16 m, D1 = $d1 m; $device; $(date -u +%Y-%m-%d)," \
     "commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
printf '%-34s %10s %8s %12s %7s %s\n' case search_s whole_s neighbours ratio target
b="  batch_size: $batch\n"
self="  observations: {generate: {count: $n, seed: 1}}\n  references: observations\n"
repeat=${KNN_WITHIN_REPEAT:-1}
for ((time = 1; time <= repeat; time++)); do
  run "k: 16" "" "" "  k: 16\n"
  run "k: all, D16" "k: 16" "<= 1.5" "  k: all\n  max_distance: $d16\n$b"
  run "k: 16 within D16" "k: 16" "" "  k: 16\n  max_distance: $d16\n"
  run "k: count, D16" "k: 16" "" "  k: count\n  max_distance: $d16\n$b"
  run "k: 1" "" "" "  k: 1\n"
  run "k: all, D1" "k: 1" "<= 1" "  k: all\n  max_distance: $d1\n$b"
  run "match: best, D1" "k: 1" "" "  match: best\n  max_distance: $d1\n$b"
  run "k: 17" "" "" "  k: 17\n"
  run "self, k: 16 (exclude_self)" "k: 17" "<= 1" "  k: 16\n$self"
  run "self, match: mutual, D1" "k: 17" "" "  match: mutual\n  max_distance: $d1\n$self$b"
done
if ((repeat > 1)); then
  echo "median ratio over $repeat times:"
  for name in "k: all, D16" "k: all, D1" "self, k: 16 (exclude_self)"; do
    [[ -n ${ratios[$name]:-} ]] || continue
    printf '%-34s %s  (%s)\n' "$name" "$(tr ' ' '\n' <<<"${ratios[$name]}" | grep . | sort -g |
      awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')" "${ratios[$name]# }"
  done
fi
