#!/bin/bash
# Each deck in FOLDER carries the exact message it must produce ("# expect: ...") and,
# optionally, "# stage: run" when the mistake shows only once the run starts (a missing
# file). For each: exit code 2, the message word for word, and no file left behind;
# decks not marked run-only give the same through `trident validate`.
# usage: bad_decks.sh TRIDENT FOLDER [MPIEXEC ARGS...]
set -u
trident=$1; folder=$2; shift 2
launcher=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$folder"/*.yaml "$work"/
for data in "$folder"/*.csv "$folder"/*.mtx "$folder"/*.h5; do [ -e "$data" ] && cp "$data" "$work"/; done
cd "$work"
failures=0; checked=0
check() {  # name, command...
  local name=$1; shift
  local expect; expect=$(sed -n 's/^# expect: //p' "$name.yaml")
  local before; before=$(ls -A)
  local out; out=$("$@" 2>&1); local rc=$?
  checked=$((checked + 1))
  if [ $rc -ne 2 ]; then echo "FAIL $name ($*): exit $rc, expected 2"; echo "$out"; failures=$((failures + 1)); return; fi
  if ! grep -qF -- "trident: error: $expect" <<<"$out"; then
    echo "FAIL $name ($*): message differs"; echo "  expected: trident: error: $expect"; echo "  got: $out"
    failures=$((failures + 1)); return
  fi
  if [ "$(grep -c 'trident: error' <<<"$out")" -ne 1 ]; then echo "FAIL $name: more than one error line"; echo "$out"; failures=$((failures + 1)); fi
  # no file at all: no output, no partial file, no checkpoint, no XDMF
  if [ "$(ls -A)" != "$before" ]; then echo "FAIL $name: files left behind:"; diff <(echo "$before") <(ls -A); failures=$((failures + 1)); fi
}
for deck in *.yaml; do
  name=${deck%.yaml}
  check "$name" "${launcher[@]}" "$trident" run "$deck" --output out.h5
  if ! grep -q '^# stage: run' "$deck"; then check "$name" "${launcher[@]}" "$trident" validate "$deck"; fi
done
echo "bad decks: $((checked - failures)) passed, $failures failed"
[ $failures -eq 0 ]
