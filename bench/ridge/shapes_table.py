#!/usr/bin/env python3
"""Prints bench/ridge/shapes.sh's tables from trident's logs.

usage: bench/ridge/shapes_table.py BANDWIDTH_BPS LOG2_NONZEROS PRECISION FOLDER SHAPE...
reads FOLDER/SHAPE_LOG2_ENGINE.log for ENGINE fused and kokkos-kernels."""
import re
import sys

ENGINES = ["fused", "kokkos-kernels"]


def parse(path):
    text = open(path).read()
    run = {}
    m = re.search(r"ridge: (\d+) x (\d+) matrix, (\d+) nonzeros", text)
    run["rows"], run["columns"], run["nonzeros"] = (int(g) for g in m.groups())
    m = re.search(r"ridge: sweep ([0-9.e+-]+) s .*largest (\d+), bytes of A and A\^T per iteration (\d+)", text)
    run["sweep"], run["iterations"], run["bytes"] = float(m.group(1)), int(m.group(2)), int(m.group(3))
    m = re.search(r"ridge: products: A: (.*); A\^T: (.*)", text)
    run["layout"] = (m.group(1), m.group(2)) if m else None
    run["timers"] = {name: float(mean) for name, mean in
                     re.findall(r"^ +([a-z_.]+) +([0-9.]+) +[0-9.]+ +\d+$", text, re.M)}
    m = re.search(r"whole run so far ([0-9.]+) s", text)
    run["whole"] = float(m.group(1))
    return run


def short_layout(layout):
    """'A 8 lanes segments of 128 packs; A^T 16 lanes 3 column bands' from the two schedule texts."""
    out = []
    for name, text in zip(("A", "A^T"), layout):
        lanes = re.match(r"(\d+) lanes", text).group(1)
        m = re.search(r"longer than (\d+) packs", text)
        b = re.search(r"columns in (\d+) bands", text)
        out.append(f"{name} {lanes} lanes " + (f"segments of {m.group(1)} packs" if m else
                                               f"{b.group(1)} column bands" if b else "whole rows"))
    return "; ".join(out)


def main():
    bandwidth, size, precision, folder = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    shapes = sys.argv[5:]
    runs = {(s, e): parse(f"{folder}/{s}_{size}_{e}.log") for s in shapes for e in ENGINES}
    print(f"\n2^{size} nonzeros, {precision}, one rank, {bandwidth:.3g} B/s: microseconds per iteration "
          "(sweep / shared iterations); floor = the engine's bytes of A and A^T per iteration / bandwidth")
    head = ("shape", "rows x columns", "nonzeros", "fused us", "floor", "ratio", "kk us", "floor", "ratio",
            "fused/kk", "/uniform", "fused products")
    row = "{:<10} {:>17} {:>10} {:>9} {:>8} {:>6} {:>9} {:>8} {:>6} {:>8} {:>8}  {}"
    print(row.format(*head))
    per_iteration = {k: r["sweep"] / max(r["iterations"], 1) * 1e6 for k, r in runs.items()}
    uniform = per_iteration.get(("uniform", "fused"))
    for s in shapes:
        f, k = runs[(s, "fused")], runs[(s, "kokkos-kernels")]
        fus, kus = per_iteration[(s, "fused")], per_iteration[(s, "kokkos-kernels")]
        ffloor, kfloor = f["bytes"] / bandwidth * 1e6, k["bytes"] / bandwidth * 1e6
        print(row.format(s, f"{f['rows']}x{f['columns']}", f["nonzeros"], f"{fus:.1f}", f"{ffloor:.1f}",
                         f"{fus / ffloor:.2f}", f"{kus:.1f}", f"{kfloor:.1f}", f"{kus / kfloor:.2f}",
                         f"{fus / kus:.2f}", f"{fus / uniform:.2f}" if uniform else "-",
                         short_layout(f["layout"]) if f["layout"] else "-"))
    print(f"\n2^{size}: the timer table in parts (seconds, mean over ranks) against the whole run "
          "(other: deck, open_output, close_output)")
    row = "{:<26} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>8}"
    print(row.format("run", "startup", "read", "setup", "sweep", "corner", "output", "other", "whole", "covered"))
    for s in shapes:
        for e in ENGINES:
            r = runs[(s, e)]
            t = r["timers"]
            parts = [t.get(p, 0.0) for p in ("startup", "ridge.read", "ridge.setup", "ridge.sweep",
                                             "ridge.corner", "ridge.output")]
            other = sum(t.get(p, 0.0) for p in ("deck", "open_output", "close_output"))
            covered = 100 * (sum(parts) + other) / r["whole"] if r["whole"] > 0 else 0
            print(row.format(f"{s} {e}", *(f"{p:.3f}" for p in parts), f"{other:.3f}", f"{r['whole']:.3f}",
                             f"{covered:.1f}%"))


if __name__ == "__main__":
    main()
