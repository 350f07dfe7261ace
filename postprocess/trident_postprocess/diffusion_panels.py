"""The diffusion start field, final field and Laplacian side by side (the tutorial's
three-panel figure), from a trident output with a /diffusion group. A signed field (a
cold front below 0) gets a diverging colour map centred on 0; the colour bars carry the
field's unit where the output has it (a start file's `units`)."""
import argparse

import numpy as np

from trident_postprocess import trident_h5


def draw(f, path, frame=-1, cmap="viridis"):
    """The figure of the output `f` (named `path` in messages and the title): (figure,
    the panels' images, their titles)."""
    d = f["diffusion"]
    frames = d["field"].shape[0]
    if not -frames <= frame < frames:
        raise trident_h5.OutputError(f"{path}: --frame {frame} out of range, the file has {frames} frames")
    steps = d["step"][:]
    start, final = d["field"][0], d["field"][frame]
    laplacian = d["laplacian"][frame] if "laplacian" in d else None

    import matplotlib.pyplot as plt
    label = "final" if frame in (-1, frames - 1) else "frame"
    panels = [(start, f"start (step {steps[0]})"), (final, f"{label} (step {steps[frame]})")]
    if laplacian is not None:
        name = "A(u)" if trident_h5.applied_operator(d) else "Laplacian"
        panels.append((laplacian, f"{name} at step {steps[frame]}"))
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5), squeeze=False)
    # u's panels share one scale (so the decay shows); L(u) has its own, signed.
    u_cmap, u_lo, u_hi = trident_h5.colour_scale([start, final], cmap)
    images = []
    for ax, (field, title) in zip(axes[0], panels):
        is_laplacian = field is laplacian
        c, lo, hi = trident_h5.colour_scale([field], cmap) if is_laplacian else (u_cmap, u_lo, u_hi)
        im = ax.imshow(field, origin="lower", cmap=c, vmin=lo, vmax=hi)
        images.append(im)
        ax.set_title(title)
        ax.set_xlabel("x (cell)")
        ax.set_ylabel("y (cell)")
        label = trident_h5.laplacian_label(d) if is_laplacian else trident_h5.field_label(d)
        fig.colorbar(im, ax=ax, shrink=0.8).set_label(label, fontsize=8 if len(label) > 45 else None)
    ny, nx = start.shape
    if "c_field" in d.attrs:  # "file F dataset D"
        words = trident_h5.text(d.attrs["c_field"]).split(" ")
        title = f"{path}: {nx} x {ny} cells, c from {words[1].rsplit('/', 1)[-1]}:{words[-1]}"
    elif "c_x" in d.attrs:
        title = (f"{path}: {nx} x {ny} cells, D = {float(d.attrs['D']):g} {trident_h5.text(d.attrs['D_units'])}, "
                 f"c_x = {float(d.attrs['c_x']):g}, c_y = {float(d.attrs['c_y']):g}")
    else:
        title = f"{path}: {nx} x {ny} cells, c = {float(d.attrs.get('c', np.nan)):g}"
    stopped = trident_h5.stop_note(f, "diffusion")
    if stopped:
        title += f"; {stopped} (the last frame)"
    fig.suptitle(title)
    fig.tight_layout()
    return fig, images, [t for _, t in panels]


def run(a):
    """Draws the panels of the output the arguments name."""
    f = trident_h5.open_output(a.output, "diffusion")
    trident_h5.use_agg()
    fig, _, _ = draw(f, a.output, a.frame, a.cmap)
    png = a.png or trident_h5.default_png(a.output, "diffusion")
    fig.savefig(png, dpi=a.dpi)
    print(png)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("output", help="trident HDF5 output (with /diffusion)")
    p.add_argument("-o", "--png", help="figure to write (default: OUTPUT.diffusion.png)")
    p.add_argument("--frame", type=int, default=-1,
                   help="frame shown as the final field (default: the last; 0 is the start)")
    p.add_argument("--cmap", default="viridis",
                   help="colour map of a field of one sign (default viridis; a signed one gets RdBu_r)")
    p.add_argument("--dpi", type=int, default=100, help="resolution of the PNG (default 100)")
    trident_h5.run_command(p, run, argv)


if __name__ == "__main__":
    main()
