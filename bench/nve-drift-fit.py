"""The total energy's drift in a LAMMPS NVE log (examples/lammps/in.lammps).

    nve-drift-fit.py LOG ATOMS TIMESTEP_PS

Prints the least-squares slope of E_total(t) in eV/atom/ps, the largest
|E(t) - E(0)| per atom, and the temperature's range.
"""
import sys

import numpy as np


def main():
    log, atoms, dt = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    lines = open(log).read().splitlines()
    start = max(n for n, l in enumerate(lines)
                if l.split()[:5] == ["Step", "Temp", "PotEng", "KinEng", "TotEng"])
    rows = []
    for line in lines[start + 1:]:
        fields = line.split()
        if not fields or not fields[0].isdigit():
            break
        try:  # a log cut off mid-line ends the table
            row = [float(v) for v in fields[:6]]
        except ValueError:
            break
        if len(row) < 6:
            break
        rows.append(row[:5])
    rows = np.array(rows)
    t = rows[:, 0] * dt
    e = rows[:, 4] / atoms
    slope = np.polyfit(t, e, 1)[0]
    print(f"{int(rows[-1, 0])} steps ({t[-1]:.2f} ps): drift {slope:.3e} "
          f"eV/atom/ps, largest |E(t) - E(0)| {np.abs(e - e[0]).max():.3e} "
          f"eV/atom, T {rows[:, 1].min():.0f}..{rows[:, 1].max():.0f} K")


if __name__ == "__main__":
    main()
