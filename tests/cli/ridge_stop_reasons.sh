#!/bin/bash
# LSMR's stop reasons in /ridge/stop_reason, each forced by a small problem and its rules
# (ridge_stop_reasons.py makes them): 4 and 5 (machine precision, atol = btol = 0 on a
# consistent and an inconsistent system), 6 (cond(A) beyond machine precision, conlim = 0),
# 3 (the condition limit), 7 (max_iterations), with both engines; each compared with
# SciPy's lsmr where SciPy is installed. A smaller solver.conlim stops every λ earlier, with
# reason 3. A run stopped by a signal holds only the λ that stopped by their own test (never
# -1, trident's "unfinished"). No timing: the signal is pending before trident starts.
# usage: ridge_stop_reasons.sh TRIDENT [LAUNCHER ARGS...]   (none: 1 rank)
set -u
source "$(dirname "$0")/common.sh" "$@"
shift
launcher=("$@")
helper() { "$python" "$here/ridge_stop_reasons.py" "$@"; }
helper make || { echo "could not make the problems"; exit 1; }

# solve NAME PROBLEM LAMBDAS ATOL BTOL CONLIM MAXIT KERNELS [SIGNAL]: NAME.yaml run into NAME.h5
solve() {
  local name=$1 problem=$2 lambdas=$3 atol=$4 btol=$5 conlim=$6 maxit=$7 kernels=$8 signal=${9:-}
  cat > "$name.yaml" <<DECK
output: {progress_seconds: 0}
ridge:
  matrix: {matrix_market: $problem.mtx}
  rhs: {hdf5: {file: $problem.h5, dataset: /b}}
  lambdas: $lambdas
  solver: {atol: $atol, btol: $btol, conlim: $conlim, max_iterations: $maxit, kernels: $kernels}
  precision: float64
  keep_solutions: true
DECK
  local pre=()
  [ -z "$signal" ] || pre=("$python" "$here/pending_signal.py" "$signal" all)
  "${launcher[@]}" "${pre[@]}" "$trident" run "$name.yaml" --output "$name.h5" >"$name.log" 2>&1
}
# forced NAME PROBLEM LAMBDAS ATOL BTOL CONLIM MAXIT KERNELS REASONS
forced() {
  if solve "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8"; then
    helper check "$1.h5" "$2" "$4" "$5" "$6" "$7" "$9" && ok || bad "$1: stop reasons"
  else
    bad "$1: the run failed"; cat "$1.log"
  fi
}

for k in fused kokkos-kernels; do
  # 4: ||A x - b|| at machine precision; 5: the least-squares solution at machine precision
  forced consistent-$k consistent "[1.0e-30, 1.0e-25]" 0 0 1e8 0 $k 4,4
  forced lsq-$k lsq "[1.0e-30, 0.001, 1]" 0 0 1e8 0 $k 5,5,5
  # 6: cond(A) beyond machine precision (no condition limit); with one, 3 comes first
  forced tiny-$k tiny "[1.0e-30, 1.0e-28]" 0 0 0 0 $k 6,6
  forced tiny-conlim-$k tiny "[1.0e-30, 1.0e-28]" 0 0 1e8 0 $k 3,3
  # 2 with conlim 1e8; 3, earlier, with conlim 5 and 3; 7 at max_iterations
  forced graded-$k graded "[0.1, 0.3]" 1e-7 1e-7 1e8 300 $k 2,2
  forced graded-conlim5-$k graded "[0.1, 0.3]" 1e-7 1e-7 5 300 $k 3,3
  forced graded-conlim3-$k graded "[0.1, 0.3]" 1e-7 1e-7 3 300 $k 3,3
  forced graded-maxit-$k graded "[0.1, 0.3]" 1e-7 1e-7 1e8 4 $k 7,7
  # the warning names each unconverged λ with the key that lets it converge
  grep -qF "trident: warning: ridge: 2 of 2 λ did not converge, and no rule chooses them: λ = 0.1, 0.3 stopped at the iteration limit (stop reason 7): raise ridge.solver.max_iterations (now 4)" graded-maxit-$k.log \
    && ok || { bad "graded-maxit-$k: no warning naming the λ at the iteration limit"; cat graded-maxit-$k.log; }
  grep -qF "λ = 0.1, 0.3 stopped at the condition limit (stop reason 3): relax ridge.solver.conlim (now 5; a larger limit, or 0 for none)" graded-conlim5-$k.log \
    && ok || { bad "graded-conlim5-$k: no warning naming the λ at the condition limit"; cat graded-conlim5-$k.log; }
  ! grep -q "did not converge" graded-$k.log && ok || bad "graded-$k: a convergence warning for converged λ"
  # solver.conlim's effect: the smaller the limit, the fewer iterations for every λ
  helper fewer graded-$k.h5 graded-conlim5-$k.h5 && ok || bad "$k: conlim 5 does not stop earlier than 1e8"
  helper fewer graded-conlim5-$k.h5 graded-conlim3-$k.h5 && ok || bad "$k: conlim 3 does not stop earlier than 5"
done

# -1 (unfinished), and a stopped run's curve recorded as partial, with no λ chosen: λ = 100 stops by its own test within the fused engine's first block of
# 8 iterations, λ = 0.1 needs about 50; the signal pending at the start stops the sweep
# after that block
solve unfinished-full graded "[0.1, 100]" 1e-7 1e-7 1e8 300 fused && ok || { bad "unfinished: full run"; cat unfinished-full.log; }
solve unfinished graded "[0.1, 100]" 1e-7 1e-7 1e8 300 fused USR1
rc=$?
[ $rc -eq 75 ] && grep -q "ridge: stopped by SIGUSR1 with 1 λ finished" unfinished.log && ok \
  || { bad "unfinished: exit $rc, expected 75 with 1 λ finished"; cat unfinished.log; }
helper unfinished unfinished.h5 unfinished.checkpoint.h5 unfinished-full.h5 && ok || bad "unfinished: the stopped output"

echo "ridge stop reasons: $pass passed, $fail failed"
[ $fail -eq 0 ]
