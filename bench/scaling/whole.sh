# Sourced by bench/scaling/bench.sh: study_whole, whole runs that pay off on several GPUs:
# one deck per study whose whole run takes 15-30 s on one H100, on the bench's rank
# counts; the goal is the whole run (process start to exit) on 4 GPUs >= 3.3 times
# faster than on one. Per run: the launcher's wall time and trident's own "process start
# to exit" (rank 0), the speed-up of the latter over the first rank count's, the part
# that divides over GPUs (work s: diffusion compute + exposed halo wait, knn search, ridge
# sweep), the output's write time, and the set-up (startup + prepare + release, the
# slowest rank's rows of the timing table) beside the first rank count's.
# Sizes (what a CPU smoke run shrinks), each an override of the default:
#   SCALING_WHOLE_DIFFUSION="SIDE STEPS OUTPUT_EVERY"  default "8192 240000 30000": float32,
#     no Laplacian, 9 frames of 256 MB (2.4 GB); a step is about 62 us on one H100, 16 s
#   SCALING_WHOLE_KNN="OBSERVATIONS REFERENCES K METHOD"  default "67108864 1048576 1 brute":
#     2^26 x 2^20 pairs, about 21 s of search on one H100 (2^38 pairs take 0.08 s); rows
#     of 12 bytes and the points' 16 (1.9 GB), written while the search goes on. The brute
#     force, so that the run is bound by work that divides over GPUs (the index answers it
#     in a fraction of that).
#   SCALING_WHOLE_RIDGE="ROWS COLUMNS PER_ROW ITERATIONS LAMBDAS"  default "200000 200000
#     2000 3500 10": bench/ridge/ridge_large.yaml's 4e8 nonzeros as a square matrix, which no λ
#     solves to LSMR's machine-precision tests within ITERATIONS (the large deck's tall
#     matrix stops after about 28), so the sweep is ITERATIONS of about 5.2 ms (one H100)
#   SCALING_WHOLE="diffusion knn ridge" chooses the decks.
# The caller provides run_deck, rank_counts, here and work.
# shellcheck shell=bash disable=SC2154  # run_deck's log and the caller's here, work, rank_counts

# whole_deck STUDY: the deck text of the study's whole-run case
whole_deck() {
  case $1 in
    diffusion)
      local side steps every
      read -r side steps every <<<"${SCALING_WHOLE_DIFFUSION:-8192 240000 30000}"
      printf 'output: {progress_seconds: 0}\ndiffusion:\n  nx: %s\n  ny: %s\n  steps: %s\n  output_every: %s\n  precision: float32\n  start: {kind: gaussian, width: 0.05}\n' \
        "$side" "$side" "$steps" "$every" ;;
    knn)
      local observations references k method
      read -r observations references k method <<<"${SCALING_WHOLE_KNN:-67108864 1048576 1 brute}"
      printf 'output: {progress_seconds: 0}\nknn:\n  k: %s\n  precision: float32\n  method: %s\n  observations: {generate: {count: %s, seed: 1}}\n  references: {generate: {count: %s, seed: 2}}\n' \
        "$k" "$method" "$observations" "$references" ;;
    ridge)
      local rows columns per_row iterations lambdas density
      read -r rows columns per_row iterations lambdas <<<"${SCALING_WHOLE_RIDGE:-200000 200000 2000 3500 10}"
      density=$(awk -v p="$per_row" -v c="$columns" 'BEGIN { printf "%.17g", p / c }')
      grep -v '^#' "$here/../ridge/ridge_large.yaml" | sed -e 's/^  overwrite: true/  progress_seconds: 0/' \
        -e "s/rows: 4000000, columns: 200000, density: 0.0005/rows: $rows, columns: $columns, density: $density/" \
        -e "s/geomspace: \[0.1, 5000, 10\]/geomspace: [0.1, 5000, $lambdas]/" \
        -e "s/max_iterations: 150/max_iterations: $iterations/" ;;
  esac
}

# whole_frames_bytes: the bytes of the diffusion deck's frames (for the disk check)
whole_frames_bytes() {
  local side steps every
  read -r side steps every <<<"${SCALING_WHOLE_DIFFUSION:-8192 240000 30000}"
  awk -v s="$side" -v n="$steps" -v e="$every" 'BEGIN {
    f = (e > 0 ? int(n / e) + 1 + (n % e != 0) : 2); printf "%.0f", f * s * s * 4 }'
}

study_whole() {
  local study n base base_setup text free need
  printf '%-16s %5s %8s %8s %8s %6s %9s %8s %8s %8s %8s %8s %6s\n' case ranks "run s" "exit s" speedup target \
    "work s" "write s" startup prepare release "set-up" "x base"
  for study in ${SCALING_WHOLE:-diffusion knn ridge}; do
    case $study in diffusion | knn | ridge) ;; *)
      echo "bench.sh: SCALING_WHOLE names diffusion, knn and ridge, not '$study'" >&2; exit 2 ;;
    esac
    text=$(whole_deck "$study")
    base="" base_setup=""
    for n in "${rank_counts[@]}"; do
      if [ "$study" = diffusion ]; then  # the output, and its forced-network twin while compared
        need=$(($(whole_frames_bytes) * (SCALING_NETWORK == 1 ? 2 : 1) + (1 << 30)))
        free=$(df -P -B1 "$work" | awk 'NR == 2 { print $4 }')
        if [ "$free" -lt "$need" ]; then
          echo "bench.sh: whole_diffusion needs $need bytes free in $work, which has $free; set SCALING_WORK_DIR or SCALING_WHOLE_DIFFUSION" >&2
          exit 2
        fi
      fi
      run_deck "$study" "whole_$study" "$n" "$text"
      local exit_s work_s write_s startup prepare release setup
      exit_s=$(exit_seconds "$log") work_s=$(work_seconds "$study" "$log") write_s=$(timer_max "$log" "$study.output")
      startup=$(timer_max "$log" startup) prepare=$(timer_max "$log" prepare) release=$(release_seconds "$log")
      setup=$(awk -v a="$startup" -v b="$prepare" -v c="$release" 'BEGIN { print a + b + c }')
      [ -n "$base" ] || { base=$exit_s; base_setup=$setup; }
      awk -v c="whole_$study" -v r="$n" -v w="$seconds" -v e="$exit_s" -v b="$base" -v k="$work_s" -v o="$write_s" \
          -v s1="$startup" -v p="$prepare" -v rl="$release" -v su="$setup" -v bs="$base_setup" 'BEGIN {
        printf("%-16s %5d %8.2f %8.2f %7.2fx %6s %9.3f %8.3f %8.3f %8.3f %8.3f %8.3f %5.2fx\n",
               c, r, w, e, (e > 0 ? b / e : 0), (r == 4 ? ">=3.3x" : ""), k, o, s1, p, rl, su, (bs > 0 ? su / bs : 0)) }'
      if [ "$n" = "${rank_counts[0]}" ]; then
        awk -v w="$seconds" 'BEGIN { if (w < 15 || w > 30) printf "  (the first run took %.1f s, outside the 15-30 s this deck aims at on one H100: see SCALING_WHOLE_* in bench/scaling/whole.sh)\n", w }'
      fi
    done
  done
  echo "run s: launcher start to exit; exit s: trident's process start to exit (rank 0), whose ratio is the speed-up; set-up: startup + prepare + release; x base: set-up over the first rank count's (goals on 4: <= 1.5 s and <= 1.5x)"
}
