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
The product is exact on any rule of precision >= 3L, so sezm's own rules
must give it to rounding (unittests/SphereGridTest.cpp).
"""
import os
import sys

import numpy as np
from deepmd.dpmodel.descriptor.dpa4_nn.projection import S2GridProjector
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


if __name__ == "__main__":
    main()
