#!/bin/bash
# ParaView 5.11 shows a diffusion run's fields: pvpython (on its own Xvfb display) opens the
# run's XDMF with each of its three XDMF readers and checks the time steps, the grid (nx * ny
# points in the X-Y plane, the deck's origin and spacing), the point arrays u and laplacian
# and their values at a node against h5py, and renders a picture that is not blank
# (check_paraview.py, with the values from expected.py). Then a run stopped at a checkpoint
# and resumed: its XDMF shows the stopped output's frames and its own as one series, the same
# time steps as the uninterrupted run's; resumed once more with the stopped output gone, the
# XDMF holds the new frames only and the log says so. No timing: the ranks hold themselves
# right after their first checkpoint (tests/slurm/hold_at_checkpoint.cpp) until the stop
# signal is pending. Without pvpython or Xvfb (Debian: paraview python3-paraview xvfb) the
# checks of the XDMF's text (the series' files, frames and times) still run, and a pass ends
# with exit 77 (skipped), saying why.
# usage: paraview_xdmf.sh TRIDENT HOLD_TOOL [LAUNCHER ARGS...]
set -u
pvpython=$(command -v pvpython)
no_paraview=""
[ -n "$pvpython" ] || no_paraview="no pvpython on the PATH (Debian: apt install paraview python3-paraview)"
command -v Xvfb >/dev/null || no_paraview="no Xvfb on the PATH (Debian: apt install xvfb)"
paraview_dir=$(cd "$(dirname "$0")" && pwd)
hold_tool=$(realpath "$2")
source "$paraview_dir/../cli/common.sh" "$1"
shift 2
launcher=("$@")
ranks=1
for ((i = 0; i < ${#launcher[@]}; ++i)); do
  case ${launcher[i]} in -n|-np) ranks=${launcher[i + 1]} ;; esac
done

cat > deck.yaml <<'DECK'
output: {progress_seconds: 0}
diffusion:
  nx: 48
  ny: 36
  steps: 120
  dt: 0.05
  dx: 0.5
  dy: 0.25
  origin: [-3, 2]
  laplacian: true
  precision: float32
  output_every: 20
  checkpoint_every: 40
  start: {kind: jagged, seed: 5}
DECK
# expected.py's JSON and the XDMF through pvpython; the XDMF named by its absolute path
# (Xdmf3 resolves the HDF5 file against the XDMF name's folder, which a bare name lacks)
paraview_check() {  # NAME OUTPUT.h5 [EARLIER.h5]
  local name=$1; shift
  "$python" "$paraview_dir/expected.py" "$name.json" "$@" || { bad "$name: expected.py"; return; }
  # the XDMF's frames (their file, frame and time) are the series h5py reads
  "$python" - "$name.xdmf" "$name.json" <<'PY' && ok || bad "$name.xdmf's frames are not the series of its files"
import json, sys, xml.etree.ElementTree as ET
expected = json.load(open(sys.argv[2]))
got = []
for grid in ET.parse(sys.argv[1]).getroot().iter("Grid"):
    if grid.get("GridType") == "Uniform":
        selection, data = list(grid.find("Attribute").find("DataItem"))
        got.append((data.text.rpartition(":")[0], int(selection.text.split()[0]), float(grid.find("Time").get("Value"))))
want = [(f, i, t) for (f, i), t in zip(expected["series"], expected["times"])]
assert got == want, f"the XDMF has {got}, expected {want}"
print(f"ok: {sys.argv[1]}: {len(got)} frames from {sorted({f for f, _, _ in got})}")
PY
  [ -z "$no_paraview" ] || return 0
  # Xvfb chooses a free display itself (-displayfd: it binds the socket, so two tests that
  # start together cannot take the same one) and writes its number once it accepts
  # connections: the read waits for that, no polling (and ends at once if Xvfb fails).
  # -noreset: an X server resets when its last client leaves, and pvpython's render window
  # connects after its first connection closed; without it pvpython sometimes aborted with
  # "bad X server connection" as it opened that window, on a busy machine.
  local rc display xvfb_out xvfb_pid
  exec {xvfb_out}< <(exec Xvfb -displayfd 1 -nolisten tcp -noreset -screen 0 1024x768x24 2>"$name.xvfb.log")
  xvfb_pid=$!
  if ! read -r display <&"$xvfb_out" || [ -z "$display" ]; then
    exec {xvfb_out}<&-
    bad "$name: Xvfb did not start"; cat "$name.xvfb.log"; return
  fi
  DISPLAY=:$display timeout 600 "$pvpython" "$paraview_dir/check_paraview.py" \
    "$work/$name.xdmf" "$name.json" "$work/$name" >"$name.pv.log" 2>&1
  rc=$?
  kill "$xvfb_pid" 2>/dev/null; wait "$xvfb_pid" 2>/dev/null
  exec {xvfb_out}<&-
  grep -E '^(ok|FAIL|paraview):' "$name.pv.log"
  [ $rc -eq 0 ] && grep -q '^paraview: 0 failed' "$name.pv.log" && ok ||
    { bad "$name: ParaView does not show what h5py reads (exit $rc)"; tail -n 30 "$name.pv.log"; }
}

# --- an uninterrupted run ---
"${launcher[@]}" "$trident" run deck.yaml --output plain.h5 >plain.log 2>&1 && ok || { bad "run"; cat plain.log; }
[ -f plain.xdmf ] && ok || bad "no plain.xdmf beside plain.h5"
"$python" "$here/../diffusion/check_xdmf.py" plain.xdmf --h5 plain.h5 --nx 48 --ny 36 --times 0,1,2,3,4,5,6 \
  --precision 4 --attribute u=/diffusion/field --attribute laplacian=/diffusion/laplacian \
  --origin=-3,2 --spacing 0.5,0.25 && ok || bad "plain.xdmf's structure"
paraview_check plain plain.h5

# --- stopped after its first checkpoint (step 40), then resumed ---
held() {  # HOLD_DIR: the pids that the hold tool has stopped
  local f
  for f in "$1"/held.*; do [ -f "$f" ] && stopped "${f##*.}" && echo "${f##*.}"; done
}
mkdir -p hold
( export "$tools_var=$hold_tool" TRIDENT_HOLD_DIR="$work/hold"
  exec "${launcher[@]}" "$trident" run deck.yaml --output part1.h5 ) >part1.log 2>&1 &
pid=$!
for ((t = 0; t < 3000; ++t)); do  # an event, not a time: every rank held (the limit is generous)
  [ "$(held hold | wc -l)" -ge "$ranks" ] || ! kill -0 $pid 2>/dev/null && break; sleep 0.1
done
held_pids=($(held hold))
if [ ${#held_pids[@]} -eq "$ranks" ]; then
  ok
  kill -USR1 "${held_pids[@]}"
  for p in "${held_pids[@]}"; do
    for ((t = 0; t < 300; ++t)); do signal_pending "$p" 10 && break; sleep 0.1; done
  done
  kill -CONT "${held_pids[@]}"
else
  bad "${#held_pids[@]} of $ranks ranks held at their first checkpoint"; cat part1.log
  [ ${#held_pids[@]} -eq 0 ] || kill -CONT "${held_pids[@]}"
fi
wait $pid; rc=$?
[ $rc -eq 75 ] && ok || { bad "stopped run: exit $rc, expected 75"; cat part1.log; }
cp part1.checkpoint.h5 saved.checkpoint.h5 2>/dev/null  # the completed resume removes it
"${launcher[@]}" "$trident" run deck.yaml --restart part1.checkpoint.h5 --output whole.h5 >whole.log 2>&1 \
  && ok || { bad "resumed run"; cat whole.log; }
grep -q "whole.xdmf shows [1-9][0-9]* frames of the 1 earlier output(s) this run continues" whole.log && ok \
  || { bad "the resumed run's log does not say that its XDMF shows the stopped run's frames"; cat whole.log; }
paraview_check whole whole.h5 part1.h5
"$python" - <<'PY' && ok || bad "the resumed series is not the uninterrupted run's time steps"
import json
plain, whole = (json.load(open(n + ".json")) for n in ("plain", "whole"))
assert whole["times"] == plain["times"], (whole["times"], plain["times"])
print("the resumed series has the uninterrupted run's", len(plain["times"]), "time steps")
PY

# --- resumed again with the stopped output gone: the new frames only, and the log says so ---
mv part1.h5 moved.h5
"${launcher[@]}" "$trident" run deck.yaml --restart saved.checkpoint.h5 --output again.h5 >again.log 2>&1 \
  && ok || { bad "second resumed run"; cat again.log; }
grep -q "again.xdmf does not show the frames of .*part1.h5, which this run continues: it is gone" again.log && ok \
  || { bad "the log does not say that the earlier output is gone"; cat again.log; }
times=$("$python" -c 'import h5py; print(",".join(repr(float(t)) for t in h5py.File("again.h5", "r")["diffusion/time"]))')
"$python" "$here/../diffusion/check_xdmf.py" again.xdmf --h5 again.h5 --nx 48 --ny 36 --times "$times" \
  --precision 4 --attribute u=/diffusion/field --attribute laplacian=/diffusion/laplacian \
  --origin=-3,2 --spacing 0.5,0.25 && ok || bad "again.xdmf does not hold exactly again.h5's frames"

echo "paraview xdmf ($ranks rank(s)): $pass passed, $fail failed"
[ $fail -eq 0 ] || exit 1
[ -z "$no_paraview" ] || { echo "SKIP: ParaView's readers not run: $no_paraview"; exit 77; }
