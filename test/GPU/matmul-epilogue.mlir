// A tiled matmul whose product only an elementwise op reads: the strategy
// room fuses it into that op (the matmul `fused`, the op the GEMM with its
// payload as the epilogue), and the lowering writes one kernel, which
// stores what the payload yields instead of the product.
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy | FileCheck %s --check-prefix=CHOICE
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels | FileCheck %s --check-prefix=KERNEL
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels --verify-diagnostics -o /dev/null

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#column = affine_map<(d0, d1) -> (d1)>

// The product times a per-row scale (an envelope) plus a per-column bias:
// the scale and the bias read at each output's row and column, the product
// never written.
// CHOICE-LABEL: func.func @scaled
// CHOICE: linalg.matmul {{.*}}kernel_config<strategy = fused, kernel = "tiled_matmul_epilogue">
// CHOICE: linalg.generic {{.*}}kernel_config<strategy = microkernel, kernel = "tiled_matmul_epilogue", blocks_per_sm = 2, workgroup_tile = [128, 64, 16], thread_tile = [8, 4]>
// KERNEL-LABEL: func.func @scaled
// KERNEL: gpu.launch {{.*}} function(@tiled_matmul_epilogue)
// KERNEL: %[[SCALE:.*]] = memref.load %{{.*}} : memref<?xf32>
// KERNEL: %[[BIAS:.*]] = memref.load %{{.*}} : memref<64xf32>
// KERNEL: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// KERNEL: %[[SUM:.*]] = arith.addf %[[SCALED]], %[[BIAS]] : f32
// KERNEL: memref.store %[[SUM]], %{{.*}} : memref<?x64xf32>
// KERNEL-NOT: gpu.launch
// KERNEL-NOT: linalg
// KERNEL: return
func.func @scaled(%x: tensor<?x32xf32>, %w: tensor<32x64xf32>,
                  %scale: tensor<?xf32>, %bias: tensor<64xf32>)
    -> tensor<?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x32xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %p = linalg.matmul ins(%x, %w : tensor<?x32xf32>, tensor<32x64xf32>)
      outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.generic {indexing_maps = [#rows, #row, #column, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %scale, %bias : tensor<?x64xf32>, tensor<?xf32>, tensor<64xf32>)
      outs(%e : tensor<?x64xf32>) {
  ^bb0(%a: f32, %s: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    %r = arith.addf %m, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>

// Two products multiplied (a grid product): the first input's product is
// fused, the second is a kernel of its own that the epilogue reads.
// CHOICE-LABEL: func.func @two_products
// CHOICE: linalg.matmul {{.*}}strategy = fused
// CHOICE: linalg.matmul {{.*}}strategy = microkernel, kernel = "tiled_matmul"
// CHOICE: linalg.generic {{.*}}kernel = "tiled_matmul_epilogue"
// KERNEL-LABEL: func.func @two_products
// KERNEL: function(@tiled_matmul)
// KERNEL: function(@tiled_matmul_epilogue)
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @two_products(%x: tensor<?x32xf32>, %wl: tensor<32x64xf32>,
                        %wr: tensor<32x64xf32>) -> tensor<?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x32xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %l = linalg.matmul ins(%x, %wl : tensor<?x32xf32>, tensor<32x64xf32>)
      outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  %r = linalg.matmul ins(%x, %wr : tensor<?x32xf32>, tensor<32x64xf32>)
      outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.generic {indexing_maps = [#rows, #rows, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%l, %r : tensor<?x64xf32>, tensor<?x64xf32>)
      outs(%e : tensor<?x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// As the elementwise conversion writes it: the product is also the init
// (whose value the payload does not read) and a constant is a scalar input.
// CHOICE-LABEL: func.func @in_place
// CHOICE: linalg.matmul {{.*}}strategy = fused
// CHOICE: linalg.generic {{.*}}kernel = "tiled_matmul_epilogue"
// KERNEL-LABEL: func.func @in_place
// KERNEL: function(@tiled_matmul_epilogue)
// KERNEL: %[[SCALED:.*]] = arith.mulf %{{.*}}, %cst{{.*}} : f32
// KERNEL: %[[TANH:.*]] = math.tanh %[[SCALED]] : f32
// KERNEL: memref.store %[[TANH]], %{{.*}} : memref<?x64xf32>
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @in_place(%x: tensor<?x32xf32>, %w: tensor<32x64xf32>)
    -> tensor<?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x32xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %p = linalg.matmul ins(%x, %w : tensor<?x32xf32>, tensor<32x64xf32>)
      outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.generic {indexing_maps = [#rows, #scalar, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %half : tensor<?x64xf32>, f32) outs(%p : tensor<?x64xf32>) {
  ^bb0(%a: f32, %h: f32, %o: f32):
    %m = arith.mulf %a, %h : f32
    %t = math.tanh %m : f32
    linalg.yield %t : f32
  } -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>

// A product's backward (sezm-fuse-elementwise's siblings: da = g * b and
// db = g * a in one generic) where g is a product: the GEMM's epilogue
// reads g twice as its sum and stores both results.
// CHOICE-LABEL: func.func @two_results
// CHOICE: linalg.matmul {{.*}}strategy = fused
// CHOICE: linalg.generic {{.*}}kernel = "tiled_matmul_epilogue"
// KERNEL-LABEL: func.func @two_results
// KERNEL: function(@tiled_matmul_epilogue)
// KERNEL: %[[B:.*]] = memref.load %{{.*}} : memref<?x64xf32>
// KERNEL: %[[A:.*]] = memref.load %{{.*}} : memref<?x64xf32>
// KERNEL: %[[DA:.*]] = arith.mulf %[[SUM:.*]], %[[B]] : f32
// KERNEL: %[[DB:.*]] = arith.mulf %[[SUM]], %[[A]] : f32
// KERNEL: memref.store %[[DA]]
// KERNEL: memref.store %[[DB]]
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @two_results(%x: tensor<?x32xf32>, %w: tensor<32x64xf32>,
                       %a: tensor<?x64xf32>, %b: tensor<?x64xf32>)
    -> (tensor<?x64xf32>, tensor<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x32xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %g = linalg.matmul ins(%x, %w : tensor<?x32xf32>, tensor<32x64xf32>)
      outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  %d:2 = linalg.generic {indexing_maps = [#rows, #rows, #rows, #rows, #rows, #rows],
                         iterator_types = ["parallel", "parallel"]}
      ins(%g, %b, %g, %a : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>)
      outs(%g, %e : tensor<?x64xf32>, tensor<?x64xf32>) {
  ^bb0(%g0: f32, %b0: f32, %g1: f32, %a1: f32, %o0: f32, %o1: f32):
    %da = arith.mulf %g0, %b0 : f32
    %db = arith.mulf %g1, %a1 : f32
    linalg.yield %da, %db : f32, f32
  } -> (tensor<?x64xf32>, tensor<?x64xf32>)
  return %d#0, %d#1 : tensor<?x64xf32>, tensor<?x64xf32>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, d1)>
#swapped = affine_map<(d0, d1) -> (d1, d0)>

// What stays two kernels: a product read elsewhere too (the backward keeps
// it), one read through a transpose, a payload that reads the output's
// init, and a product narrower than the tiled GEMM takes.
// CHOICE-LABEL: func.func @refused
// CHOICE-NOT: strategy = fused
// CHOICE-NOT: tiled_matmul_epilogue
// CHOICE: return
func.func @refused(%x: tensor<?x32xf32>, %w: tensor<32x64xf32>,
                   %sq: tensor<64x32xf32>, %w8: tensor<32x4xf32>,
                   %acc: tensor<?x64xf32>)
    -> (tensor<?x64xf32>, tensor<?x64xf32>, tensor<64x64xf32>,
        tensor<?x64xf32>, tensor<?x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x32xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %kept = linalg.matmul ins(%x, %w : tensor<?x32xf32>, tensor<32x64xf32>)
      outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  %twice = linalg.generic {indexing_maps = [#rows, #rows],
                           iterator_types = ["parallel", "parallel"]}
      ins(%kept : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<?x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %square = linalg.matmul ins(%sq, %w : tensor<64x32xf32>, tensor<32x64xf32>)
      outs(%init2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %transposed = linalg.generic {indexing_maps = [#swapped, #rows],
                                iterator_types = ["parallel", "parallel"]}
      ins(%square : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %summed = linalg.matmul ins(%x, %w : tensor<?x32xf32>, tensor<32x64xf32>)
      outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  %accumulated = linalg.generic {indexing_maps = [#rows, #rows],
                                 iterator_types = ["parallel", "parallel"]}
      ins(%summed : tensor<?x64xf32>) outs(%acc : tensor<?x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<?x64xf32>
  %e8 = tensor.empty(%n) : tensor<?x4xf32>
  %init8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %narrow = linalg.matmul ins(%x, %w8 : tensor<?x32xf32>, tensor<32x4xf32>)
      outs(%init8 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %scaled = linalg.generic {indexing_maps = [#rows, #rows],
                            iterator_types = ["parallel", "parallel"]}
      ins(%narrow : tensor<?x4xf32>) outs(%e8 : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<?x4xf32>
  return %kept, %twice, %transposed, %accumulated, %scaled
      : tensor<?x64xf32>, tensor<?x64xf32>, tensor<64x64xf32>,
        tensor<?x64xf32>, tensor<?x4xf32>
}
