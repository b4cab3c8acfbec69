#!/usr/bin/env python3
"""Small .npy helper for the lit tests (pure Python, no NumPy).

  npytool.py write FILE DTYPE SHAPE VALUES   e.g. write x.npy f32 2,3 "1 2 3 4 5 6"
  npytool.py random FILE DTYPE SHAPE SEED [LO HI]
  npytool.py print FILE                      prints dtype, shape, values
  npytool.py raw FILE BYTES                  writes BYTES (Python escapes) as-is
  npytool.py compare A B RTOL                fails unless max |a - b| <= RTOL * max(1, max |b|)
  npytool.py relerr A REF LIMIT              fails unless max |a - ref| / max |ref| <= LIMIT
  npytool.py relerr-within A REF OTHER K     fails unless relerr(A, REF) <= K * relerr(OTHER, REF)
  npytool.py sum OUT A B...                  writes A + B + ... (same shapes, A's dtype)
"""
import ast
import random
import struct
import sys

CODES = {"f32": ("<f4", "f"), "f64": ("<f8", "d"), "i32": ("<i4", "i"),
         "i64": ("<i8", "q")}


def write(path, dtype, shape, values):
    descr, fmt = CODES[dtype]
    shape_text = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header += " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read(path):
    data = open(path, "rb").read()
    length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + length].decode())
    fmt = {v[0]: v[1] for v in CODES.values()}[header["descr"]]
    count = 1
    for s in header["shape"]:
        count *= s
    values = struct.unpack("<%d%s" % (count, fmt), data[10 + length:])
    return header["descr"], header["shape"], values


def shape_of(text):
    return [int(s) for s in text.split(",") if s != ""]


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(argv) >= 2 else 2)
    command = argv[1]
    if command == "write":
        dtype, shape = argv[3], shape_of(argv[4])
        conv = float if dtype.startswith("f") else int
        write(argv[2], dtype, shape, [conv(v) for v in argv[5].split()])
    elif command == "random":
        dtype, shape = argv[3], shape_of(argv[4])
        rng = random.Random(int(argv[5]))
        lo, hi = (float(argv[6]), float(argv[7])) if len(argv) > 7 else (-1.0, 1.0)
        count = 1
        for s in shape:
            count *= s
        if dtype.startswith("f"):
            values = [rng.uniform(lo, hi) for _ in range(count)]
        else:
            values = [rng.randrange(int(lo), int(hi)) for _ in range(count)]
        write(argv[2], dtype, shape, values)
    elif command == "print":
        descr, shape, values = read(argv[2])
        print(descr, tuple(shape))
        print(" ".join("%.9g" % v for v in values))
    elif command == "raw":
        with open(argv[2], "wb") as f:
            f.write(argv[3].encode("latin-1").decode("unicode_escape").encode("latin-1"))
    elif command == "compare":
        _, shape_a, a = read(argv[2])
        _, shape_b, b = read(argv[3])
        if tuple(shape_a) != tuple(shape_b):
            sys.exit("shapes differ: %s and %s" % (shape_a, shape_b))
        scale = max([1.0] + [abs(v) for v in b])
        worst = max([0.0] + [abs(x - y) for x, y in zip(a, b)])
        print("max abs difference %.3g, relative to %.3g: %.3g" % (worst, scale, worst / scale))
        if not worst <= float(argv[4]) * scale:
            sys.exit("beyond the tolerance %s" % argv[4])
    elif command == "relerr":
        error = relative_error(argv[2], argv[3])
        print("relative error %.3g" % error)
        if not error <= float(argv[4]):
            sys.exit("beyond the limit %s" % argv[4])
    elif command == "relerr-within":
        error = relative_error(argv[2], argv[3])
        other = relative_error(argv[4], argv[3])
        print("relative error %.3g, %.3g times that of %s (%.3g)" %
              (error, error / other if other else float("inf"), argv[4], other))
        if not error <= float(argv[5]) * other:
            sys.exit("beyond %s times the other's" % argv[5])
    elif command == "sum":
        descr, shape, total = read(argv[3])
        for path in argv[4:]:
            _, other_shape, values = read(path)
            if tuple(other_shape) != tuple(shape):
                sys.exit("shapes differ: %s and %s" % (shape, other_shape))
            total = [x + y for x, y in zip(total, values)]
        dtype = {v[0]: k for k, v in CODES.items()}[descr]
        write(argv[2], dtype, shape, total)
    else:
        sys.exit("unknown command " + command)


def relative_error(path, ref_path):
    """max |a - ref| / max |ref| over all components."""
    _, shape_a, a = read(path)
    _, shape_r, ref = read(ref_path)
    if tuple(shape_a) != tuple(shape_r):
        sys.exit("shapes differ: %s and %s" % (shape_a, shape_r))
    scale = max(abs(v) for v in ref)
    worst = max([0.0] + [abs(x - y) for x, y in zip(a, ref)])
    return worst / scale if scale else worst


if __name__ == "__main__":
    main(sys.argv)
