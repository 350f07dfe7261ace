#!/usr/bin/env bash
# Per-kernel device times of one knn search (GPU machines with Nsight Compute):
#   bench/knn/ncu.sh BUILD OBSERVATIONS REFERENCES K [NCU_METRICS]
# (KNN_NCU_PRECISION=float64 screens in float64; the default is float32.)
# Runs the benchmark deck under ncu (no clock control, so the clocks are the ones the
# benchmark sees) and prints one line per kernel launch: label-ish name, duration, and
# the other metrics asked for. The warm-up search (256 observations) shows first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
bench_build "$0 BUILD OBSERVATIONS REFERENCES K [NCU_METRICS]" "$@"
[ $# -ge 4 ] || { echo "usage: $0 BUILD OBSERVATIONS REFERENCES K [NCU_METRICS]" >&2; exit 2; }
n_obs=$2 n_ref=$3 k=$4
metrics=${5:-gpu__time_duration.sum,sm__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size}
work=$(mktemp -d "${TMPDIR:-/tmp}/knn_ncu.XXXXXX")
trap 'rm -rf "$work"' EXIT
deck="$work/knn.yaml"
sed -e "s/OBSERVATIONS/$n_obs/" -e "s/REFERENCES/$n_ref/" -e "s/K$/$k/" \
    -e "s/precision: float32/precision: ${KNN_NCU_PRECISION:-float32}/" \
    -e "s|knn_bench.h5|$work/out.h5|" "$here/knn_bench.yaml" >"$deck"
ncu --clock-control none -k regex:parallel_launch --metrics "$metrics" --csv \
    "$trident" run "$deck" >"$work/ncu.csv" 2>"$work/ncu.err" || { cat "$work/ncu.err" "$work/ncu.csv" | tail -20; exit 1; }
# rows: "ID","Process ID","Process Name","Host Name","Kernel Name",...,"Metric Name","Metric Unit","Metric Value"
grep '^"[0-9]' "$work/ncu.csv" | awk -F'","' '{
  name = $5; if (match(name, /trident::knn::[A-Za-z]+(<[^>]*>)?/)) name = substr(name, RSTART, RLENGTH);
  else if (match(name, /search<float>[^)]*\)/)) name = "lambda in " substr(name, RSTART, 40);
  else name = substr(name, 1, 60);
  id = $1; gsub(/"/, "", id);
  v = $NF; gsub(/"/, "", v);
  if (!(id in seen)) { seen[id] = 1; order[++n] = id; names[id] = name }
  line[id] = line[id] " " $(NF-2) "=" v
} END { for (i = 1; i <= n; ++i) print order[i], names[order[i]], line[order[i]] }'
