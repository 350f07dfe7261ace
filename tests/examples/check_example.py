#!/usr/bin/python3
"""Checks the output of one example deck that reads a user-shaped file (inputs/data/)
against the file itself, computed again here with numpy:

  knn_stations_csv      the points are the CSV's, every station's first neighbour is itself
                        at 0 m, the named pairs (across the pole, the dateline) are each
                        other's nearest, and every row is the exact k nearest (brute force)
  knn_points_h5         the points are the HDF5 file's, every row the exact k nearest
  knn_match_stations    each station of stations_b.csv's match in stations.csv (the nearest
                        within 5 km), the count within, the mutual flags (the match's own
                        nearest station of stations_b.csv within 5 km), the counts and names
  ridge_deblur          each λ rule against numpy's SVD of the blur (ridge_deblur() below)
  ridge_matrix_market   the matrix's shape and entry count, and each kept solution against
                        the damped least-squares solution of the Matrix Market matrix
  diffusion_start_file  the frame at step 0 is the file's field bit for bit, and the later
                        frames and Laplacians follow u <- u - c L(u) with zero outside
  diffusion_plate       the frames and Laplacians follow the scheme with the deck's boundary
                        rules (the ghost cells of docs/diffusion.md#boundaries)
  diffusion_heated      the same with the deck's source added after each step
  diffusion_inclusion   the same with a diffusivity field: faces of harmonic-mean c (a ghost
                        with its edge cell's c), the frames' A(u) = u - u_new
  diffusion_units       the same in physical units: c_x = D dt/dx^2, c_y = D dt/dy^2 from the
                        deck's D, dx, dy, dt, the anisotropic step and its A(u)

usage: check_example.py DECK_NAME OUTPUT.h5 DATA_FOLDER
Prints what it checked; exits 1 at the first failure.
"""
import csv
import os
import sys

import h5py
import numpy as np


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def unit_vectors(lat_lon):
    lat, lon = np.radians(lat_lon[:, 0]), np.radians(lat_lon[:, 1])
    return np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])


def distances(p, q, radius):
    """The output's distance, radius * atan2(|p x q|, p . q), from each p to every q."""
    cross = np.cross(p[:, None, :], q[None, :, :])
    return radius * np.arctan2(np.linalg.norm(cross, axis=2), p @ q.T)


def check_exact_neighbours(knn, observations, references):
    """Each row holds k distinct references at the distances given, in increasing order,
    and no reference outside the row is nearer than its last one."""
    radius, k = float(knn.attrs["radius"]), int(knn.attrs["k"])
    indices, dist = knn["indices"][...].astype(np.int64), knn["distances"][...]
    if indices.shape != (len(observations), k) or dist.shape != indices.shape:
        fail(f"indices {indices.shape} and distances {dist.shape}, expected ({len(observations)}, {k})")
    if indices.min() < 0 or indices.max() >= len(references):
        fail(f"neighbour indices outside 0..{len(references) - 1}")
    p, q = unit_vectors(observations), unit_vectors(references)
    for first in range(0, len(p), 512):
        rows = slice(first, first + 512)
        d = distances(p[rows], q, radius)
        got = np.take_along_axis(d, indices[rows], axis=1)
        # unit vectors from degrees carry about 1e-16 of rounding, which is 1e-9 m of a
        # 1 cm distance: the tolerance is 10 nm plus 1e-10 of the distance
        if not np.allclose(got, dist[rows], rtol=1e-10, atol=1e-8):
            bad = first + int(np.argmax(np.abs(got - dist[rows]).max(axis=1)))
            fail(f"row {bad}: distances {dist[bad]} but its indices are at {d[bad - first][indices[bad]]}")
        if (np.diff(dist[rows], axis=1) < 0).any():
            fail(f"rows {first}..: distances not in increasing order")
        if any(len(set(r)) != k for r in indices[rows]):
            fail(f"rows {first}..: a reference twice in one row")
        kth = np.partition(d, k - 1, axis=1)[:, k - 1]
        missed = dist[rows][:, -1] > kth * (1 + 1e-10) + 1e-8  # beyond rounding: a nearer one was missed
        if missed.any():
            bad = first + int(np.argmax(missed))
            fail(f"row {bad}: last neighbour at {dist[bad, -1]} m, but the k-th nearest is at {kth[bad - first]} m")
    print(f"  knn: {len(p)} rows of {k} neighbours among {len(q)} references, each the exact k nearest")


def check_points(knn, expected, what):
    got = knn["observations"][...]
    if got.shape != expected.shape or not np.array_equal(got, expected):
        fail(f"/knn/observations differ from the {what} ({got.shape} against {expected.shape})")
    print(f"  knn: /knn/observations equal the {what}'s {len(expected)} points bit for bit")


def knn_stations_csv(out, data):
    with open(os.path.join(data, "stations.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    points = np.array([[float(r["lat"]), float(r["lon"])] for r in rows])
    names = [r["name"] for r in rows]
    knn = out["knn"]
    check_points(knn, points, "CSV file")
    indices, dist = knn["indices"][...], knn["distances"][...]
    if not (np.array_equal(indices[:, 0], np.arange(len(points))) and (dist[:, 0] == 0).all()):
        fail("a station's first neighbour is not itself at 0 m")
    # across the pole: 2 x 0.0005 degrees of the great circle through it (lon 10 and -170)
    pairs = {("North Pole Buoy A", "North Pole Buoy B"): 2 * np.radians(0.0005) * 6371008.8,
             ("Taveuni Dateline East", "Taveuni Dateline West"): None,
             ("Kiritimati Reef 1", "Kiritimati Reef 2"): None}
    for (a, b), metres in pairs.items():
        for x, y in ((a, b), (b, a)):
            i, j = names.index(x), names.index(y)
            if indices[i, 1] != j:
                fail(f"the nearest station to {x} is {names[indices[i, 1]]}, expected {y}")
            if metres is not None and abs(dist[i, 1] - metres) > 0.01:
                fail(f"{x} to {y}: {dist[i, 1]} m, expected {metres:.3f} m")
        print(f"  knn: {a} and {b} are each other's nearest ({dist[names.index(a), 1]:.2f} m)")
    # the deck's `id: name`: every neighbour named as the CSV names its reference
    if knn["observation_ids"].asstr()[()].tolist() != names:
        fail("/knn/observation_ids differ from the CSV's names")
    if knn["reference_ids"].asstr()[()].tolist() != [[names[j] for j in row] for row in indices]:
        fail("/knn/reference_ids are not the names of /knn/indices' stations")
    print(f"  knn: {indices.size} neighbours named as the CSV names them")
    check_exact_neighbours(knn, points, points)


def knn_match_stations(out, data):
    def read(name):
        with open(os.path.join(data, name), newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    b, a = read("stations_b.csv"), read("stations.csv")
    obs = np.array([[float(r["lat"]), float(r["lon"])] for r in b])
    refs = np.array([[float(r["lat"]), float(r["lon"])] for r in a])
    knn = out["knn"]
    check_points(knn, obs, "CSV file")
    limit, radius = float(knn.attrs["max_distance"]), float(knn.attrs["radius"])
    d = distances(unit_vectors(obs), unit_vectors(refs), radius)
    # a pair within 1e-9 of the limit may fall either side of it in another rounding: none here
    if (np.abs(d - limit) <= 1e-9 * limit).any():
        fail("a pair lies at the limit; the check cannot decide it")
    within = d <= limit
    best = np.where(within.any(axis=1), np.argmin(np.where(within, d, np.inf), axis=1), -1)
    index, dist = knn["indices"][:, 0].astype(np.int64), knn["distances"][:, 0]
    counts, mutual = knn["counts"][...], knn["mutual"][...].astype(bool)
    if not np.array_equal(index, best):
        fail(f"matches differ from numpy's at {int(np.count_nonzero(index != best))} stations")
    if not np.array_equal(counts, within.sum(axis=1)):
        fail("/knn/counts differ from the stations within the limit")
    matched = best >= 0
    if not (np.isnan(dist[~matched]).all() and np.allclose(dist[matched], d[matched, best[matched]], rtol=1e-10, atol=1e-8)):
        fail("match distances differ")
    nearest = np.where(within.any(axis=0), np.argmin(np.where(within, d, np.inf), axis=0), -1)  # each reference's
    want = matched & (nearest[np.maximum(best, 0)] == np.arange(len(obs)))
    if not np.array_equal(mutual, want):
        fail(f"mutual flags differ at {int(np.count_nonzero(mutual != want))} stations")
    got = {k: int(knn.attrs[k]) for k in ("matched", "unmatched", "ambiguous", "mutual_matches")}
    expect = {"matched": int(matched.sum()), "unmatched": int((~matched).sum()),
              "ambiguous": int((within.sum(axis=1) > 1).sum()), "mutual_matches": int(want.sum())}
    if got != expect:
        fail(f"counts {got}, expected {expect}")
    names = [r["name"] for r in a]
    ids = knn["reference_ids"].asstr()[()][:, 0].tolist()
    if ids != [names[j] if j >= 0 else "" for j in best]:
        fail("/knn/reference_ids are not the names of the matched stations")
    if not (0 < expect["mutual_matches"] < expect["matched"] and expect["unmatched"] > 0 and expect["ambiguous"] > 0):
        fail(f"the example should show every case: {expect}")
    print(f"  knn: {expect}: each the exact nearest within {limit:g} m, mutual flags as numpy finds them")


def knn_points_h5(out, data):
    with h5py.File(os.path.join(data, "survey_points.h5"), "r") as f:
        sources, fields = f["survey/sources"][...], f["survey/fields"][...]
    check_points(out["knn"], sources, "HDF5 file")
    check_exact_neighbours(out["knn"], sources, fields)


def read_matrix_market(path):
    with open(path) as f:
        lines = [line for line in f if not line.startswith("%")]
    rows, columns, entries = (int(v) for v in lines[0].split())
    triplets = np.loadtxt(lines[1:], ndmin=2)
    if len(triplets) != entries:
        fail(f"{path}: {len(triplets)} entries, the size line says {entries}")
    a = np.zeros((rows, columns))
    np.add.at(a, (triplets[:, 0].astype(int) - 1, triplets[:, 1].astype(int) - 1), triplets[:, 2])
    return a, entries


def ridge_matrix_market(out, data):
    a, entries = read_matrix_market(os.path.join(data, "ridge_matrix.mtx"))
    with h5py.File(os.path.join(data, "ridge_rhs.h5"), "r") as f:
        b = f["b"][...]
    r = out["ridge"]
    shape = (int(r.attrs["rows"]), int(r.attrs["columns"]), int(r.attrs["nonzeros"]))
    if shape != (a.shape[0], a.shape[1], entries):
        fail(f"/ridge says {shape[0]} x {shape[1]} with {shape[2]} nonzeros, the file {a.shape} with {entries}")
    print(f"  ridge: {shape[0]} x {shape[1]} matrix with {shape[2]} nonzeros, as in the file")
    lambdas, x = r["lambda"][...], r["solutions"][...]
    if x.shape != (len(lambdas), a.shape[1]):
        fail(f"/ridge/solutions is {x.shape}, expected ({len(lambdas)}, {a.shape[1]})")
    worst = 0.0
    for i, lam in enumerate(lambdas):
        residual = np.linalg.norm(b - a @ x[i])
        if not np.isclose(residual, r["residual_norm"][i], rtol=1e-8):
            fail(f"λ = {lam}: residual_norm {r['residual_norm'][i]}, but ||b - A x|| = {residual}")
        if not np.isclose(np.linalg.norm(x[i]), r["solution_norm"][i], rtol=1e-8):
            fail(f"λ = {lam}: solution_norm {r['solution_norm'][i]}, but ||x|| = {np.linalg.norm(x[i])}")
        # the damped least-squares solution, from the stacked system [A; λI] x = [b; 0]
        stacked = np.vstack([a, lam * np.eye(a.shape[1])])
        best = np.linalg.lstsq(stacked, np.concatenate([b, np.zeros(a.shape[1])]), rcond=None)[0]
        error = np.linalg.norm(x[i] - best) / np.linalg.norm(best)
        worst = max(worst, error)
        if error > 1e-7:
            fail(f"λ = {lam}: the kept solution is {error:.2e} (relative) from the damped least-squares solution")
    print(f"  ridge: {len(lambdas)} kept solutions match ||b - A x||, ||x|| and the direct solution "
          f"(worst relative difference {worst:.1e})")


def ridge_deblur(out, data):
    """Each rule against numpy's SVD of the blur: the converged λ's residual norms (to 1e-3:
    LSMR's atol bounds A^T r, and at λ = 1.6e-4 the blur's conditioning leaves 5e-5 in ||r||),
    the discrepancy's λ (within 1 % of the
    exact root of ||b - A x_λ|| = τ σ √rows), GCV's trace where it settled (4 standard
    deviations of the probes' estimate), the exact G within GCV's bounds where it did not
    (up to that spread), its minimiser, and /ridge/solution equal to its row of solutions."""
    with h5py.File(os.path.join(data, "ridge_deblur.h5"), "r") as f:
        g = f["A"]
        n = int(g.attrs["shape"][0])
        a = np.zeros((n, int(g.attrs["shape"][1])))
        ptr, col, val = g["row_ptr"][...], g["col_ind"][...], g["values"][...]
        for i in range(n):
            a[i, col[ptr[i]:ptr[i + 1]]] = val[ptr[i]:ptr[i + 1]]
        b = f["b"][...]
    u, sv, _ = np.linalg.svd(a)
    beta = u.T @ b
    outside = max(float(b @ b - beta @ beta), 0.0)

    def residual(lam):
        return np.sqrt(np.sum((lam ** 2 / (sv ** 2 + lam ** 2) * beta[:len(sv)]) ** 2) + outside)

    r = out["ridge"]
    lambdas, conv = r["lambda"][...], r["converged"][...].astype(bool)
    for i in np.flatnonzero(conv):
        if not np.isclose(r["residual_norm"][i], residual(lambdas[i]), rtol=1e-3):
            fail(f"λ = {lambdas[i]}: residual_norm {r['residual_norm'][i]}, SVD {residual(lambdas[i])}")
    d = r["selection/discrepancy"].attrs
    target = float(d["tau"]) * float(d["noise_level"]) * np.sqrt(n)
    lo, hi = lambdas[int(d["bracket_low"])], lambdas[int(d["bracket_high"])]
    if not residual(lo) <= target <= residual(hi):
        fail(f"the discrepancy's bracket [{lo}, {hi}] does not hold the target {target}")
    for _ in range(80):
        mid = np.sqrt(lo * hi)
        lo, hi = (mid, hi) if residual(mid) < target else (lo, mid)
    if abs(float(d["lambda"]) - lo) > 0.01 * lo:
        fail(f"discrepancy λ {float(d['lambda'])}, the exact root {lo}")
    print(f"  ridge: discrepancy λ {float(d['lambda']):.6g}, the SVD's root {lo:.6g}")
    probes = int(r["selection/gcv"].attrs["probes"])
    exact_t = np.array([np.sum(sv ** 2 / (sv ** 2 + lam ** 2)) for lam in lambdas])
    bound = 4 * np.sqrt(2 * exact_t / probes)
    settled = r["gcv_settled"][...].astype(bool)
    if np.any(settled & ~conv):
        fail("GCV settled at a λ that did not converge")
    trace = r["gcv_trace"][...]
    if np.any(np.abs(trace - exact_t)[settled] > bound[settled]):
        fail(f"GCV traces {trace[settled]} beyond 4 standard deviations of {exact_t[settled]}")
    squares = n * np.array([residual(lam) ** 2 for lam in lambdas])
    exact_g = squares / (n - exact_t) ** 2
    # not settled: G between /ridge/gcv (t from below) and /ridge/gcv_upper, up to the probes'
    # spread (4 standard deviations of t, carried to G)
    slack = squares * 2 * bound / (n - exact_t) ** 3
    low, high = r["gcv"][...], r["gcv_upper"][...]
    loose = conv & ~settled
    if np.any((low > exact_g + slack)[loose]) or np.any((high < exact_g - slack)[loose]):
        fail(f"exact G {exact_g[loose]} outside GCV's bounds [{low[loose]}, {high[loose]}]")
    best = np.flatnonzero(conv)[np.argmin(exact_g[conv])]
    if abs(int(r["selection/gcv"].attrs["index"]) - best) > 1:
        fail(f"GCV index {int(r['selection/gcv'].attrs['index'])}, the SVD's {best}")
    if not settled[int(r["selection/gcv"].attrs["index"])]:
        fail("GCV's chosen λ did not settle")
    print(f"  ridge: GCV index {int(r['selection/gcv'].attrs['index'])}, the SVD's {best}; {np.sum(settled)} settled "
          f"traces within 4 σ, {np.sum(loose)} bracketed")
    chosen = int(r["selection"].attrs["index"])
    if not np.array_equal(r["solution"][...], r["solutions"][chosen]):
        fail("/ridge/solution differs from its row of /ridge/solutions")


def laplacian(u):
    """4u minus the four neighbours, zero outside the domain."""
    p = np.pad(u, 1)
    return 4 * u - (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])


def diffusion_start_file(out, data):
    with h5py.File(os.path.join(data, "start_field.h5"), "r") as f:
        start = f["temperature"][...]
    d = out["diffusion"]
    steps, field = d["step"][...], d["field"]
    if int(steps[0]) != 0 or field.shape[1:] != start.shape:
        fail(f"first frame is step {steps[0]} of shape {field.shape[1:]}, expected step 0 of {start.shape}")
    if field.dtype != start.dtype or not np.array_equal(field[0].view(np.uint64), start.view(np.uint64)):
        fail("the frame at step 0 differs from the start file's field")
    print(f"  diffusion: the frame at step 0 equals /temperature of the start file bit for bit {start.shape}")
    c, u, done = float(d.attrs["c"]), start.copy(), 0
    for i, step in enumerate(steps):
        while done < step:
            u = u - c * laplacian(u)
            done += 1
        scale = np.abs(u).max()
        if np.abs(field[i] - u).max() > 1e-12 * scale:
            fail(f"step {step}: the frame differs from numpy's steps by {np.abs(field[i] - u).max():.3e}")
        if "laplacian" in d and np.abs(d["laplacian"][i] - laplacian(u)).max() > 1e-12 * scale:
            fail(f"step {step}: the Laplacian differs from 4u minus the neighbours of the frame")
    print(f"  diffusion: {len(steps)} frames (steps {steps[0]}..{steps[-1]}) follow u <- u - c L(u) from it")


def boundary_rules(text):
    """The /diffusion boundary attribute ("west dirichlet 1, east neumann, ...") as a dict."""
    rules = {}
    for part in text.split(", "):
        words = part.split()
        if words[1] == "convective":
            rules[words[0]] = ("convective", float(words[5]), float(words[3]))
        elif words[1] == "dirichlet":
            rules[words[0]] = ("dirichlet", float(words[2]), 0.0)
        else:
            rules[words[0]] = (words[1], 0.0, 0.0)
    return rules


def with_ghosts(u, c, rules):
    """u with one ghost cell on each side, by the boundary rules (corners unused)."""
    p = np.pad(u, 1)
    sides = {"west": (np.s_[1:-1, 0], u[:, 0], u[:, -1]), "east": (np.s_[1:-1, -1], u[:, -1], u[:, 0]),
             "south": (np.s_[0, 1:-1], u[0, :], u[-1, :]), "north": (np.s_[-1, 1:-1], u[-1, :], u[0, :])}
    for side, (ghost, edge, opposite) in sides.items():
        kind, value, h = rules[side]
        if kind == "convective":
            p[ghost] = edge + (h / c) * (value - edge)
        else:
            p[ghost] = {"dirichlet": value, "neumann": edge, "periodic": opposite}[kind]
    return p


def laplacian_with(u, c, rules, cx=None, cy=None):
    """L(u) with the ghosts; with c_x != c_y, A(u) = c_x (2u - W - E) + c_y (2u - S - N)
    (ghosts with each side's c), the step then being u - A(u) instead of u - c L(u)."""
    if cx is None or cx == cy:
        p = with_ghosts(u, c, rules)
        return 4 * u - (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])
    px, py = with_ghosts(u, cx, rules), with_ghosts(u, cy, rules)
    return cx * (2 * u - px[1:-1, :-2] - px[1:-1, 2:]) + cy * (2 * u - py[:-2, 1:-1] - py[2:, 1:-1])


def text_attribute(group, name):
    value = group.attrs[name]
    return value.decode() if isinstance(value, bytes) else str(value)


def field_change(u, c, rules, cf):
    """Sum over the 4 faces of c_ij (u_j - u), c_ij the harmonic mean (0 when both are 0)."""
    p = with_ghosts(u, c, rules)
    q = np.pad(cf, 1, mode="edge")  # a ghost has its edge cell's c (corners unused)
    change = np.zeros_like(u)
    for nu, nc in ((p[1:-1, :-2], q[1:-1, :-2]), (p[1:-1, 2:], q[1:-1, 2:]), (p[:-2, 1:-1], q[:-2, 1:-1]),
                   (p[2:, 1:-1], q[2:, 1:-1])):
        s = cf + nc
        face = np.where(s == 0, 0.0, 2 * cf * nc / np.where(s == 0, 1.0, s))
        change = change + face * (nu - u)
    return change


def diffusion_inclusion(out, data):
    d = out["diffusion"]
    rules = boundary_rules(text_attribute(d, "boundary"))
    words = text_attribute(d, "c_field").split(" ")
    with h5py.File(words[1], "r") as f:
        cf = f[words[3]][...].astype(np.float64)
    steps, field = d["step"][...], d["field"]
    u, done = field[0].astype(np.float64), 0
    for i, step in enumerate(steps):
        while done < step:
            u = u + field_change(u, 0.0, rules, cf)
            done += 1
        scale = np.abs(u).max()
        if np.abs(field[i] - u).max() > 1e-12 * scale:
            fail(f"step {step}: the frame differs from numpy's steps by {np.abs(field[i] - u).max():.3e}")
        if np.abs(d["laplacian"][i] + field_change(u, 0.0, rules, cf)).max() > 1e-12 * scale:
            fail(f"step {step}: the frame's A(u) differs from minus the faces' sum")
    print(f"  diffusion: {len(steps)} frames (steps {steps[0]}..{steps[-1]}) follow u + sum c_ij (u_j - u) with the "
          f"diffusivity of {words[1]} and the boundary {rules}")


def diffusion_plate(out, data):
    d = out["diffusion"]
    rules = boundary_rules(text_attribute(d, "boundary"))
    source = text_attribute(d, "source") if "source" in d.attrs else "none"
    if source.startswith("file "):
        words = source.split(" ")
        with h5py.File(words[1], "r") as f:
            s = f[words[3]][...].astype(np.float64)
    else:
        s = 0.0 if source == "none" else float(source)
    steps, field = d["step"][...], d["field"]
    c, u, done = float(d.attrs["c"]), field[0].astype(np.float64), 0
    cx = cy = None
    if "D" in d.attrs:  # physical units: c_x and c_y from the deck's D, dx, dy and dt
        D, dt, dx, dy = (float(d.attrs[k]) for k in ("D", "dt", "dx", "dy"))
        cx, cy = D * dt / dx**2, D * dt / dy**2
        if abs(cx - float(d.attrs["c_x"])) > 1e-15 or abs(cy - float(d.attrs["c_y"])) > 1e-15:
            fail(f"c_x, c_y are {d.attrs['c_x']}, {d.attrs['c_y']}, expected D dt/dx^2 = {cx}, D dt/dy^2 = {cy}")
    factor = 1.0 if cx is not None and cx != cy else c  # A(u) holds c_x and c_y already
    for i, step in enumerate(steps):
        while done < step:
            u = (u - factor * laplacian_with(u, c, rules, cx, cy)) + s
            done += 1
        scale = np.abs(u).max()
        if np.abs(field[i] - u).max() > 1e-12 * scale:
            fail(f"step {step}: the frame differs from numpy's steps by {np.abs(field[i] - u).max():.3e}")
        if np.abs(d["laplacian"][i] - laplacian_with(u, c, rules, cx, cy)).max() > 1e-12 * scale:
            fail(f"step {step}: the Laplacian differs from 4u minus the neighbours and ghosts of the frame")
    print(f"  diffusion: {len(steps)} frames (steps {steps[0]}..{steps[-1]}) follow the scheme with the boundary {rules}"
          f" and the source {source}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    name, output, data = sys.argv[1:]
    checks = {f.__name__: f for f in (knn_stations_csv, knn_points_h5, knn_match_stations, ridge_matrix_market, ridge_deblur,
                                               diffusion_start_file, diffusion_plate, diffusion_inclusion)}
    checks["diffusion_heated"] = checks["diffusion_units"] = diffusion_plate
    if name not in checks:
        sys.exit(f"check_example.py: no check for the deck '{name}'; known: {', '.join(checks)}")
    with h5py.File(output, "r") as out:
        status = out.attrs.get("status", "completed")
        status = status.decode() if isinstance(status, bytes) else str(status)
        if status != "completed":
            fail(f"{output}: status '{status}', expected 'completed'")
        checks[name](out, data)


if __name__ == "__main__":
    main()
