#!/bin/bash
# Output names holding & < > quotes and spaces (in the file name and in its folder): the
# diffusion run exits 0 and writes its XDMF beside the output; an XML parser reads that XDMF
# (tests/diffusion/check_xdmf.py: the frames, their times, the grid, the attributes, the hyperslabs) and
# the file name it gives back is the real output's, which exists beside it.
# usage: xdmf_names.sh TRIDENT CHECK_XDMF_PY [MPIEXEC ARGS...]
set -u
trident=$1; check=$2; shift 2
launcher=("$@")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
cat > deck.yaml <<'DECK'
diffusion:
  nx: 14
  ny: 11
  steps: 6
  output_every: 3
  laplacian: true
  precision: float32
  start: {kind: gaussian}
DECK
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

name=$'a&b<c> "d" \'e\' &amp; f.h5'
folder=$'out & <here> "x" \'y\''
mkdir -p "$folder"
for output in "$name" "$folder/$name"; do
  rm -f log
  "${launcher[@]}" "$trident" run deck.yaml --output "$output" >log 2>&1; rc=$?
  [ $rc -eq 0 ] && ok || { bad "run --output '$output': exit $rc"; cat log; continue; }
  [ -f "$output" ] && ok || bad "no output file '$output'"
  xdmf=${output%.h5}.xdmf
  [ -f "$xdmf" ] && ok || { bad "no XDMF '$xdmf' beside the output"; continue; }
  # steps 0, 3 and 6 at the default time step of 1
  /usr/bin/python3 "$check" "$xdmf" --h5 "$output" --nx 14 --ny 11 --times 0,3,6 --precision 4 \
    --attribute u=/diffusion/field --attribute laplacian=/diffusion/laplacian && ok ||
    bad "the XDMF of '$output' does not parse, or does not lead back to it"
  # the name as the parser returns it, compared here too (not only by the checker)
  back=$(/usr/bin/python3 -c '
import sys, xml.etree.ElementTree as E
items = [d for d in E.parse(sys.argv[1]).iter("DataItem") if d.get("Format") == "HDF" and d.get("ItemType") is None]
print(items[0].text.strip().rpartition(":")[0])' "$xdmf")
  [ "$back" = "$name" ] && ok || bad "the XDMF names '$back', expected '$name'"
done
echo "xdmf names: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -eq 10 ]
