#!/usr/bin/env bash
# Runs decks with two builds of trident and compares their results bit for bit, so that a
# refactoring can show it changed no output. h5diff compares each file's study groups
# (/diffusion, /knn, /ridge) and leaves out what differs between any two runs: the root's
# provenance attributes, /timings, and the study groups' own timing attributes
# (*_seconds, *_per_second; the group's other attributes are compared through h5dump).
# Prints one line per deck, same or DIFFERENT; exits 1 on any difference or failed run.
#
#   bench/common/compare_outputs.sh BEFORE_BUILD AFTER_BUILD [-n RANKS] [--gpu] [DECK...]
#
# BEFORE_BUILD, AFTER_BUILD: the two build folders (each BUILD/src/trident runs the decks).
# Without DECKs: inputs/*_small.yaml (seconds on a CPU); with --gpu also
# inputs/*_tutorial.yaml and the decks of bench/diffusion and bench/ridge, and
# bench/knn/knn_bench.yaml filled in for 2^24 observations x 2^14 references at k = 1 and
# k = 16. Each deck runs under `$MPIRUN -n RANKS` (MPIRUN defaults to mpirun; RANKS to 1)
# with the same RANKS for both. Files go to a temporary folder ($TMPDIR), kept only when an
# output differs. IGNORE_ATTRIBUTES="a b" leaves out the study groups' attributes of those
# names: ones the AFTER build adds (a new key's record) while every value stays the same.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd) root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=bench/common/build.sh
source "$here/build.sh"
usage="$0 BEFORE_BUILD AFTER_BUILD [-n RANKS] [--gpu] [DECK...]"
ranks=1 gpu=0 positional=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) [[ $# -ge 2 ]] || { echo "usage: $usage" >&2; exit 2; }; ranks=$2; shift 2 ;;
    --gpu) gpu=1; shift ;;
    -*) echo "usage: $usage" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
  esac
done
[[ ${#positional[@]} -ge 2 ]] || { echo "usage: $usage" >&2; exit 2; }
bench_build "$usage" "${positional[0]}"; before=$trident
bench_build "$usage" "${positional[1]}"; after=$trident
set -- "${positional[@]:2}"
# Without HDF5's tools (h5diff, h5dump): trident_h5_same of AFTER_BUILD (or $H5_SAME).
h5_same=${H5_SAME:-$build/bench/trident_h5_same}
if ! command -v h5diff >/dev/null; then
  [[ -x $h5_same ]] || { echo "$0: neither h5diff (HDF5's tools) nor $h5_same found" >&2; exit 2; }
  # shellcheck disable=SC2086  # the names, split
  same() { "$h5_same" "$1" "$2" ${IGNORE_ATTRIBUTES:-} >/dev/null; }
else
  same() {
    h5diff -q --exclude-path /timings --exclude-attribute / --exclude-attribute /diffusion \
      --exclude-attribute /knn --exclude-attribute /ridge "$1" "$2" >/dev/null 2>&1 &&
      cmp -s <(study_attributes "$1") <(study_attributes "$2")
  }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/compare_outputs.XXXXXX")

decks=("$@")
if [[ ${#decks[@]} -eq 0 ]]; then
  decks=("$root"/inputs/*_small.yaml)
  if [[ $gpu == 1 ]]; then
    decks+=("$root"/inputs/*_tutorial.yaml)
    decks+=("$root"/bench/diffusion/*.yaml "$root"/bench/ridge/*.yaml)
    for k in 1 16; do
      sed -e "s/OBSERVATIONS/16777216/" -e "s/REFERENCES/16384/" -e "s/K$/$k/" \
        "$root/bench/knn/knn_bench.yaml" >"$work/knn_bench_k$k.yaml"
      decks+=("$work/knn_bench_k$k.yaml")
    done
  fi
fi

# study_attributes FILE: the study groups' attributes as h5dump prints them (floats in hex,
# exact), the timing ones left out.
study_attributes() {
  local group
  for group in diffusion knn ridge; do
    h5dump -m %a -A -g "/$group" "$1" 2>/dev/null | tail -n +2 | awk -v ignore=" ${IGNORE_ATTRIBUTES:-} " '
      /ATTRIBUTE "[^"]*(_seconds|_per_second)" \{/ { skip = index($0, "A"); next }
      /ATTRIBUTE "[^"]*" \{/ { split($0, q, "\""); if (index(ignore, " " q[2] " ")) { skip = index($0, "A"); next } }
      skip { if (index($0, "}") == skip) skip = 0; next }
      { print }'
  done
}

differ=0 i=0
for deck in "${decks[@]}"; do
  name=$((++i)) label=${deck#"$root"/} label=${label#"$work"/}
  for build in before after; do
    mkdir -p "$work/$build"
    if ! ${MPIRUN:-mpirun} -n "$ranks" "${!build}" run "$deck" --output "$work/$build/$name.h5" \
        --overwrite >"$work/$build/$name.log" 2>&1; then
      echo "$label: the $build run FAILED (log: $work/$build/$name.log)"
      differ=1
      continue 2
    fi
  done
  a=$work/before/$name.h5 b=$work/after/$name.h5
  if same "$a" "$b"; then
    echo "$label: same"
    rm -f "$work"/*/"$name".*
  else
    echo "$label: DIFFERENT ($a $b)"
    differ=1
  fi
done
[[ $differ == 1 ]] || rm -rf "$work"
exit $differ
