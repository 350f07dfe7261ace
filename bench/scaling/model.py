#!/usr/bin/env python3
"""Scaling model of every study from 1 to 1024 GPUs with the inter-node term (docs/multi-node.md).

usage: bench/scaling/model.py [--check SCALING_BENCH_LOG]
Prints the predicted work time (the part that divides over GPUs) and speed-up of each
study (diffusion strong 2000^2 and 8192^2, weak 8192^2 a GPU, knn k = 1 and 16, ridge
tutorial and large deck, the whole-run decks) on 1 to 1024 GPUs, 4 a node. With --check,
reads the "run", "network" and "link" records at the end of a bench/scaling/bench.sh log
and prints, per case, the measured speed-up on 2 and 4 ranks and the forced-network slowdown
beside the model's, the latter with the link that run measured (trident_link_probe) in
place of the assumed network; it exits 1 when a figure misses the model by more than 25 %.
Standard library only; the diffusion step comes from bench/scaling/diffusion_model.py.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import diffusion_model as dsm  # noqa: E402

# --- the machine: 4 GPUs a node, NVLink inside, 4 x 200 Gb/s NICs a node between nodes ---
GPUS_PER_NODE = 4
NODE_NET_BPS = 4 * 200e9 / 8                      # 100 GB/s a node, each way
GPU_NET_BPS = NODE_NET_BPS / GPUS_PER_NODE        # 25 GB/s a GPU when all send at once
WIRE_LATENCY = 3e-6                               # a message between nodes (switch + NIC)
NCCL_NET_OVERHEAD = 7e-6                          # NCCL's proxy and the GPUDirect RDMA handshake
INTER = dict(latency=WIRE_LATENCY + NCCL_NET_OVERHEAD, bandwidth=GPU_NET_BPS)
SMALL_SUM_NODE = 5e-6    # a small all-reduce inside a node (peer sums, measured on 4 H100s)
SMALL_SUM_NCCL = 10e-6   # the same through NCCL inside a node
GPUS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def nodes(p):
    return max(1, math.ceil(p / GPUS_PER_NODE))


# --- diffusion: dsm's step with its inter-node link replaced by this machine's ------------------
def diffusion_step(p, nx, ny, forced=False, link=None):
    """Seconds a step; forced: every neighbour reached over the network (SCALING_NETWORK=1),
    `link` (latency, bandwidth) when measured, else the assumed one between nodes."""
    saved = dsm.IB, dsm.NVLINK
    dsm.IB = INTER
    if forced:
        dsm.NVLINK = link or INTER
    try:
        return dsm.step_time(p, nx, ny)
    finally:
        dsm.IB, dsm.NVLINK = saved


def weak_grid(p, side=8192):
    px, py = dsm.layout(p, 1, 1)
    return side * max(px, py), side * min(px, py)


def measured_sum(sums, size):
    """An all-reduce of `size` bytes from those measured ({bytes: seconds}): linear between
    the two nearest sizes, and past the ends along the nearest segment."""
    points = sorted(sums.items())
    if len(points) == 1:
        return points[0][1]
    below = [q for q in points if q[0] <= size]
    i = min(max(len(below) - 1, 0), len(points) - 2)
    (s0, t0), (s1, t1) = points[i], points[i + 1]
    return max(0.0, t0 + (t1 - t0) * (size - s0) / (s1 - s0))


# --- all-reduce of B bytes over P GPUs: inside a node, then a tree over nodes; forced (every
# rank reached over the network, on one host): as the link's own all-reduces measured, else
# NCCL's ring, 2 (P - 1) messages of B / P ---------------------------------------------------
def allreduce(p, size, forced=False, peer=True, link=None):
    if p == 1:
        return 0.0
    if forced:
        if link and link.get("sums"):
            return measured_sum(link["sums"], size)
        net = link or INTER
        return 2 * (p - 1) * (net["latency"] + size / p / net["bandwidth"])
    if p > GPUS_PER_NODE:
        hops = 2 * math.ceil(math.log2(nodes(p)))  # up and down the tree
        inside = SMALL_SUM_NODE if peer else SMALL_SUM_NCCL
        return inside + hops * INTER["latency"] + 2 * size / INTER["bandwidth"]
    return (SMALL_SUM_NODE if peer else SMALL_SUM_NCCL) + 2 * (p - 1) / p * size / 150e9


# --- ridge: T(P) = products / P + replicated part + all-reduce (docs/scaling.md) ------------
# Fitted on four H100s (docs/scaling.md, 2026-11-26): seconds an iteration.
RIDGE = {
    "tutorial": dict(products=83e-6, fixed=49e-6, columns=15000, lambdas=10, iterations=915),
    "large": dict(products=7360e-6, fixed=25e-6, columns=200000, lambdas=10, iterations=28),
    # products_4: the products' seconds an iteration on each of 4 GPUs, measured: the whole
    # deck's divide superlinearly there (a quarter of its square A a GPU: 2.18 s of sweep
    # against 18.1 s on one H100), which products / P cannot say; past 4 GPUs they divide by P
    "whole": dict(products=5180e-6, products_4=600e-6, fixed=25e-6, columns=200000, lambdas=10, iterations=3500),
}


def ridge_iteration(deck, p, forced=False, link=None):
    d = RIDGE[deck]
    products = d["products"] / p if p < 4 or "products_4" not in d else d["products_4"] * 4 / p
    return products + d["fixed"] + allreduce(p, 8 * (d["columns"] + 1 + d["lambdas"]), forced, link=link)


# --- knn: the screen divides by P while a rank holds >= 2^18 observations; c per rank ------
KNN = {1: dict(search=0.0970, fixed=0.0010, observations=2**24),
       16: dict(search=0.1710, fixed=0.0030, observations=2**24),
       "whole": dict(search=20.8, fixed=0.0010, observations=2**26)}
ROUND_ALLREDUCES = 4  # rounds of a search, each ending in one small MPI all-reduce


def knn_search(k, p, forced=False):
    """Its all-reduces are MPI's, which the forced network's NCCL settings leave alone; across
    nodes they cross the assumed network."""
    d = KNN[k]
    share = max(d["observations"] / p, 2**18) / d["observations"]
    return (d["search"] - d["fixed"]) * share + d["fixed"] + ROUND_ALLREDUCES * allreduce(p, 64, forced, peer=False)


# --- whole runs: set-up and writing do not divide over GPUs -------------------------------
SETUP = 1.0  # startup + prepare + release, the one-GPU goal
WRITE = {"diffusion": 2.4e9 / 2e9, "knn": 1.9e9 / 2e9, "ridge": 0.0}  # bytes over 2 GB/s
# kNN's rows go into the file while the search goes on: only what outlasts it shows
WRITTEN_DURING_WORK = {"knn"}


def whole_work(study, p, forced=False, link=None):
    if study == "diffusion":
        return 240000 * diffusion_step(p, 8192, 8192, forced, link)
    if study == "knn":
        return knn_search("whole", p, forced)
    return RIDGE["whole"]["iterations"] * ridge_iteration("whole", p, forced, link)


def work(case, p, forced=False, link=None):
    """The model's work seconds of a bench/scaling/bench.sh case on p GPUs (None: not modelled);
    forced: over the network, `link` when measured."""
    if case.startswith("diffusion_weak_"):
        nx, ny = weak_grid(p, int(case.rsplit("_", 1)[1]))
        return diffusion_step(p, nx, ny, forced, link)
    if case.startswith("diffusion_"):
        side = int(case.split("_")[1])
        return diffusion_step(p, side, side, forced, link)
    if case in ("knn_k1", "knn_k16"):
        return knn_search(int(case[5:]), p, forced)
    if case in ("ridge_tutorial", "ridge_large"):
        deck = case[6:]
        return RIDGE[deck]["iterations"] * ridge_iteration(deck, p, forced, link)
    if case.startswith("whole_"):
        return whole_work(case[6:], p, forced, link)
    return None


def whole_run(study, p):
    work_seconds = whole_work(study, p)
    write = WRITE[study]
    if study in WRITTEN_DURING_WORK:
        write = max(0.0, write - work_seconds)
    return SETUP + write + work_seconds


def predictions():
    cases = ["diffusion_2000", "diffusion_8192", "diffusion_weak_8192", "knn_k1", "knn_k16",
             "ridge_tutorial", "ridge_large"]
    print(f"machine: {GPUS_PER_NODE} GPUs a node, {NODE_NET_BPS * 8 / 1e9:.0f} Gb/s a node "
          f"({GPU_NET_BPS / 1e9:.0f} GB/s a GPU), {INTER['latency'] * 1e6:.0f} us a message between nodes")
    print("\nwork speed-up over one GPU (weak scaling: efficiency)")
    print(f"{'case':<20}" + "".join(f"{p:>7}" for p in GPUS))
    for case in cases:
        one = work(case, 1)
        row = [(one / work(case, p)) if "weak" in case else one / work(case, p) for p in GPUS]
        print(f"{case:<20}" + "".join(f"{r:>7.2f}" for r in row))
    print("\nwhole runs (set-up 1 s and the output's writing do not divide): speed-up over one GPU")
    print(f"{'deck':<20}" + "".join(f"{p:>7}" for p in GPUS))
    for study in ("diffusion", "knn", "ridge"):
        one = whole_run(study, 1)
        print(f"{'whole_' + study:<20}" + "".join(f"{one / whole_run(study, p):>7.2f}" for p in GPUS))
    print("\nforced network on one host (every rank over the NIC): work slowdown on 2 and 4 GPUs")
    for case in cases:
        print(f"{case:<20}" + "".join(f"{work(case, p, True) / work(case, p):>7.2f}" for p in (2, 4)))


def check(path):
    runs, nets, links, sums = {}, {}, {}, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 10 and w[0] == "run":
                runs[(w[2], int(w[3]))] = float(w[9])
            elif len(w) == 11 and w[0] == "network":
                nets[(w[2], int(w[3]))] = (w[4], float(w[7]), float(w[8]))
            elif len(w) == 4 and w[0] == "link":
                links[int(w[1])] = dict(latency=float(w[2]), bandwidth=float(w[3]))
            elif len(w) == 4 and w[0] == "allreduce":
                sums[(int(w[1]), int(w[2]))] = float(w[3])
    if not runs:
        print(f"{path}: no run records (the end of a bench/scaling/bench.sh log)")
        return 2
    worst = 0.0
    print(f"{'case':<22} {'GPUs':>4} {'measured':>9} {'model':>7} {'ratio':>6}  (speed-up; weak: efficiency)")
    for (case, p), seconds in sorted(runs.items()):
        if p == 1 or (case, 1) not in runs or seconds <= 0 or work(case, p) is None:
            continue
        measured = runs[(case, 1)] / seconds
        model = work(case, 1) / work(case, p)
        worst = max(worst, abs(measured / model - 1))
        print(f"{case:<22} {p:>4} {measured:>9.2f} {model:>7.2f} {measured / model:>6.2f}")
    for (p, size), seconds in sums.items():
        if p in links:
            links[p].setdefault("sums", {})[size] = seconds
    if links:
        print("\nthe forced network's link as measured (halos: each way at once; sums: NCCL's all-reduce): " +
              ", ".join(f"{p} ranks {l['latency'] * 1e6:.1f} us + bytes / {l['bandwidth'] / 1e9:.2f} GB/s"
                        for p, l in sorted(links.items())))
    if nets:
        print(f"\n{'case':<22} {'GPUs':>4} {'bits':>9} {'slowdown':>9} {'model':>7} {'ratio':>6}  "
              f"(forced network{', the measured link' if links else ', the assumed network'})")
        for (case, p), (same, normal, forced) in sorted(nets.items()):
            if normal <= 0 or work(case, p) is None:
                continue
            measured, model = forced / normal, work(case, p, True, links.get(p)) / work(case, p)
            worst = max(worst, abs(measured / model - 1))
            print(f"{case:<22} {p:>4} {same:>9} {measured:>9.2f} {model:>7.2f} {measured / model:>6.2f}")
    print(f"\nlargest miss: {worst:.0%} (the check fails over 25 %)")
    return 1 if worst > 0.25 else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    if len(sys.argv) != 1:
        print(__doc__)
        sys.exit(2)
    predictions()
