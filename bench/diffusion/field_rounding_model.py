#!/usr/bin/env python3
"""What a float32 diffusivity field's step loses to rounding, in three orders of its sum.

A model in NumPy, not trident's bits: the step of src/diffusion/detail/stencil_field.hpp on a
periodic N x N grid, two materials (c OUTSIDE around a disc of 0.01; 0.2 as
tests/diffusion/test_c_field.cpp's, 0.25 the stable limit), faces by harmonic means; float32
with each fused multiply-add rounded once (computed in float64, rounded to float32). The
orders:

  differences  u + ((c_W (W - u) + c_E (E - u)) + c_S (S - u)) + c_N (N - u)   (trident's)
  sum - C u    u + (c_N N + (c_S S + (c_E E + (c_W W - C u))))                  (6 operations)
  (1 - C) u    c_N N + (c_S S + (c_E E + (c_W W + (1 - C) u)))                  (5 operations)

with C the sum of a cell's faces, kept beside them. Against the same steps in float64 (the
differences), it prints the largest and the mean error after STEPS steps, in units of float32's
spacing at the field's level, for a field of OFFSET plus a small ripple (a temperature in
kelvin), for the same field held uniform (any change is rounding alone), and for a uniform field
under a c scattered from cell to cell, which only the differences keep exactly uniform.

    bench/diffusion/field_rounding_model.py [N [STEPS [OFFSET [OUTSIDE]]]]    (default 128 4000 300 0.2)
"""
import sys

import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 128
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
offset = float(sys.argv[3]) if len(sys.argv) > 3 else 300.0
outside = float(sys.argv[4]) if len(sys.argv) > 4 else 0.2
f32 = np.float32


def fma(a, b, c):
    """a * b + c rounded once to float32 (the product of two float32 values is exact in float64)."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(f32)


def faces(c):
    """Each cell's west, east, south and north faces: harmonic means, periodic."""
    def mean(a, b):
        s = a + b
        return np.where(s == 0, 0.0, 2 * a * b / np.where(s == 0, 1, s))
    return (mean(c, np.roll(c, 1, 1)), mean(c, np.roll(c, -1, 1)), mean(c, np.roll(c, 1, 0)),
            mean(c, np.roll(c, -1, 0)))


def neighbours(u):
    return np.roll(u, 1, 1), np.roll(u, -1, 1), np.roll(u, 1, 0), np.roll(u, -1, 0)


def step_differences(u, fw, fe, fs, fn):
    w, e, s, no = neighbours(u)
    west_east = fma(fe, e - u, fw * (w - u))
    return u + fma(fn, no - u, fma(fs, s - u, west_east))


def step_sum_less_c(u, fw, fe, fs, fn, total):
    w, e, s, no = neighbours(u)
    return u + fma(fn, no, fma(fs, s, fma(fe, e, fma(fw, w, -total * u))))


def step_one_less_c(u, fw, fe, fs, fn, keep):
    w, e, s, no = neighbours(u)
    return fma(fn, no, fma(fs, s, fma(fe, e, fma(fw, w, keep * u))))


def run(u0, c):
    fw, fe, fs, fn = (x.astype(f32) for x in faces(c.astype(f32).astype(np.float64)))
    total = ((fw + fe) + fs) + fn  # float32, as field_faces would keep it
    keep = f32(1) - total
    exact = u0.astype(f32).astype(np.float64)
    fw64, fe64, fs64, fn64 = (x.astype(np.float64) for x in (fw, fe, fs, fn))
    forms = {"differences": u0.astype(f32), "sum - C u": u0.astype(f32), "(1 - C) u": u0.astype(f32)}
    for _ in range(steps):
        w, e, s, no = neighbours(exact)
        exact = exact + (((fw64 * (w - exact) + fe64 * (e - exact)) + fs64 * (s - exact)) + fn64 * (no - exact))
        forms["differences"] = step_differences(forms["differences"], fw, fe, fs, fn)
        forms["sum - C u"] = step_sum_less_c(forms["sum - C u"], fw, fe, fs, fn, total)
        forms["(1 - C) u"] = step_one_less_c(forms["(1 - C) u"], fw, fe, fs, fn, keep)
    spacing = float(np.spacing(f32(offset)))
    for name, u in forms.items():
        error = np.abs(u.astype(np.float64) - exact) / spacing
        print(f"  {name:12s} largest {error.max():10.2f}  mean {error.mean():10.3f}  (float32 spacings)")


def main():
    y, x = np.mgrid[0:n, 0:n]
    c = np.where((x - n / 2) ** 2 + (y - n / 2) ** 2 < (n / 5) ** 2, 0.01, outside)
    ripple = np.random.default_rng(41).uniform(0, 0.01, (n, n))
    print(f"{n} x {n}, {steps} steps, c {outside} and 0.01; float32 spacing at {offset}: {np.spacing(f32(offset)):.3g}")
    print(f"a field of {offset} + uniform [0, 0.01):")
    run(offset + ripple, c)
    print(f"a uniform field of {offset}:")
    run(np.full((n, n), offset), c)
    scattered = np.random.default_rng(43).uniform(0.02, 0.22, (n, n))
    print(f"a uniform field of {offset}, c scattered in [0.02, 0.22) (every face its own):")
    run(np.full((n, n), offset), scattered)


main()
