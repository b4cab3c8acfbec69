#!/usr/bin/env python3
"""Counts the instructions of each loop in a kernel's SASS.

Reads the text that `nvdisasm -c KERNEL.cubin` prints (ptxas for the
cubin: `ptxas -arch=sm_90 KERNEL.ptx -o KERNEL.cubin`, the PTX from
`sezm-compile --emit=ptx`) and, for every backward branch (a loop), prints
how many of its instructions are FFMAs, workgroup loads and stores, global
loads, local-memory (spill) loads and stores, integer arithmetic and
barriers. A GEMM's depth loop is the long one; its FFMA share bounds how
close the kernel can come to the FP32 peak when it issues one instruction
per cycle.
  sass_loops.py KERNEL.sass [...]
"""
import re
import sys

CLASSES = [
    ("FFMA", r"\bFFMA\b"),
    ("LDS", r"\bLDS\b"),
    ("STS", r"\bSTS\b"),
    ("LDG", r"\bLDG\b"),
    ("LDL", r"\bLDL\b"),
    ("STL", r"\bSTL\b"),
    ("int", r"\b(IMAD|IADD3|LEA|ISETP|VIMNMX|SEL|SHF|LOP3)\b"),
    ("BAR", r"\bBAR\b"),
]


def loops(path):
    """(first, last, instructions) of each loop, in program order."""
    instructions, labels = [], {}
    for line in open(path):
        label = re.match(r"^\s*(\.L_x_\d+):", line)
        if label:
            labels[label.group(1)] = len(instructions)
            continue
        code = re.match(r"^\s*/\*[0-9a-f]+\*/\s+(.*?);", line)
        if code:
            instructions.append(code.group(1))
    for index, text in enumerate(instructions):
        branch = re.search(r"\bBRA\s+(?:`\()?(\.L_x_\d+)", text)
        if branch and labels.get(branch.group(1), index + 1) < index:
            first = labels[branch.group(1)]
            yield first, index, instructions[first:index + 1]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        for first, last, body in loops(path):
            counts = {name: sum(1 for text in body if re.search(pattern, text))
                      for name, pattern in CLASSES}
            share = 100.0 * counts["FFMA"] / len(body)
            print(f"{path}: loop {first}-{last}: {len(body)} instructions, "
                  f"FFMA share {share:.0f} %, " +
                  ", ".join(f"{name} {count}" for name, count in counts.items()))


if __name__ == "__main__":
    main()
