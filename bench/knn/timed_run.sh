# Sourced by the knn benchmarks (speed.sh, clustered.sh, whole_run.sh): one run of a deck as
# a user runs it, and trident's figures read from its log. Needs `launcher` (an array, may be
# empty), `trident` and `work` (the deck's output goes to $work/out.h5, removed after); `here`
# for the generated decks.
# shellcheck shell=bash
source "$(dirname "${BASH_SOURCE[0]}")/../common/build.sh"

# knn_bench_arguments NAME BUILD [LAUNCHER ARGS...]: the arguments of a benchmark that takes
# the build folder and a launcher; sets `build`, `trident`, `launcher` and `work` (a
# temporary folder named after NAME, removed at exit).
knn_bench_arguments() {
  local name=$1
  shift
  bench_build "$0 BUILD [LAUNCHER ARGS...]" "$@"
  shift
  launcher=("$@")
  work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}

# knn_generated_deck OBS REFS K PRECISION: writes bench/knn/knn_bench.yaml filled in for those
# points, k and precision, its output $work/out.h5; prints the deck's path.
knn_generated_deck() {
  local deck="$work/knn_${1}_${2}_${3}_${4}.yaml"
  sed -e "s/OBSERVATIONS/$1/" -e "s/REFERENCES/$2/" -e "s/K$/$3/" \
      -e "s/precision: float32/precision: $4/" \
      -e "s|knn_bench.h5|$work/out.h5|" "$here/knn_bench.yaml" >"$deck"
  echo "$deck"
}

# knn_timed_run DECK WHAT: sets `whole` (process start to exit, s, 2 decimals), `seconds`
# (the search, as trident prints it), `widened` (observations searched again), `file_bytes`
# (the output's size) and `log`; a failed run prints WHAT and its log and ends the benchmark.
knn_timed_run() {
  local deck=$1 what=$2 t0 t1
  log="$work/log.txt"
  t0=$(date +%s.%N)
  # --verbose: the search's parts, and the timer table's phases by their full names
  if ! "${launcher[@]}" "$trident" run "$deck" --verbose >"$log" 2>&1; then
    echo "run failed for $what:" >&2
    cat "$log" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  file_bytes=$(stat -c %s "$work/out.h5" 2>/dev/null || echo 0)
  rm -f "$work/out.h5"
  whole=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  seconds=$(grep "knn: search" "$log" | sed -E 's/.*search ([0-9.eE+-]+) s.*/\1/')
  widened=$(grep -o "[0-9]* observations needed a longer list" "$log" | grep -o "^[0-9]*" || echo 0)
}
