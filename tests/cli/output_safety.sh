#!/bin/bash
# Output files: an existing file is never replaced without --overwrite (exit 2, file
# untouched); a successful run leaves FILE and FILE.xdmf, no FILE.partial; --overwrite
# replaces; the deck's relative output path is resolved against the deck's folder.
# usage: output_safety.sh TRIDENT MPIEXEC ARGS...   (MPIEXEC ARGS run 2 ranks)
set -u
trident=$1; shift
launcher=("$@")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/decks" "$work/run"
cat > "$work/decks/tiny.yaml" <<'DECK'
output: {file: results/tiny.h5}
diffusion: {nx: 12, ny: 10, steps: 5, start: {kind: gaussian}}
DECK
mkdir -p "$work/decks/results"
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
cd "$work/run"
"${launcher[@]}" "$trident" run ../decks/tiny.yaml >log1 2>&1 && ok || { bad "first run"; cat log1; }
[ -f ../decks/results/tiny.h5 ] && ok || bad "output not beside the deck (output.file is relative to the deck)"
[ -f ../decks/results/tiny.xdmf ] && ok || bad "no XDMF beside the output"
[ ! -e ../decks/results/tiny.h5.partial ] && ok || bad "partial file left"
before=$(md5sum < ../decks/results/tiny.h5)
"${launcher[@]}" "$trident" run ../decks/tiny.yaml >log2 2>&1; rc=$?
[ $rc -eq 2 ] && ok || bad "existing output: exit $rc, expected 2"
grep -qF "trident: error: ../decks/results/tiny.h5: the output file already exists; choose another with --output, or pass --overwrite (deck: output.overwrite: true) to replace it" log2 && ok || { bad "existing output message"; cat log2; }
[ "$(md5sum < ../decks/results/tiny.h5)" = "$before" ] && ok || bad "existing output was modified"
"${launcher[@]}" "$trident" run ../decks/tiny.yaml --overwrite >log3 2>&1 && ok || bad "--overwrite run failed"
"${launcher[@]}" "$trident" run ../decks/tiny.yaml --output elsewhere.h5 >log4 2>&1 && ok || bad "--output run failed"
[ -f elsewhere.h5 ] && [ -f elsewhere.xdmf ] && ok || bad "--output did not write elsewhere.h5 in the working folder"
"${launcher[@]}" "$trident" run ../decks/tiny.yaml --output missing/folder/x.h5 >log5 2>&1; rc=$?
[ $rc -eq 2 ] && grep -qF "trident: error: missing/folder/x.h5: cannot write the output file: the folder 'missing/folder': No such file or directory" log5 && ok || { bad "missing folder: exit $rc"; cat log5; }
"$trident" frobnicate >log6 2>&1; rc=$?
[ $rc -eq 2 ] && grep -qF "trident: error: unknown command 'frobnicate' (expected run, validate or info); see 'trident --help'" log6 && ok || { bad "unknown command: exit $rc"; cat log6; }
"$trident" run ../decks/tiny.yaml --frob >log7 2>&1; rc=$?
[ $rc -eq 2 ] && grep -qF "trident: error: unknown option '--frob' for 'run'; see 'trident --help'" log7 && ok || { bad "unknown option: exit $rc"; cat log7; }
echo "output safety: $pass passed, $fail failed"
[ $fail -eq 0 ]
