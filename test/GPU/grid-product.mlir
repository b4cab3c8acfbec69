// sezm.grid_product and its gradient: the strategy room gives each the
// microkernel that stages both grid matrices in workgroup memory, (P, J)
// rows padded to whole vectors, and runs one thread per (node, channel),
// the grid values in registers. Grids too large for the staging stay loop
// kernels.
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy | FileCheck %s --check-prefix=CHOICE
// RUN: sezm-opt %s --split-input-file --sezm-select-lowering-strategy --convert-sezm-to-gpu-kernels | FileCheck %s --check-prefix=KERNEL

// DPA4-Mini's SO(3) grid: 27 coefficients (9 rows x 3 frames), 104 points.
// CHOICE-LABEL: func.func @product
// CHOICE: sezm.grid_product {{.*}}kernel_config<strategy = microkernel, kernel = "grid_product">
// KERNEL-LABEL: func.func @product
// KERNEL: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}}) function(@grid_product) workgroup(%[[TO:.*]] : memref<104x28xf32, #gpu.address_space<workgroup>>, %[[FROM:.*]] : memref<104x28xf32, #gpu.address_space<workgroup>>)
// KERNEL: scf.for
// KERNEL: memref.store %{{.*}}, %[[TO]]
// KERNEL: memref.store %{{.*}}, %[[FROM]]
// KERNEL: gpu.barrier
// KERNEL: scf.for %[[P:.*]] = %{{.*}} to %c104 step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// KERNEL-COUNT-7: vector.load %[[TO]][%[[P]], %{{.*}}] {alignment = 16 : i64} : memref<104x28xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// KERNEL-COUNT-7: vector.load %[[FROM]][%[[P]], %{{.*}}] {alignment = 16 : i64} : memref<104x28xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// KERNEL: scf.yield
// KERNEL-COUNT-27: memref.store %{{.*}} : memref<?x27x32xf32>
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @product(%a: tensor<?x27x32xf32>, %b: tensor<?x27x32xf32>,
                   %to: tensor<27x104xf32>, %from: tensor<104x27xf32>)
    -> tensor<?x27x32xf32> {
  %p = sezm.grid_product %a, %b grid(%to, %from)
      : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<27x104xf32>,
         tensor<104x27xf32>) -> tensor<?x27x32xf32>
  return %p : tensor<?x27x32xf32>
}

// -----

// The default DPA4's S2 grid: 16 coefficients, 38 points; both gradients
// in one loop over the points, which reads each to_grid row once.
// CHOICE-LABEL: func.func @gradient
// CHOICE: sezm.grid_product_grad {{.*}}kernel_config<strategy = microkernel, kernel = "grid_product_grad">
// KERNEL-LABEL: func.func @gradient
// KERNEL: gpu.launch {{.*}} function(@grid_product_grad) workgroup(%[[TO:.*]] : memref<38x16xf32, #gpu.address_space<workgroup>>, %[[FROM:.*]] : memref<38x16xf32, #gpu.address_space<workgroup>>)
// KERNEL: gpu.barrier
// KERNEL: scf.for %[[P:.*]] = %{{.*}} to %c38
// KERNEL-COUNT-4: vector.load %[[TO]][%[[P]], %{{.*}}]
// KERNEL-COUNT-4: vector.load %[[FROM]][%[[P]], %{{.*}}]
// KERNEL-NOT: vector.load
// KERNEL: scf.yield
// KERNEL-COUNT-32: memref.store %{{.*}} : memref<?x16x192xf32>
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @gradient(%g: tensor<?x16x192xf32>, %a: tensor<?x16x192xf32>,
                    %b: tensor<?x16x192xf32>, %to: tensor<16x38xf32>,
                    %from: tensor<38x16xf32>)
    -> (tensor<?x16x192xf32>, tensor<?x16x192xf32>) {
  %ga, %gb = sezm.grid_product_grad %g, %a, %b grid(%to, %from)
      : (tensor<?x16x192xf32>, tensor<?x16x192xf32>, tensor<?x16x192xf32>,
         tensor<16x38xf32>, tensor<38x16xf32>)
      -> (tensor<?x16x192xf32>, tensor<?x16x192xf32>)
  return %ga, %gb : tensor<?x16x192xf32>, tensor<?x16x192xf32>
}

// -----

// Both matrices would take 2 x 1000 x 28 words (224 KB) of workgroup
// memory: the loop kernel.
// CHOICE-LABEL: func.func @large_grid
// CHOICE: sezm.grid_product {{.*}}kernel_config<strategy = loops, kernel = "grid_product">
func.func @large_grid(%a: tensor<?x27x8xf32>, %b: tensor<?x27x8xf32>,
                      %to: tensor<27x1000xf32>, %from: tensor<1000x27xf32>)
    -> tensor<?x27x8xf32> {
  %p = sezm.grid_product %a, %b grid(%to, %from)
      : (tensor<?x27x8xf32>, tensor<?x27x8xf32>, tensor<27x1000xf32>,
         tensor<1000x27xf32>) -> tensor<?x27x8xf32>
  return %p : tensor<?x27x8xf32>
}
