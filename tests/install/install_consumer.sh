#!/bin/bash
# trident as a package: `cmake --install` of the build under test into WORK/prefix, then
#  - a consumer project (tests/install/consumer) configured with find_package(trident), built
#    and run against the prefix: its output compared line by line;
#  - bin/trident --version and --help from the prefix (the help names the installed examples
#    and manual), an installed example deck validated where it lies (its data/ files found);
#  - every example deck and data file, README.md and the docs its links name, installed;
#  - the post-processing commands run by name (--help), the package imports from the prefix,
#    and a helper raises OutputError there instead of exiting;
#  - the prefix moved elsewhere: the commands and --help follow it.
# usage: install_consumer.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR C_COMPILER CXX_COMPILER PYTHON_DIR [PYTHON]
#   PYTHON_DIR: the package's folder relative to the prefix; PYTHON: the interpreter the commands
#   were written with (none: the build found no Python with h5py, numpy and matplotlib).
set -u
cmake=$1 build=$2 src=$3 work=$4 cc=$5 cxx=$6 python_dir=$7 python=${8:-}
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
expect() {  # DESCRIPTION COMMAND...: the command succeeds
  local what=$1; shift
  if "$@" >"$work/last.log" 2>&1; then ok; else bad "$what"; cat "$work/last.log"; fi
}
rm -rf "$work"; mkdir -p "$work"
prefix=$work/prefix

expect "cmake --install $build --prefix $prefix" "$cmake" --install "$build" --prefix "$prefix"

# The consumer: configured, built and run against the prefix alone (CMAKE_PREFIX_PATH).
expect "consumer configures with find_package(trident)" "$cmake" -S "$src/tests/install/consumer" \
  -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx"
grep -q "^trident_DIR:PATH=$prefix/" "$work/consumer/CMakeCache.txt" && ok \
  || bad "the consumer found trident elsewhere: $(grep '^trident_DIR' "$work/consumer/CMakeCache.txt")"
expect "consumer builds" "$cmake" --build "$work/consumer"
version=$(sed -n 's/^project(trident VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
# London to Paris on a 6371 km sphere by the haversine formula, an independent oracle.
distance=$(awk 'BEGIN { r = atan2(0, -1) / 180; a1 = 51.5074 * r; o1 = -0.1278 * r; a2 = 48.8566 * r; o2 = 2.3522 * r
  h = sin((a2 - a1) / 2) ^ 2 + cos(a1) * cos(a2) * sin((o2 - o1) / 2) ^ 2
  printf "%.2f", 2 * atan2(sqrt(h), sqrt(1 - h)) * 6371.0 }')
expected="trident $version
deck: diffusion 48 x 40 cells, 20 steps
bad deck: InputError
London-Paris: $distance km"
out=$("$work/consumer/consumer" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "$expected" ] && ok \
  || { bad "consumer: exit $rc, output differs"; diff <(echo "$expected") <(echo "$out"); }

# The executable from the prefix, and where its help points.
out=$("$prefix/bin/trident" --version 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q "^trident $version" <<<"$out" && ok || { bad "trident --version: exit $rc"; echo "$out"; }
help=$("$prefix/bin/trident" --help 2>&1)
for text in "$prefix/share/trident/examples/*_small.yaml" "$prefix/share/doc/trident (start at README.md)" \
            "trident-lcurve"; do
  grep -qF -- "$text" <<<"$help" && ok || bad "installed --help does not name '$text'"
done
expect "trident validate of an installed example that reads data/" \
  "$prefix/bin/trident" validate "$prefix/share/trident/examples/knn_stations_csv.yaml" --output "$work/stations.h5"
for file in "$src"/inputs/*.yaml; do
  [ -f "$prefix/share/trident/examples/${file##*/}" ] || bad "example ${file##*/} not installed"
done
for file in "$src"/inputs/data/*; do
  [ -f "$prefix/share/trident/examples/data/${file##*/}" ] || bad "example file data/${file##*/} not installed"
done
doc=$prefix/share/doc/trident
links=$(grep -oE '\]\((docs/[^)#]+)' "$src/README.md" | sed 's/^](//' | sort -u)
[ -n "$links" ] && ok || bad "README.md names no docs/ page: the check below is blind"
for page in README.md $links; do
  [ -f "$doc/$page" ] || bad "$page not installed in $doc"
done

# The post-processing: commands by name from the prefix's bin/, the package from the prefix.
if [ -z "$python" ]; then
  echo "NOTE: the build found no Python with h5py, numpy and matplotlib: the commands are not run"
else
  # The commands installed are the package's COMMANDS, each running its module's main().
  commands=$(PYTHONPATH="$prefix/$python_dir" "$python" -c \
    'import trident_postprocess as p; print(" ".join(sorted(p.COMMANDS)))' 2>&1)
  installed=$(cd "$prefix/bin" && ls trident-* | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
  [ "$commands" = "$installed" ] && [ -n "$installed" ] && ok \
    || bad "installed commands '$installed', the package's COMMANDS '$commands'"
  for command in $installed; do
    out=$(PATH="$prefix/bin:$PATH" "$command" --help 2>&1); rc=$?
    [ $rc -eq 0 ] && grep -q "^usage: $command " <<<"$out" && ok || { bad "$command --help: exit $rc"; echo "$out"; }
  done
  out=$(cd "$work" && PYTHONPATH="$prefix/$python_dir" "$python" -c '
import trident_postprocess, trident_postprocess.trident_h5 as h
print(trident_postprocess.__file__)
try:
    h.open_output("missing.h5")
except h.OutputError as e:
    print(e)' 2>&1)
  [ "$out" = "$prefix/$python_dir/trident_postprocess/__init__.py
missing.h5: no such file" ] && ok || { bad "import trident_postprocess from the prefix"; echo "$out"; }
  out=$(PATH="$prefix/bin:$PATH" trident-summary "$work/missing.h5" 2>&1); rc=$?
  [ $rc -eq 2 ] && [ "$out" = "trident-summary: error: $work/missing.h5: no such file" ] && ok \
    || { bad "trident-summary of a missing file: exit $rc"; echo "$out"; }
fi

# A prefix moved after the install: the commands and --help follow it.
mv "$prefix" "$work/moved"
grep -qF "$work/moved/share/trident/examples" <<<"$("$work/moved/bin/trident" --help 2>&1)" && ok \
  || bad "--help of a moved prefix does not name its examples"
if [ -n "$python" ]; then
  expect "trident-lcurve --help from a moved prefix" "$work/moved/bin/trident-lcurve" --help
fi

echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]
