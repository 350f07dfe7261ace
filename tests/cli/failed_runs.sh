#!/bin/bash
# Mistakes that show only once a run has started: each ends with exit 2 and one message
# word for word, before any work, and leaves no file at all (no output, no FILE.partial);
# whatever stood at the destination is untouched.
# usage: failed_runs.sh TRIDENT MPIEXEC ARGS...   (MPIEXEC ARGS run the job's ranks)
set -u
trident=$(realpath "$1"); shift
launcher=("$@")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
cat > small.yaml <<'DECK'
diffusion: {nx: 16, ny: 12, steps: 3, start: {kind: gaussian}}
DECK
cat > layout.yaml <<'DECK'
diffusion: {nx: 30, ny: 30, steps: 5, ranks: [3, 5]}
DECK
cat > huge.yaml <<'DECK'
diffusion: {nx: 10000000, ny: 10000000, steps: 1}
DECK
# 4e14 nonzeros: more than any host holds, found before a row is generated
cat > huge_ridge.yaml <<'DECK'
ridge:
  matrix: {generate: {rows: 2000000000, columns: 2000000000, density: 0.0001, seed: 1}}
  lambdas: [1.0]
DECK
ranks=$("${launcher[@]}" bash -c 'echo ${OMPI_COMM_WORLD_SIZE:-1}' | head -1)
mkdir -p a_folder.h5/inside sub p.h5.partial
fail=0; pass=0
# expect_bad NAME EXPECTED_MESSAGE COMMAND...: exit 2, the message, one error line, no
# new file, nothing changed, and no sign of work (no study started).
expect_bad() {
  local name=$1 message=$2; shift 2
  local before; before=$(find . | sort)
  "$@" >"$name.log" 2>&1; local rc=$?
  local problems=""
  [ $rc -eq 2 ] || problems+=" exit $rc, expected 2;"
  grep -qxF -- "trident: error: $message" "$name.log" || problems+=" message differs;"
  [ "$(grep -c 'trident: error' "$name.log")" -eq 1 ] || problems+=" not one error line;"
  grep -q '^trident: writing ' "$name.log" && problems+=" an output file was created;"
  [ "$(find . ! -name "$name.log" | sort)" = "$before" ] || problems+=" files changed: $(diff <(echo "$before") <(find . ! -name "$name.log" | sort) | tr '\n' ' ');"
  if [ -z "$problems" ]; then pass=$((pass + 1)); else
    echo "FAIL $name:$problems"; echo "  expected: trident: error: $message"; sed 's/^/  | /' "$name.log"; fail=$((fail + 1)); fi
  rm -f "$name.log"
}
run=("${launcher[@]}" "$trident" run)
expect_bad layout "layout.yaml:1:46: diffusion.ranks: 3 x 5 blocks need 15 ranks, but the job has $ranks" \
  "${run[@]}" layout.yaml --output rm.h5
expect_bad folder_output "a_folder.h5: the output path is a folder; expected a file name (choose another with --output)" \
  "${run[@]}" small.yaml --output a_folder.h5 --overwrite
expect_bad empty_output "option --output needs a value, got an empty string; see 'trident --help'" \
  "${run[@]}" small.yaml --output ""
expect_bad slash_output "sub/: the output file name ends in '/', which names a folder; expected a file name such as sub/run.h5" \
  "${run[@]}" small.yaml --output sub/
expect_bad partial_is_folder "p.h5.partial: a folder stands where the run writes its output before renaming it; move it away" \
  "${run[@]}" small.yaml --output p.h5
expect_bad no_folder "missing/x.h5: cannot write the output file: the folder 'missing': No such file or directory" \
  "${run[@]}" small.yaml --output missing/x.h5
# the memory check: the free amount varies, so the message is matched up to it
block_y=$((10000000 / ranks))
"${run[@]}" huge.yaml --output h.h5 >huge.log 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q "^trident: error: diffusion.nx, diffusion.ny: the 10000000 x 10000000 grid in float32 (a block of 10000000 x $block_y cells on each rank) needs [0-9.]* GiB of device memory but .* has [0-9.]* GiB free$" huge.log \
   && [ ! -e h.h5 ] && [ ! -e h.h5.partial ]; then pass=$((pass + 1)); else
  echo "FAIL memory check: exit $rc"; cat huge.log; fail=$((fail + 1)); fi
rows=$((2000000000 / ranks))
[ "$ranks" = 1 ] && share="" || share=" (this rank's rows 1 to $rows, $((rows * 200000)) nonzeros)"
"${run[@]}" huge_ridge.yaml --output h.h5 >huge_ridge.log 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q "^trident: error: huge_ridge.yaml:2:11: ridge.matrix: the 2000000000 x 2000000000 matrix with 400000000000000 nonzeros$share (A's rows and b on the host, in float64, and the solutions of [0-9]* λ) needs [0-9.]* GiB of host memory but .* has [0-9.]* GiB free$" huge_ridge.log \
   && [ ! -e h.h5 ] && [ ! -e h.h5.partial ]; then pass=$((pass + 1)); else
  echo "FAIL host memory check: exit $rc"; cat huge_ridge.log; fail=$((fail + 1)); fi
echo "failed runs ($ranks rank(s)): $pass passed, $fail failed"
[ $fail -eq 0 ]
