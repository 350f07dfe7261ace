#!/bin/bash
# knn.method: brute and index give the same /knn bit for bit (h5diff, exact), on the
# clustered survey points of inputs/knn_points_h5.yaml (clusters of 1 m to 100 km, both
# poles, the dateline), for k through the index's register lists and its list arrays, in
# both precisions, with the brute force's references in tiles and small batches on both
# sides; the logs say which method ran and why, and the index's shape.
# usage: knn_methods.sh TRIDENT SOURCE_DIR [LAUNCHER ARGS...]   (none: 1 rank)
# KEEP=DIR keeps the outputs and logs. Exit 77 (skipped) where h5diff is missing.
set -u
trident=$(realpath "$1"); src=$(realpath "$2"); shift 2
launcher=("$@")
command -v h5diff >/dev/null || { echo "SKIP: no h5diff"; exit 77; }
work=${KEEP:-$(mktemp -d)}; [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; mkdir -p "$work"
cd "$work" || exit 1
export OMPI_MCA_orte_tmpdir_base="$work/ompi"; mkdir -p "$work/ompi"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# deck NAME METHOD K PRECISION EXTRA_LINES: the example deck with these settings
deck() {
  sed -e "s|data/|$src/inputs/data/|" -e "s|k: 5|k: $3|" -e "s|precision: float32|precision: $4|" \
      -e "s|progress_seconds: 2|progress_seconds: 0|" "$src/inputs/knn_points_h5.yaml" > "$1.yaml"
  printf '  method: %s\n%b' "$2" "$5" >> "$1.yaml"
}

for precision in float32 float64; do
  for k in 1 16 70; do
    name=$precision-k$k
    deck "$name-brute" brute "$k" "$precision" '  batch_size: 1000\n  tile_size: 700\n'
    deck "$name-index" index "$k" "$precision" '  batch_size: 2500\n'
    for method in brute index; do
      "${launcher[@]}" "$trident" run "$name-$method.yaml" --output "$name-$method.h5" > "$name-$method.log" 2>&1 \
        || { bad "$name: the $method run failed"; cat "$name-$method.log"; continue 2; }
      grep -q "knn: method $method (knn.method: $method)" "$name-$method.log" || bad "$name: no method line in the $method log"
    done
    grep -q "knn: spatial index of 3000 references: 188 leaves of up to 16" "$name-index.log" \
      || { bad "$name: no index shape in the log"; grep "knn:" "$name-index.log"; }
    for dataset in /knn/indices /knn/distances /knn/observations; do
      # (h5diff exits 0 for datasets of different shapes, saying they are not comparable; the
      # datasets' own attributes are left out: their dimension scales' object references
      # are not comparable either)
      h5diff --exclude-attribute "$dataset" "$name-brute.h5" "$name-index.h5" "$dataset" "$dataset" > "$name-h5diff.log" 2>&1 \
        && ! grep -q "not comparable" "$name-h5diff.log" \
        || { bad "$name: $dataset differs between brute and index"; head -20 "$name-h5diff.log"; }
    done
  done
done
# knn.max_distance (10 km: rows in the clusters full, rows elsewhere short or empty): the
# same cut rows through both methods
for k in 4 40; do
  name=within-k$k
  deck "$name-brute" brute "$k" float32 '  max_distance: 1e4\n  batch_size: 1000\n  tile_size: 700\n'
  deck "$name-index" index "$k" float32 '  max_distance: 1e4\n'
  for method in brute index; do
    "${launcher[@]}" "$trident" run "$name-$method.yaml" --output "$name-$method.h5" > "$name-$method.log" 2>&1 \
      || { bad "$name: the $method run failed"; cat "$name-$method.log"; continue 2; }
    grep -q "knn: within knn.max_distance 10000: " "$name-$method.log" || bad "$name: no max_distance line in the $method log"
  done
  for dataset in /knn/indices /knn/distances; do
    h5diff --exclude-attribute "$dataset" "$name-brute.h5" "$name-index.h5" "$dataset" "$dataset" > "$name-h5diff.log" 2>&1 \
      && ! grep -q "not comparable" "$name-h5diff.log" \
      || { bad "$name: $dataset differs between brute and index"; head -20 "$name-h5diff.log"; }
  done
done
# k: all within 10 km (ragged rows, up to thousands in the 1 m clusters): the same through both
deck all-brute brute all float32 '  max_distance: 1e4\n  batch_size: 1000\n'
deck all-index index all float32 '  max_distance: 1e4\n'
for method in brute index; do
  "${launcher[@]}" "$trident" run "all-$method.yaml" --output "all-$method.h5" > "all-$method.log" 2>&1 \
    || { bad "k: all: the $method run failed"; cat "all-$method.log"; }
done
for dataset in /knn/offsets /knn/indices /knn/distances; do
  h5diff --exclude-attribute "$dataset" all-brute.h5 all-index.h5 "$dataset" "$dataset" > all-h5diff.log 2>&1 \
    && ! grep -q "not comparable" all-h5diff.log || { bad "k: all: $dataset differs between brute and index"; head -20 all-h5diff.log; }
done
# auto: the log says which method it took and why
deck auto auto 5 float32 ''
"${launcher[@]}" "$trident" run auto.yaml --output auto.h5 > auto.log 2>&1 || { bad "auto run failed"; cat auto.log; }
grep -Eq "knn: method (brute|index) \(knn.method: auto; estimated .* through the index against .* by brute force for 6000 x 3000, k = 5\)" auto.log \
  || { bad "auto: no reasoned method line"; grep "knn:" auto.log; }
[ $fail -eq 0 ] && echo "ok: brute and index agree bit for bit on ${launcher[*]:-1 rank}"
exit $fail
