"""trident's outputs as netCDF and CF readers see them: each study run on a small deck (and
each stopped by a pending signal, then restarted from its checkpoint) is opened with xarray's
h5netcdf and netcdf4 engines and with `ncdump -h`, and must show named dimensions (no
phony_dim), the coordinates the deck implies (x, y from dx, dy and origin; time = step dt;
latitude and longitude from /knn/observations; lambda as h5py reads it), units and
long_name on every variable (flags: flag_values and flag_meanings instead of units), the
data as h5py reads them, and CF's global attributes. Skipped (exit 77) without xarray, its
two engines or ncdump.

usage: check_netcdf_view.py TRIDENT [LAUNCHER ARGS...]   (the launcher runs N ranks)
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

try:
    import xarray as xr
    import h5netcdf  # noqa: F401  (the engines xarray names)
    import netCDF4  # noqa: F401
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)
if shutil.which("ncdump") is None:
    print("skipped: no ncdump (Debian: netcdf-bin)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
PENDING_SIGNAL = os.path.join(HERE, "..", "cli", "pending_signal.py")
trident = os.path.abspath(sys.argv[1])
launcher = sys.argv[2:]
failures = []
passed = 0


def check(condition, message):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(message)
        print("FAIL:", message)


def run(deck, output, expect=0, signal=None, restart=None, options=()):
    """Runs trident on `deck` (with a stop signal pending on every rank when `signal`)."""
    command = launcher + ([sys.executable, PENDING_SIGNAL, signal, "all"] if signal else [])
    command += [trident, "run", deck, "--output", output] + (["--restart", restart] if restart else []) + list(options)
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(done.returncode == expect, f"{' '.join(command)}: exit {done.returncode}, expected {expect}\n"
          + done.stdout[-3000:])
    return done.returncode == expect


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def check_variables(ds, where):
    """Every variable and coordinate: named dimensions, a long_name, and units unless it is
    a flag (then flag_values and flag_meanings, one meaning a value)."""
    for name, v in ds.variables.items():
        check(not any(d.startswith("phony_dim") for d in v.dims), f"{where}: {name} has {v.dims}")
        check(text(v.attrs.get("long_name", "")).strip() != "", f"{where}: {name} has no long_name")
        if "flag_values" in v.attrs:
            meanings = text(v.attrs.get("flag_meanings", "")).split()
            check(len(meanings) == np.size(v.attrs["flag_values"]),
                  f"{where}: {name}: {np.size(v.attrs['flag_values'])} flag_values, {len(meanings)} meanings")
            check(np.asarray(v.attrs["flag_values"]).dtype == v.dtype,
                  f"{where}: {name}: flag_values of {np.asarray(v.attrs['flag_values']).dtype}, data {v.dtype}")
        else:
            check(text(v.attrs.get("units", "")).strip() != "", f"{where}: {name} has no units")


def check_root(path, study):
    with h5py.File(path, "r") as f:
        check(text(f.attrs.get("Conventions", "")) == "CF-1.10", f"{path}: Conventions {f.attrs.get('Conventions')}")
        check(study in text(f.attrs.get("title", "")), f"{path}: title {f.attrs.get('title')!r} lacks {study}")
        history = text(f.attrs.get("history", ""))
        check(history.startswith(text(f.attrs.get("start_time", "?"))) and " run " in history and path in history,
              f"{path}: history {history!r}")
    dump = subprocess.run(["ncdump", "-h", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(dump.returncode == 0, f"ncdump -h {path}: exit {dump.returncode}: {dump.stdout[-2000:]}")
    check("phony_dim" not in dump.stdout, f"ncdump -h {path} shows phony_dim")
    check(f"group: {study}" in dump.stdout, f"ncdump -h {path} shows no group {study}")


def with_each_engine(path, group, checks):
    """Runs checks(where, ds) on the group as each engine reads it (h5netcdf refuses datasets
    without dimension scales); an exception (a variable missing) is a failure too."""
    for engine in ("h5netcdf", "netcdf4"):
        where = f"{path} ({engine})"
        try:
            with xr.open_dataset(path, group=group, engine=engine) as ds:
                checks(where, ds.load())
        except Exception as e:  # the failure is the finding
            check(False, f"{where}: open_dataset(group={group!r}): {type(e).__name__}: {e}")


def check_diffusion(path, nx, ny, dx, dy, origin, dt, units, time_unit="s", length_unit="m"):
    check_root(path, "diffusion")
    with h5py.File(path, "r") as f:
        field, step = f["diffusion/field"][...], f["diffusion/step"][...]
    def checks(where, ds):
        check_variables(ds, where)
        check(ds["field"].dims == ("time", "y", "x") and ds["laplacian"].dims == ("time", "y", "x"),
              f"{where}: field {ds['field'].dims}")
        check(ds["step"].dims == ("time",), f"{where}: step {ds['step'].dims}")
        check(set(ds.coords) == {"time", "x", "y", "step"}, f"{where}: coordinates {sorted(ds.coords)}")
        check(np.array_equal(ds["x"].values, origin[0] + np.arange(nx) * dx), f"{where}: x {ds['x'].values}")
        check(np.array_equal(ds["y"].values, origin[1] + np.arange(ny) * dy), f"{where}: y {ds['y'].values}")
        check(np.array_equal(ds["time"].values, step * dt), f"{where}: time {ds['time'].values}, steps {step}")
        check(ds["field"].values.tobytes() == field.tobytes(), f"{where}: field differs from h5py's")
        check(ds["time"].attrs.get("units") == time_unit and ds["time"].attrs.get("standard_name") == "time",
              f"{where}: time {ds['time'].attrs}")
        check(ds["x"].attrs.get("units") == length_unit and ds["y"].attrs.get("units") == length_unit,
              f"{where}: x, y units {ds['x'].attrs.get('units')!r}, expected {length_unit!r}")
        check(ds["field"].attrs.get("units") == units and ds["laplacian"].attrs.get("units") == units,
              f"{where}: field units {ds['field'].attrs.get('units')!r}, expected {units!r}")

    with_each_engine(path, "diffusion", checks)


def check_knn(path, n, k, stopped):
    check_root(path, "knn")
    with h5py.File(path, "r") as f:
        lat_lon, indices = f["knn/observations"][...], f["knn/indices"][...]
    def checks(where, ds):
        check_variables(ds, where)
        check(dict(ds.sizes) == {"observation": n, "neighbour": k, "latitude_longitude": 2},
              f"{where}: dimensions {dict(ds.sizes)}")
        for name in ("indices", "distances"):
            check(ds[name].dims == ("observation", "neighbour"), f"{where}: {name} {ds[name].dims}")
        check(set(ds.coords) == {"latitude", "longitude"}, f"{where}: coordinates {sorted(ds.coords)}")
        check(np.array_equal(ds["latitude"].values, lat_lon[:, 0]), f"{where}: latitude differs from /knn/observations")
        check(np.array_equal(ds["longitude"].values, lat_lon[:, 1]), f"{where}: longitude differs")
        check(ds["latitude"].attrs.get("units") == "degrees_north"
              and ds["latitude"].attrs.get("standard_name") == "latitude", f"{where}: latitude {ds['latitude'].attrs}")
        check(ds["longitude"].attrs.get("units") == "degrees_east"
              and ds["longitude"].attrs.get("standard_name") == "longitude", f"{where}: longitude attributes")
        check(ds["distances"].attrs.get("units") == "m", f"{where}: distances {ds['distances'].attrs}")
        check(ds["indices"].dtype == np.int32 and np.array_equal(ds["indices"].values, indices),
              f"{where}: indices not as h5py reads them")
        check(("done" in ds) == stopped, f"{where}: /knn/done {'missing' if stopped else 'in a completed run'}")
        if stopped:
            check(list(ds["done"].attrs["flag_values"]) == [0, 1], f"{where}: done flags {ds['done'].attrs}")

    with_each_engine(path, "knn", checks)


def check_knn_all(path, n, stopped):
    """k: all: the ragged rows on their own dimensions, the observations as for k: N."""
    check_root(path, "knn")
    with h5py.File(path, "r") as f:
        lat_lon, offsets, indices = f["knn/observations"][...], f["knn/offsets"][...], f["knn/indices"][...]
    def checks(where, ds):
        check_variables(ds, where)
        check(dict(ds.sizes) == {"observation": n, "observation_bound": n + 1, "pair": indices.size,
                                 "latitude_longitude": 2}, f"{where}: dimensions {dict(ds.sizes)}")
        for name in ("indices", "distances"):
            check(ds[name].dims == ("pair",), f"{where}: {name} {ds[name].dims}")
        check(ds["offsets"].dims == ("observation_bound",) and np.array_equal(ds["offsets"].values, offsets),
              f"{where}: offsets {ds['offsets'].dims}")
        check(np.array_equal(ds["latitude"].values, lat_lon[:, 0]), f"{where}: latitude differs from /knn/observations")
        check(ds["distances"].attrs.get("units") == "m", f"{where}: distances {ds['distances'].attrs}")
        check(ds["indices"].dtype == np.int32 and np.array_equal(ds["indices"].values, indices),
              f"{where}: indices not as h5py reads them")
        check(("done" in ds) == stopped, f"{where}: /knn/done {'missing' if stopped else 'in a completed run'}")

    with_each_engine(path, "knn", checks)


def check_knn_count(path, n, lengths):
    """k: count: /knn/counts on the observation dimension, located like the rows."""
    check_root(path, "knn")
    def checks(where, ds):
        check_variables(ds, where)
        check(dict(ds.sizes) == {"observation": n, "latitude_longitude": 2}, f"{where}: dimensions {dict(ds.sizes)}")
        check(ds["counts"].dims == ("observation",) and np.array_equal(ds["counts"].values, lengths),
              f"{where}: counts {ds['counts'].dims} not the ragged rows' lengths")
        check(ds["counts"].attrs.get("units") == "1", f"{where}: counts {ds['counts'].attrs}")

    with_each_engine(path, "knn", checks)


def check_ridge(path, solutions, full_count=None, rules=False):
    """`full_count`: the λ of the uninterrupted run, of which a stopped run holds fewer."""
    check_root(path, "ridge")
    with h5py.File(path, "r") as f:
        lam, columns = f["ridge/lambda"][...], f["ridge"].attrs["columns"]
    def checks(where, ds):
        check_variables(ds, where)
        check(list(ds.coords) == ["lambda"] and ds["lambda"].values.tobytes() == lam.tobytes(),
              f"{where}: lambda {ds['lambda'].values} vs h5py {lam}")
        for name in ("residual_norm", "solution_norm", "iterations", "stop_reason", "curvature"):
            check(ds[name].dims == ("lambda",), f"{where}: {name} {ds[name].dims}")
        if solutions:
            check(ds["solutions"].dims == ("lambda", "column") and ds.sizes["column"] == columns,
                  f"{where}: solutions {ds['solutions'].dims}")
        flags = dict(zip(ds["stop_reason"].attrs["flag_values"].tolist(),
                         text(ds["stop_reason"].attrs["flag_meanings"]).split()))
        check(flags.get(-1) == "unfinished" and flags.get(7) == "max_iterations_reached" and len(flags) == 9,
              f"{where}: stop_reason flags {flags}")
        if rules:  # every rule's curve on lambda, the chosen solution on column
            for name in ("converged", "solution_step", "quasi_optimality", "gcv", "gcv_trace", "gcv_upper",
                         "gcv_settled"):
                check(name in ds and ds[name].dims == ("lambda",), f"{where}: {name} missing or not on lambda")
            check(ds["solution"].dims == ("column",) and ds.sizes["column"] == columns,
                  f"{where}: solution {ds['solution'].dims}")
            check(ds["converged"].attrs.get("flag_meanings") == "not_converged converged",
                  f"{where}: converged {ds['converged'].attrs}")
            check(ds["gcv_settled"].attrs.get("flag_meanings") == "not_settled settled",
                  f"{where}: gcv_settled {ds['gcv_settled'].attrs}")
        if full_count is not None:
            check(0 < ds.sizes["lambda"] < full_count, f"{where}: {ds.sizes['lambda']} λ of {full_count} in a stopped run")

    with_each_engine(path, "ridge", checks)


work = tempfile.mkdtemp(prefix="netcdf_view.")
os.chdir(work)
os.environ.setdefault("OMPI_MCA_orte_tmpdir_base", work)
nx, ny, dx, dy, origin, dt = 12, 10, 0.5, 2.0, (1.0, -3.0), 0.25
grid = (f"  nx: {nx}\n  ny: {ny}\n  dx: {dx}\n  dy: {dy}\n  origin: [{origin[0]}, {origin[1]}]\n  dt: {dt}\n"
        "  laplacian: true\n  output_every: 2\n")
with open("diffusion.yaml", "w") as f:
    f.write("output: {progress_seconds: 0}\ndiffusion:\n" + grid + "  steps: 6\n  checkpoint_every: 2\n")
# a start field whose dataset names its unit: u and L(u) carry it
with h5py.File("start.h5", "w") as f:
    f.create_dataset("u", data=np.random.default_rng(1).random((ny, nx)))
    f["u"].attrs["units"] = "K"
with open("diffusion_file.yaml", "w") as f:
    f.write("output: {progress_seconds: 0}\ndiffusion:\n" + grid
            + "  steps: 4\n  start: {kind: file, file: start.h5, dataset: u}\n  time_unit: h\n  length_unit: km\n")
n, k = 600, 4
with open("knn.yaml", "w") as f:
    f.write(f"output: {{progress_seconds: 0}}\nknn:\n  k: {k}\n  observations: {{generate: {{count: {n}, seed: 1}}}}\n"
            "  references: {generate: {count: 300, seed: 2}}\n  batch_size: 128\n")
with open("knn_all.yaml", "w") as f:  # every reference within 1000 km: ragged rows
    f.write(f"output: {{progress_seconds: 0}}\nknn:\n  k: all\n  max_distance: 1e6\n"
            f"  observations: {{generate: {{count: {n}, seed: 1}}}}\n"
            "  references: {generate: {count: 300, seed: 2}}\n  batch_size: 128\n")
shutil.copy(os.path.join(HERE, "..", "..", "inputs", "ridge_small.yaml"), "ridge.yaml")
# every rule's datasets (GCV's probes, quasi-optimality's steps), without kept solutions
with open("ridge.yaml") as f:
    rules_deck = f.read().replace("keep_solutions: true", "keep_solutions: false")
with open("ridge_rules.yaml", "w") as f:
    f.write(rules_deck.replace("ridge:\n", "ridge:\n  select: gcv\n  noise_level: 0.5\n", 1))

if run("diffusion.yaml", "diffusion.h5"):
    check_diffusion("diffusion.h5", nx, ny, dx, dy, origin, dt, "1")
if run("diffusion_file.yaml", "diffusion_file.h5"):
    check_diffusion("diffusion_file.h5", nx, ny, dx, dy, origin, dt, "K", time_unit="h", length_unit="km")
if run("knn.yaml", "knn.h5"):
    check_knn("knn.h5", n, k, stopped=False)
# gathered to rank 0, each rank's rows (latitude and longitude among them) straight into its file
if run("knn.yaml", "knn-gathered.h5", options=["--gathered-io"]):
    check_knn("knn-gathered.h5", n, k, stopped=False)
if run("knn_all.yaml", "knn_all.h5"):
    check_knn_all("knn_all.h5", n, stopped=False)
    with open("knn_all.yaml") as f, open("knn_count.yaml", "w") as g:
        g.write(f.read().replace("k: all", "k: count"))
    with h5py.File("knn_all.h5", "r") as f:
        lengths = np.diff(f["knn/offsets"][...])
    if run("knn_count.yaml", "knn_count.h5"):
        check_knn_count("knn_count.h5", n, lengths)
if run("ridge.yaml", "ridge.h5"):
    check_ridge("ridge.h5", solutions=True)
if run("ridge_rules.yaml", "ridge_rules.h5"):
    check_ridge("ridge_rules.h5", solutions=False, rules=True)
# stopped by a signal pending from the start (each study stops at its first check), then
# resumed from the checkpoint: both outputs described alike
if run("diffusion.yaml", "diffusion-stopped.h5", expect=75, signal="USR1"):
    check_diffusion("diffusion-stopped.h5", nx, ny, dx, dy, origin, dt, "1")
    if run("diffusion.yaml", "diffusion-resumed.h5", restart="diffusion-stopped.checkpoint.h5"):
        check_diffusion("diffusion-resumed.h5", nx, ny, dx, dy, origin, dt, "1")
if run("knn.yaml", "knn-stopped.h5", expect=75, signal="USR1"):
    check_knn("knn-stopped.h5", n, k, stopped=True)
    if run("knn.yaml", "knn-resumed.h5", restart="knn-stopped.checkpoint.h5"):
        check_knn("knn-resumed.h5", n, k, stopped=False)
if run("knn_all.yaml", "knn_all-stopped.h5", expect=75, signal="USR1"):
    check_knn_all("knn_all-stopped.h5", n, stopped=True)
    if run("knn_all.yaml", "knn_all-resumed.h5", restart="knn_all-stopped.checkpoint.h5"):
        check_knn_all("knn_all-resumed.h5", n, stopped=False)
if run("ridge.yaml", "ridge-stopped.h5", expect=75, signal="USR1") and os.path.exists("ridge.h5"):
    with h5py.File("ridge.h5", "r") as f:
        full_count = f["ridge/lambda"].size
    check_ridge("ridge-stopped.h5", solutions=True, full_count=full_count)
    if run("ridge.yaml", "ridge-resumed.h5", restart="ridge-stopped.checkpoint.h5"):
        check_ridge("ridge-resumed.h5", solutions=True)

print(f"netCDF view ({len(launcher) and ' '.join(launcher) or '1 rank'}): {passed} passed, {len(failures)} failed")
if failures:
    print(f"files kept in {work}")
    sys.exit(1)
shutil.rmtree(work)
