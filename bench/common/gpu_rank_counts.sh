# shellcheck shell=bash
# Sourced by the scaling benchmarks (bench/scaling/bench.sh, bench/scaling/ridge.sh).
# gpu_rank_counts OVERRIDE: sets `gpus` (the GPUs nvidia-smi lists, empty or 0 without it)
# and the array `rank_counts`: the words of OVERRIDE when it is given, else 1, then 2 and 4
# as far as there are GPUs for them.
gpu_rank_counts() {
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if [ -n "$1" ]; then
    read -r -a rank_counts <<<"$1"
    return 0
  fi
  rank_counts=(1)
  local n
  for n in 2 4; do
    if [ "${gpus:-0}" -ge "$n" ]; then rank_counts+=("$n"); fi
  done
}
