"""The diffusion time series as a sequence of PNG frames, or as one animated GIF.

Several files are read as one series, ordered by step, so the parts that
jobs/long-run.sbatch keeps at each stop (NAME.part0.h5, ...) and the final NAME.h5
give the whole run: diffusion_frames.py run.part*.h5 run.h5
"""
import argparse
import os

import numpy as np

from trident_postprocess import trident_h5


def collect(paths):
    """(step, time, file, index) of every frame, ordered by step; a step present in
    several files (a restart repeats its checkpoint step) is taken once."""
    frames = {}
    for path in paths:
        d = trident_h5.open_output(path, "diffusion")["diffusion"]
        for i, (step, time) in enumerate(zip(d["step"][:], d["time"][:])):
            frames.setdefault(int(step), (int(step), float(time), path, i))
    return [frames[s] for s in sorted(frames)]


def run(a):
    """Writes the frames (or the GIF) of the outputs the arguments name."""
    frames = collect(a.outputs)
    name = "laplacian" if a.laplacian else "field"
    files = {path: trident_h5.open_output(path)["diffusion"] for path in a.outputs}
    for path, d in files.items():
        if name not in d:
            raise trident_h5.OutputError(f"{path}: no /diffusion/{name} (set diffusion.laplacian: true)")

    def data(frame):
        _, _, path, i = frame
        return files[path][name][i]

    # One colour scale for the whole series, so that the decay is visible.
    lo = min(float(np.min(data(fr))) for fr in frames)
    hi = max(float(np.max(data(fr))) for fr in frames)
    # a signed field (the Laplacian, a cold front) on RdBu_r centred on 0
    cmap, lo, hi = trident_h5.scale_of_range(lo, hi, a.cmap)
    last = files[frames[-1][2]]
    label = trident_h5.laplacian_label(last) if a.laplacian else trident_h5.field_label(last)
    # a stopped run's last frame is the step it stopped at: its title says so
    stopped = trident_h5.stop_note(last.file, "diffusion")
    trident_h5.use_agg()
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 5))
    im = ax.imshow(data(frames[0]), origin="lower", cmap=cmap, vmin=lo, vmax=hi)
    fig.colorbar(im, ax=ax, shrink=0.85, label=label)
    ax.set_xlabel("x (cell)")
    ax.set_ylabel("y (cell)")
    title = ax.set_title("")

    def show(frame):
        step, time, _, _ = frame
        im.set_data(data(frame))
        note = f"\n{stopped}" if stopped and frame is frames[-1] else ""
        title.set_text(f"{name} at step {step} (t = {time:g}){note}")

    if a.gif:
        from matplotlib.animation import FuncAnimation, PillowWriter
        anim = FuncAnimation(fig, lambda k: show(frames[k]), frames=len(frames))
        anim.save(a.gif, writer=PillowWriter(fps=a.fps), dpi=a.dpi)
        print(f"{a.gif}: {len(frames)} frames")
        return
    out = a.out_dir or (a.outputs[0][:-3] if a.outputs[0].endswith(".h5") else a.outputs[0]) + ".frames"
    os.makedirs(out, exist_ok=True)
    for k, frame in enumerate(frames):
        show(frame)
        fig.savefig(os.path.join(out, f"frame_{k:04d}.{a.format}"), dpi=a.dpi)
    print(f"{out}: {len(frames)} frames, steps {frames[0][0]} to {frames[-1][0]}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outputs", nargs="+", help="trident HDF5 output(s) with /diffusion")
    p.add_argument("-o", "--out-dir",
                   help="folder for frame_NNNN.png (default: FIRST_OUTPUT.frames/)")
    p.add_argument("--gif", help="write one animated GIF here instead of PNG frames")
    p.add_argument("--fps", type=float, default=4.0, help="GIF frames per second (default 4)")
    p.add_argument("--laplacian", action="store_true",
                   help="show /diffusion/laplacian instead of the field")
    p.add_argument("--cmap", default="viridis",
                   help="colour map of a field of one sign (default viridis; a signed one gets RdBu_r)")
    p.add_argument("--dpi", type=int, default=80, help="resolution (default 80)")
    p.add_argument("--format", choices=("png", "svg"), default="png",
                   help="image format of the frames (default png; svg for vector figures)")
    trident_h5.run_command(p, run, argv)


if __name__ == "__main__":
    main()
