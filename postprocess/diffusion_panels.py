#!/usr/bin/python3
"""The diffusion start field, final field and Laplacian side by side (the tutorial's
three-panel figure), from a trident output with a /diffusion group."""
import argparse

import numpy as np

import trident_h5


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("output", help="trident HDF5 output (with /diffusion)")
    p.add_argument("-o", "--png", help="figure to write (default: OUTPUT.diffusion.png)")
    p.add_argument("--frame", type=int, default=-1,
                   help="frame shown as the final field (default: the last; 0 is the start)")
    p.add_argument("--cmap", default="viridis", help="matplotlib colour map (default viridis)")
    p.add_argument("--dpi", type=int, default=100, help="resolution of the PNG (default 100)")
    a = p.parse_args()

    f = trident_h5.open_output(a.output, "diffusion")
    d = f["diffusion"]
    frames = d["field"].shape[0]
    if not -frames <= a.frame < frames:
        raise SystemExit(f"{a.output}: --frame {a.frame} out of range, the file has {frames} frames")
    steps = d["step"][:]
    start, final = d["field"][0], d["field"][a.frame]
    laplacian = d["laplacian"][a.frame] if "laplacian" in d else None

    trident_h5.use_agg()
    import matplotlib.pyplot as plt
    label = "final" if a.frame in (-1, frames - 1) else "frame"
    panels = [(start, f"start (step {steps[0]})"), (final, f"{label} (step {steps[a.frame]})")]
    if laplacian is not None:
        panels.append((laplacian, f"Laplacian at step {steps[a.frame]}"))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5), squeeze=False)
    vmax = float(max(np.max(start), np.max(final)))
    for ax, (field, title) in zip(axes[0], panels):
        is_laplacian = field is laplacian
        if is_laplacian:  # signed: centre the colour scale on zero
            m = float(np.max(np.abs(field))) or 1.0
            im = ax.imshow(field, origin="lower", cmap="RdBu_r", vmin=-m, vmax=m)
        else:
            im = ax.imshow(field, origin="lower", cmap=a.cmap, vmin=0.0, vmax=vmax or 1.0)
        ax.set_title(title)
        ax.set_xlabel("x (cell)")
        ax.set_ylabel("y (cell)")
        fig.colorbar(im, ax=ax, shrink=0.8, label=trident_h5.LAPLACIAN_LABEL if is_laplacian else trident_h5.FIELD_LABEL)
    ny, nx = start.shape
    fig.suptitle(f"{a.output}: {nx} x {ny} cells, c = {float(d.attrs.get('c', np.nan)):g}")
    fig.tight_layout()
    png = a.png or trident_h5.default_png(a.output, "diffusion")
    fig.savefig(png, dpi=a.dpi)
    print(png)


if __name__ == "__main__":
    main()
