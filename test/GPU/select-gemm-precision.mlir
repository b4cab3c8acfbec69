// gemm-precision=tf32x3: the GEMM-tiled microkernels over fp32 record split
// precision and the tensor-core tiles (8 warps of 32 x columns/2 over the
// same block of outputs, slices of 8 depths, two blocks a multiprocessor);
// fp64 GEMMs and every other kernel stay as they
// are.
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy=gemm-precision=tf32x3 | FileCheck %s
// RUN: not sezm-opt %s --split-input-file --sezm-select-lowering-strategy=gemm-precision=bf16x3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: error: sezm-select-lowering-strategy: gemm-precision=bf16x3: expected ieee or tf32x3

// SeZM-min with forces: split precision pays on the tensor cores from 48
// FLOP a byte of a row (2 K N over 4 (K + N)), which of its GEMMs only the
// SO(2) linears' m = +-1 product reaches (192 x 192: 48); their m = 0
// product (128 x 128: 32), every matmul and the rest stay as with IEEE
// (test/GPU/select-lowering-strategy.mlir).
// RUN: sezm-opt %S/../../examples/sezm-min/model.mlir --sezm-pipeline="target=gpu forces-of=energy gemm-precision=tf32x3" --mlir-print-ir-after=sezm-select-lowering-strategy -o /dev/null 2>&1 | sed -n 's/.*= \(sezm\.[a-z_0-9]*\|linalg\.[a-z_0-9]*\).*kernel_config<\([^>]*\)>.*/\1 \2/p' | sort | uniq -c | FileCheck %s --check-prefix=MIN
// MIN: 1 linalg.generic strategy = microkernel, kernel = "tiled_matmul_epilogue", blocks_per_sm = 2, workgroup_tile = [128, 128, 16], thread_tile = [8, 8]
// MIN-NEXT: 1 linalg.generic strategy = microkernel, kernel = "tiled_matmul_epilogue", blocks_per_sm = 2, workgroup_tile = [64, 64, 16], thread_tile = [4, 4]
// MIN-NEXT: 1 linalg.generic strategy = microkernel, kernel = "tiled_matmul_epilogue", blocks_per_sm = 4, workgroup_tile = [128, 32, 16], thread_tile = [4, 4]
// MIN-NEXT: 3 linalg.matmul strategy = fused, kernel = "tiled_matmul_epilogue"
// MIN-NEXT: 1 linalg.matmul strategy = microkernel, kernel = "long_matmul"
// MIN-NEXT: 3 linalg.matmul strategy = microkernel, kernel = "narrow_matmul"
// MIN-NEXT: 5 linalg.matmul strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [128, 128, 16], thread_tile = [8, 8]
// MIN-NOT: tf32x3
// MIN: 5 sezm.degree_linear strategy = microkernel, kernel = "degree_linear", blocks_per_sm = 2, workgroup_tile = [64, 32, 16], thread_tile = [2, 4]
// MIN-NEXT: 6 sezm.degree_linear strategy = microkernel, kernel = "degree_linear", blocks_per_sm = 2, workgroup_tile = [64, 64, 16], thread_tile = [4, 4]
// MIN: 2 sezm.envelope_aggregate_grad strategy = microkernel, kernel = "envelope_aggregate_grad"
// MIN: 8 sezm.gate strategy = microkernel, kernel = "gate", blocks_per_sm = 16
// MIN-NEXT: 4 sezm.gate_grad strategy = microkernel, kernel = "gate_grad", blocks_per_sm = 4, workgroup_tile = [128, 32, 16], thread_tile = [4, 4]
// MIN: 10 sezm.rotate_mix strategy = microkernel, kernel = "rotate_mix", blocks_per_sm = 8
// MIN: 12 sezm.so2_linear strategy = microkernel, kernel = "so2_linear", blocks_per_sm = 2, workgroup_tile = [128, 128, 16, 128, 96, 8], thread_tile = [8, 8], precision = [ieee, tf32x3], warp_tile = [32, 48]
// MIN-NEXT: 6 sezm.so2_linear_grad strategy = microkernel, kernel = "so2_linear_grad", blocks_per_sm = 2, workgroup_tile = [128, 128, 16, 128, 96, 8], thread_tile = [8, 8], precision = [ieee, tf32x3], warp_tile = [32, 48]

// A product from 48 FLOP a byte of a row (256 x 256: 64) takes the tensor
// cores.
// CHECK-LABEL: func.func @matmul_f32
// CHECK: linalg.matmul {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [128, 128, 8], precision = tf32x3, warp_tile = [32, 64]>}
func.func @matmul_f32(%a: tensor<?x256xf32>, %b: tensor<256x256xf32>,
                      %init: tensor<?x256xf32>) -> tensor<?x256xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<?x256xf32>, tensor<256x256xf32>)
      outs(%init : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}

// -----

// A shallower one (64 deep: 26 FLOP a byte) stays IEEE, where the
// tensor-core blocks lose to the CUDA cores.
// CHECK-LABEL: func.func @matmul_f32_shallow
// CHECK: linalg.matmul {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [128, 128, 16], thread_tile = [8, 8]>}
func.func @matmul_f32_shallow(%a: tensor<?x64xf32>, %b: tensor<64x256xf32>,
                              %init: tensor<?x256xf32>) -> tensor<?x256xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x256xf32>)
      outs(%init : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}

// -----

// fp64 stays on the CUDA cores, staging 8 depths a slice: 16 would take
// 72 KB of workgroup memory, past the 48 KB a kernel may have.
// CHECK-LABEL: func.func @matmul_f64
// CHECK: linalg.matmul {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [128, 128, 8], thread_tile = [8, 8]>}
func.func @matmul_f64(%a: tensor<?x64xf64>, %b: tensor<64x256xf64>,
                      %init: tensor<?x256xf64>) -> tensor<?x256xf64> {
  %y = linalg.matmul ins(%a, %b : tensor<?x64xf64>, tensor<64x256xf64>)
      outs(%init : tensor<?x256xf64>) -> tensor<?x256xf64>
  return %y : tensor<?x256xf64>
}
