#!/bin/bash
# Two builds of trident side by side on the decks whose speed a change must keep: diffusion
# 2000^2 and 8192^2 (us a step), kNN 2^24 x 2^14 with k = 1 and 16 (search s), the ridge
# tutorial and large deck (sweep s). Runs alternate BEFORE, AFTER, BEFORE, ... ROUNDS times
# each (default 3) so that drifts of the machine hit both; prints the median of each and
# AFTER / BEFORE. The figures come from the /timings group of each run's output (the slowest
# rank's seconds per phase), so they do not depend on either build's log format.
#
#   bench/common/compare_speed.sh BEFORE_BUILD AFTER_BUILD [LAUNCHER ARGS...]
#   CASES="diffusion_2000 knn_k1" ROUNDS=5 bench/common/compare_speed.sh old/build/cuda build/cuda
# BEFORE_BUILD, AFTER_BUILD: the two build folders (each BUILD/src/trident runs the decks).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
decks=$(cd "$here/.." && pwd)
# shellcheck source=bench/common/build.sh
source "$here/build.sh"
usage="$0 BEFORE_BUILD AFTER_BUILD [LAUNCHER ARGS...]"
[ $# -ge 2 ] || { echo "usage: $usage" >&2; exit 2; }
bench_build "$usage" "$1"; before=$trident
bench_build "$usage" "$2"; after=$trident
shift 2
launcher=("$@")
rounds=${ROUNDS:-3}
cases=${CASES:-"diffusion_2000 diffusion_8192 knn_k1 knn_k16 ridge_tutorial ridge_large"}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# timing FILE NAME: the phase NAME of a run, from the /timings attribute of its output, or
# where HDF5's tools are missing from the timer table of its log (FILE.log; the max column).
timing() {
  if command -v h5dump >/dev/null; then
    h5dump -a "/timings/$2" "$1" | awk '/\(0\):/ {print $2}'
  else
    awk -v n="$2" '$1 == n {print $3; exit}' "$1.log"
  fi
}

# verbose BINARY: --verbose where the build has it (full phase names in its timer table).
verbose() { "$1" --help 2>/dev/null | grep -q -- --verbose && echo --verbose || true; }

# deck CASE: the deck of a case (kNN decks are filled in from bench/knn/knn_bench.yaml).
deck() {
  case $1 in
    diffusion_*) echo "$decks/diffusion/$1.yaml" ;;
    ridge_*) echo "$decks/ridge/$1.yaml" ;;
    knn_k*)
      local k=${1#knn_k} d="$work/$1.yaml"
      sed -e "s/OBSERVATIONS/16777216/" -e "s/REFERENCES/16384/" -e "s/K$/$k/" "$decks/knn/knn_bench.yaml" >"$d"
      echo "$d" ;;
  esac
}

# figure CASE FILE: the case's figure from its output.
figure() {
  case $1 in
    diffusion_*)
      local steps
      steps=$(awk '/^ *steps:/ {print $2}' "$decks/diffusion/$1.yaml")
      awk -v c="$(timing "$2" diffusion.compute)" -v h="$(timing "$2" diffusion.halo)" -v s="$steps" \
        'BEGIN {printf "%.3f", (c + h) / s * 1e6}' ;;
    knn_*) timing "$2" knn.search ;;
    ridge_*) timing "$2" ridge.sweep ;;
  esac
}

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

printf '%-16s %-6s %12s %12s %8s\n' case unit before after ratio
for c in $cases; do
  d=$(deck "$c")
  : >"$work/before.txt"; : >"$work/after.txt"
  for ((r = 0; r < rounds; ++r)); do
    for which in before after; do
      bin=$before; [ $which = after ] && bin=$after
      out="$work/$c.$which.h5"
      "${launcher[@]}" "$bin" run "$d" --output "$out" --overwrite $(verbose "$bin") >"$out.log" 2>&1 ||
        { cat "$out.log"; echo "$0: $c failed with the $which build" >&2; exit 1; }
      figure "$c" "$out" >>"$work/$which.txt"; echo >>"$work/$which.txt"
    done
  done
  b=$(grep . "$work/before.txt" | median); a=$(grep . "$work/after.txt" | median)
  unit=s; [[ $c == diffusion_* ]] && unit=us/step
  awk -v c="$c" -v u="$unit" -v b="$b" -v a="$a" 'BEGIN {printf "%-16s %-6s %12.5g %12.5g %8.3f\n", c, u, b, a, a / b}'
done
