#!/usr/bin/python3
"""Writes the small input files of the example decks into inputs/data/, shaped like the
files users bring (each under 1 MB, the same bytes on every run: fixed seeds, fixed text):

  stations.csv       weather stations: id, quoted names (some with commas), lat, lon,
                     elevation; dense city networks, sparse oceans, the poles, the dateline
  stations_b.csv     a second network's list of the same region: about 80 % of the stations
                     as it locates them (up to a few km off, an uncertainty err_m a row), and
                     sites of its own; for the cross-match example (knn_match_stations.yaml)
  survey_points.h5   /survey/sources (N x 2 lat, lon in degrees, float64): clustered survey
                     sources from 1 m to 100 km across; /survey/fields: the reference points
  ridge_matrix.mtx   Matrix Market, coordinate real general, 1200 x 400, power-law row
                     lengths, one dense row and one dense column, comment lines
  ridge_rhs.h5       /b: a right-hand side A x_true + 1 % noise for ridge_matrix.mtx
  start_field.h5     /temperature (ny x nx = 96 x 128, float64): kelvin above the ambient,
                     two warm plumes and a cold front, for diffusion.start
  plate_diffusivity.h5  /c (ny x nx = 64 x 96, float64): a metal plate's diffusion number
                     (0.24) with an insulating disc (0.004) and a thin insulating slot, for diffusion.c

usage: /usr/bin/python3 inputs/make_example_inputs.py [OUTPUT_FOLDER]   (default inputs/data)
       /usr/bin/python3 inputs/make_example_inputs.py --check   (the files in inputs/data are
       what this script makes: text byte for byte, HDF5 datasets and attributes, float values
       to 1e-13 of their largest; exit 1 if not)
It checks the claims the tests rely on (the named station pairs are mutual nearest
neighbours) and stops with an error where one does not hold. The committed files were made
with Debian 12's numpy 1.24 and h5py 3.7; another numpy may draw other random numbers.
"""
import os
import sys
import tempfile

import h5py
import numpy as np

RADIUS = 6371008.8  # metres, the decks' knn.radius


def great_circle(lat1, lon1, lat2, lon2):
    """Haversine distance in metres, degrees in (numpy broadcasting)."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(lon2 - lon1)
    h = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * RADIUS * np.arcsin(np.sqrt(np.clip(h, 0, 1)))


def offset(rng, lat, lon, metres, count):
    """count points within about `metres` of (lat, lon), kept inside the coordinate ranges."""
    r = metres * np.sqrt(rng.random(count))
    a = rng.random(count) * 2 * np.pi
    dlat = np.degrees(r * np.cos(a) / RADIUS)
    dlon = np.degrees(r * np.sin(a) / (RADIUS * max(np.cos(np.radians(lat)), 1e-3)))
    la = np.clip(lat + dlat, -90, 90)
    lo = (lon + dlon + 180) % 360 - 180
    return la, lo


def uniform_sphere(rng, count):
    lat = np.degrees(np.arcsin(rng.uniform(-1, 1, count)))
    lon = rng.uniform(-180, 180, count)
    return lat, lon


# Named stations (coordinates rounded as station lists give them) and pairs placed to be
# each other's nearest station: the knn example's test looks these up by name.
NAMED = [
    ("Paris-Montsouris", "FR", 48.8217, 2.3378, 75),
    ("Reykjavik", "IS", 64.1275, -21.9028, 52),
    ("Washington, Dulles Intl", "US", 38.9475, -77.4467, 88),
    ("Alert, Nunavut", "CA", 82.5178, -62.2806, 65),
    ("Utqiaġvik (Barrow)", "US", 71.2861, -156.7810, 12),
    ("Amundsen-Scott South Pole", "AQ", -90.0, 0.0, 2835),
    ("Suva, Laucala Bay", "FJ", -18.1492, 178.4467, 6),
]
PAIRS = [  # (name, country, lat, lon) twice: 80-300 m apart, far from every other station
    (("North Pole Buoy A", "--", 89.9995, 10.0), ("North Pole Buoy B", "--", 89.9995, -170.0)),  # across the pole
    (("Taveuni Dateline East", "FJ", -16.8120, 179.9995), ("Taveuni Dateline West", "FJ", -16.8125, -179.9990)),
    (("Kiritimati Reef 1", "KI", 1.8700, -157.4000), ("Kiritimati Reef 2", "KI", 1.8707, -157.4001)),
]
CITIES = [  # (name, country, lat, lon, stations, spread in m): dense networks, 1 m to 100 km apart
    ("Paris", "FR", 48.85, 2.35, 260, 40e3), ("Tokyo", "JP", 35.68, 139.69, 300, 60e3),
    ("Nairobi", "KE", -1.29, 36.82, 120, 25e3), ("Sao Paulo", "BR", -23.55, -46.63, 200, 100e3),
    ("Longyearbyen", "SJ", 78.22, 15.65, 60, 8e3), ("CERN", "CH", 46.234, 6.055, 40, 50.0),
]


def stations(rng):
    rows = [(n, c, la, lo, el) for n, c, la, lo, el in NAMED]
    for pair in PAIRS:
        for name, country, la, lo in pair:
            rows.append((name, country, la, lo, 0))
    for city, country, la0, lo0, count, spread in CITIES:
        la, lo = offset(rng, la0, lo0, spread, count)
        el = rng.integers(0, 900, count)
        rows += [(f"{city} {i + 1:03d}", country, a, o, int(e)) for i, (a, o, e) in enumerate(zip(la, lo, el))]
    la, lo = uniform_sphere(rng, 1400)  # the rest of the world, buoys and remote sites
    rows += [(f"Site {i + 1:04d}", "--", a, o, int(e))
             for i, (a, o, e) in enumerate(zip(la, lo, rng.integers(0, 3000, la.size)))]
    order = rng.permutation(len(rows) - len(NAMED)) + len(NAMED)  # named ones first, rest mixed
    rows = rows[:len(NAMED)] + [rows[i] for i in order]
    rows = [(n, c, round(float(la), 6), round(float(lo), 6), el) for n, c, la, lo, el in rows]  # as written
    lat = np.array([r[2] for r in rows])
    lon = np.array([r[3] for r in rows])
    if len(set(zip(lat, lon))) != len(rows):
        sys.exit("make_example_inputs: two stations share a position once written; change the seed")
    names = [r[0] for r in rows]
    for (n1, *_), (n2, *_) in PAIRS:  # each is the other's nearest station
        for a, b in ((n1, n2), (n2, n1)):
            i, j = names.index(a), names.index(b)
            d = great_circle(lat[i], lon[i], lat, lon)
            d[i] = np.inf
            if int(np.argmin(d)) != j:
                sys.exit(f"make_example_inputs: the nearest station to {a} is {names[int(np.argmin(d))]}, not {b}")
    return rows


def write_stations(path, rows):
    def quoted(text):
        return '"' + text.replace('"', '""') + '"' if ("," in text or '"' in text) else text
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("station_id,name,country,lat,lon,elevation_m\n")
        for i, (name, country, la, lo, el) in enumerate(rows):
            f.write(f"WS{i + 1:05d},{quoted(name)},{country},{la:.6f},{lo:.6f},{el}\n")


def stations_b(rng, rows):
    """The second network: most stations of `rows` again, each displaced by its own
    positional error (up to a few km, more for some), with that error as err_m, in another
    order, and 250 sites the first list lacks."""
    keep = [r for r in rows if rng.random() < 0.8]
    err = np.round(rng.uniform(500.0, 4000.0, len(keep)))
    out = []
    for (name, country, la, lo, el), e in zip(keep, err):
        a, o = offset(rng, la, lo, float(e), 1)
        out.append((float(a[0]), float(o[0]), float(e)))
    la, lo = uniform_sphere(rng, 250)
    out += [(float(a), float(o), float(e)) for a, o, e in zip(la, lo, np.round(rng.uniform(500.0, 4000.0, 250)))]
    return [out[i] for i in rng.permutation(len(out))]


def write_stations_b(path, rows):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("id,lat,lon,err_m\n")
        for i, (la, lo, e) in enumerate(rows):
            f.write(f"NB{i + 1:05d},{la:.6f},{lo:.6f},{e:.0f}\n")


def survey_points(rng):
    """Sources in clusters 1 m to 100 km across (mixed densities, poles, dateline), and the
    catalogue's fields: a coarser set with its own clusters."""
    def clustered(centres, sizes, spreads, background):
        la, lo = [], []
        for (a, o), n, s in zip(centres, sizes, spreads):
            x, y = offset(rng, a, o, s, n)
            la.append(x), lo.append(y)
        x, y = uniform_sphere(rng, background)
        la.append(x), lo.append(y)
        return np.column_stack([np.concatenate(la), np.concatenate(lo)])
    centres = [(0.5, 179.9), (-89.5, 10.0), (89.9, -100.0), (-30.0, 20.0), (10.0, -60.0), (45.0, 90.0)]
    sources = clustered(centres, [900, 600, 500, 1500, 1000, 500], [100e3, 30e3, 5e3, 1.0, 2e3, 60e3], 1000)
    fields = clustered(centres, [300, 200, 200, 400, 300, 200], [150e3, 40e3, 10e3, 20.0, 5e3, 90e3], 1400)
    return sources[rng.permutation(len(sources))], fields[rng.permutation(len(fields))]


def ridge_problem(rng, rows=1200, columns=400):
    """Power-law row lengths (most rows 2-10 entries, a few hundreds), one dense row and one
    dense column; no entry twice."""
    entries = {}
    lengths = np.minimum(columns, np.round(2 * (1 - rng.random(rows)) ** -0.75).astype(int))
    for i, n in enumerate(lengths):
        for j in rng.choice(columns, size=n, replace=False):
            entries[(i, int(j))] = rng.normal()
    dense_row, dense_column = rows // 3, columns // 2
    for j in range(columns):
        entries[(dense_row, j)] = rng.uniform(0.5, 1.5)
    for i in range(rows):
        entries[(i, dense_column)] = rng.uniform(-1, 1)
    keys = sorted(entries, key=lambda ij: (ij[1], ij[0]))  # column-major, as many tools write
    a = np.zeros((rows, columns))
    for i, j in keys:
        a[i, j] = entries[(i, j)]
    t = np.linspace(0, 1, columns)
    x_true = np.sin(3 * np.pi * t) + 0.5 * t
    clean = a @ x_true
    b = clean + 0.01 * np.linalg.norm(clean) / np.sqrt(rows) * rng.normal(size=rows)
    return rows, columns, keys, entries, b


def write_matrix_market(path, rows, columns, keys, entries):
    with open(path, "w", newline="\n") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write("%-------------------------------------------------------------------------------\n")
        f.write("% trident example: a sparse least-squares operator with power-law rows,\n")
        f.write(f"% one dense row ({rows // 3 + 1}) and one dense column ({columns // 2 + 1}).\n")
        f.write("% Made by inputs/make_example_inputs.py; right-hand side in ridge_rhs.h5 (/b).\n")
        f.write("%-------------------------------------------------------------------------------\n")
        f.write(f"{rows} {columns} {len(keys)}\n")
        for i, j in keys:
            f.write(f"{i + 1} {j + 1} {entries[(i, j)]!r}\n")


def start_field(ny=96, nx=128):
    """Kelvin above the ambient (the boundary's zero): two warm plumes and a cold front."""
    y, x = np.mgrid[0:ny, 0:nx]
    u = 60.0 * np.exp(-((x - 35) ** 2 + (y - 30) ** 2) / (2 * 6.0 ** 2))
    u += 35.0 * np.exp(-((x - 90) ** 2 + (y - 62) ** 2) / (2 * 10.0 ** 2))
    u -= 25.0 * (np.tanh((x + 0.4 * y - 110) / 4.0) + 1) / 2 * np.exp(-((y - 70) / 20.0) ** 2)
    return u


def plate_diffusivity(ny=64, nx=96):
    """c cell by cell: metal at 0.24, an insulating disc and a slot at 0.004 (each cell's faces
    pass at most 4 x 0.24 = 0.96 of its value a step: stable)."""
    y, x = np.mgrid[0:ny, 0:nx]
    c = np.full((ny, nx), 0.24)
    c[(x - 48) ** 2 + (y - 32) ** 2 < 12 ** 2] = 0.004
    c[(x >= 20) & (x < 22) & (y >= 8) & (y < 40)] = 0.004
    return c


def write_all(folder):
    os.makedirs(folder, exist_ok=True)
    station_rows = stations(np.random.default_rng(2024))
    write_stations(os.path.join(folder, "stations.csv"), station_rows)
    write_stations_b(os.path.join(folder, "stations_b.csv"), stations_b(np.random.default_rng(2025), station_rows))

    sources, fields = survey_points(np.random.default_rng(7))
    with h5py.File(os.path.join(folder, "survey_points.h5"), "w") as f:
        g = f.create_group("survey")
        g.attrs["description"] = "trident example: clustered survey sources and catalogue fields"
        for name, data in (("sources", sources), ("fields", fields)):
            # no time stamps, so that the same inputs give the same bytes
            d = g.create_dataset(name, data=data, dtype="f8", track_times=False)
            d.attrs["columns"] = "latitude, longitude"
            d.attrs["units"] = "degrees"

    rows, columns, keys, entries, b = ridge_problem(np.random.default_rng(11))
    write_matrix_market(os.path.join(folder, "ridge_matrix.mtx"), rows, columns, keys, entries)
    with h5py.File(os.path.join(folder, "ridge_rhs.h5"), "w") as f:
        f.create_dataset("b", data=b, dtype="f8", track_times=False)
        f["b"].attrs["description"] = "A x_true + 1 % noise, A from ridge_matrix.mtx"

    with h5py.File(os.path.join(folder, "start_field.h5"), "w") as f:
        d = f.create_dataset("temperature", data=start_field(), dtype="f8", track_times=False)
        d.attrs["units"] = "K above the ambient temperature"
        d.attrs["layout"] = "(ny, nx), row y = 0 first"

    with h5py.File(os.path.join(folder, "plate_diffusivity.h5"), "w") as f:
        d = f.create_dataset("c", data=plate_diffusivity(), dtype="f8", track_times=False)
        d.attrs["units"] = "1"
        d.attrs["long_name"] = "diffusion number D dt / dx^2 of each cell"
        d.attrs["layout"] = "(ny, nx), row y = 0 first"

    for name in sorted(os.listdir(folder)):
        size = os.path.getsize(os.path.join(folder, name))
        if size > 1 << 20:
            sys.exit(f"make_example_inputs: {name} is {size} bytes, over the 1 MB of an example input")
        print(f"{name}: {size} bytes")


def hdf5_content(path):
    """Every object's name, and each dataset's dtype, values and attributes: what stays the
    same when another HDF5 library writes the same data with other bytes."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            attrs = {k: str(v) for k, v in obj.attrs.items()}
            if isinstance(obj, h5py.Dataset):
                out[name] = (str(obj.dtype), obj[...].tobytes(), attrs)
            else:
                out[name] = attrs
        f.visititems(visit)
        out["/"] = {k: str(v) for k, v in f.attrs.items()}
    return out


def same_hdf5(old, new):
    """The same objects, dtypes and attributes, and float values equal to 1e-13 of the
    dataset's largest: numpy's sin, cos and sums differ in their last bits between CPUs (their
    SIMD paths), which moved 645 of 12000 survey coordinates by 6e-14 degrees."""
    if old.keys() != new.keys():
        return False
    for name, a in old.items():
        b = new[name]
        if not isinstance(a, tuple):
            if a != b:
                return False
            continue
        if a[0] != b[0] or a[2] != b[2]:
            return False
        if a[1] == b[1]:
            continue
        if not a[0].startswith("float") or len(a[1]) != len(b[1]):
            return False
        x, y = np.frombuffer(a[1], dtype=a[0]), np.frombuffer(b[1], dtype=b[0])
        if np.max(np.abs(x - y)) > 1e-13 * max(np.max(np.abs(x)), 1e-300):
            return False
    return True


def check(folder):
    with tempfile.TemporaryDirectory() as fresh:
        write_all(fresh)
        stale = []
        for name in sorted(os.listdir(fresh)):
            old, new = os.path.join(folder, name), os.path.join(fresh, name)
            if not os.path.exists(old):
                stale.append(name + " (missing)")
            elif name.endswith(".h5"):
                if not same_hdf5(hdf5_content(old), hdf5_content(new)):
                    stale.append(name)
            elif open(old, "rb").read() != open(new, "rb").read():
                stale.append(name)
    if stale:
        sys.exit(f"make_example_inputs: {', '.join(stale)} in {folder} differ from what this script makes; "
                 "run /usr/bin/python3 inputs/make_example_inputs.py and commit the files")
    print(f"make_example_inputs: the files in {folder} are current")


def main():
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    if sys.argv[1:] == ["--check"]:
        check(data)
    else:
        write_all(sys.argv[1] if len(sys.argv) > 1 else data)


if __name__ == "__main__":
    main()
