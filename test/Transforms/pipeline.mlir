// --sezm-pipeline composes the schedule, the fusions and the lowering; the
// schedule decides whether the backward may fuse.
// RUN: sezm-opt %S/fusion-numerics.mlir --sezm-pipeline="target=cpu" --mlir-print-ir-after=sezm-fuse-backward-reduce -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// AUTO: remark: inference schedule
// AUTO: IR Dump After FuseBackwardReduce
// AUTO: sezm.rotate_mix %
// AUTO: sezm.rotate_mix_grad_reduce
// AUTO-NOT: sezm.segment_reduce

// RUN: sezm-opt %S/fusion-numerics.mlir --sezm-pipeline="target=cpu schedule=training" --mlir-print-ir-after=sezm-fuse-backward-reduce -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRAINING
// TRAINING: remark: training schedule: asked for by the pipeline
// TRAINING: remark: not fused with the segment reduction: @main has the training schedule
// TRAINING: IR Dump After FuseBackwardReduce
// TRAINING: sezm.rotate_mix_grad %
// TRAINING: sezm.segment_reduce

// The result is LLVM for the CPU, or host LLVM with PTX for the GPU.
// RUN: sezm-opt %S/fusion-numerics.mlir --sezm-pipeline="target=cpu" 2>/dev/null | FileCheck %s --check-prefix=CPU
// CPU: llvm.func @main
// RUN: sezm-opt %S/fusion-numerics.mlir --sezm-pipeline="target=gpu chip=sm_90" 2>/dev/null | FileCheck %s --check-prefix=GPU
// GPU-DAG: gpu.binary @rotate_mix
// GPU-DAG: gpu.binary @rotate_mix_grad_reduce
// GPU-DAG: llvm.func @main

// RUN: not sezm-opt %S/fusion-numerics.mlir --sezm-pipeline="schedule=sometimes" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: unknown schedule 'sometimes' (expected inference or training)
