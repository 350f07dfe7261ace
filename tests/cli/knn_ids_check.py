"""Inputs and checks for knn_ids.sh (run under /usr/bin/python3 with h5py and numpy).

make DIR: writes refs.csv (integer ids, some quoted, int64's extremes), obs.csv (text ids
  with quotes, commas, UTF-8 and a leading zero), mixed.csv (integers but the last id) and points.h5 (/refs with variable-length
  text ids /ref_ids, /obs with int32 ids /obs_ids and fixed-length ones /obs_names).
ids OUT REFS OBS: OUT's /knn/reference_ids[i][j] is the id of reference indices[i][j] and
  /knn/observation_ids[i] the id of observation i, for every row (a stopped run's
  unfinished rows: "" or the integer fill), ids read here from the inputs with Python's
  csv module and h5py. REFS and OBS: csv:FILE:COLUMN, h5:FILE:DATASET or none (then the
  dataset must be absent).
  Then the same through xarray with both engines (h5netcdf, netcdf4: netCDF-C), as
  netCDF users read them: dimensions (observation, neighbour), texts as str.
equal A B: every /knn dataset of A and B equal, values and types; both completed.
"""
import csv
import sys

import h5py
import numpy as np

INTEGER_FILL = -9223372036854775806  # knn::kIntegerIdFill, netCDF's int64 fill


def make(folder):
    rng = np.random.default_rng(7)
    with open(f"{folder}/refs.csv", "w", newline="") as f:
        f.write('code,"label, long",lat,lon\n')
        codes = [0, -5, 9223372036854775807, -9223372036854775807] + list(range(1000, 1296))
        for i, code in enumerate(codes):
            lat, lon = np.degrees(np.arcsin(rng.uniform(-1, 1))), rng.uniform(-180, 180)
            text = f'"{code}"' if i % 7 == 3 else str(code)
            f.write(f'{text},"ref {i}, ""q""",{lat:.6f},{lon:.6f}\n')
    with open(f"{folder}/obs.csv", "w", newline="", encoding="utf-8") as f:
        f.write("lat,lon,name\n")
        for i in range(500):
            lat, lon = np.degrees(np.arcsin(rng.uniform(-1, 1))), rng.uniform(-180, 180)
            name = ['"Obs, ""n"" %d"' % i, "Zürich-%d" % i, "007%d" % i, "%d" % i][i % 4]
            f.write(f"{lat:.6f},{lon:.6f},{name}\n")
    with open(f"{folder}/mixed.csv", "w") as f:  # plain integers but in the last row: texts on every rank
        f.write("id,lat,lon\n")
        for i in range(300):
            f.write(f"{'A-299' if i == 299 else i * 11},{rng.uniform(-90, 90):.5f},{rng.uniform(-180, 180):.5f}\n")
    with h5py.File(f"{folder}/points.h5", "w") as f:
        def points(n):
            return np.stack([np.degrees(np.arcsin(rng.uniform(-1, 1, n))), rng.uniform(-180, 180, n)], axis=1)
        f["refs"] = points(200)
        f.create_dataset("ref_ids", data=["Ref-%d-é" % i for i in range(200)], dtype=h5py.string_dtype("utf-8"))
        f["obs"] = points(400)
        f["obs_ids"] = (np.arange(400, dtype=np.int32) * 3 - 600)
        f.create_dataset("obs_names", data=np.array([b"o%d" % i for i in range(400)], dtype="S8"))


def read_ids(spec):
    """The ids a deck's source names, as Python ints or strs; None for none."""
    if spec == "none":
        return None
    kind, file, name = spec.split(":")
    if kind == "csv":
        with open(file, newline="", encoding="utf-8") as f:
            values = [row[name] for row in csv.DictReader(f)]
        # integers when every value is one written plainly (no leading zero, no sign but '-')
        plain = all(v == str(int(v)) if v.lstrip("-").isdigit() else False for v in values)
        return [int(v) for v in values] if plain else values
    with h5py.File(file, "r") as f:
        d = f[name]
        if d.dtype.kind in "iu":
            return [int(v) for v in d[()]]
        return [v.decode("utf-8").rstrip("\0") for v in d[()]]


def check_values(d, expected, what):
    if expected and isinstance(expected[0], int):
        assert d.dtype == np.int64, f"{what}: {d.dtype}, expected int64"
        return d[()].tolist()
    info = h5py.check_string_dtype(d.dtype)
    assert info is not None and info.encoding == "utf-8" and info.length is None, \
        f"{what}: {d.dtype}, expected variable-length UTF-8 strings"
    return d.asstr()[()].tolist()


def ids(out, refs, obs):
    references, observations = read_ids(refs), read_ids(obs)
    ragged = False
    with h5py.File(out, "r") as f:
        g = f["knn"]
        if "counts" in g and "indices" not in g:  # k: count names the observations alone
            assert "reference_ids" not in g, "reference_ids beside counts"
            indices = np.zeros((len(g["counts"]), 0), np.int32)
            references = None
        else:
            indices = g["indices"][()]
        ragged = "offsets" in g
        rows = len(g["offsets"]) - 1 if ragged else len(indices)
        done = g["done"][()].astype(bool) if "done" in g else np.ones(rows, bool)
        if references is None:
            assert "reference_ids" not in g, "reference_ids without ids"
        elif ragged:  # k: all: an id beside each entry of the ragged /knn/indices
            offsets = g["offsets"][()]
            got = check_values(g["reference_ids"], references, "reference_ids")
            assert len(got) == len(indices), f"{len(got)} reference ids for {len(indices)} entries"
            assert got == [references[j] for j in indices], "reference_ids are not the ids of /knn/indices"
            assert all(offsets[i + 1] == offsets[i] for i in range(rows) if not done[i]), "an unfinished row has entries"
            assert len(indices) > done.sum(), "the test needs rows of several neighbours"
        else:
            got = check_values(g["reference_ids"], references, "reference_ids")
            fill = INTEGER_FILL if isinstance(references[0], int) else ""
            assert len(got) == len(indices), "rows"
            for i, row in enumerate(indices):
                want = [references[j] for j in row] if done[i] else [fill] * len(row)
                assert got[i] == want, f"row {i}: {got[i]} != {want} (indices {row.tolist()})"
        if observations is None:
            assert "observation_ids" not in g, "observation_ids without ids"
        else:
            got = check_values(g["observation_ids"], observations, "observation_ids")
            assert got == observations, "observation_ids differ from the input's"
    print(f"{out}: ids of {int(done.sum())} finished rows of {rows} checked")
    import xarray as xr
    for engine in ("h5netcdf", "netcdf4"):
        with xr.open_dataset(out, group="knn", engine=engine) as ds:
            for name, ids_in in (("reference_ids", references), ("observation_ids", observations)):
                if ids_in is None:
                    continue
                v = ds[name]
                dims = (("pair",) if ragged else ("observation", "neighbour")) if name == "reference_ids" else ("observation",)
                assert v.dims == dims, \
                    f"{engine}: {name} has dimensions {v.dims}"
                with h5py.File(out, "r") as f:
                    d = f["knn"][name]
                    want = d.asstr()[()] if h5py.check_string_dtype(d.dtype) else d[()]
                assert np.array_equal(v.values, want), f"{engine}: {name} reads otherwise than h5py"
                if isinstance(ids_in[0], str):
                    assert all(isinstance(x, str) for x in v.values.ravel()), f"{engine}: {name} not read as str"
    print(f"{out}: the ids read alike through xarray's h5netcdf and netcdf4 engines")


def equal(a, b):
    with h5py.File(a, "r") as x, h5py.File(b, "r") as y:
        for f in (x, y):
            s = f.attrs["status"]
            assert (s.decode() if isinstance(s, bytes) else s) == "completed", f"{f.filename}: {s}"
        names = sorted(n for n in x["knn"] if isinstance(x["knn"][n], h5py.Dataset))
        assert names == sorted(n for n in y["knn"] if isinstance(y["knn"][n], h5py.Dataset)), "datasets differ"
        assert "reference_ids" in names, names
        for n in names:
            p, q = x["knn"][n], y["knn"][n]
            assert p.dtype == q.dtype and p.shape == q.shape, f"{n}: {p.dtype} {p.shape} vs {q.dtype} {q.shape}"
            assert np.array_equal(p[()], q[()]), f"{n}: values differ"


mode, args = sys.argv[1], sys.argv[2:]
try:
    {"make": make, "ids": ids, "equal": equal}[mode](*args)
except AssertionError as e:
    print(f"{mode} {' '.join(args)}: {e}")
    sys.exit(1)
