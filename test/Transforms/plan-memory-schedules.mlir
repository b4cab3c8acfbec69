// The memory plan of energy + forces for two SO(2) blocks (lmax 3, C 64,
// rank 1) at the N = 4096 workload (E = 647,642). Under the training
// schedule the peak is at the unfused backward of the second block, which
// holds the per-edge node gradient (4096*E bytes): 9988*E + 4096*N. Under
// the inference schedule that gradient never exists, and sezm-rematerialize
// recomputes the first block's message and the edge vectors for the
// backward instead of keeping them, so the peak is at the backward of the
// first block's aggregation: 6068*E + 4096*N. Inference plans 3920*E =
// 2,538,756,640 bytes less, a little less than the node gradient's 4096*E
// = 2,652,741,632 (the awk line compares them): sezm-fuse-elementwise
// computes a chain of elementwise ops where its last op stood, so an
// operand of its first (184 bytes per edge) lives until then (5884*E
// before it). Both hold the Wigner-D and its gradient as the 46 entries a
// rotation keeps (sezm-keep-wigner-entries: 184 bytes per edge each where
// the whole matrix took 1024; the peaks were 12508*E and 8404*E with it).
// RUN: sezm-opt %S/Inputs/two-blocks.mlir --sezm-pipeline="forces-of=energy schedule=inference plan-at=N=4096,E=647642" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INFERENCE
// RUN: sezm-opt %S/Inputs/two-blocks.mlir --sezm-pipeline="forces-of=energy schedule=training plan-at=N=4096,E=647642" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRAINING
// RUN: sezm-opt %S/Inputs/two-blocks.mlir --sezm-pipeline="forces-of=energy schedule=inference plan-at=N=4096,E=647642" -o /dev/null 2>%t.inference
// RUN: sezm-opt %S/Inputs/two-blocks.mlir --sezm-pipeline="forces-of=energy schedule=training plan-at=N=4096,E=647642" -o /dev/null 2>%t.training
// RUN: cat %t.inference %t.training | awk -f %S/Inputs/peak-difference.awk | FileCheck %s --check-prefix=DIFFERENCE
// The GPU pipeline frees each buffer after its last use: the node gradient
// (the first allocation, by rotate_mix_grad's kernel) right after the
// segment reduction's launch.
// RUN: sezm-opt %S/Inputs/backward-training.mlir --sezm-pipeline="target=gpu" 2>&1 | FileCheck %s --check-prefix=GPU

// INFERENCE: remark: inference schedule: @energy_forces planned peak max(2848*E + 12288*N + 4, 5596*E + 8192*N + 4, 6068*E + 4096*N + 4) bytes (unplanned 14180*E + 20492*N + 840); {{.*}}; at E=647642 N=4096: planned 3946668876 bytes, unplanned 9267499632 bytes
// TRAINING: remark: training schedule: @energy_forces planned peak max(5420*E + 12288*N + 4, 8168*E + 8192*N + 4, 9988*E + 4096*N + 4) bytes (unplanned 15692*E + 20492*N + 840); {{.*}}; at E=647642 N=4096: planned 6485425516 bytes, unplanned 10246734336 bytes
// DIFFERENCE: training - inference = 2538756640 bytes; per-edge node gradient 2652741632 bytes; at least the gradient: no
// GPU: remark: training schedule: @backward planned peak 5220*E + 4096*N bytes (unplanned 5220*E + 4096*N); 4 buffers, 0 reused, 1 freed after last use
// GPU: %[[NODE_GRAD:.*]] = llvm.call @mgpuMemAlloc
// GPU: gpu.launch_func
// GPU: gpu.launch_func
// GPU-NEXT: llvm.call @mgpuMemFree(%[[NODE_GRAD]],
// GPU-NEXT: llvm.call @mgpuStreamSynchronize
