#!/bin/bash
# `validate` refuses what `run` refuses before work, in the same words: for each case, one
# message word for word and exit 2 from `validate --ranks N` on one rank, from `validate`
# in the job of N ranks, and from `run` in that job; no file left behind. Then decks that
# pass: `validate` says so, for the ranks asked.
# usage: validate_like_run.sh TRIDENT MPIEXEC ARGS...   (MPIEXEC ARGS run the job's ranks)
set -u
trident=$(realpath "$1"); shift
launcher=("$@")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
ranks=$("${launcher[@]}" bash -c 'echo ${OMPI_COMM_WORLD_SIZE:-1}' | head -1)
fail=0; pass=0

cat > missing_csv.yaml <<'DECK'
knn:
  k: 2
  observations: {generate: {count: 8}}
  references: {csv: {file: stations.csv}}
DECK
cat > missing_mtx.yaml <<'DECK'
ridge:
  matrix: {matrix_market: matrices/a.mtx}
  lambdas: [0.5, 1.0]
DECK
cat > missing_folder.yaml <<'DECK'
output: {file: results/run.h5}
diffusion: {nx: 16, ny: 12, steps: 2, start: {kind: gaussian}}
DECK
cat > layout.yaml <<DECK
diffusion: {nx: 30, ny: 20, steps: 2, ranks: [$((ranks + 1)), 1], start: {kind: gaussian}}
DECK
cat > halo.yaml <<DECK
diffusion: {nx: $((4 * ranks)), ny: 20, steps: 2, ranks: [$ranks, 1], halo_width: 5, start: {kind: gaussian}}
DECK
cat > groups.yaml <<DECK
ridge:
  matrix: {generate: {rows: 40, columns: 30, density: 0.2}}
  lambdas: [0.5, 1.0]
  lambda_groups: $((ranks + 1))
DECK
cat > checkpoint_folder.yaml <<'DECK'
diffusion: {nx: 16, ny: 12, steps: 2, checkpoint_file: saved/run.checkpoint.h5, start: {kind: gaussian}}
DECK

# same_refusal NAME MESSAGE [trident args after the deck]: the three commands agree.
same_refusal() {
  local name=$1 message=$2; shift 2
  local before; before=$(ls -A)
  local problems="" rc
  "$trident" validate "$name.yaml" --ranks "$ranks" "$@" >"$name.v1" 2>&1; rc=$?
  [ $rc -eq 2 ] || problems+=" validate --ranks $ranks: exit $rc;"
  "${launcher[@]}" "$trident" validate "$name.yaml" "$@" >"$name.vn" 2>&1; rc=$?
  [ $rc -eq 2 ] || problems+=" validate on $ranks ranks: exit $rc;"
  "${launcher[@]}" "$trident" run "$name.yaml" "$@" >"$name.run" 2>&1; rc=$?
  [ $rc -eq 2 ] || problems+=" run on $ranks ranks: exit $rc;"
  for log in "$name.v1" "$name.vn" "$name.run"; do
    [ "$(grep -c 'trident: error' "$log")" -eq 1 ] || problems+=" $log: not one error line;"
    grep -qxF -- "trident: error: $message" "$log" || problems+=" $log: message differs;"
  done
  grep -q '^trident: writing ' "$name.run" && problems+=" run created its output;"
  [ "$(ls -A | grep -v "^$name\.\(v1\|vn\|run\)$")" = "$before" ] || problems+=" files left behind;"
  if [ -z "$problems" ]; then pass=$((pass + 1)); else
    echo "FAIL $name:$problems"; echo "  expected: trident: error: $message"
    for log in "$name.v1" "$name.vn" "$name.run"; do sed "s/^/  $log | /" "$log"; done
    fail=$((fail + 1))
  fi
  rm -f "$name.v1" "$name.vn" "$name.run"
}

same_refusal missing_csv "stations.csv: cannot open the CSV file of knn.references"
same_refusal missing_mtx "matrices/a.mtx: cannot open the Matrix Market file (does it exist and is it readable?)"
same_refusal missing_folder "results/run.h5: cannot write the output file: the folder 'results': No such file or directory"
same_refusal missing_csv "elsewhere/out.h5: cannot write the output file: the folder 'elsewhere': No such file or directory" \
  --output elsewhere/out.h5
same_refusal layout "layout.yaml:1:46: diffusion.ranks: $((ranks + 1)) x 1 blocks need $((ranks + 1)) ranks, but the job has $ranks"
halo_at=halo.yaml:1:$(awk '{print index($0, "halo_width: ") + 12}' halo.yaml)  # the value's column
[ "$ranks" -gt 1 ] && same_refusal halo "$halo_at: diffusion.halo_width: expected at most 4, the smallest block's side ($ranks x 1 blocks of the $((4 * ranks)) x 20 grid), got 5; a halo comes from the adjacent block alone"
same_refusal groups "groups.yaml:4:18: ridge.lambda_groups: $((ranks + 1)) groups do not divide the $ranks ranks; give a divisor of $ranks, or 0 to let the run choose"
same_refusal checkpoint_folder "saved/run.checkpoint.h5: cannot write the output file: the folder 'saved': No such file or directory"
touch layout.h5
same_refusal missing_csv "layout.h5: the output file already exists; choose another with --output, or pass --overwrite (deck: output.overwrite: true) to replace it" \
  --output layout.h5
rm -f layout.h5

# accepted: the layout for the ranks asked, the default output named in the line
expect_valid() {  # LINE_START COMMAND...
  local start=$1; shift
  local out; out=$("$@" 2>&1); local rc=$?
  if [ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && [[ $out == "trident: $start"* ]]; then pass=$((pass + 1)); else
    echo "FAIL valid ($*): exit $rc, expected a line starting 'trident: $start'"; echo "$out"; fail=$((fail + 1)); fi
}
expect_valid "layout.yaml: valid for $((ranks + 1)) ranks; studies: diffusion (30 x 20 cells, 2 steps, float32); output layout.h5" \
  "$trident" validate layout.yaml --ranks $((ranks + 1)) --quiet
expect_valid "groups.yaml: valid for $((2 * (ranks + 1))) ranks; studies: ridge" \
  "$trident" validate groups.yaml --ranks $((2 * (ranks + 1)))
mkdir results
expect_valid "missing_folder.yaml: valid for $ranks ranks; " "${launcher[@]}" "$trident" validate missing_folder.yaml
[ -z "$(ls -A results)" ] && pass=$((pass + 1)) || { echo "FAIL: validate wrote into results/"; fail=$((fail + 1)); }

echo "validate like run ($ranks ranks): $pass passed, $fail failed"
[ $fail -eq 0 ]
