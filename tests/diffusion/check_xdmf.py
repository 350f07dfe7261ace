#!/usr/bin/env python3
"""Parses a diffusion XDMF file with an XML parser and checks its structure (not its text):
a temporal collection of one uniform grid a frame, each with its time, a mesh of 1 x NY x NX
nodes (the X-Y plane) with the origin and spacing, and the named attributes, each one item
that is both a hyperslab (frame f, all NY x NX nodes) of a dataset and the same selection as
Xdmf3's "FILE:DATASET|start:stride:count:dims" text (src/diffusion/detail/xdmf.cpp says why), in
the HDF5 file whose name, read back from the XML, is the output's own (the file beside the
XDMF). Used by test_diffusion (C++, through std::system) and cli.xdmf_names; that ParaView's
readers show the fields is tests/paraview's part.

usage: check_xdmf.py XDMF --h5 OUTPUT.h5 --nx NX --ny NY --times T0,T1,...
                     --attribute NAME=/DATASET [--attribute ...] --precision 4|8
                     [--origin X,Y] [--spacing DX,DY]
Exit 0 when every check passes; otherwise 1 with one line per failed check.
"""
import argparse
import os
import sys
import xml.etree.ElementTree as ET

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def integers(text):
    return [int(v) for v in (text or "").split()]


def reals(text):
    return [float(v) for v in (text or "").split()]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("xdmf")
    parser.add_argument("--h5", required=True, help="the output file the XDMF must reference")
    parser.add_argument("--nx", type=int, required=True)
    parser.add_argument("--ny", type=int, required=True)
    parser.add_argument("--times", required=True, help="the frames' times, comma-separated")
    parser.add_argument("--attribute", action="append", default=[], help="NAME=/DATASET, once per attribute")
    parser.add_argument("--precision", required=True, help="bytes a value: 4 or 8")
    parser.add_argument("--origin", default="0,0", help="X,Y of the first node")
    parser.add_argument("--spacing", default="1,1", help="DX,DY between nodes")
    args = parser.parse_args()
    ox, oy = (float(v) for v in args.origin.split(","))
    dx, dy = (float(v) for v in args.spacing.split(","))
    times = [float(t) for t in args.times.split(",")]
    attributes = dict(a.split("=", 1) for a in args.attribute)
    frames = len(times)

    try:
        root = ET.parse(args.xdmf).getroot()
    except ET.ParseError as e:
        print(f"FAIL: {args.xdmf} is not well-formed XML: {e}")
        return 1
    check(root.tag == "Xdmf", f"the root element is <{root.tag}>, not <Xdmf>")
    collections = [g for g in root.iter("Grid") if g.get("CollectionType") == "Temporal"]
    check(len(collections) == 1, f"{len(collections)} temporal collections, expected 1")
    grids = [g for g in root.iter("Grid") if g.get("GridType") == "Uniform"]
    if not check(len(grids) == frames, f"{len(grids)} frame grids, expected {frames}"):
        grids = grids[:frames]
    folder = os.path.dirname(os.path.abspath(args.xdmf))
    for f, grid in enumerate(grids):
        where = f"frame {f}"
        time = grid.find("Time")
        check(time is not None and float(time.get("Value", "nan")) == times[f],
              f"{where}: time {None if time is None else time.get('Value')}, expected {times[f]!r}")
        topology = grid.find("Topology")
        check(topology is not None and topology.get("TopologyType") == "3DCoRectMesh"
              and integers(topology.get("Dimensions")) == [1, args.ny, args.nx],
              f"{where}: the mesh is not a 3DCoRectMesh of 1 x {args.ny} x {args.nx} nodes")
        geometry = grid.find("Geometry")
        values = [reals(d.text) for d in geometry.findall("DataItem")] if geometry is not None else []
        check(geometry is not None and geometry.get("GeometryType") == "ORIGIN_DXDYDZ"
              and values == [[0.0, oy, ox], [1.0, dy, dx]],
              f"{where}: the geometry is {values}, expected origin (z y x) [0, {oy}, {ox}] and spacing [1, {dy}, {dx}]")
        found = {a.get("Name"): a for a in grid.findall("Attribute")}
        check(sorted(found) == sorted(attributes), f"{where}: attributes {sorted(found)}, expected {sorted(attributes)}")
        for name, dataset in attributes.items():
            attribute = found.get(name)
            if attribute is None:
                continue
            where = f"frame {f}, attribute {name}"
            check(attribute.get("Center") == "Node", f"{where}: not centred on the nodes")
            items = attribute.findall("DataItem")
            if not check(len(items) == 1, f"{where}: {len(items)} data items, expected 1"):
                continue
            slab = items[0]
            check((slab.get("ItemType") or "").lower() == "hyperslab", f"{where}: not a hyperslab")
            check(integers(slab.get("Dimensions")) == [1, args.ny, args.nx],
                  f"{where}: the hyperslab is {slab.get('Dimensions')!r}, expected '1 {args.ny} {args.nx}'")
            selection = [d for d in slab if d.get("Format") == "XML"]
            check(len(selection) == 1 and integers(selection[0].text) == [f, 0, 0, 1, 1, 1, 1, args.ny, args.nx],
                  f"{where}: the hyperslab does not select frame {f} whole")
            data = [d for d in slab if d.get("Format") == "HDF"]
            if not check(len(data) == 1, f"{where}: {len(data)} HDF data items in the hyperslab, expected 1"):
                continue
            item = data[0]
            check(integers(item.get("Dimensions")) == [frames, args.ny, args.nx],
                  f"{where}: the dataset's dimensions are {item.get('Dimensions')!r}")
            for it in (slab, item):
                check(it.get("NumberType") == "Float" and it.get("Precision") == args.precision,
                      f"{where}: values are {it.get('NumberType')} of {it.get('Precision')} bytes")
            check(slab.get("Format") == "HDF", f"{where}: the hyperslab is not also an HDF item")
            file, _, path = (item.text or "").strip().rpartition(":")
            check(path == dataset, f"{where}: dataset {path!r}, expected {dataset!r}")
            # Xdmf3's selection, the same frame of the same dataset
            expected = (f"{file}:{dataset}|{f} 0 0:1 1 1:1 {args.ny} {args.nx}:{frames} {args.ny} {args.nx}")
            check(slab.text == expected, f"{where}: the selection text is {slab.text!r}, expected {expected!r}")
            # The name as the XML parser gives it back (entities resolved) is the output's.
            check(file == os.path.basename(args.h5), f"{where}: names the file {file!r}, not "
                  f"{os.path.basename(args.h5)!r}")
            referenced = os.path.join(folder, file)
            check(os.path.exists(referenced) and os.path.samefile(referenced, args.h5),
                  f"{where}: {referenced!r} is not the output {args.h5!r}")
    for message in failures:
        print(f"FAIL: {args.xdmf}: {message}")
    if not failures:
        print(f"ok: {args.xdmf}: {frames} frames, attributes {sorted(attributes)}, file "
              f"{os.path.basename(args.h5)!r}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
