#!/bin/bash
# own_gpu.sh COMMAND [ARGS...]: runs COMMAND seeing only its rank's own GPU, as
# `srun --gpus-per-task=1` gives each task on a cluster; put it between the launcher and
# the program:  mpirun -n 4 bench/common/own_gpu.sh build/cuda/src/trident run deck.yaml
# The rank's place on its host comes from the launcher: OMPI_COMM_WORLD_LOCAL_RANK (Open
# MPI), SLURM_LOCALID (srun), MPI_LOCALRANKID (MPICH's Hydra). Its GPU is that entry of
# CUDA_VISIBLE_DEVICES when the launcher already set a list (a single entry is kept as
# it is: the scheduler bound the task), else that device number. The GPUs then talk as
# across nodes only if neither NCCL nor trident may use peer memory: bench/scaling/bench.sh
# (SCALING_NETWORK=1) also sets NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1 and
# TRIDENT_PEER_MEMORY=off.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,4p' "$0" >&2; exit 2; }
local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-${MPI_LOCALRANKID:-}}}
if [ -z "$local_rank" ]; then
  echo "own_gpu.sh: no local rank from the launcher (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID or MPI_LOCALRANKID); run it under mpirun or srun" >&2
  exit 2
fi
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  IFS=, read -r -a visible <<<"$CUDA_VISIBLE_DEVICES"
  if [ ${#visible[@]} -gt 1 ]; then
    if [ "$local_rank" -ge ${#visible[@]} ]; then
      echo "own_gpu.sh: local rank $local_rank but CUDA_VISIBLE_DEVICES lists ${#visible[@]} GPUs ($CUDA_VISIBLE_DEVICES): one GPU a rank needs as many" >&2
      exit 2
    fi
    export CUDA_VISIBLE_DEVICES=${visible[$local_rank]}
  fi
else
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if [ "${gpus:-0}" -gt 0 ] && [ "$local_rank" -ge "$gpus" ]; then
    echo "own_gpu.sh: local rank $local_rank but this host has $gpus GPUs: one GPU a rank needs as many" >&2
    exit 2
  fi
  export CUDA_VISIBLE_DEVICES=$local_rank
fi
exec "$@"
