# Sourced by the knn benchmarks (knn_bench.sh, knn_clustered.sh): one run of a deck as a
# user runs it, and trident's figures read from its log. Needs `launcher` (an array, may be
# empty), `trident` and `work` (the deck's output goes to $work/out.h5, removed after).
#
# knn_timed_run DECK WHAT: sets `whole` (process start to exit, s, 2 decimals), `seconds`
# (the search, as trident prints it), `widened` (observations searched again) and `log`;
# a failed run prints WHAT and its log and ends the benchmark.
knn_timed_run() {
  local deck=$1 what=$2 t0 t1
  log="$work/log.txt"
  t0=$(date +%s.%N)
  if ! "${launcher[@]}" "$trident" run "$deck" >"$log" 2>&1; then
    echo "run failed for $what:" >&2
    cat "$log" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  rm -f "$work/out.h5"
  whole=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
  seconds=$(grep "knn: search" "$log" | sed -E 's/.*search ([0-9.eE+-]+) s.*/\1/')
  widened=$(grep -o "[0-9]* observations needed a longer list" "$log" | grep -o "^[0-9]*" || echo 0)
}
