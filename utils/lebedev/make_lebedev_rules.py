#!/usr/bin/env python3
"""Derives the Lebedev rules sezm needs and writes them as a C++ table.

    make_lebedev_rules.py > lib/Support/LebedevRules.inc

A Lebedev rule integrates every polynomial of degree <= its precision over
the unit sphere exactly, with points in orbits of the octahedral group O_h:
  a1: the 6 points (+-1, 0, 0)...         a2: the 12 (0, +-s, +-s), s = 1/sqrt2
  a3: the 8 (+-t, +-t, +-t), t = 1/sqrt3  b(l): the 24 (+-l, +-l, +-m), 2l^2 + m^2 = 1
  c(p): the 24 (+-p, +-q, 0), p^2 + q^2 = 1
  d(r, s): the 48 (+-r, +-s, +-u), r^2 + s^2 + u^2 = 1
every point of an orbit carrying its weight. A rule is its orbit structure
(how many orbits of each kind, from Lebedev's papers); the orbit parameters
and weights are the solution of the moment equations: for every monomial
x^2a y^2b z^2c of degree <= precision (odd ones vanish by symmetry; the
orbits make the sum symmetric in x, y, z), sum_i w_i p_i = its mean over
the sphere, (2a-1)!!(2b-1)!!(2c-1)!!/(2a+2b+2c+1)!!. This script solves
them with damped Gauss-Newton from seeded starts, keeps a solution whose
residual is at rounding level (the 74-point rule has a negative weight),
polishes it in 50-digit arithmetic, and prints
the orbits with 17 significant digits. The weights sum to 1 (multiply by
4 pi for the sphere's area). unittests/Support/LebedevTest.cpp checks that
every rule integrates every real spherical harmonic up to its precision to
1e-13.

DeePMD-kit's DPA4 picks the smallest rule of precision >= 3 lmax: lmax 1..6
need precisions 3, 7, 9, 13, 15 and 19 (there is no rule of precision 6,
12 or 18). Python with numpy, and mpmath for the final 50-digit polish.
"""
import itertools
import math
import sys

import numpy as np

# precision -> orbit structure (counts of a1, a2, a3, b, c, d orbits)
STRUCTURES = {
    3: (1, 0, 0, 0, 0, 0),    # 6 points
    5: (1, 0, 1, 0, 0, 0),    # 14
    7: (1, 1, 1, 0, 0, 0),    # 26
    9: (1, 0, 1, 0, 1, 0),    # 38
    11: (1, 1, 1, 1, 0, 0),   # 50
    13: (1, 1, 1, 1, 1, 0),   # 74
    15: (1, 0, 1, 2, 1, 0),   # 86
    17: (1, 0, 1, 3, 1, 0),   # 110
    19: (1, 1, 1, 3, 0, 1),   # 146
}


def double_factorial(n):
    return 1 if n <= 0 else n * double_factorial(n - 2)


def exponents(precision):
    """(a, b, c), a >= b >= c, of the even monomials of degree <= precision."""
    out = []
    for k in range(0, precision // 2 + 1):
        for a in range(k, -1, -1):
            for b in range(min(a, k - a), -1, -1):
                c = k - a - b
                if 0 <= c <= b:
                    out.append((a, b, c))
    return out


def sphere_mean(a, b, c):
    return (double_factorial(2 * a - 1) * double_factorial(2 * b - 1) *
            double_factorial(2 * c - 1) / double_factorial(2 * (a + b + c) + 1))


ORBIT_SIZES = {"a1": 6, "a2": 12, "a3": 8, "b": 24, "c": 24, "d": 48}


def squared_perms(point):
    """The distinct permutations of (x^2, y^2, z^2) of a generator point: an
    even monomial has one value on all signed points of a permutation, and
    each distinct permutation stands for orbit size / their number of them."""
    return np.array(sorted(set(itertools.permutations(tuple(v * v for v in point)))))


def generators(kinds, params):
    """Generator points of each orbit from the free parameters."""
    points, k = [], 0
    for kind in kinds:
        if kind == "a1":
            points.append((1.0, 0.0, 0.0))
        elif kind == "a2":
            points.append((0.0, math.sqrt(0.5), math.sqrt(0.5)))
        elif kind == "a3":
            t = math.sqrt(1 / 3)
            points.append((t, t, t))
        elif kind == "b":
            l = params[k]; k += 1
            points.append((l, l, math.sqrt(max(0.0, 1 - 2 * l * l))))
        elif kind == "c":
            p = params[k]; k += 1
            points.append((p, math.sqrt(max(0.0, 1 - p * p)), 0.0))
        elif kind == "d":
            r, s = params[k], params[k + 1]; k += 2
            points.append((r, s, math.sqrt(max(0.0, 1 - r * r - s * s))))
    return points


def residuals(kinds, x, powers, means):
    nparams = len(x) - len(kinds)
    points = generators(kinds, x[:nparams])
    total = np.zeros(len(means))
    for kind, point, w in zip(kinds, points, x[nparams:]):
        sq = squared_perms(point)                       # (p, 3)
        values = np.prod(sq[None, :, :] ** powers[:, None, :], axis=2)
        total += w * values.sum(axis=1) * ORBIT_SIZES[kind] / len(sq)
    return total - means


def solve(precision, seed):
    counts = STRUCTURES[precision]
    kinds = (["a1"] * counts[0] + ["a2"] * counts[1] + ["a3"] * counts[2] +
             ["b"] * counts[3] + ["c"] * counts[4] + ["d"] * counts[5])
    powers = np.array(exponents(precision), dtype=float)
    means = np.array([sphere_mean(*map(int, e)) for e in powers])
    rng = np.random.default_rng(seed)
    params = []
    for kind in kinds:
        if kind == "b":
            params.append(rng.uniform(0.05, 0.69))
        elif kind == "c":
            params.append(rng.uniform(0.05, 0.70))
        elif kind == "d":
            r = rng.uniform(0.05, 0.5)
            params += [r, rng.uniform(r, math.sqrt((1 - r * r) / 2))]
    npoints = sum(ORBIT_SIZES[k] for k in kinds)
    x = np.array(params + [1.0 / npoints] * len(kinds))
    damping = 1e-3
    for _ in range(300):
        f = residuals(kinds, x, powers, means)
        cost = f @ f
        if cost < 1e-33:
            break
        jac = np.empty((len(f), len(x)))
        for j in range(len(x)):
            step = 1e-7 * max(1.0, abs(x[j]))
            moved = x.copy(); moved[j] += step
            jac[:, j] = (residuals(kinds, moved, powers, means) - f) / step
        improved = False
        while damping < 1e8:
            lhs = jac.T @ jac + damping * np.diag(np.diag(jac.T @ jac) + 1e-12)
            trial = x - np.linalg.solve(lhs, jac.T @ f)
            g = residuals(kinds, trial, powers, means)
            if g @ g < cost:
                x, damping, improved = trial, max(damping / 3, 1e-12), True
                break
            damping *= 4
        if not improved:
            break  # at rounding level, or stuck
    f = residuals(kinds, x, powers, means)
    nparams = len(x) - len(kinds)
    weights = x[nparams:]
    points = generators(kinds, x[:nparams])
    if np.abs(f).max() > 1e-16:
        return None
    for point in points:
        if any(not (0 <= v <= 1) for v in point) or abs(sum(v * v for v in point) - 1) > 1e-14:
            return None
    # Distinct orbits: no two generators with the same squares.
    keys = {tuple(np.round(squared_perms(p)[0], 12)) for p in points}
    if len(keys) != len(points):
        return None
    return kinds, points, weights


def polish(kinds, points, weights, precision):
    """Gauss-Newton in 50-digit arithmetic from the float solution: the
    moment equations of the larger rules are ill-conditioned, and a float
    solve leaves errors near 1e-12 in the harmonics' means."""
    import mpmath
    mpmath.mp.dps = 50
    exps = exponents(precision)
    means = [mpmath.mpf(double_factorial(2 * a - 1) * double_factorial(2 * b - 1)
                        * double_factorial(2 * c - 1))
             / double_factorial(2 * (a + b + c) + 1) for a, b, c in exps]
    params = []
    for kind, point in zip(kinds, points):
        if kind in ("b", "c"):
            params.append(mpmath.mpf(point[0]))
        elif kind == "d":
            params += [mpmath.mpf(point[0]), mpmath.mpf(point[1])]
    x = params + [mpmath.mpf(w) for w in weights]
    nparams = len(params)

    def gens(x):
        out, k = [], 0
        for kind in kinds:
            if kind == "a1":
                out.append((1, 0, 0))
            elif kind == "a2":
                out.append((0, mpmath.mpf(1) / 2, mpmath.mpf(1) / 2))
            elif kind == "a3":
                out.append((mpmath.mpf(1) / 3,) * 3)
            elif kind == "b":
                l2 = x[k] ** 2; k += 1
                out.append((l2, l2, 1 - 2 * l2))
            elif kind == "c":
                p2 = x[k] ** 2; k += 1
                out.append((p2, 1 - p2, 0))
            else:
                r2, s2 = x[k] ** 2, x[k + 1] ** 2; k += 2
                out.append((r2, s2, 1 - r2 - s2))
        return out  # squared coordinates

    def resid(x):
        sq = gens(x)
        out = []
        for (a, b, c), mean in zip(exps, means):
            total = mpmath.mpf(0)
            for kind, q, w in zip(kinds, sq, x[nparams:]):
                perms = set(itertools.permutations(q))
                total += w * sum(p[0] ** a * p[1] ** b * p[2] ** c for p in perms) \
                    * ORBIT_SIZES[kind] / len(perms)
            out.append(total - mean)
        return mpmath.matrix(out)

    for _ in range(8):
        f = resid(x)
        jac = mpmath.matrix(len(f), len(x))
        for j in range(len(x)):
            moved = list(x); moved[j] += mpmath.mpf("1e-30")
            g = resid(moved)
            for i in range(len(f)):
                jac[i, j] = (g[i] - f[i]) / mpmath.mpf("1e-30")
        step = mpmath.lu_solve(jac.T * jac, jac.T * f)
        x = [x[j] - step[j] for j in range(len(x))]
    worst = max(abs(v) for v in resid(x))
    if worst > mpmath.mpf("1e-40"):
        sys.exit(f"precision {precision}: the 50-digit polish stalled at {worst}")
    sq = gens(x)
    polished = [tuple(float(mpmath.sqrt(v)) for v in q) for q in sq]
    # Keep each generator's own coordinate order (a2 is (0, s, s)).
    return polished, [float(w) for w in x[nparams:]]


def main():
    print("// Generated by utils/lebedev/make_lebedev_rules.py: do not edit.")
    print("// Lebedev rules as orbits of the octahedral group: kind, generator")
    print("// point, weight (the weights of a rule's points sum to 1).")
    for precision in sorted(STRUCTURES):
        for seed in range(1000):
            found = solve(precision, seed)
            if found:
                break
        else:
            sys.exit(f"no solution for precision {precision}")
        kinds, points, weights = found
        points, weights = polish(kinds, points, weights, precision)
        total = sum(ORBIT_SIZES[k] for k in kinds)
        print(f"// precision {precision}: {total} points (seed {seed})")
        print(f"SEZM_LEBEDEV_RULE({precision}, {total})")
        for kind, point, w in zip(kinds, points, weights):
            p = ", ".join(f"{v:.17g}" for v in point)
            print(f"SEZM_LEBEDEV_ORBIT({precision}, {kind[0].upper()}, {p}, {w:.17g})")


if __name__ == "__main__":
    main()
