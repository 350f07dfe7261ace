#!/bin/bash
# The forced-network path on one host (issue 45): a small diffusion deck (halos) and a small
# ridge deck (rows of A over both ranks: all-reduces) on 2 ranks, once by the default route
# and once as ranks on different nodes would talk (each rank sees only its own GPU through
# bench/common/own_gpu.sh; NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 TRIDENT_PEER_MEMORY=off), give the
# same study results bit for bit (trident_h5_same), and the forced run's ranks each see one GPU.
# usage: forced_network.sh TRIDENT H5_SAME OWN_GPU LAUNCHER ARGS...   (the launcher with its
#   rank count, e.g. mpiexec -n 2)
# Skipped (exit 77) with fewer than 2 GPUs (nvidia-smi -L) or a build without a GPU backend;
# FORCED_NETWORK_ANY_DEVICE=1 runs it anyway (a CPU build: the same comparisons, no GPU
# check), for working on this script. KEEP=DIR keeps the outputs and logs.
set -u
[ $# -ge 4 ] || { sed -n '7,8p' "$0"; exit 2; }
trident=$(realpath "$1") h5_same=$(realpath "$2") own_gpu=$(realpath "$3"); shift 3
launcher=("$@")
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
any=${FORCED_NETWORK_ANY_DEVICE:-0}
if [ "$any" != 1 ] && [ "${gpus:-0}" -lt 2 ]; then
  echo "SKIP: needs 2 GPUs (nvidia-smi lists ${gpus:-0})"; exit 77
fi
work=${KEEP:-$(mktemp -d)}; [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; mkdir -p "$work"
cd "$work" || exit 1
export OMPI_MCA_orte_tmpdir_base="$work/ompi"; mkdir -p "$work/ompi"
export NCCL_NVLS_ENABLE=0  # NVLink multicast off, as in the benchmarks
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cat >diffusion.yaml <<'EOF'
output: {progress_seconds: 0}
diffusion:
  nx: 640
  ny: 384
  steps: 300
  output_every: 100
  precision: float32
  laplacian: true
  start: {kind: gaussian, width: 0.1}
EOF
cat >ridge.yaml <<'EOF'
output: {progress_seconds: 0}
ridge:
  matrix: {generate: {rows: 20000, columns: 2000, density: 0.02, seed: 1}}
  rhs: {generate: {mean: 3.0, std: 1.0, seed: 2}}
  lambdas: {geomspace: [0.1, 5000, 8]}
  solver: {atol: 0, btol: 0, conlim: 0, max_iterations: 60}
  precision: float32
  lambda_groups: 1
EOF

for deck in diffusion ridge; do
  if ! "${launcher[@]}" "$trident" run "$deck.yaml" --output "$deck-default.h5" --verbose >"$deck-default.log" 2>&1; then
    bad "$deck: the default run failed"; cat "$deck-default.log"; continue
  fi
  if [ "$any" != 1 ] && ! grep -q '(local rank 0): device ' "$deck-default.log"; then
    echo "SKIP: this build computes on the host (no GPU backend)"; exit 77
  fi
  if ! TRIDENT_PEER_MEMORY=off NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 "${launcher[@]}" "$own_gpu" "$trident" run "$deck.yaml" \
       --output "$deck-network.h5" --verbose >"$deck-network.log" 2>&1; then
    bad "$deck: the forced-network run failed"; cat "$deck-network.log"; continue
  fi
  grep -h "device data between ranks" "$deck-default.log" "$deck-network.log" | sed "s/^/$deck: /"
  "$h5_same" "$deck-default.h5" "$deck-network.h5" || bad "$deck: the forced-network output differs from the default one"
  if [ "$deck" = ridge ]; then  # the rows were split, so the run did all-reduce
    grep -q "ridge: rows of A over 2 ranks" "$deck-default.log" || bad "ridge: the rows of A were not split over the 2 ranks"
  fi
  if [ "$any" != 1 ]; then
    # each rank of the forced run drives device 0 of the one it sees; by default rank 1
    # drives the second of the host's GPUs
    [ "$(grep -c 'local rank [01]): device 0 of 1,' "$deck-network.log")" = 2 ] ||
      { bad "$deck: a forced-network rank saw more than its own GPU"; grep 'local rank' "$deck-network.log"; }
    grep -q 'local rank 1): device 1 of' "$deck-default.log" ||
      { bad "$deck: by default rank 1 did not drive the second GPU"; grep 'local rank' "$deck-default.log"; }
  fi
done
[ $fail -eq 0 ] && echo "ok: the forced network gives the default route's bits (diffusion, ridge) on ${launcher[*]}"
exit $fail
