// Without a GPU driver the GPU paths fail with a clear error, not a loader
// failure or a crash.
// REQUIRES: runtime
// UNSUPPORTED: cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool write %t/v.npy f32 2,3 "1 2 3 4 5 6"
// RUN: not sezm-run %s --device gpu --input v=%t/v.npy 2>&1 | FileCheck %s
// The artifact: its host library is loaded from memory, whose constructor
// asks for the driver; and the host library alone.
// RUN: sezm-compile %s -o %t/model.sezm
// RUN: not sezm-exec %t/model.sezm --input v=%t/v.npy 2>&1 | FileCheck %s
// RUN: not sezm-run %t/model.sezm --input v=%t/v.npy 2>&1 | FileCheck %s
// RUN: sezm-compile %s --emit=lib -o %t/model.so
// RUN: not sezm-exec %t/model.so --input v=%t/v.npy 2>&1 | FileCheck %s
// CHECK: error: {{.*}}no CUDA driver: libcuda.so.1 cannot be loaded
// The MD-engine example (libsezm_runtime alone) opens the model first, for
// its type_map and rcut, and stops there at the driver.
// RUN: not sezm-md-example %t/model.sezm %sezm_src_root/examples/water/water-box.xyz 2>&1 | FileCheck %s --check-prefix=EXAMPLE
// EXAMPLE: sezm-md-example: {{.*}}no CUDA driver: libcuda.so.1 cannot be loaded

func.func @main(%v: tensor<?x3xf32> {sezm.name = "v"})
    -> (tensor<?xf32> {sezm.name = "env"}) {
  %e = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf32>) -> tensor<?xf32>
  return %e : tensor<?xf32>
}
