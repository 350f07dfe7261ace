#!/bin/bash
# Every checkpoint setting that a restart must refuse, for each study: a checkpoint written
# by one deck, restarted with a deck that differs in one key (or with a point or matrix
# file edited since), ends with exit 2, the exact message naming the key, and leaves no
# output, log or checkpoint of the refused run. The checkpoints come from runs stopped by a
# signal pending before trident starts (pending_signal.py), so no timing is involved.
# A step past diffusion.steps is refused in diffusion_checkpoint_file.sh (it needs a
# checkpoint after step 0). A point, matrix or right-hand-side file edited in place (the
# same size, other values) is refused by its SHA-256, which the checkpoint keeps.
# usage: restart_refusals.sh TRIDENT [LAUNCHER ARGS...]   (none: 1 rank)
set -u
source "$(dirname "$0")/common.sh" "$@"
shift
launcher=("$@")
run() {  # LOG [SIGNAL] -- trident args: SIGNAL pending at every rank before it starts
  local log=$1; shift
  local pre=()
  if [ "$1" != -- ]; then pre=("$python" "$here/pending_signal.py" "$1" all); shift; fi
  shift
  "${launcher[@]}" "${pre[@]}" "$trident" "$@" >"$log" 2>&1
}
stop() {  # NAME DECK: a run stopped at its first check, which must leave NAME.checkpoint.h5
  run "$1.log" USR1 -- run "$2" --output "$1.h5"
  local rc=$?
  [ $rc -eq 75 ] && [ -f "$1.checkpoint.h5" ] && ok || { bad "$2: stopped run: exit $rc, expected 75 and a checkpoint"; cat "$1.log"; }
}
# refuse CHECKPOINT DECK MESSAGE: exit 2, exactly MESSAGE, nothing of refused.* left
refuse() {
  local checkpoint=$1 deck=$2 message=$3 log=refuse-$((pass + fail)).log
  run "$log" -- run "$deck" --restart "$checkpoint" --output refused.h5; local rc=$?
  local left; left=$(ls -d refused* 2>/dev/null)
  [ $rc -eq 2 ] && grep -qxF "trident: error: $message" "$log" && [ -z "$left" ] && ok \
    || { bad "$deck: exit $rc, expected 2, no files (left: ${left:-none}) and: $message"; cat "$log"; rm -rf refused*; }
}
variant() {  # BASE NEW SED-EXPRESSION: NEW is BASE edited, and must differ from it
  sed "$3" "$1" > "$2"
  cmp -s "$1" "$2" && bad "$2: the edit '$3' changed nothing in $1"
}
written() {  # the refusal's common form
  echo "$1: the checkpoint was written with $2 = $3, but the deck has $4; restart with the deck that wrote it"
}

# --- diffusion: the grid (and its dx, dy, origin), c, dt and the precision ---
cat > diff.yaml <<DECK
output: {progress_seconds: 0}
diffusion: {nx: 40, ny: 30, steps: 50, c: 0.2, dt: 0.5, output_every: 10, precision: float64,
            start: {kind: jagged, seed: 3}}
DECK
stop diff diff.yaml
variant diff.yaml diff-nx.yaml 's/nx: 40/nx: 41/'
variant diff.yaml diff-ny.yaml 's/ny: 30/ny: 31/'
variant diff.yaml diff-c.yaml 's/c: 0.2,/c: 0.25,/'
variant diff.yaml diff-dt.yaml 's/dt: 0.5/dt: 0.25/'
variant diff.yaml diff-f32.yaml 's/precision: float64/precision: float32/'
variant diff.yaml diff-dx.yaml 's/nx: 40,/nx: 40, dx: 0.5,/'
variant diff.yaml diff-dy.yaml 's/nx: 40,/nx: 40, dy: 2,/'
variant diff.yaml diff-origin.yaml 's/nx: 40,/nx: 40, origin: [0, -1.5],/'
refuse diff.checkpoint.h5 diff-nx.yaml "$(written diff.checkpoint.h5 diffusion.nx 40 41)"
refuse diff.checkpoint.h5 diff-ny.yaml "$(written diff.checkpoint.h5 diffusion.ny 30 31)"
refuse diff.checkpoint.h5 diff-c.yaml "$(written diff.checkpoint.h5 diffusion.c 0.20000000000000001 0.25)"
refuse diff.checkpoint.h5 diff-dt.yaml "$(written diff.checkpoint.h5 diffusion.dt 0.5 0.25)"
refuse diff.checkpoint.h5 diff-f32.yaml "$(written diff.checkpoint.h5 diffusion.precision float64 float32)"
refuse diff.checkpoint.h5 diff-dx.yaml "$(written diff.checkpoint.h5 diffusion.dx 1 0.5)"
refuse diff.checkpoint.h5 diff-dy.yaml "$(written diff.checkpoint.h5 diffusion.dy 1 2)"
refuse diff.checkpoint.h5 diff-origin.yaml "$(written diff.checkpoint.h5 diffusion.origin '[0, 0]' '[0, -1.5]')"
# the same deck resumes it (the refusals above were for their key alone)
run diff-resumed.log -- run diff.yaml --restart diff.checkpoint.h5 --output diff-resumed.h5 && ok \
  || { bad "diffusion: the deck that wrote the checkpoint does not resume it"; cat diff-resumed.log; }

# --- knn: precision, radius, the point sets, and point files edited since ---
cat > knn.yaml <<DECK
output: {progress_seconds: 0}
knn:
  k: 4
  precision: float32
  radius: 1000
  observations: {generate: {count: 2048, seed: 1}}
  references: {generate: {count: 512, seed: 2}}
  batch_size: 128
DECK
stop knn knn.yaml
variant knn.yaml knn-f64.yaml 's/precision: float32/precision: float64/'
variant knn.yaml knn-radius.yaml 's/radius: 1000/radius: 1001/'
variant knn.yaml knn-obs.yaml 's/count: 2048, seed: 1/count: 2048, seed: 5/'
variant knn.yaml knn-obs-count.yaml 's/count: 2048, seed: 1/count: 2047, seed: 1/'
refuse knn.checkpoint.h5 knn-f64.yaml "$(written knn.checkpoint.h5 knn.precision float32 float64)"
refuse knn.checkpoint.h5 knn-radius.yaml "$(written knn.checkpoint.h5 knn.radius 1000 1001)"
refuse knn.checkpoint.h5 knn-obs.yaml \
  "$(written knn.checkpoint.h5 knn.observations "generate(count=2048, seed=1)" "generate(count=2048, seed=5)")"
refuse knn.checkpoint.h5 knn-obs-count.yaml \
  "$(written knn.checkpoint.h5 knn.observations "generate(count=2048, seed=1)" "generate(count=2047, seed=1)")"
# point files: observations from a CSV file, references from an HDF5 file
"$python" - <<'PY'
import h5py, numpy as np
rng = np.random.default_rng(7)
lat = np.degrees(np.arcsin(rng.uniform(-1, 1, 1500))); lon = rng.uniform(-180, 180, 1500)
with open("obs.csv", "w") as f:
    f.write("name,lat,lon,lat2\n")
    f.writelines(f"p{i},{a:.6f},{o:.6f},{-a:.6f}\n" for i, (a, o) in enumerate(zip(lat, lon)))
with h5py.File("refs.h5", "w") as f:
    f["/points/refs"] = np.column_stack([lat[:400] * 0.5, lon[:400] * 0.5 + 1])
PY
cat > knn-files.yaml <<DECK
output: {progress_seconds: 0}
knn:
  k: 3
  observations: {csv: {file: obs.csv, latitude: lat, longitude: lon}}
  references: {hdf5: {file: refs.h5, dataset: /points/refs}}
  batch_size: 128
DECK
stop knn-files knn-files.yaml
cp obs.csv obs-saved.csv; cp refs.h5 refs-saved.h5
# a point added to the CSV file since
echo "extra,10.5,20.5,-10.5" >> obs.csv
refuse knn-files.checkpoint.h5 knn-files.yaml "$(written knn-files.checkpoint.h5 "knn.observations (its point count)" 1500 1501)"
cp obs-saved.csv obs.csv
# the HDF5 references' last row removed since
"$python" -c "
import h5py
with h5py.File('refs.h5', 'a') as f:
    p = f['/points/refs'][:-1]; del f['/points/refs']; f['/points/refs'] = p"
refuse knn-files.checkpoint.h5 knn-files.yaml "$(written knn-files.checkpoint.h5 "knn.references (its point count)" 400 399)"
cp refs-saved.h5 refs.h5
# a point moved in place since (the same size, other contents): the files' checksums tell
changed() {  # CHECKPOINT KEY FILE: the refusal of a file whose contents changed since
  local now; now=$(sha256sum "$3" | cut -d' ' -f1)
  local then; then=$("$python" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); g=f['/knn'] if 'knn' in f else f['/ridge']; a=sys.argv[2]; v=g.attrs[a]; print(v.decode() if isinstance(v,bytes) else v)" "$1" "$4")
  echo "$1: the checkpoint was written with $2 = $then, but the file now has $now: it changed since; restart with the file that wrote it"
}
sed -i '2s/^p0,[-0-9.]*,/p0,1.000000,/' obs.csv
cmp -s obs.csv obs-saved.csv && bad "knn: the CSV edit changed nothing"
refuse knn-files.checkpoint.h5 knn-files.yaml "$(changed knn-files.checkpoint.h5 "knn.observations (its file's sha256)" obs.csv observations_sha256)"
cp obs-saved.csv obs.csv
"$python" -c "
import h5py
with h5py.File('refs.h5', 'a') as f: f['/points/refs'][0, 0] = 1.0"
refuse knn-files.checkpoint.h5 knn-files.yaml "$(changed knn-files.checkpoint.h5 "knn.references (its file's sha256)" refs.h5 references_sha256)"
cp refs-saved.h5 refs.h5
# another column of the same file
variant knn-files.yaml knn-files-col.yaml 's/latitude: lat,/latitude: lat2,/'
refuse knn-files.checkpoint.h5 knn-files-col.yaml "$(written knn-files.checkpoint.h5 knn.observations \
  "csv(obs.csv, latitude=lat, longitude=lon)" "csv(obs.csv, latitude=lat2, longitude=lon)")"
run knn-files-resumed.log -- run knn-files.yaml --restart knn-files.checkpoint.h5 --output knn-files-resumed.h5 && ok \
  || { bad "knn: the deck and files that wrote the checkpoint do not resume it"; cat knn-files-resumed.log; }

# --- ridge: the matrix, rhs, λ, every solver key, precision, keep_solutions, refine_corner ---
cat > ridge.yaml <<DECK
output: {progress_seconds: 0}
ridge:
  matrix: {generate: {rows: 300, columns: 200, density: 0.05, seed: 1}}
  rhs: {generate: {mean: 3.0, std: 1.0, seed: 2}}
  lambdas: [0.5, 2, 8, 32]
  solver: {atol: 1e-6, btol: 1e-6, conlim: 1e8, max_iterations: 0, kernels: fused}
  precision: float32
  keep_solutions: true
  refine_corner: 2
DECK
stop ridge ridge.yaml
c=ridge.checkpoint.h5
variant ridge.yaml ridge-matrix.yaml 's/density: 0.05, seed: 1/density: 0.05, seed: 4/'
refuse $c ridge-matrix.yaml "$(written $c ridge.matrix "generate(rows=300, columns=200, density=0.050000000000000003, seed=1)" \
  "generate(rows=300, columns=200, density=0.050000000000000003, seed=4)")"
variant ridge.yaml ridge-rhs.yaml 's/mean: 3.0/mean: 3.5/'
refuse $c ridge-rhs.yaml "$(written $c ridge.rhs "generate(mean=3, std=1, seed=2)" "generate(mean=3.5, std=1, seed=2)")"
variant ridge.yaml ridge-lambdas.yaml 's/\[0.5, 2, 8, 32\]/[0.5, 2, 8, 32, 128]/'
refuse $c ridge-lambdas.yaml "$(written $c ridge.lambdas "[0.5, 2, 8, 32]" "[0.5, 2, 8, 32, 128]")"
variant ridge.yaml ridge-atol.yaml 's/atol: 1e-6/atol: 1e-7/'
refuse $c ridge-atol.yaml "$(written $c ridge.solver.atol 9.9999999999999995e-07 9.9999999999999995e-08)"
variant ridge.yaml ridge-btol.yaml 's/btol: 1e-6/btol: 1e-5/'
refuse $c ridge-btol.yaml "$(written $c ridge.solver.btol 9.9999999999999995e-07 1.0000000000000001e-05)"
variant ridge.yaml ridge-conlim.yaml 's/conlim: 1e8/conlim: 1e9/'
refuse $c ridge-conlim.yaml "$(written $c ridge.solver.conlim 100000000 1000000000)"
variant ridge.yaml ridge-maxit.yaml 's/max_iterations: 0/max_iterations: 150/'
refuse $c ridge-maxit.yaml "$(written $c ridge.solver.max_iterations 0 150)"
variant ridge.yaml ridge-kernels.yaml 's/kernels: fused/kernels: kokkos-kernels/'
refuse $c ridge-kernels.yaml "$(written $c ridge.solver.kernels fused kokkos-kernels)"
variant ridge.yaml ridge-mixed.yaml 's/precision: float32/precision: mixed/'
refuse $c ridge-mixed.yaml "$(written $c ridge.precision float32 mixed)"
variant ridge.yaml ridge-keep.yaml 's/keep_solutions: true/keep_solutions: false/'
refuse $c ridge-keep.yaml "$(written $c ridge.keep_solutions true false)"
variant ridge.yaml ridge-refine.yaml 's/refine_corner: 2/refine_corner: 3/'
refuse $c ridge-refine.yaml "$(written $c ridge.refine_corner 2 3)"
# a Matrix Market file edited since (its last entry removed): the same name, other nonzeros
cp "$here/../../inputs/data/ridge_matrix.mtx" a.mtx; cp "$here/../../inputs/data/ridge_rhs.h5" b.h5
cat > ridge-files.yaml <<DECK
output: {progress_seconds: 0}
ridge:
  matrix: {matrix_market: a.mtx}
  rhs: {hdf5: {file: b.h5, dataset: /b}}
  lambdas: [0.01, 0.1, 1]
  precision: float64
DECK
stop ridge-files ridge-files.yaml
cp a.mtx a-saved.mtx
read -r m n nnz < <(grep -v '^%' a.mtx | head -n 1)
{ grep '^%' a-saved.mtx; echo "$m $n $((nnz - 1))"; grep -v '^%' a-saved.mtx | sed '1d;$d'; } > a.mtx
refuse ridge-files.checkpoint.h5 ridge-files.yaml "$(written ridge-files.checkpoint.h5 "ridge.matrix (its shape and nonzeros)" \
  "$m x $n, $nnz nonzeros" "$m x $n, $((nnz - 1)) nonzeros")"
cp a-saved.mtx a.mtx
# the right-hand side doubled in place since
cp b.h5 b-saved.h5
"$python" -c "
import h5py
with h5py.File('b.h5', 'a') as f: f['/b'][:] = 2 * f['/b'][:]"
refuse ridge-files.checkpoint.h5 ridge-files.yaml "$(changed ridge-files.checkpoint.h5 "ridge.rhs (its file's sha256)" b.h5 "ridge.rhs (its file's sha256)")"
cp b-saved.h5 b.h5
variant ridge-files.yaml ridge-files-rhs.yaml 's|dataset: /b}|dataset: /b_other}|'
"$python" -c "
import h5py
with h5py.File('b.h5', 'a') as f: f['/b_other'] = f['/b'][:]"
refuse ridge-files.checkpoint.h5 ridge-files-rhs.yaml \
  "$(written ridge-files.checkpoint.h5 ridge.rhs "hdf5(b.h5, /b)" "hdf5(b.h5, /b_other)")"
run ridge-resumed.log -- run ridge.yaml --restart ridge.checkpoint.h5 --output ridge-resumed.h5 && ok \
  || { bad "ridge: the deck that wrote the checkpoint does not resume it"; cat ridge-resumed.log; }

echo "restart refusals: $pass passed, $fail failed"
[ $fail -eq 0 ]
