// Without a GPU driver the GPU paths fail with a clear error, not a loader
// failure or a crash; an artifact that has CPU code runs it instead.
// REQUIRES: runtime
// UNSUPPORTED: cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool write %t/v.npy f32 2,3 "1 2 3 4 5 6"
// RUN: not sezm-run %s --device gpu --input v=%t/v.npy 2>&1 | FileCheck %s
// CHECK: error: {{.*}}no CUDA driver: libcuda.so.1 cannot be loaded
// An artifact with GPU code alone; and the GPU's host library alone, whose
// constructor asks for the driver.
// RUN: sezm-compile %s --target gpu -o %t/gpu.sezm
// RUN: not sezm-exec %t/gpu.sezm --input v=%t/v.npy 2>&1 | FileCheck %s --check-prefix=GPUONLY
// RUN: not sezm-run %t/gpu.sezm --input v=%t/v.npy 2>&1 | FileCheck %s --check-prefix=GPUONLY
// GPUONLY: error: {{.*}}gpu.sezm: no CUDA driver: libcuda.so.1 cannot be loaded {{.*}}; and it has no CPU code (compile it with --target cpu or all)
// RUN: sezm-compile %s --emit=lib -o %t/model.so
// RUN: not sezm-exec %t/model.so --input v=%t/v.npy 2>&1 | FileCheck %s
// The default artifact runs on the CPU here, unless the GPU is asked for.
// RUN: sezm-compile %s -o %t/model.sezm
// RUN: sezm-exec %t/model.sezm --input v=%t/v.npy --output-dir %t/out | FileCheck %s --check-prefix=CPU
// CPU: @main ran on the CPU in {{[0-9.]+}} ms
// CPU-NEXT: env: float32 (2,)
// RUN: %npytool print %t/out/env.npy | FileCheck %s --check-prefix=ENV
// ENV: 0.351769{{[0-9]*}} 0
// RUN: not sezm-exec %t/model.sezm --device gpu --input v=%t/v.npy 2>&1 | FileCheck %s
// RUN: not sezm-run %t/model.sezm --device gpu --input v=%t/v.npy 2>&1 | FileCheck %s
// The MD-engine example (libsezm_runtime's device-resident entry) opens the
// model first, for its type_map and rcut, and stops there at the driver.
// RUN: not sezm-md-example %t/gpu.sezm %sezm_src_root/examples/water/water-box.xyz 2>&1 | FileCheck %s --check-prefix=EXAMPLE
// RUN: not sezm-md-example %t/model.sezm %sezm_src_root/examples/water/water-box.xyz --device gpu 2>&1 | FileCheck %s --check-prefix=EXAMPLE
// EXAMPLE: sezm-md-example: {{.*}}no CUDA driver: libcuda.so.1 cannot be loaded

func.func @main(%v: tensor<?x3xf32> {sezm.name = "v"})
    -> (tensor<?xf32> {sezm.name = "env"}) {
  %e = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf32>) -> tensor<?xf32>
  return %e : tensor<?xf32>
}
