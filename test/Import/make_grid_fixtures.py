#!/usr/bin/env python3
"""References for sezm's S2-grid constants, from DeePMD-kit 3.2.0 itself.

    make_grid_fixtures.py test/Import/fixtures   (needs deepmd-kit)

Writes, into the fixtures folder:
  s2grid-vectors.npy      (20, 3)   seeded directions, some not unit length
  s2grid-harmonics.npy    (20, 49)  DeePMD-kit's real spherical harmonics
                                    (e3nn "norm" convention) up to lmax 6
  s2grid-l<L>-{a,b}.npy   ((L+1)^2, 4) seeded coefficients, lmax 1..6
  s2grid-l<L>-product.npy ((L+1)^2, 4) DeePMD-kit's S2GridProjector (its
                                    Lebedev rule for L): from_grid(to_grid(a)
                                    * to_grid(b)), the S2 GLU FFN's product
  so3grid-l<L>-k<K>-{a,b}.npy ((L+1)^2 (2K+1), 4) seeded frame-packed
                                    coefficients (frames 0, -1, 1, ..; zero
                                    where |k| > l), for (L, K) in SO3_GRIDS
  so3grid-l<L>-k<K>-product.npy     DeePMD-kit's SO3GridProjector product
The products are exact on any rule of precision >= 3L (and, on SO(3), with
more than 3K rotations about the local axis), so sezm's own rules must give
them to rounding (unittests/SphereGridTest.cpp).
"""
import os
import sys

import numpy as np
from deepmd.dpmodel.descriptor.dpa4_nn.projection import (S2GridProjector,
                                                         SO3GridProjector)
from deepmd.dpmodel.utils.lebedev import LEBEDEV_PRECISION_TO_NPOINTS
from deepmd.dpmodel.utils.spherical_harmonics import real_spherical_harmonics


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(2026)
    vectors = rng.normal(size=(20, 3)) * rng.uniform(0.5, 2.0, size=(20, 1))
    np.save(os.path.join(out, "s2grid-vectors.npy"), vectors)
    np.save(os.path.join(out, "s2grid-harmonics.npy"),
            real_spherical_harmonics(vectors, 6))
    for lmax in range(1, 7):
        precision = min(p for p in LEBEDEV_PRECISION_TO_NPOINTS if p >= 3 * lmax)
        projector = S2GridProjector(
            lmax=lmax, mmax=lmax, precision="float64",
            grid_resolution_list=[precision, LEBEDEV_PRECISION_TO_NPOINTS[precision]],
            grid_method="lebedev")
        a = rng.normal(size=((lmax + 1) ** 2, 4))
        b = rng.normal(size=((lmax + 1) ** 2, 4))
        grid = projector.to_grid(a[None]) * projector.to_grid(b[None])
        product = projector.from_grid(grid)[0]
        for name, value in (("a", a), ("b", b), ("product", product)):
            np.save(os.path.join(out, f"s2grid-l{lmax}-{name}.npy"), value)
        print(f"lmax {lmax}: precision {precision}, "
              f"{projector.to_grid_mat.shape[0]} points, "
              f"|product| max {np.abs(product).max():.3f}")

    for lmax, kmax in SO3_GRIDS:
        projector = SO3GridProjector(lmax=lmax, kmax=kmax, precision="float64")
        frames = [0] + [f for k in range(1, kmax + 1) for f in (-k, k)]
        # Frame coefficients outside |k| <= l are not part of the field.
        support = np.array([[abs(f) <= l for f in frames]
                            for l in range(lmax + 1)
                            for _ in range(2 * l + 1)], float).reshape(-1, 1)
        a = rng.normal(size=(support.size, 4)) * support
        b = rng.normal(size=(support.size, 4)) * support
        grid = projector.to_grid(a[None]) * projector.to_grid(b[None])
        product = projector.from_grid(grid)[0]
        for name, value in (("a", a), ("b", b), ("product", product)):
            np.save(os.path.join(out, f"so3grid-l{lmax}-k{kmax}-{name}.npy"),
                    value)
        print(f"SO(3) lmax {lmax} kmax {kmax}: "
              f"{projector.to_grid_mat.shape[0]} points, "
              f"|product| max {np.abs(product).max():.3f}")


# The SO(3) grids the DPA4 configs use (DPA4-Mini: lmax 2, kmax 1) and a
# few more.
SO3_GRIDS = [(1, 1), (2, 1), (3, 1), (2, 2), (4, 1)]


if __name__ == "__main__":
    main()
