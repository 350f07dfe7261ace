#!/usr/bin/python3
"""Checks what jobs/long-run.sbatch leaves of a diffusion run that was stopped and resumed:
OUT.partN.h5 with OUT.partN.xdmf beside it, OUT.h5 with OUT.xdmf, and OUT.all.xdmf.

- each part's XDMF names only its own part (not OUT.h5, which the resumed run rewrote);
- OUT.all.xdmf shows every frame of the parts and of OUT.h5 once, in step order, each
  pointing at a file that exists and at a frame that file holds with that time;
- no part's `status` still tells to resume from the checkpoint the completed run removed.

usage: check_parts.py OUT.h5
Prints what it checked; exits 1 on the first failure.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

import h5py


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def frames_of(xdmf):
    """(time, file, dataset, frame index) of each frame grid of an XDMF file."""
    root = ET.parse(xdmf).getroot()
    result = []
    for grid in root.iter("Grid"):
        if grid.get("GridType") != "Uniform":
            continue
        time = float(grid.find("Time").get("Value"))
        attribute = grid.find("Attribute")
        slab, data = list(attribute.find("DataItem"))
        file, dataset = data.text.strip().split(":", 1)
        result.append((time, file, dataset, int(slab.text.split()[0])))
    return result


def main():
    final = sys.argv[1]
    base, folder = final[:-3], os.path.dirname(final)
    parts = []
    while os.path.exists(f"{base}.part{len(parts)}.h5"):
        parts.append(f"{base}.part{len(parts)}.h5")
    if not parts:
        fail(f"no {base}.part0.h5")
    times = {}  # step -> time, from every file
    for path in parts + [final]:
        with h5py.File(path, "r") as f:
            d = f["diffusion"]
            for step, time in zip(d["step"][:], d["time"][:]):
                times[int(step)] = float(time)
            status = f.attrs.get("status", "")
            status = status.decode() if isinstance(status, bytes) else str(status)
        if path == final:
            continue
        if "resume with --restart" in status:
            fail(f"{path}: its status still says to resume: {status!r}")
        if "resumed from it by job" not in status:
            fail(f"{path}: its status does not say it was resumed: {status!r}")
        xdmf = path[:-3] + ".xdmf"
        if not os.path.exists(xdmf):
            fail(f"no {xdmf} beside {path}")
        named = {file for _, file, _, _ in frames_of(xdmf)}
        if named != {os.path.basename(path)}:
            fail(f"{xdmf} names {sorted(named)}, not its own part {os.path.basename(path)}")
    print(f"ok: {len(parts)} part(s), each with its XDMF and a status that says it was resumed")

    combined = frames_of(f"{base}.all.xdmf")
    if [t for t, _, _, _ in combined] != sorted(times.values()):
        fail(f"{base}.all.xdmf has the times {[t for t, _, _, _ in combined]}, expected {sorted(times.values())}")
    for time, file, dataset, index in combined:
        path = os.path.join(folder, file)
        if not os.path.exists(path):
            fail(f"{base}.all.xdmf names {file}, which does not exist")
        with h5py.File(path, "r") as f:
            if index >= f[dataset].shape[0] or float(f["diffusion/time"][index]) != time:
                fail(f"{base}.all.xdmf: frame {index} of {file}:{dataset} is not at time {time}")
    if not re.search(r'CollectionType="Temporal"', open(f"{base}.all.xdmf").read()):
        fail(f"{base}.all.xdmf is not a temporal collection")
    print(f"ok: {base}.all.xdmf shows all {len(combined)} frames once, in order")


if __name__ == "__main__":
    main()
