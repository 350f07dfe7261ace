#!/bin/bash
# Diffusion as users run it, with frames, against the disk it writes to.
# usage: bench/diffusion/output.sh BUILD [N] [WORK_DIR]
#   N: grid N x N (default 8192), float32, c = 0.25, the Laplacian kept, 2000 steps.
#   WORK_DIR: where the files go (default a new folder under /tmp); the HDF5 files are
#   removed at the end, the logs (with each run's timer table) stay.
# Runs, one rank (and two ranks when 2 GPUs are visible: mpirun -n 2):
#   final  - start and final frames only (2000 steps)
#   frames - a frame every 100 steps (21 frames)
#   file   - 10 steps from a start field in an HDF5 file (written with h5py first)
# and in the same call measures the disk: dd of the 21 frames' bytes (page cache, and
# with fdatasync) and h5py writing the same frames into contiguous datasets.
# Prints the whole run (process start to exit, as a user waits), compute and output from
# trident's timer table, the output rate (frame bytes over the time the writes took),
# and the ratios against the disk. Targets (one H200): frames whole run <= 6 s
# or <= 1.2 x bytes / dd rate; output rate >= 0.8 x h5py's contiguous rate.
# Environment: SHARE_GPU=1 runs the 2-rank runs with fewer than 2 GPUs (the ranks share
# them: the output path's figures hold, the compute ones do not), MPIRUN (default: mpirun,
# with --allow-run-as-root as root), PYTHON (a
# Python with h5py; default: the first of /usr/bin/python3, python3 that has it).
set -euo pipefail
# shellcheck source=bench/common/build.sh
source "$(dirname "$0")/../common/build.sh"
bench_build "$0 BUILD [N] [WORK_DIR]" "$@"
n=${2:-8192}
work=${3:-$(mktemp -d /tmp/diffusion_io.XXXXXX)}
mkdir -p "$work"; work=$(cd "$work" && pwd)
trap 'rm -f "$work"/*.h5 "$work"/*.h5.partial "$work"/*.xdmf "$work"/dd.bin' EXIT
read -r -a mpirun <<<"${MPIRUN:-mpirun}"
[ "$(id -u)" = 0 ] && [ -z "${MPIRUN:-}" ] && mpirun+=(--allow-run-as-root)

python=""
for p in ${PYTHON:-} /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import h5py, numpy' 2>/dev/null; then python=$p; break; fi
done

frame_bytes=$((n * n * 4 * 2))  # field and Laplacian, float32
frames=21
bytes=$((frame_bytes * frames))
avail=$(( $(df --output=avail -B1 "$work" | tail -1) ))
if [ "$avail" -lt $((bytes + bytes / 10)) ]; then
  echo "$work has $((avail / 1000000)) MB free, the 21 frames need $((bytes / 1000000)) MB (+10%):"
  echo "give a smaller N (e.g. $0 $1 4096) or another WORK_DIR"; exit 1
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
echo "grid ${n}x${n} float32 with Laplacian, 2000 steps; frame $((frame_bytes / 1000000)) MB, 21 frames $((bytes / 1000000)) MB"
echo "work folder $work ($((avail / 1000000000)) GB free), GPUs visible: ${gpus:-0}, h5py: ${python:-none}"

# --- the disk, in this call: dd of the same bytes, then h5py's contiguous write ---
mb=$((bytes / 1048576))
seconds() { local a b; a=$(date +%s.%N); "$@"; b=$(date +%s.%N); awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b - a}'; }
dd_cache_s=$(seconds dd if=/dev/zero of="$work/dd.bin" bs=1M count="$mb" status=none)
rm -f "$work/dd.bin"
dd_sync_s=$(seconds dd if=/dev/zero of="$work/dd.bin" bs=1M count="$mb" conv=fdatasync status=none)
rm -f "$work/dd.bin"
rate() { awk -v b="$1" -v s="$2" 'BEGIN {printf "%.2f", (s > 0 ? b / s / 1e9 : 0)}'; }
dd_rate=$(rate $((mb * 1048576)) "$dd_cache_s")
dd_sync_rate=$(rate $((mb * 1048576)) "$dd_sync_s")
h5py_rate=""
if [ -n "$python" ]; then
  h5py_rate=$("$python" - "$work/h5py.h5" "$n" "$frames" <<'PY'
import sys, time, numpy as np, h5py
path, n, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
field = np.random.default_rng(1).random((n, n), dtype=np.float32)
lap = field[::-1].copy()
start = time.perf_counter()
with h5py.File(path, "w") as f:  # contiguous datasets, one write per frame, as trident's frames
    u = f.create_dataset("field", (frames, n, n), dtype=np.float32)
    l = f.create_dataset("laplacian", (frames, n, n), dtype=np.float32)
    for k in range(frames):
        u[k] = field
        l[k] = lap
seconds = time.perf_counter() - start
print(f"{2 * frames * field.nbytes / seconds / 1e9:.2f}")
PY
)
  rm -f "$work/h5py.h5"
  # a start field for the 'file' run
  "$python" - "$work/start.h5" "$n" <<'PY'
import sys, numpy as np, h5py
n = int(sys.argv[2]); y, x = np.mgrid[0:n, 0:n].astype(np.float32) / n
with h5py.File(sys.argv[1], "w") as f:
    f["u0"] = np.exp(-((x - 0.5) ** 2 + (y - 0.5) ** 2) / 0.02).astype(np.float32)
PY
fi
echo "disk: dd ${dd_rate} GB/s into the page cache, ${dd_sync_rate} GB/s with fdatasync; h5py contiguous ${h5py_rate:-n/a} GB/s"

deck() {  # name every start
  local start="{kind: gaussian}"
  [ "$3" = file ] && start="{kind: file, file: $work/start.h5, dataset: /u0}"
  cat >"$work/$1.yaml" <<DECK
output: {progress_seconds: 0}
diffusion: {nx: $n, ny: $n, steps: $4, c: 0.25, precision: float32, laplacian: true, output_every: $2, start: $start}
DECK
}
deck final 0 gaussian 2000
deck frames 100 gaussian 2000
deck file 0 file 10

timer() { awk -v p="$2" '$1 == p {print $3; found = 1} END {if (!found) print 0}' "$1"; }
printf '\n%-7s %5s %6s %9s %9s %9s %9s %9s %9s %10s %10s\n' run ranks frames GB "whole s" "compute s" "output s" "behind s" "out GB/s" "vs h5py" "whole/dd"
result() {  # name ranks log whole
  local log=$3 nframes gbytes compute output behind write_s
  nframes=$(grep -oE '[0-9]+ frames written' "$log" | awk '{print $1}')
  gbytes=$(awk -v f="$nframes" -v b="$frame_bytes" 'BEGIN {printf "%.9f", f * b / 1e9}')
  compute=$(timer "$log" diffusion.compute); output=$(timer "$log" diffusion.output)
  behind=$(timer "$log" diffusion.output_behind)
  # the time the file writes took: the writer thread's (output_behind) when frames were
  # written in the background, else the output step itself (copies, gather and writes)
  write_s=$(awk -v o="$output" -v b="$behind" 'BEGIN {print (b > 0 ? b : o)}')
  awk -v name="$1" -v r="$2" -v f="$nframes" -v g="$gbytes" -v w="$4" -v c="$compute" -v o="$output" -v b="$behind" \
      -v ws="$write_s" -v h="${h5py_rate:-0}" -v dd="$dd_rate" 'BEGIN {
    rate = ws > 0 ? g / ws : 0
    printf "%-7s %5d %6d %9.2f %9.2f %9.3f %9.3f %9.3f %9.2f %10s %10.2f\n", name, r, f, g, w, c, o, b, rate,
           (h > 0 ? sprintf("%.2f", rate / h) : "n/a"), w / (g / dd) }'
}
run() {  # name ranks
  local log="$work/$1.$2.log" a b
  a=$(date +%s.%N)
  "${mpirun[@]}" -n "$2" "$trident" run "$work/$1.yaml" --output "$work/$1.h5" --overwrite --verbose >"$log" 2>&1 || { cat "$log"; exit 1; }
  b=$(date +%s.%N)
  result "$1" "$2" "$log" "$(awk -v a="$a" -v b="$b" 'BEGIN {print b - a}')"
  cp "$log" "${BENCH_LOG_DIR:-$work}/" 2>/dev/null || true
  rm -f "$work/$1.h5" "$work/$1.xdmf"
}
for ranks in 1 2; do
  if [ "$ranks" = 2 ] && [ "${gpus:-0}" -lt 2 ]; then
    if [ -z "${SHARE_GPU:-}" ]; then
      echo "(2 ranks skipped: $gpus GPU(s) visible, the 2-rank runs need 2; SHARE_GPU=1 runs them on one)"; continue
    fi
    echo "(2 ranks share $gpus GPU(s) (SHARE_GPU=1): compute and whole run are not a 2-GPU figure; the output path, gathered over 2 ranks, is)"
  fi
  run final "$ranks"
  run frames "$ranks"
  if [ -f "$work/start.h5" ]; then run file "$ranks"; else echo "(file run skipped: no h5py to write its start field)"; fi
done
echo
echo "whole/dd: the whole run over (bytes written / dd's page-cache rate); target for 'frames': whole <= 6 s or whole/dd <= 1.2"
echo "vs h5py: output rate over h5py's contiguous write of the 21 frames, same call; target >= 0.8"
echo "timer tables: $work/*.log (kept when BENCH_LOG_DIR is set, copied there)"
