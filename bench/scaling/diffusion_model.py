#!/usr/bin/env python3
"""Step-time model of trident's diffusion over GPUs (docs/scaling.md explains it).

usage: bench/scaling/diffusion_model.py [--check]
Prints the model against the measured 1-, 2- and 4-GPU figures, then its predictions of
strong scaling (2000^2, 8192^2) and weak scaling (8192^2 per GPU) up to 1024 GPUs (256
nodes of 4, InfiniBand between nodes). Standard library only. --check exits 1 when the
model misses a measured figure of the old code by more than 15 %.
"""
import math
import sys

# --- fitted on one H200: 16.7 us/step at 2000^2, 231 at 8192^2 -----
BYTES_PER_CELL = 12          # float32: read u, write u_new and L(u)
ONE_GPU = {2000: 16.7, 8192: 231.0}
# t = T0 + cells * 12 / BW through both points
BW = (8192**2 - 2000**2) * BYTES_PER_CELL / ((ONE_GPU[8192] - ONE_GPU[2000]) * 1e-6)
T0 = ONE_GPU[2000] * 1e-6 - 2000**2 * BYTES_PER_CELL / BW  # per kernel: launch, ramp, tail

# --- the trip kernel now (docs/diffusion.md): trips of M steps; a team keeps a strip of KEPT
# columns and a band of rows, and recomputes M rows and M columns on each side of it (the
# overlap). Where the chain rule's tiles have at least 64 rows (the tallest, to 256, with
# twice as many tiles a trip as teams resident at once), the trips between two stops run in
# one launch (a chain); else one launch a trip, with the wave rule's rows. Fitted on one H100
# (docs/benchmarks.md): chains of 1000 trips at commit a240370, 18.10 us a step at 4096^2 and
# 61.47 at 8192^2, through t = TRIP_T0 + CELL x (cells with their overlap); 2000^2 (no
# chain, commit 728e6e0) 6.43 us gives a launch's cost. A chain's start and end cost about
# 0.3 of a trip (chains of 7 trips against 1000 in the same call: 18.93 and 63.91 us).
M = 8
KEPT = 128 - 2 * M
RESIDENT = 132 * 8     # float32 teams resident at once on an H100 (8 a multiprocessor)
CHAIN_DRAIN = 0.3      # trips' worth of time a chain's start and end cost
TRIPS = {2000: 6.43e-6, 4096: 18.10e-6, 8192: 61.47e-6}


def tile_rows(bx, by):
    """The rows of a block's tiles, and whether its trips chain (trip.cpp's rules)."""
    strips = math.ceil(bx / KEPT)
    chain = min(256, by // math.ceil(2 * RESIDENT / strips))
    if chain >= 64:
        return chain, True
    waves = max(1, strips * by // (RESIDENT * 128))
    bands = max(1, waves * RESIDENT // strips)
    return max(16, min(by, math.ceil(by / bands))), False


def computed_cells(bx, by):
    """The cells a step computes on a bx x by box: its own and its tiles' overlap."""
    rows = tile_rows(bx, by)[0]
    return bx * by * (KEPT + 2 * M) / KEPT * (rows + 2 * M) / rows


CELL = (TRIPS[8192] - TRIPS[4096]) / (computed_cells(8192, 8192) - computed_cells(4096, 4096))
TRIP_T0 = TRIPS[4096] - computed_cells(4096, 4096) * CELL
TRIP_LAUNCH = M * (TRIPS[2000] - TRIP_T0 - computed_cells(2000, 2000) * CELL)  # a trip's launch


# --- links (assumed until measured; bench/scaling/bench.sh gives the 2- and 4-GPU truth) --
NVLINK = dict(latency=12e-6, bandwidth=150e9)    # NCCL send/recv between GPUs of a node
IB = dict(latency=20e-6, bandwidth=40e9)         # NCCL over one 400 Gb/s NIC per GPU
OLD_STAGED_LATENCY = 55e-6   # old code: pack, fence, copy out, MPI, copy in, unpack; not hidden
GPUS_PER_NODE = 4
DEFAULT_W = 64  # src/diffusion/detail/halo.hpp's kDefaultHaloWidth


def layout(n, nx, ny):
    """MPI_Dims_create's near-square split, the larger count along the longer axis."""
    a = int(math.isqrt(n))
    while n % a:
        a -= 1
    small, large = a, n // a
    return (large, small) if nx >= ny else (small, large)


def kernel(bx, by, old=False):
    """A step over a bx x by block: the one-pass kernel of the old code, or the trips' now
    (chains as long as the run allows: one GPU alone)."""
    if old:
        return T0 + bx * by * BYTES_PER_CELL / BW
    chained = tile_rows(bx, by)[1]
    return TRIP_T0 + computed_cells(bx, by) * CELL + (0.0 if chained else TRIP_LAUNCH / M)


def step_time(n, nx, ny, w=None, old=False):
    """Seconds per step on the slowest (largest) block; w None: trident's default."""
    px, py = layout(n, nx, ny)
    bx, by = math.ceil(nx / px), math.ceil(ny / py)
    inside = kernel(bx, by, old)
    if n == 1:
        return inside
    # the busiest block: two neighbours along an axis split three ways or more, else one
    across_x, across_y = min(2, px - 1), min(2, py - 1)
    edges = [by] * across_x + [bx] * across_y
    corners = across_x * across_y
    # neighbours off the node when the job spans nodes (ranks fill a node along x first)
    link = IB if n > GPUS_PER_NODE else NVLINK
    if old:  # every step, nothing hidden, one-cell halo
        return inside + OLD_STAGED_LATENCY
    w = min(DEFAULT_W, bx, by) if w is None else w
    halo_bytes = (sum(edges) * w + (corners * w * w if w > 1 else 0)) * 4
    travel = link["latency"] + halo_bytes / link["bandwidth"]
    # per step: the block and on average (w - 1) / 2 rows of neighbours' cells per edge
    chained = tile_rows(bx, by)[1]
    redundant = sum(edges) * (w - 1) / 2 * CELL * computed_cells(bx, by) / (bx * by)
    # per exchange: what the inside did not hide, the edge strips as a launch of their own
    # (tiles of 16 rows), and a chain's start and end (the trips between two exchanges)
    strips = sum(edges) * min(w, M) * CELL * (KEPT + 2 * M) / KEPT * (16 + 2 * M) / 16
    drain = CHAIN_DRAIN * M * inside if chained else 0.0
    exchange = TRIP_LAUNCH + max(0.0, travel - inside) + strips + drain
    return inside + redundant + exchange / w


def best_w(n, nx, ny):
    px, py = layout(n, nx, ny)
    limit = min(math.ceil(nx / px) - 1, math.ceil(ny / py) - 1, 512)
    return min(range(1, max(2, limit + 1)), key=lambda w: step_time(n, nx, ny, w))


def main():
    measured_old = {(2000, 2): 64.6, (2000, 4): 63.5, (8192, 2): 176.0, (8192, 4): 134.5}
    print(f"fit of the old one-pass kernel: bandwidth {BW / 1e12:.2f} TB/s effective, fixed cost {T0 * 1e6:.1f} us per kernel")
    print(f"fit of the trips now: {CELL * 1e12:.3f} ps a computed cell a step (overlap included), fixed cost "
          f"{TRIP_T0 * 1e6:.2f} us a step, {TRIP_LAUNCH * 1e6:.1f} us a launch of one trip")
    for g in sorted(TRIPS):
        rows, chained = tile_rows(g, g)
        print(f"  {g}^2 on one GPU: measured {TRIPS[g] * 1e6:.2f} us a step, model {kernel(g, g) * 1e6:.2f} "
              f"({rows}-row tiles{', chained' if chained else ''})")
    print("\nthe old code (host staging every step, nothing hidden): model against measured")
    print(f"{'grid':>6} {'GPUs':>4} {'model us':>9} {'measured':>9} {'ratio':>6}")
    worst = 0.0
    for n in (1, 2, 4):
        for g in (2000, 8192):
            model = step_time(n, g, g, old=True) * 1e6
            meas = ONE_GPU[g] if n == 1 else measured_old[(g, n)]
            worst = max(worst, abs(model / meas - 1))
            print(f"{g:>6} {n:>4} {model:>9.1f} {meas:>9.1f} {model / meas:>6.2f}")
    print("\nstrong scaling, trident now (default w; best w beside it)")
    print(f"{'grid':>6} {'GPUs':>5} {'us/step':>8} {'speed-up':>8} {'eff':>5} {'w':>3} | {'best w':>6} {'us/step':>8} {'speed-up':>8}")
    for g in (2000, 8192):
        for n in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
            t = step_time(n, g, g)
            px, py = layout(n, g, g)
            w = 1 if n == 1 else min(DEFAULT_W, math.ceil(g / px), math.ceil(g / py))
            bw = best_w(n, g, g) if n > 1 else 1
            tb = step_time(n, g, g, bw)
            one = step_time(1, g, g)
            print(f"{g:>6} {n:>5} {t * 1e6:>8.2f} {one / t:>8.1f} {one / t / n:>5.2f} {w:>3} | "
                  f"{bw:>6} {tb * 1e6:>8.2f} {one / tb:>8.1f}")
    print("\nweak scaling, 8192^2 cells per GPU")
    print(f"{'GPUs':>5} {'grid':>13} {'us/step':>8} {'eff':>5}")
    one = step_time(1, 8192, 8192)
    for n in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
        px, py = layout(n, 1, 1)
        nx, ny = 8192 * max(px, py), 8192 * min(px, py)
        t = step_time(n, nx, ny)
        print(f"{n:>5} {nx:>6}x{ny:<6} {t * 1e6:>8.2f} {one / t:>5.3f}")
    if "--check" in sys.argv and worst > 0.15:
        print(f"model misses a measured figure by {worst:.0%}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
