#!/usr/bin/env python3
"""What ParaView must show for a diffusion output's XDMF, read from the HDF5 files with h5py
(which pvpython lacks), as JSON for check_paraview.py.

The series is the outputs given, oldest first: of each, the frames before the first step of
the next one (a stop's frame is in both files; the later one shows it), then every frame of
the last. For two frames of the series (the last of the first file, the middle one, the last of all) and one
node, the expected u and L(u) and that node's position; and each time step's file (its
name) and frame, which the XDMF must name.

usage: expected.py OUT.json OUTPUT.h5 [EARLIER.h5 ...]   (the newest first, as trident
       follows the outputs a restart continues)
"""
import json
import os
import sys

import h5py


def main():
    target, files = sys.argv[1], sys.argv[2:][::-1]
    opened = [h5py.File(f, "r") for f in files]
    newest = opened[-1]["diffusion"]
    nx, ny = int(newest.attrs["nx"]), int(newest.attrs["ny"])
    dx, dy = float(newest.attrs["dx"]), float(newest.attrs["dy"])
    ox, oy = (float(v) for v in newest.attrs["origin"])
    series = []  # (file index, frame)
    for n, f in enumerate(opened):
        steps = f["diffusion/step"][:]
        before = opened[n + 1]["diffusion/step"][0] if n + 1 < len(opened) else None
        series += [(n, i) for i, s in enumerate(steps) if before is None or s < before]
    times = [float(opened[n]["diffusion/time"][i]) for n, i in series]
    assert len(set(times)) == len(times), f"a time twice in the series: {times}"
    i, j = nx // 3, ny // 2  # a node off the axes and the middle
    samples = []
    for k in sorted({sum(1 for n, _ in series if n == 0) - 1, len(series) // 2, len(series) - 1}):
        n, frame = series[k]
        g = opened[n]["diffusion"]
        samples.append({"time": times[k], "point": j * nx + i, "x": ox + i * dx, "y": oy + j * dy,
                        "u": float(g["field"][frame, j, i]),
                        "laplacian": float(g["laplacian"][frame, j, i]) if "laplacian" in g else None})
    arrays = ["u"] + (["laplacian"] if "laplacian" in newest else [])
    expected = {"nx": nx, "ny": ny, "bounds": [ox, ox + (nx - 1) * dx, oy, oy + (ny - 1) * dy, 0.0, 0.0],
                "times": times, "arrays": arrays, "samples": samples,
                "series": [[os.path.basename(files[n]), i] for n, i in series]}
    with open(target, "w") as out:
        json.dump(expected, out, indent=1)
    print(f"expected: {len(times)} time steps from {len(files)} file(s), arrays {arrays}, {len(samples)} samples")


if __name__ == "__main__":
    main()
