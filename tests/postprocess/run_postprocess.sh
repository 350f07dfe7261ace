#!/bin/bash
# The post-processing scripts on the outputs of real small runs (inputs/STUDY_small.yaml;
# a study whose deck is not there yet gets a stand-in file from synthetic_output.py):
# each script's --help, each figure's size in pixels and that it is not blank, the frame
# count of the time series, the text summary's content, that every figure and summary is
# honest about the result's state (runs of the start-file, station and survey-point decks,
# runs stopped by SIGUSR1: check_honest.py), and the one-line error for a file without the
# study.
# usage: run_postprocess.sh TRIDENT SOURCE_DIR [LAUNCHER ARGS...]   (exit 77: no h5py/matplotlib)
set -u
trident=$(realpath "$1"); src=$(realpath "$2"); shift 2
launcher=("$@")
py=/usr/bin/python3
here=$(dirname "$(realpath "$0")")
pp=$src/postprocess
$py -c "import h5py, numpy, matplotlib, PIL" 2>/dev/null \
  || { echo "SKIP: $py lacks h5py, numpy, matplotlib or PIL (Debian: python3-h5py python3-matplotlib)"; exit 77; }
work=${KEEP:-$(mktemp -d)}; [ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; mkdir -p "$work"
cd "$work"
fail=0; pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
expect() {  # DESCRIPTION COMMAND...: the command succeeds
  local what=$1; shift
  if "$@" >"$work/last.log" 2>&1; then ok; else bad "$what"; cat "$work/last.log"; fi
}

for study in diffusion knn ridge; do
  deck=$src/inputs/${study}_small.yaml
  if [ -f "$deck" ]; then
    expect "trident run $deck" "${launcher[@]}" "$trident" run "$deck" --output "$work/$study.h5"
  else
    echo "NOTE: $deck not there yet: a synthetic $study output stands in"
    expect "synthetic $study output" $py "$here/synthetic_output.py" "$study" "$work/$study.h5"
  fi
done

for script in diffusion_panels diffusion_frames lcurve knn_map knn_matches summary; do
  $py "$pp/$script.py" --help >help.txt 2>&1 && grep -q "^usage: $script.py" help.txt && ok \
    || { bad "$script.py --help"; cat help.txt; }
done

png() { $py "$here/check_png.py" "$@"; }
frames=$($py -c "import h5py; print(h5py.File('diffusion.h5', 'r')['diffusion/field'].shape[0])")
laplacian=$($py -c "import h5py; print(int('laplacian' in h5py.File('diffusion.h5', 'r')['diffusion']))")

expect "diffusion_panels.py" $py "$pp/diffusion_panels.py" diffusion.h5
expect "three panels" png diffusion.diffusion.png $((laplacian ? 1500 : 1000)) 450
expect "diffusion_panels.py --frame 1 -o" $py "$pp/diffusion_panels.py" diffusion.h5 --frame 1 -o panels1.png
expect "panels at frame 1" png panels1.png $((laplacian ? 1500 : 1000)) 450
$py "$pp/diffusion_panels.py" diffusion.h5 --frame 99 >err.txt 2>&1 && bad "--frame 99 accepted" \
  || { grep -q "out of range, the file has $frames frames" err.txt && ok || { bad "--frame 99 message"; cat err.txt; }; }

# Without the Laplacian: two panels, and a clear message when frames of it are asked for.
printf 'diffusion: {nx: 48, ny: 40, steps: 20, output_every: 10, laplacian: false}\n' >plain.yaml
expect "trident run plain.yaml" "${launcher[@]}" "$trident" run plain.yaml --output "$work/plain.h5"
expect "diffusion_panels.py without Laplacian" $py "$pp/diffusion_panels.py" plain.h5 -o plain.png
expect "two panels" png plain.png 1000 450
$py "$pp/diffusion_frames.py" plain.h5 --laplacian -o plain-frames >err.txt 2>&1 && bad "--laplacian accepted without a Laplacian" \
  || { grep -q "plain.h5: no /diffusion/laplacian (set diffusion.laplacian: true)" err.txt && ok || { bad "--laplacian message"; cat err.txt; }; }

expect "diffusion_frames.py" $py "$pp/diffusion_frames.py" diffusion.h5 -o frames
[ "$(ls frames | wc -l)" -eq "$frames" ] && ok || bad "expected $frames frame PNGs, got $(ls frames | wc -l)"
expect "first frame" png frames/frame_0000.png 480 400
expect "last frame" png "frames/frame_$(printf %04d $((frames - 1))).png" 480 400
expect "diffusion_frames.py --gif" $py "$pp/diffusion_frames.py" diffusion.h5 --gif series.gif
expect "animated GIF" png series.gif 480 400 "$frames"

expect "lcurve.py" $py "$pp/lcurve.py" ridge.h5 -o lcurve.png
expect "L-curve figure" png lcurve.png 700 550
expect "knn_map.py" $py "$pp/knn_map.py" knn.h5 -o knn.png --km
expect "knn map and histogram" png knn.png 1300 500

# Labels and units: the figures written as SVG with their text kept as text (a matplotlibrc
# with svg.fonttype none), so that the colour-bar and axis labels can be read back.
printf 'svg.fonttype: none\n' >"$work/matplotlibrc"
svg() { MATPLOTLIBRC="$work/matplotlibrc" $py "$@"; }
has_text() {  # FILE TEXT: the SVG shows TEXT
  grep -qF "$2" "$1" && ok || { bad "$1 lacks the label '$2'"; }
}
expect "knn_map.py as SVG" svg "$pp/knn_map.py" knn.h5 -o knn.svg
has_text knn.svg "great-circle distance to the nearest reference (km)"
has_text knn.svg "great-circle distance (km)"
expect "knn_map.py --unit m" svg "$pp/knn_map.py" knn.h5 -o knn-m.svg --unit m
has_text knn-m.svg "great-circle distance to the nearest reference (m)"
expect "diffusion_panels.py as SVG" svg "$pp/diffusion_panels.py" diffusion.h5 -o panels.svg
has_text panels.svg "u (unit of the start field)"
[ "$laplacian" -eq 1 ] && has_text panels.svg "L(u) = 4u − Σ neighbours (unit of u)"
expect "diffusion_frames.py --format svg" svg "$pp/diffusion_frames.py" diffusion.h5 --format svg -o svg-frames
has_text svg-frames/frame_0000.svg "u (unit of the start field)"
expect "diffusion_frames.py --laplacian --format svg" svg "$pp/diffusion_frames.py" diffusion.h5 --laplacian --format svg -o svg-laplacian
has_text svg-laplacian/frame_0000.svg "L(u) = 4u − Σ neighbours (unit of u)"

expect "summary.py" $py "$pp/summary.py" diffusion.h5 -o summary.txt
# The timings in run order: the steps as trident runs them, each study's parts under its step.
order=$(grep -oE '^ +(startup|deck|prepare|diffusion.start_field|open_output|diffusion|diffusion.compute|release|close_output) ' summary.txt \
        | tr '\n' ' ' | tr -s ' ')
[ "$order" = " startup deck prepare diffusion.start_field open_output diffusion diffusion.compute release close_output " ] \
  && ok || { bad "summary timings not in run order: $order"; cat summary.txt; }
expect "summary.py knn.h5" $py "$pp/summary.py" knn.h5
grep -q "nearest distance (km)" "$work/last.log" && ok || { bad "knn summary not in km"; cat "$work/last.log"; }
for line in "trident_version" "mpi_ranks" "start_time" "end_time" "kokkos_backend" \
            "timings (seconds, slowest rank" "diffusion: " "/diffusion/field" "deck ("; do
  grep -qF "$line" summary.txt && ok || { bad "summary lacks '$line'"; cat summary.txt; }
done
[ "$(wc -l <summary.txt)" -le 80 ] && ok || bad "summary is $(wc -l <summary.txt) lines, more than a page"
for study in knn ridge; do
  expect "summary.py $study" $py "$pp/summary.py" $study.h5
  grep -q "^$study: " "$work/last.log" && ok || { bad "summary of $study.h5 lacks its study"; cat "$work/last.log"; }
done

# Honest about state (check_honest.py, on the scripts' own choices): a stopped run's
# unfinished kNN rows and ridge λ left out and said so, no corner on a partial L-curve,
# unconverged λ hollow, a signed start field (a cold front) on a diverging scale with the
# start file's units, zero self-distances skipped, wide distances on a log scale, equal
# decades on the L-curve, the timer rows under their parents, wall time to the millisecond.
honest() { $py "$here/check_honest.py" "$@"; }
expect "helpers" honest helpers
run_deck() {  # NAME DECK: inputs/DECK run into NAME.h5
  expect "trident run $2" "${launcher[@]}" "$trident" run "$src/inputs/$2" --output "$work/$1.h5"
}
stopped() {  # NAME DECK: inputs/DECK stopped by SIGUSR1 at its first check (exit 75)
  "${launcher[@]}" $py "$src/tests/cli/pending_signal.py" USR1 all "$trident" run "$src/inputs/$2" \
    --output "$work/$1.h5" >"$work/last.log" 2>&1
  local rc=$?; [ $rc -eq 75 ] && ok || { bad "$2 stopped by SIGUSR1: exit $rc, expected 75"; cat "$work/last.log"; }
}
lacks_text() {  # FILE TEXT: the SVG does not show TEXT
  grep -qF "$2" "$1" && bad "$1 shows '$2'" || ok
}
run_deck start diffusion_start_file.yaml
run_deck stations knn_stations_csv.yaml
run_deck points knn_points_h5.yaml
run_deck matches knn_match_stations.yaml
run_deck deblur ridge_deblur.yaml
stopped knn-stopped knn_small.yaml
stopped ridge-stopped ridge_small.yaml
for check in "summary-timers diffusion.h5" "summary-stopped-knn knn-stopped.h5" "knn-map-stopped knn-stopped.h5" \
             "lcurve ridge.h5" "lcurve-rules deblur.h5" "lcurve-stopped ridge-stopped.h5" "lcurve-partial ridge.h5 ridge-partial.h5" \
             "panels-signed start.h5" "panels-plain diffusion.h5" "knn-self stations.h5" "knn-log points.h5" \
             "knn-matches matches.h5"; do
  expect "check_honest.py $check" honest $check
done
expect "summary.py of a stopped knn run" $py "$pp/summary.py" knn-stopped.h5
grep -q "stopped by SIGUSR1 after .* finished rows only" "$work/last.log" && ok \
  || { bad "summary of a stopped run does not say so"; cat "$work/last.log"; }
expect "knn_map.py of a stopped run" svg "$pp/knn_map.py" knn-stopped.h5 -o knn-stopped.svg
has_text knn-stopped.svg "stopped by SIGUSR1 after"
expect "knn_map.py on stations" svg "$pp/knn_map.py" stations.h5 -o stations.svg
has_text stations.svg "zero distances (self) skipped; --keep-self keeps them"
expect "knn_map.py --keep-self" $py "$pp/knn_map.py" stations.h5 --keep-self -o stations-self.png
expect "knn_map.py on wide distances" svg "$pp/knn_map.py" points.h5 -o points.svg
has_text points.svg "log scale:"
expect "knn_matches.py" $py "$pp/knn_matches.py" matches.h5 -o matches.png
expect "matches map and histogram" png matches.png 1300 500
expect "knn_matches.py --region" svg "$pp/knn_matches.py" matches.h5 --region 48.5 49.2 1.8 2.9 -o matches.svg
has_text matches.svg "match: mutual within 5 km"
expect "lcurve.py on a partial sweep" svg "$pp/lcurve.py" ridge-partial.h5 -o partial.svg
has_text partial.svg "partial: stopped by SIGINT"
has_text partial.svg "not converged (stop reason 3 or 7)"
lacks_text partial.svg "corner λ"
expect "diffusion_panels.py on a start file" svg "$pp/diffusion_panels.py" start.h5 -o start.svg
has_text start.svg "u (K above the ambient temperature)"
has_text start.svg "L(u) = 4u − Σ neighbours (K above the ambient temperature)"
expect "diffusion_frames.py on a start file" svg "$pp/diffusion_frames.py" start.h5 --format svg -o start-frames
has_text start-frames/frame_0000.svg "u (K above the ambient temperature)"

# A file without the study, a missing file, a text file: one line naming the file, exit 2.
refused() {  # MESSAGE SCRIPT ARGS...: the script exits 2 with one line that holds MESSAGE
  local text=$1; shift
  $py "$pp/$1" "${@:2}" >err.txt 2>&1; local rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -qF "$1: error: $text" err.txt \
    && ok || { bad "$* : exit $rc, expected 2 and '$text'"; cat err.txt; }
}
refused "diffusion.h5: no /ridge group (this file has: diffusion)" lcurve.py diffusion.h5
refused "missing.h5: no such file" knn_map.py missing.h5
refused "missing.h5: no such file" diffusion_frames.py diffusion.h5 missing.h5
echo "not hdf5" >text.h5
refused "text.h5: not an HDF5 file" summary.py text.h5
refused "knn.h5: no /diffusion group (this file has: knn)" diffusion_panels.py knn.h5
refused "knn.h5: not a knn.match output (no /knn attribute 'match')" knn_matches.py knn.h5

echo "postprocess: $pass passed, $fail failed"
[ $fail -eq 0 ]
