#!/usr/bin/python3
"""Draws a ridge study's L-curve: log-log ||b - A x|| against ||x||, each point labelled
with its λ, the corner marked. Usage: ridge_lcurve.py RUN.h5 [PLOT.png]
(Debian's /usr/bin/python3 has h5py and matplotlib.)"""
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) == 3 else path.rsplit(".", 1)[0] + "_lcurve.png"
    with h5py.File(path, "r") as f:
        g = f["ridge"]
        lam = g["lambda"][:]
        res = g["residual_norm"][:]
        sol = g["solution_norm"][:]
        corner = int(g["corner"].attrs["index"])
    fig, ax = plt.subplots(figsize=(7, 5))
    ax.loglog(res, sol, "o-", color="tab:blue")
    for l, r, s in zip(lam, res, sol):
        ax.annotate(f"{l:.3g}", (r, s), textcoords="offset points", xytext=(5, 5), fontsize=8)
    if corner >= 0:
        ax.loglog(res[corner], sol[corner], "*", color="tab:red", markersize=16,
                  label=f"corner: λ = {lam[corner]:.4g}")
        ax.legend()
    ax.set_xlabel("residual norm ‖b − A x‖")
    ax.set_ylabel("solution norm ‖x‖")
    ax.set_title("L-curve")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
