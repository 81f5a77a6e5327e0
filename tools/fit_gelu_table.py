"""Fits the table of Note [Exact gelu from the normal tail] (vec_erf.inc): on 32
equal intervals of [0, 6.5], a degree-6 polynomial in (t - center) for
Phi(-t) = erfc(t / sqrt 2) / 2, minimising the relative error (least squares at
Chebyshev nodes, reweighted towards minimax). Prints the C++ table rows, one
per coefficient (constant first), and the largest relative error of the
float32-rounded coefficients. The AVX2 table (8 lanes, one permute per
coefficient) is 8 intervals of [0, 4] at degree 7 in the interval's own unit
coordinate y = (t - center) / width in [-1/2, 1/2] (`unit`): with a width of 0.5
the kernel gets y exactly from 2t - 1/2 and its rounding to an integer (2.0e-7):

    python3 tools/fit_gelu_table.py                # AVX-512: 32 6.5 6
    python3 tools/fit_gelu_table.py 8 4.0 7 unit   # AVX2
"""

import sys

import mpmath as mp
import numpy as np


def main():
    args = sys.argv[1:]
    INTERVALS, END, DEGREE = (int(args[0]), float(args[1]), int(args[2])) if args else (32, 6.5, 6)
    unit = len(args) > 3 and args[3] == "unit"
    mp.mp.dps = 30
    w = END / INTERVALS
    rows, worst = [], 0.0
    for k in range(INTERVALS):
        c = (k + 0.5) * w
        t = c + (w / 2) * np.cos(np.pi * (np.arange(200) + 0.5) / 200)
        f = np.array([float(mp.ncdf(-x)) for x in t])
        z = (t - c) / w if unit else t - c
        m = np.stack([z**j for j in range(DEGREE + 1)], 1)
        weight = np.ones_like(t)
        for _ in range(40):  # Lawson: weight by the error to approach minimax
            s = np.sqrt(weight) / f
            coef, *_ = np.linalg.lstsq(m * s[:, None], f * s, rcond=None)
            err = np.abs(m @ coef.astype(np.float32).astype(np.float64) / f - 1)
            weight = weight * err / np.sum(weight * err)
        worst = max(worst, err.max())
        rows.append(coef.astype(np.float32))
    rows = np.array(rows)
    for j in range(DEGREE + 1):
        print("    {" + ", ".join(f"{v:.9g}f" for v in rows[:, j]) + "},")
    print(f"// largest relative error: {worst:.2g}")


if __name__ == "__main__":
    main()
