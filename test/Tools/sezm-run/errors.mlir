// Bad input of every kind gets a plain-English error that names it, and a
// non-zero exit; nothing runs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool write %t/x.npy f32 3,1,2 "1 2 3 4 5 6"
// RUN: %npytool write %t/src.npy i64 4 "2 0 2 1"
// RUN: %npytool write %t/w.npy f32 4,1,1 "1 2 -1 0.5"
// RUN: %npytool write %t/order.npy i64 4 "1 3 0 2"
// RUN: %npytool write %t/rowptr.npy i64 4 "0 1 2 4"
// RUN: %npytool write %t/x64.npy f64 3,1,2 "1 2 3 4 5 6"
// RUN: %npytool write %t/xrank.npy f32 3,2 "1 2 3 4 5 6"
// RUN: %npytool write %t/src_far.npy i64 4 "2 0 3 1"
// RUN: %npytool write %t/src_neg.npy i32 4 "2 0 -1 1"
// RUN: %npytool write %t/w5.npy f32 5,1,1 "1 2 3 4 5"
// RUN: %npytool write %t/order_twice.npy i64 4 "1 3 3 2"
// RUN: %npytool write %t/rowptr_short.npy i64 4 "0 1 2 3"
// RUN: %npytool write %t/rowptr_down.npy i64 4 "0 2 1 4"
// RUN: %npytool raw %t/garbage.npy "hello"
// RUN: %npytool raw %t/truncated.npy "\x93NUMPY\x01\x00\x46\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3, 1, 2), }        \n\x00\x00"
// RUN: %npytool raw %t/fortran.npy "\x93NUMPY\x01\x00\x45\x00{'descr': '<f4', 'fortran_order': True, 'shape': (3, 1, 2), }        \n"
// RUN: %npytool raw %t/big_endian.npy "\x93NUMPY\x01\x00\x46\x00{'descr': '>f4', 'fortran_order': False, 'shape': (3, 1, 2), }        \n"
// RUN: echo "func.func @main() { %%0 = sezm.wigner }" > %t/broken.mlir
// RUN: %npytool write %t/x_nan.npy f32 3,1,2 "1 2 3 nan 5 6"
// RUN: %npytool write %t/x_inf.npy f32 3,1,2 "1 2 3 4 -inf 6"
// RUN: %python -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 8)" > %t/random.bin
// RUN: printf 'not an artifact' > %t/model.sezm

// RUN: not sezm-run %s --entry main --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: missing --input for argument 'rowptr' (int64 (?,)) of @main

// RUN: not sezm-run %s --entry main --input x=%t/x.npy --input source=%t/src.npy 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: --input source={{.*}}: @main has no argument 'source' (its arguments: x, src, wigner, order, rowptr)

// RUN: not sezm-run %s --entry main --input x=%t/x.npy --input x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: --input x={{.*}}: argument 'x' is bound twice

// RUN: not sezm-run %s --entry main --input x 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: error: --input x: expected name=file.npy

// RUN: not sezm-run %s --entry main --input x=%t/x64.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: input 'x' (float32 (?, 1, 2)) was given float64 (3, 1, 2)

// RUN: not sezm-run %s --entry main --input x=%t/xrank.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: error: input 'x' (float32 (?, 1, 2)) was given float32 (3, 2)

// RUN: not sezm-run %s --entry main --input x=%t/x.npy --input src=%t/src_far.npy --input wigner=%t/w.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy 2>&1 | FileCheck %s --check-prefix=NODE
// NODE: error: input 'src' (operand 'src' of sezm.rotate at {{.*}}errors.mlir:{{[0-9]+}}:8): entry 2 is 3, not a node index in [0, 3)

// RUN: not sezm-run %s --entry narrow --input src=%t/src_neg.npy --input x=%t/x.npy --input wigner=%t/w.npy 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: input 'src' (operand 'src' of sezm.rotate at {{.*}}): entry 2 is -1, not a node index in [0, 3)

// RUN: not sezm-run %s --entry main --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w5.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy 2>&1 | FileCheck %s --check-prefix=EDGES
// EDGES: error: inputs disagree on the graph size E of sezm.rotate at {{.*}}: 'src' (dimension 0 is 4) gives E = 4, 'wigner' (dimension 0 is 5) gives E = 5

// RUN: not sezm-run %s --entry main --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order_twice.npy --input rowptr=%t/rowptr.npy 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: error: input 'order' (operand 'order' of sezm.segment_reduce at {{.*}}): entry 2 is 3; a CSR order must list each edge 0..3 exactly once

// RUN: not sezm-run %s --entry main --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order.npy --input rowptr=%t/rowptr_short.npy 2>&1 | FileCheck %s --check-prefix=ROWPTR
// ROWPTR: error: input 'rowptr' (operand 'rowptr' of sezm.segment_reduce at {{.*}}): row pointers must start at 0 and end at the edge count E = 4

// RUN: not sezm-run %s --entry main --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order.npy --input rowptr=%t/rowptr_down.npy 2>&1 | FileCheck %s --check-prefix=DOWN
// DOWN: error: input 'rowptr' (operand 'rowptr' of sezm.segment_reduce at {{.*}}): row pointers must not decrease, but entry 2 is 1 after 2

// RUN: not sezm-run %s --entry main --input x=%t/garbage.npy 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: error: input 'x': {{.*}}garbage.npy: not a NumPy .npy file (bad magic)

// RUN: not sezm-run %s --entry main --input x=%t/truncated.npy 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: error: input 'x': {{.*}}truncated.npy: truncated .npy data: expected 24 bytes, found {{[0-9]}}

// RUN: not sezm-run %s --entry main --input x=%t/fortran.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: error: input 'x': {{.*}}fortran.npy: Fortran-ordered arrays are not supported (save in C order)

// RUN: not sezm-run %s --entry main --input x=%t/big_endian.npy 2>&1 | FileCheck %s --check-prefix=ENDIAN
// ENDIAN: error: input 'x': {{.*}}big_endian.npy: unsupported element type '>f4' (expected little-endian float32, float64, int32 or int64)

// RUN: not sezm-run %s --entry main --input x=%t/nowhere.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: input 'x': {{.*}}nowhere.npy: cannot open the file

// RUN: not sezm-run %s --entry nothing 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: no function 'nothing' in the module (public functions: main, narrow)

// RUN: not sezm-run %s 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: error: the module has 2 public functions (main, narrow); name the entry function with --entry

// RUN: not sezm-run %s --device tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: --device tpu: expected cpu or gpu

// RUN: not sezm-run %s --device gpu --chip sm_75 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: unsupported chip 'sm_75' (supported: sm_80, sm_86, sm_89, sm_90)

// NaN or Inf in an input is refused before anything runs.
// RUN: not sezm-run %s --entry main --input x=%t/x_nan.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: error: input 'x': element 3 is NaN; inputs must be finite numbers
// RUN: not sezm-run %s --entry main --input x=%t/x_inf.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy 2>&1 | FileCheck %s --check-prefix=INF
// INF: error: input 'x': element 4 is -Inf; inputs must be finite numbers

// Bytes that are no module, or a file named as an artifact, get the
// artifact error rather than being parsed (and echoed) as MLIR.
// RUN: not sezm-run %t/random.bin 2>&1 | FileCheck %s --check-prefix=RANDOM
// RANDOM: error: {{.*}}random.bin: byte 0: not a sezm artifact (it does not begin with "SEZMART")
// RANDOM-NOT: func
// RUN: not sezm-run %t/model.sezm 2>&1 | FileCheck %s --check-prefix=NAMED
// NAMED: error: {{.*}}model.sezm: byte 0: not a sezm artifact (it does not begin with "SEZMART")

// RUN: not sezm-run %t/broken.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: broken.mlir:1:{{[0-9]+}}: error:

// RUN: not sezm-run %t/absent.mlir 2>&1 | FileCheck %s --check-prefix=NOMODULE
// NOMODULE: error: cannot open input file '{{.*}}absent.mlir'

func.func @main(%x: tensor<?x1x2xf32> {sezm.name = "x"},
                %src: tensor<?xi64> {sezm.name = "src"},
                %w: tensor<?x1x1xf32> {sezm.name = "wigner"},
                %order: tensor<?xi64> {sezm.name = "order"},
                %rowptr: tensor<?xi64> {sezm.name = "rowptr"})
    -> tensor<?x1x2xf32> {
  %m = sezm.rotate %x[%src] by %w lmax = 0
      : (tensor<?x1x2xf32>, tensor<?xi64>, tensor<?x1x1xf32>) -> tensor<?x1x2xf32>
  %n = sezm.segment_reduce %m over(%order, %rowptr)
      : (tensor<?x1x2xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x1x2xf32>
  return %n : tensor<?x1x2xf32>
}

func.func @narrow(%x: tensor<?x1x2xf32> {sezm.name = "x"},
                  %src: tensor<?xi32> {sezm.name = "src"},
                  %w: tensor<?x1x1xf32> {sezm.name = "wigner"})
    -> tensor<?x1x2xf32> {
  %m = sezm.rotate %x[%src] by %w lmax = 0
      : (tensor<?x1x2xf32>, tensor<?xi32>, tensor<?x1x1xf32>) -> tensor<?x1x2xf32>
  return %m : tensor<?x1x2xf32>
}
