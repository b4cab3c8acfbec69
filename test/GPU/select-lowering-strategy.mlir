// The strategy room's choices, recorded as each op's sezm.kernel_config.
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy | FileCheck %s
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels --verify-diagnostics -o /dev/null

// The SO(2) workload of bench/: every op on a microkernel.
// RUN: sezm-opt %S/../../bench/so2_kernels.mlir --sezm-pipeline="target=gpu" --mlir-print-ir-after=sezm-select-lowering-strategy -o /dev/null 2>&1 | sed -n 's/.*= \(sezm\.[a-z_0-9]*\|linalg\.[a-z_0-9]*\).*kernel_config<\([^>]*\)>.*/\1 \2/p' | sort | uniq -c | FileCheck %s --check-prefix=SO2
// SO2: 3 sezm.rotate_mix strategy = microkernel, kernel = "rotate_mix", blocks_per_sm = 8
// SO2-NEXT: 1 sezm.rotate_mix_grad strategy = microkernel, kernel = "rotate_mix_grad"
// SO2-NEXT: 2 sezm.rotate_mix_grad_reduce strategy = microkernel, kernel = "rotate_mix_grad_reduce", blocks_per_sm = 2
// SO2-NEXT: 1 sezm.segment_reduce strategy = microkernel, kernel = "segment_reduce"
// SO2-NOT: strategy

// SeZM-min with forces: the SO(2) path, the energy sum and the virial on
// microkernels (with the aggregation's backward, the focus scale and its
// backward, the competition's backward, the gates and their backward, one
// warp per edge), the
// dense products (the matmuls over edges and atoms, the
// SO(2) linears and their input gradients, the degree linears, the gates'
// input gradients' l = 0 rows) on the tiled GEMM, the matmuls onto fewer
// than 16 columns (the focus logits) one warp per row, the rest on loops. The GEMM's column tile follows the product's columns (256 -> 128,
// 25 -> 32; 32 -> 32 with 8 threads across, 256 rows, 8 x 4 sums;
// a product over edges that memory bounds (under 16 FLOP a byte of a row)
// on 4 rows of sums a thread at 4 blocks a multiprocessor; a
// degree linear's over atoms on 64 rows, and so a product whose rows are
// the atoms' (the readout's and the fitting net's); a product that only an
// elementwise op reads is fused into that op's kernel, its epilogue); an
// SO(2) linear records one tile per product (m = 0, 128 columns -> 128;
// m = +-1, 192 -> 96), a gate's backward its l = 0 row's (32, on 256
// rows).
// RUN: sezm-opt %S/../../examples/sezm-min/model.mlir --sezm-pipeline="target=gpu forces-of=energy" --mlir-print-ir-after=sezm-select-lowering-strategy -o /dev/null 2>&1 | sed -n 's/.*= \(sezm\.[a-z_0-9]*\|linalg\.[a-z_0-9]*\).*kernel_config<\([^>]*\)>.*/\1 \2/p' | sort | uniq -c | FileCheck %s --check-prefix=MIN
// MIN: 1 linalg.generic strategy = microkernel, kernel = "tiled_matmul_epilogue", blocks_per_sm = 2, workgroup_tile = [128, 128, 16], thread_tile = [8, 8]
// MIN-NEXT: 1 linalg.generic strategy = microkernel, kernel = "tiled_matmul_epilogue", blocks_per_sm = 2, workgroup_tile = [64, 64, 16], thread_tile = [4, 4]
// MIN-NEXT: 1 linalg.generic strategy = microkernel, kernel = "tiled_matmul_epilogue", blocks_per_sm = 4, workgroup_tile = [128, 32, 16], thread_tile = [4, 4]
// MIN-NEXT: 3 linalg.matmul strategy = fused, kernel = "tiled_matmul_epilogue"
// MIN-NEXT: 1 linalg.matmul strategy = microkernel, kernel = "long_matmul"
// MIN-NEXT: 3 linalg.matmul strategy = microkernel, kernel = "narrow_matmul"
// MIN-NEXT: 5 linalg.matmul strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [128, 128, 16], thread_tile = [8, 8]
// MIN-NEXT: 1 linalg.matmul strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [64, 128, 16], thread_tile = [4, 8]
// MIN-NEXT: 2 linalg.matmul strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [64, 64, 16], thread_tile = [4, 4]
// MIN-NEXT: 2 linalg.matmul strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 4, workgroup_tile = [128, 32, 16], thread_tile = [4, 4]
// MIN-NEXT: 4 linalg.matmul strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 4, workgroup_tile = [64, 128, 16], thread_tile = [4, 8]
// MIN-NEXT: 1 linalg.matmul strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 4, workgroup_tile = [64, 16, 16], thread_tile = [4, 1]
// MIN-NEXT: 4 linalg.matmul strategy = microkernel, kernel = "tiled_matmul", blocks_per_sm = 4, workgroup_tile = [64, 32, 16], thread_tile = [4, 2]
// MIN-NEXT: 2 linalg.reduce strategy = microkernel, kernel = "full_sum"
// MIN: 5 sezm.degree_linear strategy = microkernel, kernel = "degree_linear", blocks_per_sm = 2, workgroup_tile = [64, 32, 16], thread_tile = [2, 4]
// MIN-NEXT: 6 sezm.degree_linear strategy = microkernel, kernel = "degree_linear", blocks_per_sm = 2, workgroup_tile = [64, 64, 16], thread_tile = [4, 4]
// MIN: 2 sezm.envelope_aggregate_grad strategy = microkernel, kernel = "envelope_aggregate_grad"
// MIN: 4 sezm.focus_compete strategy = loops, kernel = "focus_compete"
// MIN-NEXT: 2 sezm.focus_compete_grad strategy = microkernel, kernel = "focus_compete_grad"
// The focus scales and their backward fold into the aggregation (forward and
// backward), sezm-fuse-focus-scale.
// MIN-NOT: sezm.focus_scale
// MIN: 8 sezm.gate strategy = microkernel, kernel = "gate", blocks_per_sm = 16
// MIN-NEXT: 4 sezm.gate_grad strategy = microkernel, kernel = "gate_grad", blocks_per_sm = 4, workgroup_tile = [128, 32, 16], thread_tile = [4, 4]
// MIN: 10 sezm.rotate_mix strategy = microkernel, kernel = "rotate_mix", blocks_per_sm = 8
// MIN-NEXT: 1 sezm.rotate_mix_grad strategy = microkernel, kernel = "rotate_mix_grad"
// MIN-NEXT: 1 sezm.rotate_mix_grad_reduce strategy = microkernel, kernel = "rotate_mix_grad_reduce", blocks_per_sm = 2
// MIN-NEXT: 4 sezm.segment_reduce strategy = microkernel, kernel = "segment_reduce"
// MIN-NEXT: 1 sezm.segment_reduce_grad strategy = microkernel, kernel = "segment_reduce_grad"
// MIN-NEXT: 12 sezm.so2_linear strategy = microkernel, kernel = "so2_linear", blocks_per_sm = 2, workgroup_tile = [128, 128, 16, 128, 96, 16], thread_tile = [8, 8, 8, 6]
// MIN-NEXT: 6 sezm.so2_linear_grad strategy = microkernel, kernel = "so2_linear_grad", blocks_per_sm = 2, workgroup_tile = [128, 128, 16, 128, 96, 16], thread_tile = [8, 8, 8, 6]

// -----

// The rows of a product, traced to the arguments' sezm.extents, choose its
// row tile: rows per atom, or a few per atom (a (N, 4, 32) tensor viewed as
// (4N, 32)), take 64-row blocks, so that 4096 atoms fill more than 16
// blocks; 8 per atom or more, and rows that trace to nothing named,
// 256-row blocks; rows per edge of a product that memory bounds (32 x 32
// weights, 8 FLOP a byte of a row), 4 rows of sums a thread at 4 blocks a
// multiprocessor.
// CHECK-LABEL: func.func @rows_by_extent
// CHECK: linalg.matmul {{.*}}kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [64, 32, 16], thread_tile = [2, 4]>} ins(%arg0,
// CHECK: linalg.matmul {{.*}}kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [64, 32, 16], thread_tile = [2, 4]>} ins(%collapsed,
// CHECK: linalg.matmul {{.*}}kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [256, 32, 16], thread_tile = [8, 4]>} ins(%collapsed_{{[0-9]+}},
// CHECK: linalg.matmul {{.*}}kernel = "tiled_matmul", blocks_per_sm = 4, workgroup_tile = [128, 32, 16], thread_tile = [4, 4]>} ins(%arg3,
// CHECK: linalg.matmul {{.*}}kernel = "tiled_matmul", blocks_per_sm = 2, workgroup_tile = [256, 32, 16], thread_tile = [8, 4]>} ins(%arg4,
func.func @rows_by_extent(
    %atoms: tensor<?x32xf32> {sezm.extents = ["N", ""]},
    %rows4: tensor<?x4x32xf32> {sezm.extents = ["N", "", ""]},
    %rows8: tensor<?x8x32xf32> {sezm.extents = ["N", "", ""]},
    %edges: tensor<?x32xf32> {sezm.extents = ["E", ""]},
    %unnamed: tensor<?x32xf32>, %w: tensor<32x32xf32>)
    -> (tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>,
        tensor<?x32xf32>, tensor<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %atoms, %c0 : tensor<?x32xf32>
  %e0 = tensor.empty(%n) : tensor<?x32xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %p0 = linalg.matmul ins(%atoms, %w : tensor<?x32xf32>, tensor<32x32xf32>)
      outs(%z0 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %f4 = tensor.collapse_shape %rows4 [[0, 1], [2]]
      : tensor<?x4x32xf32> into tensor<?x32xf32>
  %n4 = tensor.dim %f4, %c0 : tensor<?x32xf32>
  %e1 = tensor.empty(%n4) : tensor<?x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %p1 = linalg.matmul ins(%f4, %w : tensor<?x32xf32>, tensor<32x32xf32>)
      outs(%z1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %f8 = tensor.collapse_shape %rows8 [[0, 1], [2]]
      : tensor<?x8x32xf32> into tensor<?x32xf32>
  %n8 = tensor.dim %f8, %c0 : tensor<?x32xf32>
  %e2 = tensor.empty(%n8) : tensor<?x32xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %p2 = linalg.matmul ins(%f8, %w : tensor<?x32xf32>, tensor<32x32xf32>)
      outs(%z2 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %ne = tensor.dim %edges, %c0 : tensor<?x32xf32>
  %e3 = tensor.empty(%ne) : tensor<?x32xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %p3 = linalg.matmul ins(%edges, %w : tensor<?x32xf32>, tensor<32x32xf32>)
      outs(%z3 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %nu = tensor.dim %unnamed, %c0 : tensor<?x32xf32>
  %e4 = tensor.empty(%nu) : tensor<?x32xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %p4 = linalg.matmul ins(%unnamed, %w : tensor<?x32xf32>, tensor<32x32xf32>)
      outs(%z4 : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %p0, %p1, %p2, %p3, %p4 : tensor<?x32xf32>, tensor<?x32xf32>,
      tensor<?x32xf32>, tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// An SO(2) linear's m = +-1 product one 8 x 8 block wide (DPA4-Mini's 128
// columns) takes 8 x 4 sums on two column blocks; a wider one (the default
// DPA4's 384) keeps 8 x 8.
// CHECK-LABEL: func.func @so2_tiles
// CHECK: sezm.so2_linear {{.*}}workgroup_tile = [128, 96, 16, 128, 64, 16], thread_tile = [8, 6, 8, 4]>
// CHECK: sezm.so2_linear {{.*}}workgroup_tile = [128, 128, 16, 128, 128, 16], thread_tile = [8, 8, 8, 8]>
func.func @so2_tiles(%u: tensor<?x7x32xf32>, %w0: tensor<1x96x96xf32>,
                     %wu: tensor<1x64x64xf32>, %wv: tensor<1x64x64xf32>,
                     %v: tensor<?x10x64xf32>, %v0: tensor<1x256x256xf32>,
                     %vu: tensor<1x192x192xf32>, %vv: tensor<1x192x192xf32>)
    -> (tensor<?x7x32xf32>, tensor<?x10x64xf32>) {
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 2 focus = 1
      : (tensor<?x7x32xf32>, tensor<1x96x96xf32>, tensor<1x64x64xf32>,
         tensor<1x64x64xf32>) -> tensor<?x7x32xf32>
  %y = sezm.so2_linear %v weights(%v0, %vu, %vv) lmax = 3 focus = 1
      : (tensor<?x10x64xf32>, tensor<1x256x256xf32>, tensor<1x192x192xf32>,
         tensor<1x192x192xf32>) -> tensor<?x10x64xf32>
  return %z, %y : tensor<?x7x32xf32>, tensor<?x10x64xf32>
}

// -----

// The warp schedules need C a multiple of 32: C = 16 runs the loop kernel.
// CHECK-LABEL: func.func @narrow
// CHECK: sezm.rotate_mix {{.*}} {sezm.kernel_config = #sezm.kernel_config<strategy = loops, kernel = "rotate_mix">}
func.func @narrow(%x: tensor<?x16x16xf32>, %src: tensor<?xi64>,
                  %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
                  %cb: tensor<1x16xf32>) -> tensor<?x10x16xf32> {
  %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x16xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x16xf32>) -> tensor<?x10x16xf32>
  return %u : tensor<?x10x16xf32>
}

// -----

// The per-edge backward computes no channel-basis gradient: with cb_grad
// used (training) it runs the loop kernel; unused, the microkernel, which
// needs the Wigner-D and kernel gradients used.
// CHECK-LABEL: func.func @training
// CHECK: sezm.rotate_mix_grad {{.*}} {sezm.kernel_config = #sezm.kernel_config<strategy = loops, kernel = "rotate_mix_grad">}
// CHECK-LABEL: func.func @inference
// CHECK: sezm.rotate_mix_grad {{.*}} {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel, kernel = "rotate_mix_grad">}
// CHECK-LABEL: func.func @no_edge_grads
// CHECK: sezm.rotate_mix_grad {{.*}} {sezm.kernel_config = #sezm.kernel_config<strategy = loops, kernel = "rotate_mix_grad">}
func.func @training(%u: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                    %src: tensor<?xi64>, %wd: tensor<?x16x16xf32>,
                    %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>)
    -> (tensor<?x16x64xf32>, tensor<1x64xf32>) {
  %a, %b, %c, %d = sezm.rotate_mix_grad %u, %x[%src] by %wd kernel %kc
      basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>,
          tensor<1x64xf32>)
  return %a, %d : tensor<?x16x64xf32>, tensor<1x64xf32>
}
func.func @inference(%u: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                     %src: tensor<?xi64>, %wd: tensor<?x16x16xf32>,
                     %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>)
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>) {
  %a, %b, %c, %d = sezm.rotate_mix_grad %u, %x[%src] by %wd kernel %kc
      basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>,
          tensor<1x64xf32>)
  return %a, %b, %c : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}
func.func @no_edge_grads(%u: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                         %src: tensor<?xi64>, %wd: tensor<?x16x16xf32>,
                         %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>)
    -> tensor<?x16x64xf32> {
  %a, %b, %c, %d = sezm.rotate_mix_grad %u, %x[%src] by %wd kernel %kc
      basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>,
          tensor<1x64xf32>)
  return %a : tensor<?x16x64xf32>
}

// -----

// A configuration already there is kept: here the loop kernel is asked
// for an op a microkernel could take.
// CHECK-LABEL: func.func @asked
// CHECK: sezm.segment_reduce {{.*}} {sezm.kernel_config = #sezm.kernel_config<strategy = loops>}
func.func @asked(%v: tensor<?x16x64xf32>, %so: tensor<?xi64>,
                 %sr: tensor<?xi64>) -> tensor<?x16x64xf32> {
  %r = sezm.segment_reduce %v over(%so, %sr)
      {sezm.kernel_config = #sezm.kernel_config<strategy = loops>}
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return %r : tensor<?x16x64xf32>
}

// -----

// A configuration that names a microkernel which does not lower the op.
func.func @mismatched(%v: tensor<?x16x64xf32>, %so: tensor<?xi64>,
                      %sr: tensor<?xi64>) -> tensor<?x16x64xf32> {
  // expected-error @+1 {{has kernel configuration #sezm.kernel_config<strategy = microkernel, kernel = "rotate_mix", blocks_per_sm = 8>, but no microkernel of that name lowers it}}
  %r = sezm.segment_reduce %v over(%so, %sr)
      {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel,
                                                kernel = "rotate_mix",
                                                blocks_per_sm = 8>}
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return %r : tensor<?x16x64xf32>
}

// -----

// A GEMM microkernel asked for without its tiles.
func.func @untiled(%a: tensor<?x16xf32>, %b: tensor<16x32xf32>,
                   %init: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{launches 1 product shape(s), 0 of them tf32x3, and needs workgroup_tile = [rows, columns, depth step] for each, thread_tile = [rows, columns] for each IEEE one and warp_tile = [rows, columns] for each tf32x3 one}}
  %y = linalg.matmul
      {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel,
                                                kernel = "tiled_matmul">}
      ins(%a, %b : tensor<?x16xf32>, tensor<16x32xf32>)
      outs(%init : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// An SO(2) linear launches two product shapes (m = 0 and m = +-1): the tiles
// of one are not enough.
func.func @one_product_tiled(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                             %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>)
    -> tensor<?x10x64xf32> {
  // expected-error @+1 {{but microkernel 'so2_linear' launches 2 product shape(s), 0 of them tf32x3, and needs workgroup_tile}}
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel,
                                                kernel = "so2_linear",
                                                blocks_per_sm = 2,
                                                workgroup_tile = [128, 64, 16],
                                                thread_tile = [8, 4]>}
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  return %z : tensor<?x10x64xf32>
}

// -----

// Split precision asked for without its warp tile, and on a kernel that is
// no GEMM.
func.func @split_untiled(%a: tensor<?x16xf32>, %b: tensor<16x32xf32>,
                         %init: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{launches 1 product shape(s), 1 of them tf32x3, and needs}}
  %y = linalg.matmul
      {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel,
                                                kernel = "tiled_matmul",
                                                workgroup_tile = [128, 32, 16],
                                                thread_tile = [8, 2],
                                                precision = tf32x3>}
      ins(%a, %b : tensor<?x16xf32>, tensor<16x32xf32>)
      outs(%init : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// Precision per product: the m = +-1 product on the tensor cores needs its
// warp tile, the m = 0 product its thread tile; here the m = 0 product's
// thread tile is missing.
func.func @mixed_untiled(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                         %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>)
    -> tensor<?x10x64xf32> {
  // expected-error @+1 {{launches 2 product shape(s), 1 of them tf32x3, and needs}}
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel,
                                                kernel = "so2_linear",
                                                blocks_per_sm = 2,
                                                workgroup_tile = [128, 64, 16, 128, 96, 8],
                                                precision = [ieee, tf32x3],
                                                warp_tile = [32, 48]>}
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  return %z : tensor<?x10x64xf32>
}

// -----

// Three precisions for two products.
func.func @three_precisions(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                            %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>)
    -> tensor<?x10x64xf32> {
  // expected-error @+1 {{launches 2 product shape(s): give one precision for all or one for each}}
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel,
                                                kernel = "so2_linear",
                                                blocks_per_sm = 2,
                                                workgroup_tile = [128, 64, 16, 128, 96, 8],
                                                thread_tile = [8, 4],
                                                precision = [ieee, tf32x3, ieee],
                                                warp_tile = [32, 48]>}
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  return %z : tensor<?x10x64xf32>
}


// -----

func.func @split_not_gemm(%v: tensor<?x16x64xf32>, %so: tensor<?xi64>,
                          %sr: tensor<?xi64>) -> tensor<?x16x64xf32> {
  // expected-error @+1 {{but microkernel 'segment_reduce' is not a GEMM: only IEEE precision}}
  %r = sezm.segment_reduce %v over(%so, %sr)
      {sezm.kernel_config = #sezm.kernel_config<strategy = microkernel,
                                                kernel = "segment_reduce",
                                                precision = tf32x3>}
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return %r : tensor<?x16x64xf32>
}

// -----

// A product marked fused whose user does not compute it.
func.func @orphan(%x: tensor<?x32xf32>, %w: tensor<32x64xf32>,
                  %init: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @+1 {{has kernel configuration #sezm.kernel_config<strategy = fused, kernel = "tiled_matmul_epilogue">, but no kernel of its users computes it}}
  %p = linalg.matmul {sezm.kernel_config = #sezm.kernel_config<strategy = fused, kernel = "tiled_matmul_epilogue">}
      ins(%x, %w : tensor<?x32xf32>, tensor<32x64xf32>)
      outs(%init : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %p : tensor<?x64xf32>
}
