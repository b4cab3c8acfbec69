#!/usr/bin/env python3
"""Writes, for every entry folder of a case folder made by the execution
tests (SEZM_GPU_CASES=<dir> SeZMExecutionTests), a module.mlir holding only
that entry's function (after whatever precedes the first function), so that
a tool compiling a whole module per run (sezm-run --verify) compiles one
function per entry instead of all of them.

  split-cases.py CASES_DIR
"""
import os
import re
import sys


def split(text):
    """The text before the first top-level function and each function's
    text by name."""
    starts = [m.start() for m in re.finditer(r"^func\.func ", text, re.M)]
    prelude = text[:starts[0]] if starts else text
    by_name = {}
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        body = text[start:end]
        by_name[re.match(r"func\.func @([\w.$-]+)", body).group(1)] = body
    return prelude, by_name


def main(cases):
    for test in sorted(os.listdir(cases)):
        path = os.path.join(cases, test, "module.mlir")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            prelude, by_name = split(f.read())
        for entry, body in by_name.items():
            folder = os.path.join(cases, test, entry)
            if os.path.isdir(folder):
                with open(os.path.join(folder, "module.mlir"), "w") as f:
                    f.write(prelude + body)


if __name__ == "__main__":
    main(sys.argv[1])
