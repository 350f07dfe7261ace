#!/usr/bin/env bash
# Input readers at disk speed: trident's readers alone on files of users' sizes, beside the
# rate at which the same warm file is merely copied from the page cache (dd to /dev/null).
#
#   bench/io/read_rates.sh BUILD [FOLDER] [REPEATS]
#   e.g. bench/io/read_rates.sh build/cpu
#
# FOLDER (default $TMPDIR/trident_read_rates) receives the inputs, written once by
# bench/io/make_read_inputs.py under /usr/bin/python3 (Debian's numpy and h5py): 2^22 kNN
# points as HDF5 and CSV, a 15000^2 matrix with 10^7 nonzeros as Matrix Market (305 MB)
# and as an HDF5 CSR group, and a 4096^2 float64 start field. Each file is read once
# before it is timed (warm), then BUILD/bench/trident_read_rates times the reader
# once in each of REPEATS fresh processes (default 3; the best is shown: a fresh process
# pays for its memory's first touch as trident does, a second read in one process would
# not): kNN, counting the points and reading and checking them
# all; ridge, the file to a checked CSR matrix; diffusion, the whole field as one block.
# "dd MB/s" is the best of three dd runs over the same file; "ratio" is reader over dd.
# "CPU s" is the reader's CPU time in its fastest run: on a shared machine the wall time
# also holds the time it waited for a core.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common/build.sh
source "$here/../common/build.sh"
# shellcheck disable=SC2034  # read by bench_build: this script runs only BUILD/bench/trident_read_rates
bench_needs_trident=0
bench_build "$0 BUILD [FOLDER] [REPEATS]" "$@"
folder=${2:-${TMPDIR:-/tmp}/trident_read_rates}
repeats=${3:-3}
reader=$(bench_tool trident_read_rates)
/usr/bin/python3 "$here/make_read_inputs.py" "$folder"

# Seconds dd takes to copy FILE to /dev/null, best of three (the file is warm by then).
dd_seconds() {
  local best="" s
  for _ in 1 2 3; do
    s=$(LC_ALL=C dd if="$1" of=/dev/null bs=16M 2>&1 | awk -F', ' '/copied/ {sub(/ s$/, "", $(NF-1)); print $(NF-1)}')
    best=$(awk -v a="$s" -v b="$best" 'BEGIN {print (b == "" || a < b) ? a : b}')
  done
  echo "$best"
}

printf '%-34s %11s %9s %8s %9s %9s %6s\n' input bytes "reader s" "CPU s" "MB/s" "dd MB/s" ratio
row() {  # label, file, reader arguments...
  local label=$1 file=$2
  shift 2
  cat "$file" >/dev/null
  local dd_s; dd_s=$(dd_seconds "$file")
  local bytes seconds="" cpu b s c
  for _ in $(seq "$repeats"); do
    read -r b s c <<<"$("$reader" "$@" 1 2>/dev/null)"
    if [[ -z $seconds ]] || awk -v a="$s" -v b="$seconds" 'BEGIN {exit !(a < b)}'; then
      bytes=$b seconds=$s cpu=$c
    fi
  done
  awk -v l="$label" -v b="$bytes" -v s="$seconds" -v c="$cpu" -v d="$dd_s" 'BEGIN {
    printf "%-34s %11d %9.3f %8.3f %9.0f %9.0f %6.2f\n", l, b, s, c, b / s / 1e6, b / d / 1e6, d / s }'
}
row "knn points, HDF5 (2^22 x 2 f64)" "$folder/points.h5" knn-hdf5 "$folder/points.h5" /points
row "knn points, CSV (2^22 rows)" "$folder/points.csv" knn-csv "$folder/points.csv" latitude longitude
row "ridge A, Matrix Market (10^7 nnz)" "$folder/matrix.mtx" matrix-market "$folder/matrix.mtx"
row "ridge A, HDF5 CSR (10^7 nnz)" "$folder/matrix.h5" ridge-hdf5 "$folder/matrix.h5" /A
row "diffusion start, HDF5 (4096^2 f64)" "$folder/field.h5" start-field "$folder/field.h5" /u
