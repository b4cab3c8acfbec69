"""The total energy's drift in a LAMMPS NVE log (examples/lammps/in.lammps).

    nve-drift-fit.py LOG ATOMS TIMESTEP_PS [--limit EV_PER_ATOM]

Reads the thermo table (step temp pe ke etotal press; a log cut off
mid-line ends it) and prints the least-squares slope of E_total(t) in
eV/atom/ps, the largest |E(t) - E(0)| per atom, and the temperature's
range. With --limit it prints whether that largest change is within the
limit and fails beyond it (test/LAMMPS/pair-sezm.test).
"""
import sys

import numpy as np


def thermo_rows(log):
    lines = open(log).read().splitlines()
    start = max(n for n, l in enumerate(lines)
                if l.split()[:5] == ["Step", "Temp", "PotEng", "KinEng", "TotEng"])
    rows = []
    for line in lines[start + 1:]:
        fields = line.split()
        if not fields or not fields[0].isdigit():
            break
        try:
            row = [float(v) for v in fields[:6]]
        except ValueError:
            break
        if len(row) < 6:
            break
        rows.append(row[:5])
    return np.array(rows)


def main():
    log, atoms, dt = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    rows = thermo_rows(log)
    e = rows[:, 4] / atoms
    change = np.abs(e - e[0]).max()
    if "--limit" in sys.argv:
        limit = float(sys.argv[sys.argv.index("--limit") + 1])
        print(f"{len(rows)} thermo rows, largest total-energy change "
              f"{'within' if change <= limit else 'BEYOND'} {limit:g} eV/atom")
        print(f"largest change {change:.3g} eV/atom", file=sys.stderr)
        sys.exit(0 if change <= limit else 1)
    t = rows[:, 0] * dt
    slope = np.polyfit(t, e, 1)[0]
    print(f"{int(rows[-1, 0])} steps ({t[-1]:.2f} ps): drift {slope:.3e} "
          f"eV/atom/ps, largest |E(t) - E(0)| {change:.3e} "
          f"eV/atom, T {rows[:, 1].min():.0f}..{rows[:, 1].max():.0f} K")


if __name__ == "__main__":
    main()
