#!/bin/bash
# The command line as a user meets it, on one rank: unknown options and commands get the
# closest known one; --help names every option and where the manual and example decks are;
# --quiet prints the final line alone, the default the set-up, progress, timer table and
# where it wrote, --verbose the tuning diagnostics too. Without an output named, the output
# is DECKNAME.h5 in the working folder; a completed run removes the checkpoint it wrote or
# resumed from as its own, and keeps one it was given from elsewhere; a stopped run keeps
# its checkpoint for the job templates' requeue. No timing: the stops come from a signal
# made pending before trident starts (pending_signal.py).
# usage: command_line.sh TRIDENT
set -u
trident=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/decks" "$work/run"
cd "$work/run"
python=""
for p in /usr/bin/python3 python3; do "$p" -c 'import signal' 2>/dev/null && { python=$p; break; }; done
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# usage_error MESSAGE ARGS...: exit 2 and exactly one line, the message.
usage_error() {
  local message=$1; shift
  local out; out=$("$trident" "$@" 2>&1); local rc=$?
  [ $rc -eq 2 ] && [ "$out" = "trident: error: $message" ] && ok || { bad "trident $*: exit $rc"; echo "  expected: trident: error: $message"; echo "  got: $out"; }
}
cat > ../decks/knn.yaml <<'DECK'
output: {progress_seconds: 0.000001}
knn:
  k: 4
  observations: {generate: {count: 4096, seed: 1}}
  references: {generate: {count: 512, seed: 2}}
  batch_size: 1024
DECK
usage_error "unknown option '--ouput' for 'run'; did you mean '--output'?; see 'trident --help'" run ../decks/knn.yaml --ouput x.h5
usage_error "unknown option '--rank' for 'validate'; did you mean '--ranks'?; see 'trident --help'" validate ../decks/knn.yaml --rank 4
usage_error "unknown option '--verbse' for 'validate'; did you mean '--verbose'?; see 'trident --help'" validate ../decks/knn.yaml --verbse
usage_error "option '--ranks' is validate's; 'run' takes its ranks from the launcher: mpirun -n N trident run DECK (srun -n N on SLURM); see 'trident --help'" run ../decks/knn.yaml --ranks 4
usage_error "unknown option '--output' for 'info'; see 'trident --help'" info --output x.h5
usage_error "unknown command 'vaildate' (expected run, validate or info); did you mean 'validate'?; see 'trident --help'" vaildate ../decks/knn.yaml
usage_error "option --ranks needs a whole number of ranks, at least 1, got '0'; see 'trident --help'" validate ../decks/knn.yaml --ranks 0
usage_error "option --ranks needs a whole number of ranks, at least 1, got 'two'; see 'trident --help'" validate ../decks/knn.yaml --ranks two
usage_error "options --quiet and --verbose exclude each other; give one; see 'trident --help'" run ../decks/knn.yaml --quiet --verbose
usage_error "unknown option '--versoin' (expected a command: run, validate or info; or --help, --version); did you mean '--version'?; see 'trident --help'" --versoin
usage_error "option --overwrite takes no value, got '--overwrite=yes'; see 'trident --help'" run ../decks/knn.yaml --overwrite=yes
usage_error "option --output needs a value, got an empty string; see 'trident --help'" run ../decks/knn.yaml --output=
usage_error "unknown option '-x' for 'run'; see 'trident --help'" run ../decks/knn.yaml -x
usage_error "option --ranks needs a whole number of ranks, at least 1, got '0'; see 'trident --help'" validate ../decks/knn.yaml -n 0
usage_error "option --ranks needs a whole number of ranks, at least 1, got '0'; see 'trident --help'" validate ../decks/knn.yaml --ranks=0
# a choice value gets a "did you mean" too; a rank layout's error names its deck line
cat > ../decks/typo.yaml <<'DECK'
diffusion: {nx: 16, ny: 12, steps: 2, start: {kind: gausian}}
DECK
usage_error "../decks/typo.yaml:1:53: diffusion.start.kind: expected one of jagged, gaussian or file, got 'gausian'; did you mean 'gaussian'?" validate ../decks/typo.yaml
cat > ../decks/layout.yaml <<'DECK'
diffusion:
  nx: 16
  ny: 12
  steps: 2
  ranks: [2, 2]
DECK
usage_error "../decks/layout.yaml:5:10: diffusion.ranks: 2 x 2 blocks need 4 ranks, but the job has 1" validate ../decks/layout.yaml
# the output's place: the system's reason, before any work
usage_error "/nonexistent/dir/x.h5: cannot write the output file: the folder '/nonexistent/dir': No such file or directory" run ../decks/knn.yaml -q --output /nonexistent/dir/x.h5
if [ "$(id -u)" != 0 ]; then  # root writes through permissions
  mkdir locked && chmod a-w locked
  usage_error "locked/x.h5: cannot write the output file in the folder 'locked': Permission denied" run ../decks/knn.yaml -q -o locked/x.h5
  rmdir locked
fi
out=$("$trident" run ../decks/knn.yaml -q --output /proc/x.h5 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qE "^trident: error: /proc/x.h5: cannot write the output file in the folder '/proc': [A-Z]" <<<"$out" \
  && ok || { bad "/proc/x.h5: exit $rc"; echo "$out"; }
rm -f ../decks/typo.yaml ../decks/layout.yaml
[ -z "$(ls -A)" ] && ok || bad "a refused command left files: $(ls -A)"

help=$("$trident" --help)
for text in "--restart CHECKPOINT   continue the study (diffusion, knn or ridge)" "--quiet" "--verbose" \
            "--ranks N" "inputs/*_small.yaml" "docs/" "DECKNAME.h5 in the working folder"; do
  grep -qF -- "$text" <<<"$help" && ok || bad "--help does not mention '$text'"
done

# --quiet: the final line alone; the output named after the deck, in the working folder
out=$("$trident" run ../decks/knn.yaml --quiet 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "trident: wrote knn.h5" ] && ok || { bad "--quiet: exit $rc"; echo "$out"; }
[ -f knn.h5 ] && [ ! -e ../decks/knn.h5 ] && ok || bad "the default output is not knn.h5 in the working folder"
out=$("$trident" validate ../decks/knn.yaml --quiet 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$out" = "trident: error: knn.h5: the output file already exists; choose another with --output, or pass --overwrite (deck: output.overwrite: true) to replace it" ] \
  && ok || { bad "validate of a deck whose output exists: exit $rc"; echo "$out"; }

# the default: set-up, progress, the timer table with the study's parts under it, where it
# wrote; no tuning diagnostics
"$trident" run ../decks/knn.yaml --overwrite >default.log 2>&1 && ok || { bad "default run failed"; cat default.log; }
head -1 default.log | grep -qE '^trident: running \.\./decks/knn\.yaml on 1 rank\(s\), output knn\.h5; version [0-9.]+ \(commit [^;]+; Kokkos ' \
  && ok || { bad "first line"; head -1 default.log; }
grep -qE '^trident: knn: search, row [0-9]+ of 4096 \([0-9.]+%\), [0-9.]+ rows/s, [0-9]+ s left$' default.log \
  && ok || { bad "no knn progress line"; cat default.log; }
grep -qx '  knn  .*' default.log && grep -qx '    search  .*' default.log && ok || { bad "timer table"; cat default.log; }
[ "$(tail -2 default.log | head -1)" = "trident: wrote knn.h5" ] && ok || { bad "'wrote' is not the line after the table"; cat default.log; }
grep -q "search parts\|knn\.search" default.log && { bad "tuning diagnostics without --verbose"; cat default.log; } || ok
"$trident" run ../decks/knn.yaml --overwrite --verbose >verbose.log 2>&1 && ok || { bad "--verbose run failed"; cat verbose.log; }
grep -q '^trident: knn: rank 0 search parts: ' verbose.log && grep -qx '    knn\.search  .*' verbose.log && ok \
  || { bad "--verbose: no search parts or no full phase names"; cat verbose.log; }

# short options and --opt=value; -V
[ "$("$trident" -V)" = "$("$trident" --version)" ] && "$trident" -V | grep -q '^trident ' && ok || bad "-V is not --version"
out=$("$trident" run ../decks/knn.yaml -q -o short.h5 2>&1) && [ "$out" = "trident: wrote short.h5" ] && ok || { bad "-q -o"; echo "$out"; }
out=$("$trident" run ../decks/knn.yaml --quiet --output=equals.h5 2>&1) && [ "$out" = "trident: wrote equals.h5" ] && ok || { bad "--output=FILE"; echo "$out"; }
"$trident" run ../decks/knn.yaml -v -o verbose2.h5 2>&1 | grep -q '^trident: knn: rank 0 search parts: ' && ok || bad "-v is not --verbose"

# the log file beside the output: the console with UTC times, the resolved deck with its
# defaults marked, the rank line and the timer table; appended to, never replaced
log=knn.log
[ -f $log ] && ok || bad "no log file $log beside knn.h5"
stamp='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z '
grep -Eq "${stamp}trident: running \.\./decks/knn\.yaml on 1 rank" $log && ok || { bad "log: no stamped first line"; cat $log; }
grep -Eq "${stamp}  knn\.k: 4$" $log && grep -Eq "${stamp}  knn\.precision: float32  # default$" $log \
  && grep -Eq "${stamp}  output\.progress_seconds: 1e-06$" $log && ok || { bad "log: resolved deck"; cat $log; }
grep -Eq "${stamp}trident: rank 0 " $log && grep -Eq "${stamp}  knn  " $log && grep -Eq "${stamp}trident: wrote knn\.h5$" $log \
  && ok || { bad "log: rank line, timer table or final line missing"; cat $log; }
[ "$(grep -c 'log of a run started' $log)" -ge 2 ] && ok || bad "log: a second run did not append"
grep -Eq "${stamp}trident: knn: search [0-9.]+ s \(slowest rank\)" short.log && grep -Eq "${stamp}  knn  " short.log \
  && ok || bad "log: -q shortened the file too"
if [ -n "$python" ]; then
  "$python" -c "import h5py,sys; r=h5py.File(sys.argv[1],'r').attrs['resolved_deck']; r=r.decode() if isinstance(r,bytes) else r; assert 'knn.k: 4\n' in r and 'knn.precision: float32  # default' in r and 'output.file: short.h5  # --output' in r, r" short.h5 \
    && ok || bad "the output's provenance has no resolved deck"
fi
# reproducible from the file: the build's commit, compiler and flags, the inputs' checksums
if [ -n "$python" ]; then
  "$python" - short.h5 ../decks/knn.yaml "$trident" "$here/../.." <<'PY' && ok || bad "provenance: commit, compiler or checksums"
import hashlib, h5py, subprocess, sys
out, deck, trident, source = sys.argv[1:5]
a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in h5py.File(out, "r").attrs.items()}
for key in ("commit", "compiler", "cxx_flags", "build_type", "kokkos_backends"):
    assert key in a and a[key] != "", key
assert f"(commit {a['commit']};" in subprocess.run([trident, "-V"], capture_output=True, text=True).stdout
commit = a["commit"].removesuffix("-dirty").split("-")[-1]
commit = commit[1:] if commit.startswith("g") and len(commit) > 7 else commit
if source and subprocess.run(["git", "-C", source, "rev-parse"], capture_output=True).returncode == 0:
    assert subprocess.run(["git", "-C", source, "cat-file", "-e", commit + "^{commit}"]).returncode == 0, a["commit"]
else:
    assert a["commit"] == "unknown", a["commit"]
digest = hashlib.sha256(open(deck, "rb").read()).hexdigest()
assert a["input_sha256"] == f"{digest}  {deck}\n", a["input_sha256"]
PY
fi
printf 'output: {log: false}\nknn: {k: 2, observations: {generate: {count: 64}}, references: {generate: {count: 32}}}\n' > ../decks/nolog.yaml
printf 'output: {log: named.txt}\nknn: {k: 2, observations: {generate: {count: 64}}, references: {generate: {count: 32}}}\n' > ../decks/named.yaml
"$trident" run ../decks/nolog.yaml -q >/dev/null 2>&1 && [ -f nolog.h5 ] && [ ! -e nolog.log ] && ok || bad "output.log: false wrote a log"
"$trident" run ../decks/named.yaml -q >/dev/null 2>&1 && [ -f ../decks/named.txt ] && [ ! -e named.log ] && ok || bad "output.log: FILE (beside the deck) not used"
rm -f short.* equals.* verbose2.* nolog.h5 named.h5 ../decks/named.txt

# checkpoints: the requeue of jobs/long-run.sbatch, by hand
rm -f knn.h5
if [ -n "$python" ]; then
  "$python" "$here/pending_signal.py" USR1 all "$trident" run ../decks/knn.yaml >stop.log 2>&1; rc=$?
  [ $rc -eq 75 ] && [ -f knn.checkpoint.h5 ] && grep -q "^trident: knn: stopped by SIGUSR1 .*; resume with --restart knn.checkpoint.h5$" stop.log && ok \
    || { bad "stopped run: exit $rc, or no checkpoint kept"; cat stop.log; }
  mv knn.h5 knn.part0.h5
  "$trident" run ../decks/knn.yaml --restart knn.checkpoint.h5 >resume.log 2>&1; rc=$?
  [ $rc -eq 0 ] && [ ! -e knn.checkpoint.h5 ] && grep -qx "trident: removed the checkpoint knn.checkpoint.h5: the run completed" resume.log \
    && ok || { bad "resumed run: exit $rc, or its own checkpoint kept"; cat resume.log; ls; }
  # a checkpoint from elsewhere stays; so does one at the run's place that it did not touch
  "$python" "$here/pending_signal.py" TERM all "$trident" run ../decks/knn.yaml --output other.h5 >/dev/null 2>&1
  cp other.checkpoint.h5 stale.checkpoint.h5
  "$trident" run ../decks/knn.yaml --output final.h5 --restart other.checkpoint.h5 >given.log 2>&1 \
    && [ -f other.checkpoint.h5 ] && ! grep -q "removed the checkpoint" given.log && ok || { bad "a given checkpoint was removed"; cat given.log; }
  "$trident" run ../decks/knn.yaml --output stale.h5 >/dev/null 2>&1 && [ -f stale.checkpoint.h5 ] && ok \
    || bad "a checkpoint the run neither wrote nor resumed from was removed"
fi
# a diffusion run that writes checkpoints as it goes removes the last one once it completes
cat > ../decks/heat.yaml <<'DECK'
diffusion: {nx: 16, ny: 12, steps: 6, checkpoint_every: 2, start: {kind: gaussian}}
DECK
"$trident" run ../decks/heat.yaml >heat.log 2>&1; rc=$?
[ $rc -eq 0 ] && [ -f heat.h5 ] && [ ! -e heat.checkpoint.h5 ] && grep -q "checkpoint at step 4 written to heat.checkpoint.h5" heat.log \
  && ok || { bad "diffusion: exit $rc, or its checkpoint kept"; cat heat.log; ls; }

# TRIDENT_DIFFUSION_TRIP_STEPS replaces the rule's steps a trip (one on a host): the log says
# so, and the field keeps its bits
cat > ../decks/trips.yaml <<'DECK'
diffusion: {nx: 40, ny: 30, steps: 24, output_every: 12, start: {kind: gaussian, width: 0.2}}
DECK
"$trident" run ../decks/trips.yaml --output one.h5 >one.log 2>&1 \
  && TRIDENT_DIFFUSION_TRIP_STEPS=4 "$trident" run ../decks/trips.yaml --output four.h5 >four.log 2>&1 \
  && grep -q "1 step per trip through memory" one.log && grep -q "TRIDENT_DIFFUSION_TRIP_STEPS=4" four.log \
  && grep -q ", 4 steps per trip through memory (128-column strips, 4 columns of overlap each side)" four.log \
  && h5dump -d /diffusion/field -b NATIVE -o one.bin one.h5 >/dev/null && h5dump -d /diffusion/field -b NATIVE -o four.bin four.h5 >/dev/null \
  && [ -s one.bin ] && cmp -s one.bin four.bin && ok || { bad "TRIDENT_DIFFUSION_TRIP_STEPS=4: not in the log, or other bits"; cat four.log; }

echo "command line: $pass passed, $fail failed"
[ $fail -eq 0 ]
