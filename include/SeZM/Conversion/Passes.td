//===- Passes.td - sezm conversion passes ------------------*- tablegen -*-===//

#ifndef SEZM_CONVERSION_PASSES_TD
#define SEZM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSeZMToLoops : Pass<"convert-sezm-to-loops", "ModuleOp"> {
  let summary = "Lower sezm ops to loop nests over buffers (the CPU kernels)";
  let description = [{
    Replaces every sezm op by the loop nest that computes it: operands are
    read through `bufferization.to_buffer ... read_only`, each result is a
    fresh `memref.alloc` written by `scf.for` loops and handed back as a
    `bufferization.to_tensor ... restrict writable`, so that one-shot
    bufferization afterwards joins the kernels with the rest of the program.
    Rows (`D`, `Dm`) and the degree kernel are unrolled at compile time;
    edges, nodes, channels and CSR segments are loops. Segment reductions
    run sequentially in CSR order, so results are the same bit for bit on
    every run, and a fused backward sums exactly as its unfused form does.

    `target` shapes the loops: `gpu` gives a kernel one parallel iteration
    per output (a thread each); `cpu` lets an iteration compute whole rows
    of the dense ops (the SO(2) linear and its gradient), with the
    innermost loop over contiguous channels, which LLVM vectorizes. Each
    output sums its terms in the same order either way.

    Before:
    ```mlir
    %xl = sezm.rotate %x[%src] by %wd lmax = 1
        : (tensor<?x4x8xf32>, tensor<?xi64>, tensor<?x4x4xf32>)
        -> tensor<?x4x8xf32>
    ```
    After (abridged):
    ```mlir
    %xb = bufferization.to_buffer %x read_only : ... to memref<?x4x8xf32>
    %out = memref.alloc(%e) : memref<?x4x8xf32>
    scf.for %i = %c0 to %e step %c1 {
      %s = memref.load %srcb[%i] : memref<?xi64>
      ...
      scf.for %c = %c0 to %c8 step %c1 {
        ...
        memref.store %v, %out[%i, %c1, %c] : memref<?x4x8xf32>
      }
    }
    %xl = bufferization.to_tensor %out restrict writable : ...
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "What the loops are shaped for: cpu or gpu">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def SelectLoweringStrategy
    : Pass<"sezm-select-lowering-strategy", "ModuleOp"> {
  let summary = "Choose how each op becomes a GPU kernel, and record it in IR";
  let description = [{
    The strategy room. For every sezm op and linalg op in a function, picks
    how the GPU lowering treats it and records the choice as the op's
    `sezm.kernel_config` (a `#sezm.kernel_config`); `convert-sezm-to-gpu-
    kernels` and the loop lowering read only that. The strategies:

    - `microkernel`: a hand-scheduled kernel of `lib/Conversion/SeZMToGPU`
      (`rotate_mix`, `segment_reduce`, `rotate_mix_grad`,
      `rotate_mix_grad_reduce`, `full_sum`, `long_matmul`, `lane_sum`,
      ...; `getMicrokernels()` lists them in the order tried), chosen when
      it lowers the op: the warp schedules need C a multiple of 32, the
      per-edge backward an unused channel-basis gradient, `full_sum` a
      reduction of every dimension with one `addf`, `long_matmul` at most
      64 static outputs over a dynamic reduction, `lane_sum` an fp32
      `linalg.generic` that adds a term to its output over a static last
      loop alone (8, 16, 32 or whole warps of it) that each input reads
      along its last axis. With it come the blocks per multiprocessor the
      kernel is tuned for.
    - `loops`: the op's loop kernel (sezm ops) or linalg's loops, each
      parallel loop one thread per iteration.

    A configuration already present (written by hand, or by an earlier
    run) is kept.

    With `gemm-precision=tf32x3` (sezm-compile's `--gemm-precision`), the
    GEMM-tiled microkernels over fp32 (`tiled_matmul`, `degree_linear`,
    `gate`, `gate_grad`, `so2_linear`, `so2_linear_grad`) record, for each
    product for which it pays (over many rows and from 48 FLOP a byte of a
    row: `splitPrecisionPays`), `tf32x3` in their `precision` list and the
    product's tensor-core tiles in `warp_tile`: each fp32 operand is split
    into a high and a low TF32 part and multiplied in three m16n8k8
    products, an opt-in mode whose error against fp64 is that of the IEEE
    kernels. The products over atoms,
    the streaming and the narrower ones, which the tensor cores slow down,
    every other kernel and every fp64 one stay IEEE. A GEMM's depth step
    halves until its staged slices fit 48 KB of workgroup memory (fp64
    products stage 8 depths).

    Before: `%u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb ...`
    After:
    ```mlir
    %u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3
        rank = 1 {sezm.kernel_config = #sezm.kernel_config<strategy =
        microkernel, kernel = "rotate_mix", blocks_per_sm = 8>} : ...
    ```
  }];
  let options = [
    Option<"gemmPrecision", "gemm-precision", "std::string", "\"ieee\"",
           "How the GEMM-tiled kernels multiply fp32: ieee (CUDA-core "
           "fused multiply-adds) or tf32x3 (split precision on the tensor "
           "cores)">,
  ];
  let dependentDialects = ["::mlir::sezm::SeZMDialect"];
}

def ConvertSeZMToGPUKernels
    : Pass<"convert-sezm-to-gpu-kernels", "ModuleOp"> {
  let summary = "Lower the ops configured as microkernels to their GPU kernels";
  let description = [{
    Lowers each op whose `sezm.kernel_config` (see
    `sezm-select-lowering-strategy`) has the `microkernel` strategy to the
    kernel it names, one `gpu.launch` with explicit thread mapping; a
    configuration that names no microkernel for the op is an error. The
    rest are left to `convert-sezm-to-loops`. The microkernels:

    - `sezm.rotate_mix`: one warp per edge, each lane owning the channels
      lane, lane + 32, ... (one thread per (edge, channel) when C is not a
      multiple of 32): each lane loads the edge's structural Wigner-D
      non-zeros and degree kernel once (the same addresses across the warp:
      one broadcast transaction each), gathers its channels of x[src]
      (coalesced across lanes), rotates, mixes and stores (coalesced).
    - `sezm.segment_reduce`: one thread per (node, element of a row) summing
      its segment in CSR order in a register.
    - `sezm.rotate_mix_grad` whose channel-basis gradient is unused: one
      warp per edge, with the per-edge sums of the fused backward below; the
      node gradient rows stored per edge where they are used (a first
      block's features are constants, and then they are not).
    - `sezm.rotate_mix_grad_reduce`: one block per source node, its warps
      taking turns over the node's edges, each lane owning the same
      channels of every edge (two neighbouring ones per 8-byte access where
      C is a multiple of 64); the node gradient of the segment is summed in
      workgroup memory, per warp and lane, and the warps' sums added in
      warp order at the end (the per-edge node gradient never exists); each
      Wigner-D and degree kernel gradient of an edge is summed over the
      lane's channels, then over the lanes by a butterfly of warp shuffles
      (the same order on every run, no atomics). The Wigner-D sums fill the
      warp's copy of the edge's D x D matrix in workgroup memory (its other
      entries stay zero), which the warp writes out whole, coalesced: no
      memset of `wigner_grad` first. C not a multiple of 32: the loop
      kernel.
    - `linalg.reduce` of every dimension with an `addf` body (the energy):
      one block of 1024 threads, each summing a strided share in order,
      then a fixed tree through workgroup memory.
    - `linalg.matmul` with at most 64 static outputs and a dynamic
      reduction (the virial, `g^T v` over edges): the same, one block per
      output element.

    Before:
    ```mlir
    %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
        : (...) -> tensor<?x10x64xf32>
    ```
    After (abridged):
    ```mlir
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, ...)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c2, ...) {
      %e = ...  // %bx * 2 + %ty
      scf.if %in_range { ... memref.store %y, %out[%e, %c0, %tx] ... }
      gpu.terminator
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def FlattenParallelLoops
    : Pass<"sezm-flatten-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Collapse each multi-dimensional scf.parallel into one dimension";
  let description = [{
    The GPU mapping gives the first dimension of a parallel loop to the
    threads of a block and the others to other grid or block dimensions, so
    that a fill or an elementwise op over (E, 16, 16) launches blocks whose
    threads stride through memory. Collapsed into one dimension (row-major,
    the last index fastest), consecutive threads touch consecutive elements.
    The collapsed loop keeps the loop's attributes (its kernel
    configuration, which names its kernel). Loops with reductions, and
    loops inside other parallel loops, are left alone.

    Before:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%e, %c16) step (%c1, %c1) {
      memref.store %zero, %m[%i, %j] : memref<?x16xf32>
    }
    ```
    After:
    ```mlir
    scf.parallel (%k) = (%c0) to (%n) step (%c1) {   // %n = %e * 16
      // %i = %k floordiv 16, %j = %k mod 16
      memref.store %zero, %m[%i, %j] : memref<?x16xf32>
    }
    ```
  }];
}

def LinalgToParallelLoops
    : Pass<"sezm-linalg-to-parallel-loops", "::mlir::func::FuncOp"> {
  let summary = "Lower the linalg ops outside gpu.launch bodies to "
                "scf.parallel loops, visiting only them";
  let description = [{
    What `convert-linalg-to-parallel-loops` does: each linalg op on buffers
    becomes an `scf.parallel` nest over its parallel dimensions around
    `scf.for` loops over its reductions, and the index and dim arithmetic
    of the new loops is folded (the canonicalizations of `memref.dim`,
    `tensor.dim` and `affine.apply`). Upstream applies its patterns to every
    op of the function, where a GPU function holds thousands of
    hand-scheduled kernels' bodies that have no linalg op; this pass
    visits the linalg ops outside `gpu.launch` bodies and folds only the ops
    it creates. A `memref.copy` from or into a view that is not in identity
    layout (a chunk of rows of an edge tensor, from sezm-chunk-edges) is
    lowered the same way, as a `linalg.copy`: `gpu.memcpy` takes identity
    layouts only. The outermost loop of each op carries the op's
    `#sezm.kernel_config` (or, for an op made after
    `sezm-select-lowering-strategy`, a loop kernel's named after the op), by
    which `sezm-parallel-loops-to-launches` names its kernel.

    Each reduction loop carries its output element in a register
    (`iter_args`), loaded before the loop and stored after it, where
    upstream's lowering reads and writes it through memory every step
    (nothing tells LLVM that the op's inputs do not alias its output). A
    `linalg.fill` that only gives such an op its initial value (the op's one
    output is indexed by each parallel dimension once, no input aliases it,
    and nothing between them has a memory effect) is then not a kernel of
    its own: its value starts the register. The same values in the same
    order either way.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : memref<?xf32>) outs(%b : memref<?xf32>) { ... }
    ```
    After:
    ```mlir
    %n = memref.dim %a, %c0 : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) { ... }
        {sezm.kernel_config = #sezm.kernel_config<strategy = loops,
                                                  kernel = "generic">}
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::sezm::SeZMDialect"];
}

def ReductionsInnermost
    : Pass<"sezm-reductions-innermost", "::mlir::func::FuncOp"> {
  let summary = "Put the reduction loops of a GPU loop kernel innermost";
  let description = [{
    A linalg op lowered as loops on the GPU gets one thread per iteration
    of its outer parallel loops. When a reduction dimension comes before a
    parallel one (`linalg.reduce` over the middle axis of (N, 16, 192), the
    gradient of a broadcast along it), convert-linalg-to-parallel-loops
    nests the parallel loop after it inside an `scf.for`, and only the
    first dimension becomes threads: N threads each doing 16 x 192 adds.
    Here such an op becomes a `linalg.generic` with its parallel dimensions
    first (in order) and its reductions last (in order), so that every
    output gets a thread and the threads of a warp read consecutive
    elements. Each output still adds its terms in the same order: the same
    bits.

    Before:
    ```mlir
    linalg.reduce ins(%x : memref<?x16x192xf32>)
                  outs(%y : memref<?x192xf32>) dimensions = [1]
    ```
    After:
    ```mlir
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>,
                                     affine_map<(d0, d1, d2) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : memref<?x16x192xf32>) outs(%y : memref<?x192xf32>) { ... }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CpuMatmulOrder : Pass<"sezm-cpu-matmul-order", "::mlir::func::FuncOp"> {
  let summary = "Order each matmul's loops (i, k, j) for the CPU";
  let description = [{
    A `linalg.matmul` lowers to loops (i, j, k): each output's sum over k
    runs innermost, along a column of B, which neither vectorizes (the sum
    is carried) nor reads memory in order. Generalized and interchanged to
    (i, k, j), the innermost loop adds A[i, k] * B[k, j] to a row of C,
    along contiguous rows of B and C, which LLVM vectorizes; each C[i, j]
    still sums its terms in the order of k, so the result is the same bits.
    The rows i stay the parallel loop that CPU threads share.

    Before:
    ```mlir
    linalg.matmul ins(%a, %b : memref<?x128xf32>, memref<128x256xf32>)
                  outs(%c : memref<?x256xf32>)
    ```
    After:
    ```mlir
    linalg.generic {indexing_maps = [(i, k, j) -> (i, k), (i, k, j) -> (k, j),
                                     (i, k, j) -> (i, j)],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%a, %b : ...) outs(%c : ...) {
    ^bb0(%x: f32, %y: f32, %z: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %z, %p : f32
      linalg.yield %s : f32
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def SequentialInnerLoops
    : Pass<"sezm-sequential-inner-loops", "::mlir::func::FuncOp"> {
  let summary = "Keep only the outermost loop of each parallel nest parallel, "
                "for CPU threads";
  let description = [{
    On the CPU, convert-scf-to-openmp then shares each kernel's outermost
    scf.parallel (over edges, nodes or a tensor's rows) among threads: its
    iterations write disjoint outputs, so any thread may run any of them
    and the result is the same bits for every thread count. The parallel
    loops inside it become sequential scf.for nests here, so that no thread
    forks again per iteration, and the innermost runs over the last,
    contiguous index, which LLVM vectorizes. A loop with reductions becomes
    sequential too: an OpenMP reduction would combine partial sums in an
    order that depends on the threads.

    Before:
    ```mlir
    scf.parallel (%e) = (%c0) to (%edges) step (%c1) {
      scf.parallel (%c) = (%c0) to (%c64) step (%c1) {
        ...
      }
    }
    ```
    After:
    ```mlir
    scf.parallel (%e) = (%c0) to (%edges) step (%c1) {
      scf.for %c = %c0 to %c64 step %c1 {
        ...
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def OutlineCpuLoops : Pass<"sezm-outline-cpu-loops", "::mlir::ModuleOp"> {
  let summary = "Give each CPU kernel's thread-shared loop a function of "
                "its own";
  let description = [{
    Moves every outermost `scf.parallel` of a function (what
    convert-scf-to-openmp shares among threads) into a private function of
    its own, called where the loop stood. The values the loop uses from
    above become arguments; constants and globals are cloned in, so that
    they still fold.

    Why: the translation to LLVM IR outlines each OpenMP region from its
    function with an analysis of the whole function, so a model's entry of
    a thousand kernels took time quadratic in its size (70 s of the
    default DPA4's CPU compile). One loop per function makes it linear.

    Before:
    ```mlir
    func.func @energy(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
      %c0 = arith.constant 0 : index
      %n = memref.dim %x, %c0 : memref<?x64xf32>
      scf.parallel (%i) = (%c0) to (%n) step (%c1) { ... }
      ...
    }
    ```
    After:
    ```mlir
    func.func @energy(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
      %c0 = arith.constant 0 : index
      %n = memref.dim %x, %c0 : memref<?x64xf32>
      call @energy_loop0(%n, %x, %y) : (index, memref<?x64xf32>, ...) -> ()
      ...
    }
    func.func private @energy_loop0(%n: index, %x: memref<?x64xf32>, ...) {
      %c0 = arith.constant 0 : index
      scf.parallel (%i) = (%c0) to (%n) step (%c1) { ... }
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def BuffersOnDevice : Pass<"sezm-buffers-on-device", "::mlir::func::FuncOp"> {
  let summary = "Place the host code's buffers in GPU memory";
  let description = [{
    After loops are mapped to `gpu.launch`, every buffer the host code
    allocates is used by kernels: `memref.alloc`, `memref.dealloc` and
    `memref.copy` outside of kernels become `gpu.alloc`, `gpu.dealloc` and
    `gpu.memcpy`. Host code that would read or write an element of a buffer
    itself is an error: such a loop should have been a kernel.

    Every buffer the function allocates, does not return (directly or
    through a view) and does not already free (`sezm-plan-memory` frees
    after the last use) is freed at the function's exit. The body of a host
    loop that launches kernels (a chunk loop of `sezm-chunk-edges`) saves
    the stack pointer when it starts and restores it when it ends
    (`llvm.intr.stacksave`, `llvm.intr.stackrestore`): each launch takes its
    argument array on the stack, and a loop of many chunks would otherwise
    grow the stack by one array per launch and iteration.

    Before:
    ```mlir
    %b = memref.alloc(%n) : memref<?x3xf32>
    gpu.launch ... { ... memref.store %v, %b[%i, %c0] ... }
    ```
    After:
    ```mlir
    %b = gpu.alloc (%n) : memref<?x3xf32>
    gpu.launch ... { ... memref.store %v, %b[%i, %c0] ... }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect"];
}

def ParallelLoopsToLaunches
    : Pass<"sezm-parallel-loops-to-launches", "::mlir::func::FuncOp"> {
  let summary = "Make each loop kernel a gpu.launch whose threads stride "
                "over its iterations, named by its kernel configuration";
  let description = [{
    Every `scf.parallel` outside a launch (after
    `sezm-flatten-parallel-loops`: one dimension, no reductions) becomes a
    `gpu.launch` of `threads-per-block` threads per block and as many blocks
    as its iterations need, at most `max-blocks`: thread t of block k runs
    iteration `lb + (k * threads-per-block + t) * step` and every
    `blocks * threads-per-block * step` after it below the upper bound (one
    iteration where the blocks were not capped). A block per 128 iterations
    of a per-edge elementwise op, hundreds of thousands of short blocks,
    was bound by how fast the GPU starts blocks. The launch is named (and, where the
    configuration asks, given its blocks per multiprocessor) by the loop's
    `#sezm.kernel_config`, which the loop kernel's op carried from
    `sezm-select-lowering-strategy` (or `sezm-linalg-to-parallel-loops`
    recorded for an op made after it), so that outlining names the kernel
    and profiles say `so2_linear_grad` or `mulf` rather than one name for
    every generic kernel. A parallel loop inside a loop kernel, or one of
    several dimensions or with reductions, is refused.

    Before:
    ```mlir
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      memref.store %zero, %m[%i] : memref<?xf32>
    } {sezm.kernel_config = #sezm.kernel_config<strategy = loops,
                                                kernel = "fill">}
    ```
    After:
    ```mlir
    // %blocks = min(%n ceildiv 128, 8448), %stride = %blocks * 128
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, ...)
               threads(%tx, %ty, %tz) in (%sx = %c128, ...) {
      // %first = %tx + %bx * 128
      scf.for %i = %first to %n step %stride {
        memref.store %zero, %m[%i] : memref<?xf32>
      }
      gpu.terminator
    } {function = @fill}
    ```
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "128",
           "Threads per block of each launch">,
    Option<"maxBlocks", "max-blocks", "int64_t", "8448",
           "Blocks of a launch at most; its threads then take several "
           "iterations each (8448: 4 waves of 16 blocks of 128 threads on "
           "132 multiprocessors)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def SinkIntoLaunches
    : Pass<"sezm-sink-into-launches", "::mlir::func::FuncOp"> {
  let summary = "Clone the constants and index computations a gpu.launch "
                "uses into its body";
  let description = [{
    What `gpu-launch-sink-index-computations` does, in time linear in the
    launches' bodies: a value a launch uses from above that is an
    `arith.constant`, `func.constant`, `memref.dim`, `arith.select` or
    `arith.cmpi` (over such values or the launch's other operands) is
    cloned at the start of the body, in the same order, so that outlining
    passes it no argument and the kernel folds it into its addresses and
    instructions. The uses are rewritten by one walk of the body, where the
    upstream pass walks every use of each sunk value once per launch (the
    shared constants of a function with hundreds of launches have thousands
    of uses).

    Before:
    ```mlir
    %c64 = arith.constant 64 : index
    gpu.launch ... { ... %i = arith.muli %bx, %c64 : index ... }
    ```
    After:
    ```mlir
    %c64 = arith.constant 64 : index
    gpu.launch ... {
      %c64_0 = arith.constant 64 : index
      ... %i = arith.muli %bx, %c64_0 : index ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def SerializeKernelModules
    : Pass<"sezm-serialize-kernel-modules", "::mlir::ModuleOp"> {
  let summary = "Serialize every gpu.module for its targets, the modules "
                "side by side, each into a gpu.binary";
  let description = [{
    What `gpu-module-to-binary` does, with the modules serialized on the
    context's threads at once rather than one after another (LLVM's NVPTX
    code generation of a model's hundreds of kernel modules is the longest
    pass of a GPU compile): each `gpu.module` is serialized for each of its
    targets (`#nvvm.target`, ...) in the format asked for, and replaced, in
    place and in order, by a `gpu.binary` of the same name holding one
    object per target. The result does not depend on the thread count.

    Before:
    ```mlir
    gpu.module @k [#nvvm.target<chip = "sm_90">] {
      llvm.func @k() attributes {gpu.kernel, nvvm.kernel} { llvm.return }
    }
    ```
    After (`format = "isa"`):
    ```mlir
    gpu.binary @k  [#gpu.object<#nvvm.target<chip = "sm_90">,
                                assembly = "...">]
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "What each object holds: offloading, assembly (isa), binary, "
           "fatbinary (fatbin) or llvm">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def OutlineKernels : Pass<"sezm-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline each gpu.launch into a kernel of its own gpu.module, "
                "with the launch's NVVM attributes";
  let description = [{
    Moves the body of every `gpu.launch` into a `gpu.func` in a `gpu.module`
    of its own, inserted after the function that launches it, and replaces
    the launch with a `gpu.launch_func`, as `gpu-kernel-outlining` does: the
    kernel takes the launch's `function` name (else `<function>_kernel`),
    its module the launch's `module` name (else the kernel's, made unique).

    Unlike the upstream pass, it keeps what the kernel's schedule asked of
    the compiler: every `nvvm.*` attribute of the launch goes onto the
    kernel. A hand-scheduled kernel whose speed depends on how many of its
    blocks a multiprocessor holds (its `#sezm.kernel_config`'s
    `blocks_per_sm`) is launched with `nvvm.minctasm`, which caps the
    registers per thread so that that many blocks fit (PTX `.minnctapersm`).
    A kernel module equal to one outlined before (the same ops, locations
    aside: the same op on the same shapes in another layer or block) is not
    kept; its launches use the first, so that each distinct kernel is
    compiled once. Modules are compared structurally, among those whose
    top-level ops hash alike.

    Before:
    ```mlir
    gpu.launch blocks(...) threads(...) function(@rotate_mix) { ... }
        {nvvm.minctasm = 8 : i32}
    ```
    After:
    ```mlir
    gpu.launch_func @rotate_mix::@rotate_mix blocks in (...) threads in (...)
    gpu.module @rotate_mix {
      gpu.func @rotate_mix(...) kernel attributes {nvvm.minctasm = 8 : i32,
                                                   ...} { ... }
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

#endif // SEZM_CONVERSION_PASSES_TD
