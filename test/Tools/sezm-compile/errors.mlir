// RUN: rm -rf %t && mkdir -p %t
// RUN: not sezm-compile %s -o %t/model.so --chip sm_75 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: unsupported chip 'sm_75' (supported: sm_80, sm_86, sm_89, sm_90)

// RUN: echo "func.func private @nothing()" > %t/empty.mlir
// RUN: not sezm-compile %t/empty.mlir -o %t/model.so 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: {{.*}}empty.mlir: the module has no public function

// RUN: not sezm-compile %t/absent.mlir -o %t/model.so 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: cannot open input file '{{.*}}absent.mlir'

// The host library (the artifact's host.so section) carries a packed entry
// and the manifest of its signature.
// RUN: sezm-compile %s --emit=lib -o %t/model.so
// RUN: nm -D %t/model.so | FileCheck %s --check-prefix=SYMBOLS
// SYMBOLS-DAG: T _sezm_packed_main
// SYMBOLS-DAG: R sezm_manifest
// SYMBOLS-DAG: U mgpuLaunchKernel

func.func @main(%v: tensor<?x3xf32> {sezm.name = "v"})
    -> (tensor<?xf32> {sezm.name = "env"}) {
  %e = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf32>) -> tensor<?xf32>
  return %e : tensor<?xf32>
}
