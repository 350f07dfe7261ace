"""Run by pvpython (ParaView's Python, on an Xvfb display): opens a diffusion XDMF with each of
ParaView's three XDMF readers (Xdmf3ReaderS, Xdmf3ReaderT, the legacy XDMFReader) and
checks what it shows against expected.py's JSON (h5py's values): the time steps, a grid of
nx * ny points in the X-Y plane with the physical bounds, the point arrays, u and L(u) at a
node at two times; then renders u and checks that the picture is not blank (more than one
colour) while the same view without the data is (one colour).

usage: pvpython check_paraview.py XDMF EXPECTED.json PNG_PREFIX
Prints one line per check; exit 1 when one fails.
"""
import json
import sys

from paraview import servermanager
from paraview import simple
from vtkmodules.vtkIOImage import vtkPNGReader

xdmf, expected_path, png_prefix = sys.argv[1:4]
with open(expected_path) as f:
    expected = json.load(f)
failures = []


def check(condition, message):
    print(("ok: " if condition else "FAIL: ") + message, flush=True)
    if not condition:
        failures.append(message)
    return condition


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def colours(png):
    reader = vtkPNGReader()
    reader.SetFileName(png)
    reader.Update()
    scalars = reader.GetOutput().GetPointData().GetScalars()
    if scalars is None:
        return set()
    width = scalars.GetNumberOfComponents()
    return {tuple(scalars.GetComponent(t, c) for c in range(width)) for t in range(scalars.GetNumberOfTuples())}


def single_block(data):
    """The dataset itself, or the one leaf of a composite (the readers differ)."""
    if data.IsA("vtkCompositeDataSet"):
        it = data.NewIterator()
        it.InitTraversal()
        leaves = []
        while not it.IsDoneWithTraversal():
            leaves.append(it.GetCurrentDataObject())
            it.GoToNextItem()
        return leaves[0] if len(leaves) == 1 else None
    return data


def open_with(name):
    if name == "XDMFReader":
        return simple.XDMFReader(FileNames=[xdmf])
    return getattr(simple, name)(FileName=xdmf)


for name in ("Xdmf3ReaderS", "Xdmf3ReaderT", "XDMFReader"):
    reader = open_with(name)
    times = list(reader.TimestepValues or [])
    check(len(times) == len(expected["times"]) and all(close(a, b) for a, b in zip(times, expected["times"])),
          f"{name}: time steps {times}, expected {expected['times']}")
    for sample in expected["samples"]:
        t = sample["time"]
        reader.UpdatePipeline(t)
        data = single_block(servermanager.Fetch(reader))
        where = f"{name} at time {t}"
        if not check(data is not None, f"{where}: one dataset"):
            continue
        check(data.GetNumberOfPoints() == expected["nx"] * expected["ny"],
              f"{where}: {data.GetNumberOfPoints()} points, expected {expected['nx']} x {expected['ny']}")
        bounds = list(data.GetBounds())
        check(all(close(a, b) for a, b in zip(bounds, expected["bounds"])),
              f"{where}: bounds {bounds}, expected {expected['bounds']} (X-Y plane, origin and spacing)")
        point_data = data.GetPointData()
        names = sorted(point_data.GetArrayName(i) for i in range(point_data.GetNumberOfArrays()))
        check(names == sorted(expected["arrays"]), f"{where}: point arrays {names}, expected {expected['arrays']}")
        check(data.GetCellData().GetNumberOfArrays() == 0, f"{where}: no cell arrays")
        p = sample["point"]
        if p >= data.GetNumberOfPoints():
            continue
        position = data.GetPoint(p)
        check(close(position[0], sample["x"]) and close(position[1], sample["y"]) and position[2] == 0.0,
              f"{where}: point {p} at {position}, expected ({sample['x']}, {sample['y']}, 0)")
        for array in expected["arrays"]:
            values = point_data.GetArray(array)
            if values is None:
                continue
            got, want = values.GetValue(p), sample[array]
            check(got == want, f"{where}: {array} at ({sample['x']}, {sample['y']}) is {got}, h5py reads {want}")

    # The picture: u coloured over the grid at the last time, on a one-colour background.
    view = simple.CreateView("RenderView")
    view.OrientationAxesVisibility = 0
    view.UseColorPaletteForBackground = 0
    view.BackgroundColorMode = "Single Color"
    view.Background = [1.0, 1.0, 1.0]
    view.ViewSize = [320, 240]
    view.ViewTime = expected["times"][-1]
    display = simple.Show(reader, view)
    simple.ColorBy(display, ("POINTS", "u"))
    display.RescaleTransferFunctionToDataRange(True, False)
    display.SetScalarBarVisibility(view, False)
    view.ResetCamera()
    png = f"{png_prefix}-{name}.png"
    simple.SaveScreenshot(png, view, ImageResolution=[320, 240])
    shown = colours(png)
    check(len(shown) > 1, f"{name}: {png} shows {len(shown)} colours (not blank)")
    simple.Hide(reader, view)
    blank = png_prefix + "-blank.png"
    simple.SaveScreenshot(blank, view, ImageResolution=[320, 240])
    check(len(colours(blank)) == 1, f"{name}: the same view without the data is one colour (the check can fail)")
    simple.Delete(view)
    simple.Delete(reader)

print(f"paraview: {len(failures)} failed")
sys.exit(1 if failures else 0)
