#!/bin/bash
# A study from outside src/ (tests/study_plugin/tally_study.cpp) added by one table line
# (trident_with_tally.cpp): `validate` and `run` take its section, its checks, its summary
# and its group like the built-in studies', beside them in one deck; plain trident does not
# know the section.
# usage: study_plugin.sh TRIDENT_WITH_TALLY TRIDENT [LAUNCHER ARGS...] (none: 1 rank)
set -u
plain=$(realpath "$2")
# shellcheck source=tests/cli/common.sh
source "$(dirname "$0")/../cli/common.sh" "$1"; shift 2
launcher=("$@")
ranks=1
[ $# -gt 0 ] && ranks=${*: -1}

cat > tally.yaml <<'DECK'
output: {progress_seconds: 0}
tally: {count: 11, offset: 0.5}
DECK
cat > both.yaml <<'DECK'
output: {progress_seconds: 0}
knn:
  k: 2
  observations: {generate: {count: 7, seed: 3}}
  references: {generate: {count: 9, seed: 4}}
tally:
  count: 5
DECK

out=$("$trident" validate tally.yaml --ranks 4 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "trident: tally.yaml: valid for 4 ranks; studies: tally (11 values); output tally.h5" ] \
  && ok || bad "validate: exit $rc, said: $out"
out=$("$trident" validate tally.yaml --ranks 12 2>&1); rc=$?
want="trident: error: tally.yaml:2:16: tally.count: expected at least the number of ranks (12), got 11"
[ $rc -eq 2 ] && [ "$out" = "$want" ] && ok || bad "validate --ranks 12: exit $rc, said: $out"
out=$("$trident" validate both.yaml 2>&1); rc=$?
[ $rc -eq 0 ] && [[ "$out" == *"studies: knn (k = 2, "*"tally (5 values); output both.h5" ]] \
  && ok || bad "validate both: exit $rc, said: $out"

"${launcher[@]}" "$trident" run tally.yaml -o tally.h5 > run.log 2>&1; rc=$?
[ $rc -eq 0 ] && ok || { bad "run: exit $rc"; cat run.log; }
"${launcher[@]}" "$trident" run both.yaml -o both.h5 > both.log 2>&1; rc=$?
[ $rc -eq 0 ] && ok || { bad "run both: exit $rc"; cat both.log; }
grep -q "tally " both.log && grep -q "knn " both.log && ok || bad "the timer table names both studies: $(cat both.log)"
"$python" - "$ranks" <<'PY' && ok || bad "the outputs' /tally"
import sys, h5py, numpy as np
with h5py.File("tally.h5") as f:
    v = f["/tally/values"][...]
    assert np.array_equal(v, 0.5 + np.arange(11.0) ** 2), v
    assert f.attrs["title"] == "trident tally results (tally.yaml)", f.attrs["title"]
    assert f["/tally/values"].attrs["long_name"] == "offset plus the index squared"
    assert f.attrs["status"] == "completed"
with h5py.File("both.h5") as f:
    assert np.array_equal(f["/tally/values"][...], np.arange(5.0) ** 2)
    assert f["/knn/indices"].shape == (7, 2)
    assert f.attrs["title"] == "trident knn and tally results (both.yaml)", f.attrs["title"]
PY

out=$("$plain" validate tally.yaml 2>&1); rc=$?
[ $rc -eq 2 ] && [[ "$out" == *"tally.yaml:2:1: tally: unknown key"* ]] && ok || bad "plain trident: exit $rc, said: $out"
printf 'taly: {count: 3}\n' > typo.yaml
out=$("$trident" validate typo.yaml 2>&1); rc=$?
[ $rc -eq 2 ] && [[ "$out" == *"did you mean 'tally'"* ]] && ok || bad "typo: exit $rc, said: $out"

echo "study_plugin: $pass passed, $fail failed"
[ $fail -eq 0 ]
