#!/usr/bin/env bash
# The mutation check: applies each mutant of tests/mutants/mutants.tsv, one at a time, to a
# copy of this checkout, rebuilds what it touches, runs the tests named for it and says
# whether they caught it. See docs/developing.md ("Mutation check").
#
#   tests/mutants/run.sh [DIR] [--only ID[,ID...]] [--no-baseline] [--timeout SECONDS] [--jobs N]
#
# DIR (default /tmp/trident-mutants, never inside the checkout) holds the copy (DIR/copy,
# its build in DIR/copy/build, configured once and reused), one log per mutant (DIR/logs)
# and the table (DIR/result.txt). A full run (no --only) also writes
# tests/mutants/last-result.txt in the checkout. Exit status: 0 when every mutant was
# caught, 1 when one survived or was invalid, 2 for bad use or a copy that does not build
# or pass its tests unmutated.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel) || exit 2
list=$here/mutants.tsv
mutate=$here/mutate.py

dir=/tmp/trident-mutants
only=""
baseline=1
timeout_s=900
jobs=2
usage() { sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --only) [[ $# -ge 2 ]] || usage; only=$2; shift 2 ;;
    --no-baseline) baseline=0; shift ;;
    --timeout) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || usage; timeout_s=$2; shift 2 ;;
    --jobs) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage; jobs=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "run.sh: unknown option $1" >&2; usage ;;
    *) dir=$1; shift ;;
  esac
done
say() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { echo "run.sh: $*" >&2; exit 2; }

mkdir -p "$dir" || die "cannot make $dir"
dir=$(cd "$dir" && pwd -P)
repo_real=$(cd "$repo" && pwd -P)
[[ $dir/ == "$repo_real"/* ]] && die "$dir is inside the checkout; give a folder outside it"
exec 9>"$dir/lock"
flock -n 9 || die "another run.sh is using $dir"
copy=$dir/copy
build=$copy/build
logs=$dir/logs
mkdir -p "$copy" "$logs"
rm -f "$logs"/*.log

ids=()
[[ -n $only ]] && IFS=, read -r -a ids <<<"$only"
# (every mutant is checked against the checkout first: the list must stay true as the code changes)
"$mutate" check "$list" "$repo" "${ids[@]}" || die "fix the list: each original text must be found exactly once"

# The copy: the checkout's tracked and untracked (not ignored) files as they are now. Only the
# files whose content differs are written, with a new time, so the build redoes only those.
say "copying $repo to $copy"
files=$(mktemp)
# A mutant's file is put back (with a new time, so that make rebuilds it) however the run ends;
# a signal also stops the step under way (in_background).
saved=$dir/original
mutated=""
restore() {
  if [[ -n $mutated ]]; then
    cat "$saved" >"$copy/$mutated"
    mutated=""
  fi
}
trap 'restore; rm -f "$files"' EXIT
trap '[[ -n $child ]] && kill -TERM "$child" 2>/dev/null; exit 130' INT TERM
child=""
# (what the copy holds: the commit and how many tracked files differed from it at the copy)
commit=$(git -C "$repo" rev-parse HEAD)
dirty=$(git -C "$repo" status --porcelain --untracked-files=no | wc -l)
(cd "$repo" && git ls-files -z --cached --others --exclude-standard) | tr '\0' '\n' | sort >"$files"
while IFS= read -r f; do
  [[ -f $repo/$f ]] || continue
  if ! cmp -s "$repo/$f" "$copy/$f"; then
    mkdir -p "$(dirname "$copy/$f")" && cp "$repo/$f" "$copy/$f" || die "cannot copy $f"
  fi
done <"$files"
(cd "$copy" && find . -path ./build -prune -o -type f -print | sed 's|^\./||' | sort) |
  comm -23 - "$files" | while IFS= read -r stale; do rm -f "$copy/$stale"; done

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Each long step runs in the background and is waited for, so that a signal to run.sh ends it
# at once (its trap stops the step and puts the mutated file back).
in_background() {
  "$@" &
  child=$!
  wait "$child"
  local status=$?
  child=""
  return "$status"
}
build_copy() { in_background nice -n 10 cmake --build "$build" -j"$jobs" >"$1" 2>&1; }
if [[ ! -f $build/CMakeCache.txt ]]; then
  say "configuring the copy (once; the first build takes about 10 minutes on 2 cores)"
  nice -n 10 cmake -S "$copy" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DTRIDENT_MPIEXEC_EXTRA_FLAGS=--oversubscribe >"$logs/configure.log" 2>&1 ||
    die "configuring the copy failed: $logs/configure.log"
fi
say "building the unmutated copy"
build_copy "$logs/build.log" || die "the unmutated copy does not build: $logs/build.log"

mapfile -t chosen < <("$mutate" list "$list" "${ids[@]}")
[[ ${#chosen[@]} -gt 0 ]] || die "no mutants"
run_tests() {  # run_tests REGEX LOG: 0 when every test passed
  in_background nice -n 10 timeout "$((timeout_s + 60))" ctest --test-dir "$build" -R "$1" -j"$jobs" \
    --timeout "$timeout_s" --stop-on-failure --output-on-failure >"$2" 2>&1
}
tests_of() { ctest --test-dir "$build" -N -R "$1" 2>/dev/null | sed -nE 's/^ *Test +#[0-9]+: //p'; }
count_tests() { tests_of "$1" | wc -l; }
failed_tests() { sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+) \(.*/\1/p' "$1" | sort -u | paste -sd, -; }

if [[ $baseline == 1 ]]; then
  # (one alternative per test name: CMake's regular expressions take few groups)
  names=$(printf '%s\n' "${chosen[@]}" | cut -f3 | sort -u | while IFS= read -r r; do tests_of "$r"; done | sort -u)
  union="^($(sed 's/\./\\./g' <<<"$names" | paste -sd'|' -))\$"
  say "baseline: the mutants' $(count_tests "$union") tests on the unmutated copy"
  run_tests "$union" "$logs/baseline.log" ||
    die "tests fail without a mutant ($(failed_tests "$logs/baseline.log")): $logs/baseline.log"
fi


rows=()
caught=0 survived=0 invalid=0
for line in "${chosen[@]}"; do
  IFS=$'\t' read -r id file tests <<<"$line"
  start=$SECONDS
  cp "$copy/$file" "$saved"
  mutated=$file
  "$mutate" apply "$list" "$copy" "$id" 2>"$logs/$id.apply.log"
  if [[ $? -ne 0 ]]; then
    status=invalid; detail="does not apply to the copy: $logs/$id.apply.log"
  elif ! build_copy "$logs/$id.build.log"; then
    status=invalid; detail="does not build: $logs/$id.build.log"
  elif [[ $(count_tests "$tests") == 0 ]]; then
    status=invalid; detail="no test matches $tests"
  elif run_tests "$tests" "$logs/$id.test.log"; then
    status=SURVIVED; detail="$tests passed"
  else
    status=caught; detail="by $(failed_tests "$logs/$id.test.log")"
    grep -q 'Timeout' "$logs/$id.test.log" && detail="$detail (a timeout)"
  fi
  restore
  case $status in caught) caught=$((caught + 1)) ;; SURVIVED) survived=$((survived + 1)) ;; *) invalid=$((invalid + 1)) ;; esac
  row=$(printf '%-34s %-8s %5ds  %s' "$id" "$status" "$((SECONDS - start))" "$detail")
  rows+=("$row")
  say "$row"
done
say "rebuilding the unmutated copy"
build_copy "$logs/build.log" || echo "run.sh: the copy does not build after the run: $logs/build.log" >&2

summary="$caught caught, $survived survived, $invalid invalid (of ${#chosen[@]} mutants)"
{
  echo "# trident mutation check (tests/mutants/run.sh${only:+ --only $only})"
  echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $commit$([[ $dirty -gt 0 ]] && echo " with uncommitted changes in $dirty tracked files")"
  echo "result: $summary"
  echo
  printf '%-34s %-8s %6s  %s\n' "mutant" "result" "time" "tests"
  printf '%s\n' "${rows[@]}" | sed "s|$logs/||g"
} >"$dir/result.txt"
echo
cat "$dir/result.txt"
[[ -z $only ]] && cp "$dir/result.txt" "$here/last-result.txt"
[[ $survived -eq 0 && $invalid -eq 0 ]]
