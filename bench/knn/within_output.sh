#!/bin/bash
# The ragged rows of k: all written to disk, against the disk they go to.
# usage: bench/knn/within_output.sh BUILD [N] [WORK_DIR] [RUNS]
#   N: uniform observations and references (default: 16777216 on a machine with nvidia-smi,
#   else 262144), k: all at the distance whose mean count is 16 (D16 of within.sh).
#   WORK_DIR: where the files go (default a new folder under /tmp); the HDF5 files are
#   removed at the end, the logs (with each run's timer table) stay.
#   RUNS: runs of the deck (default 2), each after the disk is measured again.
# The disk, before each run: dd of the output's bytes (page cache, and with fdatasync), and
# h5py writing arrays of the output's types and lengths (offsets, indices, distances, the
# observations and their latitude and longitude) into contiguous datasets, one write each.
# Prints the whole run (process start to exit), the search and the output from trident's
# timer table (knn.output: the rows and the observations written, the description; then
# close_output: the file closed and renamed into place), the file's bytes over those two,
# and that rate over h5py's and dd's. Target ("the ragged output written at disk speed"):
# at least 0.8 x h5py's contiguous rate, as bench/diffusion/output.sh holds the frames to.
# Environment: PYTHON (a Python with h5py; default: the first of /usr/bin/python3, python3
# that has it).
set -euo pipefail
# shellcheck source=bench/common/build.sh
source "$(dirname "$0")/../common/build.sh"
bench_build "$0 BUILD [N] [WORK_DIR] [RUNS]" "$@"
gpu=$(bench_gpu)
n=${2:-$([[ $gpu == yes ]] && echo 16777216 || echo 262144)}
work=${3:-$(mktemp -d /tmp/knn_output.XXXXXX)}
runs=${4:-2}
mkdir -p "$work"; work=$(cd "$work" && pwd)
trap 'rm -f "$work"/*.h5 "$work"/*.h5.partial "$work"/dd.bin' EXIT

python=""
for p in ${PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import h5py, numpy' 2>/dev/null; then python=$p; break; fi
done

radius=6371008.8
d16=$(awk -v c=16 -v n="$n" -v r="$radius" 'BEGIN { printf "%.17g", r * atan2(sqrt(1 - (1 - 2 * c / n) ^ 2), 1 - 2 * c / n) }')
cat >"$work/all.yaml" <<DECK
output: {progress_seconds: 0}
knn:
  k: all
  max_distance: $d16
  observations: {generate: {count: $n, seed: 1}}
  references: {generate: {count: $n, seed: 2}}
DECK
# the output's bytes, for the disk's figures: 16 entries a row (the mean), 12 bytes each,
# offsets 8 bytes a row, the observations 32 (latitude and longitude twice: the pairs and
# the netCDF coordinates)
entries=$((16 * n))
bytes=$((entries * 12 + (n + 1) * 8 + n * 32))
avail=$(( $(df --output=avail -B1 "$work" | tail -1) ))
if [ "$avail" -lt $((3 * bytes)) ]; then
  echo "$work has $((avail / 1000000)) MB free, the runs need $((3 * bytes / 1000000)) MB: give a smaller N or another WORK_DIR"
  exit 1
fi
device=$([[ $gpu == yes ]] && nvidia-smi --query-gpu=name --format=csv,noheader | head -1 || echo "host")
echo "knn_output: k: all at D16 = $d16 m, $n x $n uniform points, about $((bytes / 1000000)) MB of output; $device;" \
     "$(date -u +%Y-%m-%d), commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "work folder $work ($((avail / 1000000000)) GB free), h5py: ${python:-none}"

seconds() { local a b; a=$(date +%s.%N); "$@"; b=$(date +%s.%N); awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b - a}'; }
rate() { awk -v b="$1" -v s="$2" 'BEGIN {printf "%.2f", (s > 0 ? b / s / 1e9 : 0)}'; }
disk() {  # sets dd_rate, dd_sync_rate, h5py_rate
  local mb=$((bytes / 1048576)) s
  s=$(seconds dd if=/dev/zero of="$work/dd.bin" bs=1M count="$mb" status=none)
  rm -f "$work/dd.bin"
  dd_rate=$(rate $((mb * 1048576)) "$s")
  s=$(seconds dd if=/dev/zero of="$work/dd.bin" bs=1M count="$mb" conv=fdatasync status=none)
  rm -f "$work/dd.bin"
  dd_sync_rate=$(rate $((mb * 1048576)) "$s")
  h5py_rate=0
  [ -n "$python" ] || return 0
  h5py_rate=$("$python" - "$work/h5py.h5" "$n" "$entries" <<'PY'
import sys, time, numpy as np, h5py
path, n, entries = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(1)
arrays = {
    "offsets": np.arange(n + 1, dtype=np.int64) * 16,
    "indices": rng.integers(0, n, entries, dtype=np.int32),
    "distances": rng.random(entries),
    "observations": rng.random((n, 2)),
    "latitude": rng.random(n),
    "longitude": rng.random(n),
}
start = time.perf_counter()
with h5py.File(path, "w") as f:  # contiguous datasets, one write each
    for name, a in arrays.items():
        f.create_dataset(name, a.shape, dtype=a.dtype)[...] = a
seconds = time.perf_counter() - start
print(f"{sum(a.nbytes for a in arrays.values()) / seconds / 1e9:.2f}")
PY
)
  rm -f "$work/h5py.h5"
}

timer() { awk -v p="$2" '$1 == p {print $3; found = 1} END {if (!found) print 0}' "$1"; }
printf '\n%-4s %9s %8s %9s %9s %8s %9s %8s %8s %8s\n' run "GB" "whole s" "search s" "output s" "close s" "GB/s" "h5py" "vs h5py" "vs dd"
for ((r = 1; r <= runs; r++)); do
  disk
  log="$work/all.$r.log"
  a=$(date +%s.%N)
  "$trident" run "$work/all.yaml" --output "$work/all.h5" --overwrite --verbose >"$log" 2>&1 || { cat "$log"; exit 1; }
  b=$(date +%s.%N)
  file_bytes=$(stat -c %s "$work/all.h5")
  rm -f "$work/all.h5"
  awk -v r="$r" -v g="$file_bytes" -v w="$(awk -v a="$a" -v b="$b" 'BEGIN {print b - a}')" \
      -v s="$(timer "$log" knn.search)" -v o="$(timer "$log" knn.output)" -v c="$(timer "$log" close_output)" \
      -v h="$h5py_rate" -v dd="$dd_rate" 'BEGIN {
    rate = (o + c) > 0 ? g / 1e9 / (o + c) : 0
    printf "%-4d %9.2f %8.2f %9.3f %9.3f %8.3f %9.2f %8.2f %8s %8.2f\n", r, g / 1e9, w, s, o, c, rate, h,
           (h > 0 ? sprintf("%.2f", rate / h) : "n/a"), rate / dd }'
  echo "     (the disk before this run: dd $dd_rate GB/s into the page cache, $dd_sync_rate GB/s with fdatasync)"
done
echo
echo "GB/s: the file's bytes over knn.output + close_output; vs h5py: over h5py's contiguous write of arrays"
echo "of the same types and lengths just before, target >= 0.8; vs dd: over dd's page-cache rate"
echo "timer tables: $work/all.*.log"
