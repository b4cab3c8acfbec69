"""The total energy's largest change over an NVE run in a LAMMPS log.

    nve-drift.py LOG ATOMS LIMIT

Reads the thermo table of examples/lammps/in.lammps (step temp pe ke etotal
press) and fails when the largest |E(t) - E(0)| per atom exceeds LIMIT (eV).
"""
import sys


def main():
    log, atoms, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    lines = open(log).read().splitlines()
    start = next(n for n, l in enumerate(lines)
                 if l.split()[:5] == ["Step", "Temp", "PotEng", "KinEng", "TotEng"])
    totals = []
    for line in lines[start + 1:]:
        fields = line.split()
        if not fields or not fields[0].isdigit():
            break
        totals.append(float(fields[4]))
    change = max(abs(e - totals[0]) for e in totals) / atoms
    print(f"{len(totals)} thermo rows, largest total-energy change "
          f"{'within' if change <= limit else 'BEYOND'} {limit:g} eV/atom")
    print(f"largest change {change:.3g} eV/atom", file=sys.stderr)
    sys.exit(0 if change <= limit else 1)


if __name__ == "__main__":
    main()
