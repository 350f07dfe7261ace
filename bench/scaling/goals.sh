#!/bin/bash
# The multi-GPU goals against one bench/scaling/bench.sh call: reads the records that
# bench/scaling/runs.sh wrote (the file SCALING_RECORDS, or the "run"/"network" lines at
# the end of a bench/scaling/bench.sh log) and prints
#   - the set-up of every case and rank count: startup + prepare + release (the slowest
#     rank's rows of trident's timing table; release with the shutdown after the table,
#     where NCCL's teardown is joined) and its ratio to the 1-rank run's;
#   - one row per goal, measured against target, PASS or MISS ("not run" when the call had
#     no 1-rank run or no run on the goal's rank count):
#       1. set-up on 4 ranks <= 1.5 s and <= 1.5x one rank's, every case;
#       2. whole runs (whole_*): process start to exit (trident's own figure, rank 0; the
#          launcher's wall time where the log lacks it) on 4 ranks >= 3.3x faster than on 1;
#       3. diffusion strong scaling (the largest strong-scaling grid) >= 3.6x, weak
#          efficiency >= 0.95, knn k = 1 >= 3.75x and k = 16 >= 3.7x (search), ridge
#          tutorial >= 2.0x and large deck >= 3.8x (sweep);
#       4. with SCALING_NETWORK=1: every forced-network output the same bit for bit, and
#          the slowdown per study (work and whole run, network over normal).
# usage: bench/scaling/goals.sh RECORDS   (SCALING_GOAL_RANKS=2 judges 2 ranks instead of 4)
set -euo pipefail
[ $# -eq 1 ] || { sed -n '2,16p' "$0"; exit 2; }
awk -v goal="${SCALING_GOAL_RANKS:-4}" '
function verdict(ok) { return ok ? "PASS" : "MISS" }
function row(name, measured, target, result) { printf "%-52s %12s %10s  %s\n", name, measured, target, result }
function ratio_goal(name, c, target,    ok) {
  if (!((c, 1) in work) || !((c, goal) in work) || work[c, goal] <= 0) { row(name, "-", ">= " target "x", "not run"); return }
  r = work[c, 1] / work[c, goal]
  row(name, sprintf("%.2fx", r), ">= " target "x", verdict(r >= target))
}
$1 == "run" && NF == 10 {
  c = $3; n = $4
  if (!(c in seen)) { seen[c] = 1; order[++cases] = c; study[c] = $2 }
  wall[c, n] = $6 > 0 ? $6 : $5; setup[c, n] = $7 + $8 + $9; work[c, n] = $10
  parts[c, n] = sprintf("%8.3f %8.3f %8.3f", $7, $8, $9)
  if (!(n in rank_seen)) { rank_seen[n] = 1; ranks[++nranks] = n }
}
$1 == "network" && NF == 11 {
  s = $2; net_runs[s]++; if ($5 == "same") net_same[s]++
  if (!(s in net_seen)) { net_seen[s] = 1; net_order[++nstudies] = s }
  w = $6 > 0 ? $7 / $6 : 0; k = $8 > 0 ? $9 / $8 : 0
  if (!(s in wmin) || w < wmin[s]) wmin[s] = w; if (!(s in wmax) || w > wmax[s]) wmax[s] = w
  if (!(s in kmin) || k < kmin[s]) kmin[s] = k; if (!(s in kmax) || k > kmax[s]) kmax[s] = k
  if ($5 != "same") bad[s] = bad[s] " " $3 "@" $4
}
END {
  print "== set-up: startup + prepare + release and shutdown (slowest rank each), against the 1-rank run"
  printf "%-24s %5s %8s %8s %8s %8s %7s\n", "case", "ranks", "startup", "prepare", "release", "sum", "x 1"
  for (i = 1; i <= cases; ++i) for (j = 1; j <= nranks; ++j) {
    c = order[i]; n = ranks[j]
    if (!((c, n) in setup)) continue
    x = ((c, 1) in setup && setup[c, 1] > 0) ? sprintf("%.2fx", setup[c, n] / setup[c, 1]) : "-"
    printf "%-24s %5d %s %8.3f %6s\n", c, n, parts[c, n], setup[c, n], x
  }
  printf "\n== goals on %d ranks, against 1 rank of this call\n", goal
  row("goal", "measured", "target", "result")
  for (i = 1; i <= cases; ++i) {
    c = order[i]
    if (!((c, goal) in setup)) { row("1. set-up, " c, "-", "<= 1.5 s", "not run"); continue }
    row("1. set-up, " c, sprintf("%.3f s", setup[c, goal]), "<= 1.5 s", verdict(setup[c, goal] <= 1.5))
    if ((c, 1) in setup && setup[c, 1] > 0)
      row("1. set-up over 1 rank, " c, sprintf("%.2fx", setup[c, goal] / setup[c, 1]), "<= 1.5x",
          verdict(setup[c, goal] <= 1.5 * setup[c, 1]))
  }
  for (i = 1; i <= cases; ++i) {
    c = order[i]
    if (c !~ /^whole_/) continue
    if (!((c, 1) in wall) || !((c, goal) in wall)) { row("2. whole run, " c, "-", ">= 3.3x", "not run"); continue }
    r = wall[c, 1] / wall[c, goal]
    row("2. whole run, " c, sprintf("%.2fx", r), ">= 3.3x", verdict(r >= 3.3))
  }
  strong = ""; weak = ""
  for (i = 1; i <= cases; ++i) {
    c = order[i]
    if (c ~ /^diffusion_weak_/) weak = c
    else if (c ~ /^diffusion_[0-9]+$/ && (strong == "" || substr(c, 11) + 0 > substr(strong, 11) + 0)) strong = c
  }
  if (strong != "") ratio_goal("3. diffusion strong, " strong " (us/step)", strong, 3.6)
  else row("3. diffusion strong (us/step)", "-", ">= 3.6x", "not run")
  if (weak != "" && (weak, 1) in work && (weak, goal) in work && work[weak, goal] > 0) {
    e = work[weak, 1] / work[weak, goal]
    row("3. diffusion weak efficiency, " weak, sprintf("%.3f", e), ">= 0.95", verdict(e >= 0.95))
  } else row("3. diffusion weak efficiency", "-", ">= 0.95", "not run")
  ratio_goal("3. knn k = 1 (search)", "knn_k1", 3.75)
  ratio_goal("3. knn k = 16 (search)", "knn_k16", 3.7)
  ratio_goal("3. ridge tutorial (sweep)", "ridge_tutorial", 2.0)
  ratio_goal("3. ridge large deck (sweep)", "ridge_large", 3.8)
  if (nstudies == 0) { row("4. forced network (SCALING_NETWORK=1)", "-", "same bits", "not run"); exit }
  for (i = 1; i <= nstudies; ++i) {
    s = net_order[i]
    row("4. forced network, " s ": outputs the same", net_same[s] + 0 "/" net_runs[s], "all", verdict(net_same[s] == net_runs[s]))
    row("4. forced network, " s ": slowdown of the work", sprintf("%.2f-%.2fx", kmin[s], kmax[s]), "reported", "")
    row("4. forced network, " s ": slowdown of the run", sprintf("%.2f-%.2fx", wmin[s], wmax[s]), "reported", "")
    if (s in bad) print "   different:" bad[s]
  }
}' "$1"
