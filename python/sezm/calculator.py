"""An ASE calculator over a sezm-compiled model.

    from sezm.calculator import SeZMCalculator
    atoms.calc = SeZMCalculator("model.sezm")
    atoms.get_potential_energy(); atoms.get_forces(); atoms.get_stress()
    atoms.get_potential_energies()      # with sezm-compile --per-atom

Species are mapped by name through the model's type_map; the neighbour
list is ASE's within the model's rcut (periodic images included along the
periodic axes), put in sezm's order (by centre, neighbour, image) and
handed to the runtime as an edge list.
"""
import numpy as np
from ase.calculators.calculator import Calculator, all_changes
from ase.neighborlist import neighbor_list

from .runtime import Model


class SeZMCalculator(Calculator):
    implemented_properties = ["energy", "free_energy", "forces", "stress",
                              "energies", "stresses"]

    def __init__(self, model, device="auto", **kwargs):
        super().__init__(**kwargs)
        self.model = model if isinstance(model, Model) else Model(model, device)
        self.type_map = self.model.type_map
        if not self.type_map:
            raise ValueError("the model states no type_map: compile a "
                             "DeePMD-kit checkpoint, or a module with "
                             "sezm.type_map")

    def calculate(self, atoms=None, properties=("energy",),
                  system_changes=all_changes):
        super().calculate(atoms, properties, system_changes)
        atoms = self.atoms
        symbols = atoms.get_chemical_symbols()
        missing = sorted(set(symbols) - set(self.type_map))
        if missing:
            raise ValueError(f"species {', '.join(missing)} not in the "
                             f"model's type_map ({', '.join(self.type_map)})")
        types = np.array([self.type_map.index(s) for s in symbols], np.int32)
        centre, neighbour, vectors, images = neighbor_list(
            "ijDS", atoms, self.model.rcut)
        # sezm's own order (by centre, neighbour, then periodic image), so
        # that every sum over edges runs as in sezm-run.
        order = np.lexsort((images[:, 2], images[:, 1], images[:, 0],
                            neighbour, centre))
        edge_index = np.stack([neighbour[order], centre[order]]).astype(np.int64)
        vectors = vectors[order]
        out = self.model.compute(atoms.get_positions(), types, edge_index,
                                 vectors, ntypes=len(self.type_map))
        self.results["energy"] = self.results["free_energy"] = out["energy"]
        self.results["forces"] = out["forces"]
        if atoms.cell.rank == 3:
            volume = atoms.get_volume()
            # Stress is minus the virial over the volume (Voigt order).
            stress = -out["virial"] / volume
            self.results["stress"] = stress.flat[[0, 4, 8, 5, 2, 1]]
            if "atom_virial" in out:
                per = -out["atom_virial"] / volume
                self.results["stresses"] = per.reshape(-1, 9)[
                    :, [0, 4, 8, 5, 2, 1]]
        if "atom_energy" in out:
            self.results["energies"] = out["atom_energy"]
