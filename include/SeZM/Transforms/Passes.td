//===- Passes.td - sezm graph passes -----------------------*- tablegen -*-===//

#ifndef SEZM_TRANSFORMS_PASSES_TD
#define SEZM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SelectSchedule : Pass<"sezm-select-schedule", "::mlir::func::FuncOp"> {
  let summary = "Mark each function inference or training";
  let description = [{
    A function whose gradient is itself differentiated needs every backward
    op to keep its derivative rule: it is `training` when it is marked
    `sezm.training` (a model being trained) or `sezm.create_graph` (a
    backward built to be differentiated again). Every other function is
    `inference`, where passes may use ops with no derivative rule (the fused
    backward) and let intermediates die early. The choice is recorded as
    `sezm.schedule` and explained in a remark.

    Before:
    ```mlir
    func.func @energy_forces(...) { ... }
    func.func @train_step(...) attributes {sezm.training} { ... }
    ```
    After:
    ```mlir
    func.func @energy_forces(...) attributes {sezm.schedule = "inference"}
    func.func @train_step(...) attributes {sezm.schedule = "training", sezm.training}
    ```
  }];
  let options = [
    Option<"forced", "force", "std::string", /*default=*/"\"\"",
           "Give every function this schedule (inference or training) "
           "instead of choosing">,
  ];
}

def FuseRotateMix : Pass<"sezm-fuse-rotate-mix", "::mlir::func::FuncOp"> {
  let summary = "Fuse sezm.rotate into the sezm.mix that consumes it";
  let description = [{
    `mix(rotate(x, src, wigner), kc, cb)` becomes one `rotate_mix` when the
    rotated features have no other use, so that they are never stored. The
    fused op computes exactly what the pair does (the same sums in the same
    order). A rotation used elsewhere too is left alone.

    Before:
    ```mlir
    %xl = sezm.rotate %x[%src] by %wd lmax = 3 : (...) -> tensor<?x10x64xf32>
    %y = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1 : (...) -> tensor<?x10x64xf32>
    ```
    After:
    ```mlir
    %y = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
        : (...) -> tensor<?x10x64xf32>
    ```
  }];
}

def FuseAccumulate : Pass<"sezm-fuse-accumulate", "::mlir::func::FuncOp"> {
  let summary = "Fold a residual add into the op that computes its addend";
  let description = [{
    `arith.addf %x, %y` where `%y` is the first result of an op that can
    start it from an addend (`AccumulatingOpInterface`: `so2_linear`, the
    input gradient of `so2_linear_grad`, `gate`, the message gradient of
    `focus_compete_grad`) becomes that op with `plus %x`, so
    that its kernel reads x where the add read x and y and wrote a third
    tensor: the mixing stack's residual adds, forward and backward, and the
    meeting of the stack's and the focus competition's gradients. An SO(2)
    linear's sums start from x's element instead of x being added after, so
    fused and unfused agree to rounding. The fused op is built at the add,
    where x is defined. Left alone, with a remark saying why, when:

    - the op's first result has another use (it would be computed twice);
    - the op already has an addend;
    - the add is in another block (a loop body would run the op each
      iteration);
    - another result of the op is used (the op moves to the add, past
      those uses).

    Where both operands qualify, the second one takes the first as addend.

    Before:
    ```mlir
    %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2 : (...)
    %r = arith.addf %x, %z : tensor<?x10x64xf32>
    ```
    After:
    ```mlir
    %r = sezm.so2_linear %u weights(%w0, %wu, %wv) plus %x lmax = 3 focus = 2
        : (...)
    ```
  }];
}

def FuseFocusScale : Pass<"sezm-fuse-focus-scale", "::mlir::func::FuncOp"> {
  let summary = "Fold sezm.focus_scale into the aggregation that reads it";
  let description = [{
    `sezm.envelope_aggregate` of `sezm.focus_scale %y by %alpha` becomes the
    aggregation of y `scaled %alpha`: its kernel scales each message row as
    it loads it, so the scaled (E, Dm, C) messages are never written and
    read back (the forward of each block). Each element is scaled by the
    same multiply before the rotation: the same bits. Left alone, with a
    remark saying why, when the scaled messages have another use (the
    backward reads them: the aggregation's backward, without
    `sezm-rematerialize`'s recomputed copy), when the aggregation already
    scales, or when the scale is in another block. Runs after autodiff: the
    scaled form has no derivative rule.

    In the backward, `sezm.envelope_aggregate_grad` of `sezm.focus_scale %y
    by %alpha` whose message gradient only feeds that scale's backward
    (`sezm.focus_scale_grad` of the same y and alpha) becomes one op on y
    `scaled %alpha` giving y's and alpha's gradients itself: neither the
    scaled messages nor their gradient are stored. The same products in the
    same order: the same bits on the CPU. Left alone, with a remark, when
    the message gradient has other uses, when the scale's backward reads
    other operands, or across blocks.

    Before:
    ```mlir
    %s = sezm.focus_scale %y by %alpha : (...) -> tensor<?x10x64xf32>
    %agg = sezm.envelope_aggregate %s by %wd env %env norm %isd
        over(%do, %dr) lmax = 3 : (...) -> tensor<?x16x64xf32>
    ```
    After:
    ```mlir
    %agg = sezm.envelope_aggregate %y scaled %alpha by %wd env %env
        norm %isd over(%do, %dr) lmax = 3 : (...) -> tensor<?x16x64xf32>
    ```
    and in the backward, before:
    ```mlir
    %s = sezm.focus_scale %y by %alpha : (...) -> tensor<?x10x64xf32>
    %gs, %gwd, %genv, %terms = sezm.envelope_aggregate_grad %g, %s by %wd
        env %env norm %isd at %dst lmax = 3 : (...) -> (...)
    %gy, %galpha = sezm.focus_scale_grad %gs, %y by %alpha : (...) -> (...)
    ```
    After:
    ```mlir
    %gy, %gwd, %genv, %terms, %galpha = sezm.envelope_aggregate_grad %g,
        %y scaled %alpha by %wd env %env norm %isd at %dst lmax = 3
        : (...) -> (...)
    ```
  }];
}

def FuseElementwise : Pass<"sezm-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse chains of elementwise linalg.generic ops into one";
  let description = [{
    The elementwise tensor arithmetic between sezm ops (the env scaling of
    the radial features, the attention's products and sums, the norms'
    gradients: several hundred `arith.mulf` and `arith.addf` in DeePMD-kit's
    default DPA4 with forces), once `convert-elementwise-to-linalg` has made
    it `linalg.generic`s, runs one kernel per op, each reading and writing a
    whole per-edge or per-node tensor. An elementwise generic (parallel
    loops, its result written in place, each input read in place or
    broadcast along some loops) whose result is read once, in place, by
    another is fused into that reader: one kernel, one pass over memory, the
    intermediate never stored; where ops after the reader use the result
    too (a forward value that the backward reads again), it stays a result
    of the fused generic, which the reader's chain no longer reads back,
    unless it is cheap to compute again (a few arith and math ops, every
    reader an elementwise generic reading it once in place): then each
    later reader gets a copy of it, and of the cheap producers it reads
    whose values are dead there, which fuses into that reader, so that it
    is not stored from the forward to the backward (refused where more
    than one tensor of its size would then stay alive longer); likewise a
    product over the middle axis by a small w that a reader reads again
    after other sezm ops have run is computed again in front of that
    reader (DPA4's first messages, read at the start of the step and at
    the end of its backward). A
    `linalg.broadcast` or `linalg.fill` that
    such generics read in place first becomes, in each of them, a read of
    its input broadcast, so that the broadcast tensor (an (E, 4, 64) copy of
    a per-edge scalar, say) is never written either; a column times a
    constant row of ones from a zero init (M x 1 by 1 x N, DeePMD-kit's
    import writes the env scaling so because autodiff has a rule for it) is
    such a broadcast. A product over the middle axis of a 3-D tensor,
    out[e, j, c] = sum_i x[e, i, c] w[i, j], that the DPA4 import writes as
    transpose -> collapse -> matmul by a small static w -> expand ->
    transpose (its grid and degree mixings, and their derivatives), from a
    zero init, becomes one contraction over the loops (e, j, c, i) that
    reads x and writes out in place, the transposed copies never written
    (either transpose may be absent; a plain product of rows stays a
    matmul); its sums run over i in order from zero, as the matmul's did.
    Where the reader also writes into it
    (convert-elementwise-to-linalg's destination is the first operand), the
    fused op writes into the producer's destination. Each element is
    computed by the same operations in the same order: the same bits. A
    producer read broadcast (which would be recomputed per element),
    other reductions, transposes, named ops (matmuls, which have GEMM
    kernels) and reshapes are left as they are. Last, two such generics
    over the same loops that read one tensor in place (a product's
    backward, da = g * b and db = g * a) become one generic with both
    results at the later one's place, which reads that tensor once, where
    the later one does not read the earlier's result and nothing reads that
    before the later one. An elementwise generic of one result read only by
    a `linalg.reduce` along rows (a product's gradient summed over the axes
    a factor was broadcast along) is fused into it, which becomes a generic
    with reduction loops that computes each term as it adds it.

    Before:
    ```mlir
    %p = linalg.generic {identity maps} ins(%a, %b) outs(%e0) { mulf }
    %s = linalg.generic {identity maps} ins(%p, %c) outs(%e1) { addf }
    ```
    After:
    ```mlir
    %s = linalg.generic {identity maps} ins(%a, %b, %c) outs(%e1) {
      mulf, addf }
    ```
    A broadcast read in place:
    ```mlir
    %ab = linalg.broadcast ins(%a : tensor<?xf32>)
        outs(%e : tensor<?x16xf32>) dimensions = [1]
    %p = linalg.generic {identity maps} ins(%ab, %b) outs(%e0) { mulf }
    ```
    becomes
    ```mlir
    %p = linalg.generic {(i, j) -> (i), identity maps} ins(%a, %b)
        outs(%e0) { mulf }
    ```
    A product over the middle axis:
    ```mlir
    %t = linalg.transpose ins(%x : tensor<?x3x32xf32>)
        outs(%e1 : tensor<?x32x3xf32>) permutation = [0, 2, 1]
    %r = tensor.collapse_shape %t [[0, 1], [2]]
    %p = linalg.matmul ins(%r, %w : tensor<?x3xf32>, tensor<3x7xf32>)
        outs(%zeros : tensor<?x7xf32>)
    %y = tensor.expand_shape %p [[0, 1], [2]] ... into tensor<?x32x7xf32>
    %o = linalg.transpose ins(%y) outs(%e3 : tensor<?x7x32xf32>)
        permutation = [0, 2, 1]
    ```
    becomes
    ```mlir
    %o = linalg.generic {(e, j, c, i) -> (e, i, c), (i, j), (e, j, c);
        parallel, parallel, parallel, reduction}
        ins(%x, %w) outs(%zeros3 : tensor<?x7x32xf32>) { mulf, addf }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuseBackwardReduce
    : Pass<"sezm-fuse-backward-reduce", "::mlir::func::FuncOp"> {
  let summary = "Fuse the rotate+mix backward with the source segment reduction";
  let description = [{
    `segment_reduce(rotate_mix_grad(...).node_grad)` over the source CSR
    becomes `rotate_mix_grad_reduce`: the per-edge node gradient (E, D, C),
    2.6 GB at 4096 atoms, never exists. The rewrite is legal only when all of
    these hold, and the IR is left unchanged (with a remark saying why)
    otherwise:

    - the function's schedule is `inference` (`sezm-select-schedule`): the
      fused op has no derivative rule;
    - rank <= 1: the fused op folds a single channel basis;
    - the node gradient has no other use, and the channel-basis gradient is
      not computed (canonicalization drops an unused one);
    - the CSR is the source CSR of the edges the backward gathers from:
      `order` and `rowptr` are arguments marked `sezm.csr_of` with the name
      of the argument that `src` is (checked on the data at run time).

    Before:
    ```mlir
    %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc
        basis %cb lmax = 3 rank = 1 : (...) -> (...)
    %gx = sezm.segment_reduce %gxe over(%so, %sr) : (...) -> tensor<?x16x64xf32>
    ```
    After:
    ```mlir
    %gx, %gwd, %gkc = sezm.rotate_mix_grad_reduce %g, %x[%src] by %wd
        kernel %kc basis %cb over(%so, %sr) lmax = 3 rank = 1 : (...) -> (...)
    ```
  }];
}

def Autodiff : Pass<"sezm-autodiff", "::mlir::ModuleOp"> {
  let summary = "Build energy + forces + virial from an energy function";
  let description = [{
    From `@<energy>` (a function of the atom positions, named
    `sezm.name = "positions"`, and of graph inputs and weights, returning a
    scalar energy), builds `@<energy>_forces` returning the energy, the forces
    `-dE/dpositions` and the virial `-sum_e dE/dv_e (x) v_e`, by reverse mode
    with each op's gradient op. Only what depends on the positions is
    differentiated. `edge_vectors` needs the source and destination CSR as
    arguments marked `sezm.csr_of`.

    Before:
    ```mlir
    func.func @energy(%pos: tensor<?x3xf64> {sezm.name = "positions"}, ...)
        -> tensor<f64>
    ```
    After (added):
    ```mlir
    func.func @energy_forces(%pos: tensor<?x3xf64> {sezm.name = "positions"}, ...)
        -> (tensor<f64>, tensor<?x3xf64>, tensor<3x3xf64>)
    ```

    With `per-atom`, it also returns `atom_energy` (N) and `atom_virial`
    (N, 3, 3), as DeePMD-kit's atomic outputs: the energy must be a sum over
    atoms (a `linalg.reduce` adding every element of an (N, ...) tensor,
    whose sum over each atom's elements is its energy), and each edge's
    virial term -dE/dv[e] (x) v[e] goes half to each of its two atoms,
    summed over both CSRs in order (no atomics). They sum to the energy
    and the virial to rounding.

    With `weights=a,b`, the derived function also returns `a_grad` and
    `b_grad`, the gradients of the energy with respect to those arguments
    (for a loss, the gradient a training step needs).

    With `create-graph`, the backward is checked to be made of ops that have
    derivative rules themselves (the geometry gradients differentiate into
    `envelope_grad_grad`, `radial_basis_grad_grad` and `wigner_grad_grad`,
    `edge_vectors_grad` and `segment_reduce_grad` into their transposes), the
    function is marked `sezm.create_graph` (so that `sezm-select-schedule`
    gives it the training schedule and no fusion drops a rule), and a second
    `sezm-autodiff` can differentiate a function of the forces: declare
    `@<energy>_forces` (a body-less `func.func private`), call it, run
    `inline`, then `sezm-autodiff{energy=<that function>}`. The declaration
    is replaced by the derived function. Ops without a second-order rule yet
    (the SO(2) and mixing-stack gradients) are an error under create-graph.

    ```mlir
    func.func private @energy_forces(...) -> (tensor<f64>, tensor<?x3xf64>,
                                              tensor<3x3xf64>)
    func.func @force_loss(%pos: tensor<?x3xf64> {sezm.name = "positions"}, ...)
        -> tensor<f64> {
      %e, %f, %w = func.call @energy_forces(%pos, ...) : ...
      ...  // a scalar of %f
    }
    ```
  }];
  let options = [
    Option<"energy", "energy", "std::string", /*default=*/"\"energy\"",
           "The energy function to differentiate">,
    ListOption<"weights", "weights", "std::string",
               "Arguments (by sezm.name) whose gradients dE/d<name> the "
               "derived function also returns, as <name>_grad (training)">,
    Option<"perAtom", "per-atom", "bool", /*default=*/"false",
           "Also return each atom's energy and virial (atom_energy, "
           "atom_virial)">,
    Option<"positionsOptional", "positions-optional", "bool",
           /*default=*/"false",
           "The energy may not depend on the positions (a stage that reads "
           "node features alone, sezm-split-stages): the derived function "
           "then returns no forces and virial (nor atom_virial), only the "
           "energy (and atom_energy) and the gradients of `weights`">,
    Option<"createGraph", "create-graph", "bool", /*default=*/"false",
           "Build a backward that can be differentiated again (training "
           "with a force loss): every op of it must have a derivative rule, "
           "and the function is marked sezm.create_graph">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def SplitStages : Pass<"sezm-split-stages", "::mlir::ModuleOp"> {
  let summary = "Cut an energy function into stages at its block boundaries";
  let description = [{
    For a domain decomposition (several MPI ranks, each with ghost copies of
    its neighbours' atoms), a message-passing model runs one block at a
    time, the caller exchanging the ghost atoms' node features between
    blocks. The `sezm.exchange` ops of `@<energy>` mark those boundaries:
    with K of them, this adds

    - `@<energy>_stage<k>` for k = 0..K: stage 0 computes the first
      exchange's operand from the graph; stage k > 0 takes the features
      after the k-th exchange as the argument `features` and returns the
      next exchange's operand (`features`), the last one the energy;
    - `@<energy>_stage<k>_backward`, where the stage has something to
      differentiate: the same arguments, plus `features_out_grad` (the
      gradient of the stage's result, for k < K), returning the stage's
      share of the `forces` and `virial` (where it reads the positions) and
      `features_grad` (for k > 0), by `sezm-autodiff` of sum(result x
      features_out_grad) (of the energy, for the last stage).

    Each stage computes again the values of the graph it reads (edge
    geometry, radial features) and takes only the arguments it reads (the
    last stage, a readout of each atom, takes the features and types of the
    atoms whose energy it sums). Run in order on one process, with the
    features of stage k passed to stage k+1 and each backward's
    `features_grad` to the one before, the energy is `@<energy>`'s and the
    stages' forces and virials sum to its forces and virial. A stage
    whose result reads an earlier block's features other than through its
    own `features` is refused: only one tensor crosses a boundary.

    Before:
    ```mlir
    func.func @energy(%pos ..., %types ...) -> tensor<f64> {
      %x0 = ...                          // from the types
      %x0s = sezm.exchange %x0 : tensor<?x16x32xf32>
      %b0x = ...                         // block 0 on %x0s and the graph
      %b0xs = sezm.exchange %b0x : tensor<?x16x32xf32>
      %e = ...                           // readout of %b0xs
      return %e : tensor<f64>
    }
    ```
    After (added): `@energy_stage0(%types) -> features`,
    `@energy_stage1(%pos, ..., %features) -> features`,
    `@energy_stage1_backward(%pos, ..., %features, %features_out_grad) ->
    (forces, virial, features_grad)`, `@energy_stage2(%types, %features) ->
    energy`, `@energy_stage2_backward(%types, %features) -> features_grad`.
  }];
  let options = [
    Option<"energy", "energy", "std::string", /*default=*/"\"energy\"",
           "The energy function to cut">,
    Option<"perAtom", "per-atom", "bool", /*default=*/"false",
           "The readout's backward also returns each own atom's energy "
           "(atom_energy), and each other backward its share of each "
           "node's virial (atom_virial: each edge's term half to each "
           "end)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def PlanMemory : Pass<"sezm-plan-memory", "::mlir::func::FuncOp"> {
  let summary = "Free buffers after their last use and reuse freed ones";
  let description = [{
    Plans the buffers of a bufferized function whose body is one block (the
    host code of a sezm program): each `memref.alloc` moves down to just
    before its first use, a later allocation of the same type and extents
    takes over a buffer whose last use is behind it, and (with `free`)
    a `memref.dealloc` follows the last use of every buffer that is not
    returned. Uses inside loops and kernels count at the op that holds them;
    views (subview, cast, reshapes) are uses of their source.

    A remark gives the planned peak (the most bytes live at once) and the
    unplanned one (every buffer held to the exit) as polynomials in the
    extents of the arguments. An extent is named by the argument's
    `sezm.extents` (e.g. `["E"]`, or `["N+1"]` for a rowptr), else
    `<name>[<dim>]`; an extent of a view (expand_shape, collapse_shape,
    cast, subview) or of a buffer of the body is traced to the sizes it
    was made from. With `at`, both peaks are also evaluated there. Where a
    function's peak depends on which term wins, every candidate is listed as
    `max(...)`. Arguments are the caller's memory and are not counted.

    Before:
    ```mlir
    %a = memref.alloc(%e) : memref<?x16x64xf32>
    %b = memref.alloc(%e) : memref<?x16x64xf32>
    "use"(%a) ...
    "use"(%b) ...
    return
    ```
    After (`free`):
    ```mlir
    %a = memref.alloc(%e) : memref<?x16x64xf32>
    "use"(%a) ...
    "use"(%a) ...      // %b reuses %a, whose last use was before %b's first
    memref.dealloc %a : memref<?x16x64xf32>
    return
    ```
    Remark: `planned peak 4096*E bytes (unplanned 8192*E)`.
  }];
  let options = [
    Option<"freeBuffers", "free", "bool", /*default=*/"true",
           "Insert memref.dealloc after each buffer's last use (off where "
           "bufferization's deallocation pipeline frees them instead)">,
    ListOption<"at", "at", "std::string",
               "Evaluate the peaks at these extents, e.g. N=4096,E=647642">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "At each peak candidate, a remark listing the buffers live there "
           "(bytes and where each is allocated), the most bytes per edge "
           "first">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def KeepWignerEntries : Pass<"sezm-keep-wigner-entries", "::mlir::func::FuncOp"> {
  let summary = "Store each edge's Wigner-D as the entries a rotation keeps";
  let description = [{
    A `sezm.wigner` whose every use is the Wigner-D of a rotation
    (`sezm.rotate`, `sezm.rotate_mix`, `sezm.rotate_back`,
    `sezm.envelope_aggregate`, `sezm.attention_aggregate`) gets the result
    type (E, K), K = (lmax+1)^2 + 2*lmax*(lmax+2): the |m| <= 1 rows of each
    diagonal block, all that those ops read (46 of 256 entries at lmax 3,
    119 MB instead of 661 MB at 645k edges). The numbers do not change.
    It runs before `sezm-autodiff`, whose derivative rules then give the
    Wigner-D's gradients the same form, and `sezm.wigner_grad` reads it. A
    Wigner-D with any other use (a function result, a gradient op already
    built) is left whole.

    Before:
    ```mlir
    %wd = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
    %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
        : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
           tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
    ```
    After:
    ```mlir
    %wd = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x46xf32>
    %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
        : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>,
           tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
    ```
  }];
}

def Rematerialize : Pass<"sezm-rematerialize", "::mlir::func::FuncOp"> {
  let summary = "Recompute cheap per-edge values for the backward instead of keeping them";
  let description = [{
    Under the inference schedule, a `sezm.rotate_mix` message or
    `sezm.edge_vectors` result whose next use comes after other sezm ops have
    run (the backward, after the later blocks) is computed again right before
    that use, from the same operands (the node features, the Wigner-D and the
    kernel; the positions), and later uses nearby share the copy: the
    (E, 3*lmax+1, C) message, 1.66 GB at 4096 atoms, then dies with its
    first users, for one more rotate_mix forward (under a millisecond on an
    H200). The recomputation gives the same numbers bit for bit. Under the
    training schedule nothing changes: a backward that is differentiated
    again keeps its saved activations. Each recomputation is stated in a
    remark.

    Before:
    ```mlir
    %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb ...
    %agg = sezm.envelope_aggregate %u by %wd ...
    ...
    %gu, ... = sezm.envelope_aggregate_grad %gagg, %u by %wd ...
    ```
    After:
    ```mlir
    %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb ...
    %agg = sezm.envelope_aggregate %u by %wd ...
    ...
    %u2 = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb ...
    %gu, ... = sezm.envelope_aggregate_grad %gagg, %u2 by %wd ...
    ```

    With `stacks`, the mixing stack (so2_linear, gate, focus_scale and the
    residual adds between them, from the rotate_mix message) is recomputed
    too: from the first use that other sezm ops separate from the one
    before, every later use takes a copy made at the earliest such use, so
    that a block's stack is computed once more when its backward starts and
    its activations are not kept through the later blocks' backward.
  }];
  let options = [
    Option<"stacks", "stacks", "bool", /*default=*/"false",
           "Recompute the mixing stacks for the backward too (less memory "
           "per edge, one more stack forward per block but the last)">,
  ];
}

def ChunkEdges : Pass<"sezm-chunk-edges", "::mlir::func::FuncOp"> {
  let summary = "Process the per-edge chains of row-wise ops in chunks of edges";
  let description = [{
    Under the inference schedule, each chain of ops that compute every edge
    on its own (EdgeRowwiseOpInterface: rotate_mix, the mixing stack's
    so2_linear, gate, focus_compete and focus_scale, their gradients, the
    aggregation's backward, and the elementwise arith ops between them) runs in an `scf.for` over
    ranges of `rows` edges: its per-edge operands are sliced, its results
    written into whole (E, ...) tensors, and the values inside the chain
    live one chunk at a time instead of for all E edges. A chain ends where
    its results meet an op that is not row-wise (an aggregation, a matmul,
    a source reduction); its row-wise producers are pulled into the loop,
    computed again per chunk where they have other users (the backward
    recomputes the mixing stack chunk by chunk from the node features),
    except a small result (at most 64 elements per edge, such as an
    envelope gradient) of an op an earlier loop computes, which that loop
    writes whole and the later one slices (an empty tensor or a fill is
    made again instead: it costs nothing to compute). A
    chain is chunked only where it has values that no op outside it reads
    (otherwise there is nothing to save) and holds a sezm op (a chain of
    elementwise ops keeps a few floats per edge).

    Tensor and linalg ops on edge rows join the chains where they compute
    each edge on its own: `tensor.empty` sized by the edge count (in the
    loop, the chunk's), reshapes that keep the edge axis alone, and linalg
    ops whose first loop is parallel and indexes the edge axis of exactly
    the operands they read per edge, with an init made in the chain (a
    radial network's fills, matmuls against its weights and activations);
    a chain is worth a loop where it holds a sezm op or a value of more
    than 64 elements per edge.

    A chain also ends in an op that sums its edges into nodes through a
    CSR (EdgeRangeSumOpInterface: `envelope_aggregate`,
    `rotate_mix_grad_reduce`) where no chunkable op reads the sum: the loop
    runs it on each chunk (`from %lo`) and adds the chunk's node sums to
    its (N, ...) result in place, in chunk order, so the op's per-edge
    operand (the messages, the message gradients) is never whole. Those
    sums are the only ones that cross chunk boundaries: a node whose edges
    fall in two chunks gets its two parts added, where the unchunked op sums
    the segment in one run, so it may differ in the last bits (and the
    aggregation's `inv_sqrt_deg` multiplies each part). Every other result
    is the unchunked one bit for bit. Under the training schedule nothing
    changes.

    Before (rows = 65536):
    ```mlir
    %u = sezm.rotate_mix %x[%src] by %wd kernel %kc ... -> tensor<?x10x64xf32>
    %z = sezm.so2_linear %u weights(%w0, %wu, %wv) ...
    %y = sezm.gate %z weight %gw plus %u ...
    %agg = sezm.envelope_aggregate %y by %wd ...
    ```
    After:
    ```mlir
    %e = tensor.dim %src, %c0 : tensor<?xi64>
    %init = tensor.empty(%e) : tensor<?x10x64xf32>
    %y = scf.for %lo = %c0 to %e step %c65536 iter_args(%acc = %init) -> ... {
      %n = arith.minsi %c65536, %left : index
      %src_n = tensor.extract_slice %src[%lo] [%n] [1] ...
      ... the three ops on the slices ...
      %next = tensor.insert_slice %y_n into %acc[%lo, 0, 0] [%n, 10, 64] ...
      scf.yield %next
    }
    %agg = sezm.envelope_aggregate %y by %wd ...
    ```
  }];
  let options = [
    Option<"rows", "rows", "int64_t", /*default=*/"65536",
           "Edges per chunk (at least 1)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"chunkedChains", "chunked-chains", "Chains put in chunk loops">,
  ];
}

def InputsReadOnly : Pass<"sezm-inputs-read-only", "::mlir::func::FuncOp"> {
  let summary = "Keep bufferization from writing into a function's inputs";
  let description = [{
    Marks every tensor argument of a public function
    `bufferization.writable = false`, so that one-shot bufferization never
    computes a result in place over the caller's input: sezm-run reuses its
    inputs across --bench and --verify runs, and an MD engine its positions
    across steps. An op that could have reused an input gets a buffer of its
    own instead.

    Before:
    ```mlir
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32>
    ```
    After:
    ```mlir
    func.func @f(%x: tensor<?xf32> {bufferization.writable = false}) -> tensor<?xf32>
    ```
  }];
}

def DropPortNames : Pass<"sezm-drop-port-names", "::mlir::func::FuncOp"> {
  let summary = "Drop the names of a function's arguments and results";
  let description = [{
    Removes `sezm.name` from every argument and result of a function. The
    names are the entry's interface: the manifest takes them from the module
    before it is lowered, and the graph passes read them (the fused backward
    finds the source CSR through `sezm.csr_of`, which names an argument). The
    lowering has no use for them, and LLVM's translation would warn about a
    result attribute it does not know; so the pipelines drop them where the
    lowering starts, after every graph pass.

    Before:
    ```mlir
    func.func @f(%x: tensor<?xf32> {sezm.name = "x"}) -> (tensor<?xf32> {sezm.name = "y"})
    ```
    After:
    ```mlir
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32>
    ```
  }];
}

def OrderConstantGlobals
    : Pass<"sezm-order-constant-globals", "::mlir::ModuleOp"> {
  let summary = "Name and place bufferization's constant globals in use order";
  let description = [{
    One-shot bufferization turns each tensor constant into a private,
    constant `memref.global` named after its type (`__constant_1x128xf32`,
    then `_0`, `_1`, ... for more of one type), created as it meets the
    functions, in an order that can differ from run to run. This pass renames
    them `__constant_<k>_<type>` in the order the module's functions first
    read them (`memref.get_global`), and places them in that order at the top
    of the module, so that the same module always compiles to the same
    bytes (the artifact's host library included).

    Before: `memref.global "private" constant @__constant_xf32 : ...`
    After: `memref.global "private" constant @__constant_0_xf32 : ...`
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // SEZM_TRANSFORMS_PASSES_TD
