#!/bin/bash
# diffusion.checkpoint_file: a run stopped by SIGUSR1 after its first periodic checkpoint
# writes its stop checkpoint there (not beside the output); a checkpoint past the deck's
# diffusion.steps is refused (exit 2, exact message, nothing written, the checkpoint kept);
# the restart through that file gives every frame from the stop on bitwise equal to an
# uninterrupted run's, and removes the checkpoint once complete. Then output.compression:
# the level written (0 and 6) read back from the file's filters, with the same bits.
# No timing: the stopped run holds itself (the hold tool of tests/slurm) right after its
# first checkpoint until the signal is pending at it; it runs on 1 rank, the others on the
# launcher's ranks (a restart on another rank count).
# usage: diffusion_checkpoint_file.sh TRIDENT HOLD_TOOL [LAUNCHER ARGS...]   (none: 1 rank)
set -u
hold_tool=$(realpath "$2")
source "$(dirname "$0")/common.sh" "$@"
shift 2
launcher=("$@")
attr() { "$python" -c "import h5py,sys; print(h5py.File(sys.argv[1],'r').attrs[sys.argv[2]])" "$1" "$2"; }

mkdir -p saved
cat > long.yaml <<DECK
output: {progress_seconds: 0}
diffusion: {nx: 64, ny: 48, steps: 300, output_every: 50, checkpoint_every: 100,
            checkpoint_file: saved/state.h5, precision: float64, start: {kind: jagged, seed: 3}}
DECK
"${launcher[@]}" "$trident" run long.yaml --output full.h5 >full.log 2>&1 && ok || { bad "uninterrupted run"; cat full.log; }
[ ! -e saved/state.h5 ] && [ ! -e full.checkpoint.h5 ] && ok || bad "the completed run left a checkpoint: $(ls saved full.*)"

# stopped after the checkpoint at step 100: the signal is seen at the next check, by step 150
hold=$work/hold; mkdir -p "$hold"
( export "$tools_var=$hold_tool" TRIDENT_HOLD_DIR="$hold"; exec "$trident" run long.yaml --output part1.h5 ) >part1.log 2>&1 &
pid=$!
# held, or ended without holding (a failure): the run takes seconds, the guard is ctest's timeout
while ! { [ -n "$(ls "$hold"/held.* 2>/dev/null)" ] && stopped $pid; } && kill -0 $pid 2>/dev/null; do sleep 0.05; done
if stopped $pid; then
  held_pid=$pid
  kill -USR1 $pid
  while ! signal_pending $pid 10; do sleep 0.05; done
  kill -CONT $pid; held_pid=""
else
  bad "never held after its first checkpoint"
fi
wait $pid; rc=$?
[ $rc -eq 75 ] && ok || { bad "stopped run: exit $rc, expected 75"; cat part1.log; }
step=$(attr saved/state.h5 step 2>/dev/null)
[ -n "$step" ] && [ "$step" -gt 100 ] && [ "$step" -le 150 ] && ok \
  || { bad "the checkpoint in diffusion.checkpoint_file is at step '${step}', expected 101 to 150"; ls -R; }
grep -qF "diffusion: stopped by SIGUSR1 at step $step; checkpoint saved/state.h5 written; resume with --restart saved/state.h5" part1.log \
  && ok || { bad "the stop line does not name saved/state.h5"; cat part1.log; }
[ ! -e part1.checkpoint.h5 ] && ok || bad "a checkpoint beside the output although diffusion.checkpoint_file names another"

# a checkpoint past diffusion.steps: refused, nothing written, the checkpoint kept
cp saved/state.h5 state-before.h5
sed 's/steps: 300/steps: 100/' long.yaml > short.yaml
"${launcher[@]}" "$trident" run short.yaml --restart saved/state.h5 --output refused.h5 >steps-refusal.log 2>&1
rc=$?; left=$(ls -d refused* 2>/dev/null)
[ $rc -eq 2 ] && [ -z "$left" ] \
  && grep -qxF "trident: error: saved/state.h5: the checkpoint is at step $step, past diffusion.steps = 100" steps-refusal.log \
  && ok || { bad "a checkpoint past diffusion.steps: exit $rc, left: ${left:-none}"; cat steps-refusal.log; }
cmp -s saved/state.h5 state-before.h5 && ok || bad "the refused restart changed or removed the checkpoint"

# the restart through diffusion.checkpoint_file
"${launcher[@]}" "$trident" run long.yaml --restart saved/state.h5 --output part2.h5 >part2.log 2>&1
rc=$?; [ $rc -eq 0 ] && ok || { bad "restart: exit $rc"; cat part2.log; }
"$python" - full.h5 part1.h5 part2.h5 "$step" <<'PY' && ok || bad "the restarted frames differ from the uninterrupted run's"
import sys, h5py, numpy as np
full, part1, part2 = (h5py.File(p, "r") for p in sys.argv[1:4])
stop = int(sys.argv[4])
steps = full["diffusion/step"][:].tolist()
assert steps == [0, 50, 100, 150, 200, 250, 300], steps
after = [s for s in steps if s > stop]
got = part2["diffusion/step"][:].tolist()
assert got == [stop] + after, f"restart frames at {got}, expected {[stop] + after}"
assert part1["diffusion/step"][-1] == stop, "the stopped output does not end at the stop"
assert part1["diffusion/field"][-1].tobytes() == part2["diffusion/field"][0].tobytes(), "the stop's frame differs"
for i, s in enumerate(got):
    if s in steps:
        a, b = full["diffusion/field"][steps.index(s)], part2["diffusion/field"][i]
        assert a.tobytes() == b.tobytes(), f"step {s}: the fields differ"
for i, s in enumerate(part1["diffusion/step"][:].tolist()):
    if s in steps:
        assert full["diffusion/field"][steps.index(s)].tobytes() == part1["diffusion/field"][i].tobytes(), f"step {s}"
PY
[ ! -e saved/state.h5 ] && grep -qF "removed the checkpoint saved/state.h5: the run completed" part2.log && ok \
  || bad "the completed restart kept the checkpoint it resumed from"

# output.compression: the deflate level in the file's filters, and the same values
for level in 0 6; do
  cat > c$level.yaml <<DECK
output: {progress_seconds: 0, compression: $level}
diffusion: {nx: 64, ny: 48, steps: 20, output_every: 10, laplacian: true, precision: float32,
            start: {kind: jagged, seed: 3}}
DECK
  "${launcher[@]}" "$trident" run c$level.yaml --output c$level.h5 >c$level.log 2>&1 && ok || { bad "compression $level: run"; cat c$level.log; }
done
"$python" - c0.h5 c6.h5 <<'PY' && ok || bad "output.compression is not what the file holds"
import sys, h5py
plain, packed = (h5py.File(p, "r") for p in sys.argv[1:3])
for name in ("diffusion/field", "diffusion/laplacian"):
    p, c = plain[name], packed[name]
    assert p.compression is None and not p.shuffle, f"compression 0: {name} has {p.compression}, shuffle {p.shuffle}"
    assert c.compression == "gzip" and c.compression_opts == 6, f"{name}: {c.compression} level {c.compression_opts}"
    assert c.shuffle, f"{name}: no shuffle filter before deflate"
    assert c.chunks == (1,) + c.shape[1:], f"{name}: chunks {c.chunks}, expected one per frame"
    assert p[:].tobytes() == c[:].tobytes(), f"{name}: the compressed values differ"
    assert c.id.get_storage_size() < p.id.get_storage_size(), f"{name}: compressed is not smaller"
assert plain["diffusion"].attrs["compression"] == 0 and packed["diffusion"].attrs["compression"] == 6
PY

echo "diffusion checkpoint_file and compression: $pass passed, $fail failed"
[ $fail -eq 0 ]
