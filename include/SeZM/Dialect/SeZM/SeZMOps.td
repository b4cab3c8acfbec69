//===- SeZMOps.td - sezm operations ------------------------*- tablegen -*-===//
//
// The math of each op is in docs/dialect.md and sezm-ops.md (sections in
// brackets). Shapes use N nodes, E edges, C channels, D = (lmax+1)^2 packed
// rows and Dm = 3*lmax+1 edge-frame rows (|m| <= 1).
//
//===----------------------------------------------------------------------===//

#ifndef SEZM_DIALECT_SEZM_SEZMOPS_TD
#define SEZM_DIALECT_SEZM_SEZMOPS_TD

include "SeZM/Dialect/SeZM/SeZMDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// ODS only requires ranked tensors: each op's verifier checks element types
// and shapes, so that its diagnostics name the operand and what it expected.
class SeZM_TensorOf<string what>
    : Type<AnyRankedTensor.predicate, what, "::mlir::RankedTensorType">;
def SeZM_FloatTensor : SeZM_TensorOf<"ranked tensor of f32 or f64 values">;
def SeZM_IndexTensor : SeZM_TensorOf<"ranked tensor of i32 or i64 indices">;


//===----------------------------------------------------------------------===//
// Edge geometry [1.5, 2, 3.0]
//===----------------------------------------------------------------------===//

def SeZM_EdgeVectorsOp : SeZM_Op<"edge_vectors", [SeZM_Differentiable]> {
  let summary = "edge vectors v[e] = r[src[e]] - r[dst[e]] (+ shift[e])";
  let description = [{
    Math: sezm-ops.md sections 1.5, 5.

    Gathers the positions of each edge's source and destination atom and
    returns their difference, plus an optional per-edge periodic shift.
    `src` and `dst` are i32 or i64 indices in [0, N).

    Shapes: positions (N, 3), src and dst (E), shift (E, 3) -> (E, 3).

    Example:
    ```mlir
    %v = sezm.edge_vectors %pos[%src, %dst] shift %shift
        : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?x3xf32>)
        -> tensor<?x3xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$positions, SeZM_IndexTensor:$src,
                       SeZM_IndexTensor:$dst, Optional<SeZM_FloatTensor>:$shift);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $positions `[` $src `,` $dst `]` (`shift` $shift^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_EdgeVectorsGradOp : SeZM_Op<"edge_vectors_grad", [SeZM_Differentiable]> {
  let summary = "position gradient from edge-vector gradients, over both CSRs";
  let description = [{
    Math: sezm-ops.md section 5.

    The adjoint of `sezm.edge_vectors`:
    `result[k] = sum_{src[e] = k} grad[e] - sum_{dst[e] = k} grad[e]`,
    each sum taken over its CSR segment in CSR order (no atomics, repeatable
    bit for bit). Forces are the negation of this when `grad = dE/dv`.
    Its own derivative is `sezm.edge_vectors` of the cotangent.

    Shapes: grad (E, 3), src_order and dst_order (E), src_rowptr and
    dst_rowptr (N+1) -> (N, 3).

    Example:
    ```mlir
    %g = sezm.edge_vectors_grad %gv src(%so, %sr) dst(%do, %dr)
        : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>,
           tensor<?xi64>) -> tensor<?x3xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_IndexTensor:$src_order,
                       SeZM_IndexTensor:$src_rowptr, SeZM_IndexTensor:$dst_order,
                       SeZM_IndexTensor:$dst_rowptr);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `src` `(` $src_order `,` $src_rowptr `)`
    `dst` `(` $dst_order `,` $dst_rowptr `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_EnvelopeOp : SeZM_Op<"envelope", [SeZM_Differentiable]> {
  let summary = "the C^3 polynomial cutoff envelope E_p(r / rcut) per edge";
  let description = [{
    Math: sezm-ops.md section 3.0.

    With `r = sqrt(|v|^2 + eps^2)` (eps = 1e-7) and `x = r / rcut`:
    `E_p(x) = (1-x)^4 sum_{k=0}^{p-1} C(k+3, 3) x^k` for x < 1 and 0
    otherwise, with p = `exponent`: DeePMD-kit's C3CutoffEnvelope (DPA4),
    whose value and first three derivatives vanish at x = 1
    (`E_5 = (1-x)^4 (1 + 4x + 10x^2 + 20x^3 + 35x^4)`).

    Shapes: edge_vec (E, 3) -> (E).

    Example:
    ```mlir
    %env = sezm.envelope %v rcut = 6.0 exponent = 5
        : (tensor<?x3xf32>) -> tensor<?xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$edge_vec, F64Attr:$rcut,
                       I64Attr:$exponent);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $edge_vec `rcut` `=` $rcut `exponent` `=` $exponent attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_EnvelopeGradOp : SeZM_Op<"envelope_grad", [SeZM_Differentiable]> {
  let summary = "edge-vector gradient of sezm.envelope";
  let description = [{
    Math: sezm-ops.md section 3.0.

    `result[e] = grad[e] * E_p'(r/rcut) / rcut * v[e] / r`.

    Shapes: edge_vec (E, 3), grad (E) -> (E, 3).

    Example:
    ```mlir
    %gv = sezm.envelope_grad %g, %v rcut = 6.0 exponent = 5
        : (tensor<?xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$edge_vec,
                       F64Attr:$rcut, I64Attr:$exponent);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $edge_vec `rcut` `=` $rcut `exponent` `=` $exponent attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_RadialBasisOp : SeZM_Op<"radial_basis", [SeZM_Differentiable]> {
  let summary = "Bessel radial basis times the envelope, per edge";
  let description = [{
    Math: sezm-ops.md sections 3.0, 7.

    `result[e, k] = sin(w_k r) / r * E_p(r / rcut)` for k = 0..K-1 (K =
    n_radial, the result's last extent), r regularized as in
    `sezm.envelope`. The frequencies `w_k` are the operand `freqs` (K),
    DeePMD-kit's trained `radial_basis.adam_freqs`, or without it the
    initial ones, `w_k = (k+1) pi / rcut`. DeePMD-kit writes the same
    function as `w sinc(w r / pi)`.

    Shapes: edge_vec (E, 3), freqs (K) -> (E, K).

    Example:
    ```mlir
    %rbf = sezm.radial_basis %v rcut = 6.0 exponent = 7
        : (tensor<?x3xf32>) -> tensor<?x16xf32>
    %rbf2 = sezm.radial_basis %v freqs %w rcut = 6.0 exponent = 7
        : (tensor<?x3xf32>, tensor<16xf32>) -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$edge_vec,
                       Optional<SeZM_FloatTensor>:$freqs, F64Attr:$rcut,
                       I64Attr:$exponent);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $edge_vec (`freqs` $freqs^)? `rcut` `=` $rcut `exponent` `=` $exponent
    attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_RadialBasisGradOp : SeZM_Op<"radial_basis_grad", [SeZM_Differentiable]> {
  let summary = "edge-vector gradient of sezm.radial_basis";
  let description = [{
    Math: sezm-ops.md sections 3.0, 7.

    `result[e] = sum_k grad[e, k] * d rbf[e, k] / d v[e]`, with the
    frequencies of the `sezm.radial_basis` it differentiates. (The
    frequencies are weights: no gradient is taken with respect to them.)

    Shapes: grad (E, K), edge_vec (E, 3), freqs (K) -> (E, 3).

    Example:
    ```mlir
    %gv = sezm.radial_basis_grad %g, %v rcut = 6.0 exponent = 7
        : (tensor<?x16xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$edge_vec,
                       Optional<SeZM_FloatTensor>:$freqs, F64Attr:$rcut,
                       I64Attr:$exponent);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $edge_vec (`freqs` $freqs^)? `rcut` `=` $rcut `exponent` `=`
    $exponent attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_WignerOp : SeZM_Op<"wigner", [SeZM_Differentiable]> {
  let summary = "block-diagonal real Wigner-D that rotates each edge onto +Z";
  let description = [{
    Math: sezm-ops.md sections 2.1, 2.2.

    Builds the edge quaternion of sezm-ops.md 2.1 (two charts blended by a
    smooth step, no roll) and the real-basis Wigner-D of 2.2:
    `result[e]` is block-diagonal with block l = D^l(q_e) on rows and columns
    l^2 .. (l+1)^2 - 1, zero elsewhere, so that `D^l Y_l(r) = Y_l(R r)`.

    Shapes: edge_vec (E, 3) -> (E, D, D), or (E, K): the entries a
    rotation keeps alone (see `sezm.rotate`), which
    `sezm-keep-wigner-entries` chooses when only rotations read the result.

    Example:
    ```mlir
    %wd = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x16x16xf32>
    %wk = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x46xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$edge_vec, I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $edge_vec `lmax` `=` $lmax attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_WignerGradOp : SeZM_Op<"wigner_grad", [SeZM_Differentiable]> {
  let summary = "edge-vector gradient of sezm.wigner";
  let description = [{
    Math: sezm-ops.md sections 2.2, 4.1.

    `result[e] = sum_{i,j} grad[e, i, j] * d D[e, i, j] / d v[e]`, through
    the quaternion. Entries of `grad` off the diagonal blocks multiply exact
    zeros and do not contribute.

    Shapes: grad (E, D, D) or (E, K) (the kept entries alone; the others
    are then zero), edge_vec (E, 3) -> (E, 3).

    Example:
    ```mlir
    %gv = sezm.wigner_grad %gd, %v lmax = 3
        : (tensor<?x16x16xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$edge_vec,
                       I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $edge_vec `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Second order of the edge functions (create-graph)
//===----------------------------------------------------------------------===//

// The derivative rule of a `<f>_grad` op, `result[e] = sum_i grad[e, i] *
// d f_i / d v[e]`, for a backward that is differentiated again. Given the
// cotangent `c` (E, 3) of that result it returns
//   grad_cot[e, i] = sum_k c[e, k] d f_i / d v_k          (f's derivative along c)
//   edge_vec_grad[e, j] = sum_i grad[e, i] sum_k c[e, k] d^2 f_i / d v_k d v_j
// both per edge in one pass, by forward mode over forward mode.
class SeZM_EdgeSecondOrderOp<string mnemonic, string function, string shapes,
                             string example>
    : SeZM_Op<mnemonic> {
  let summary = "derivatives of sezm." # function # "_grad (for create-graph)";
  let description = [{
    The derivative rule of `sezm.}] # function # [{_grad`, which sezm-autodiff
    emits when the backward is itself differentiated (`create-graph`). With
    `c` the cotangent of the first-order result (E, 3):
    `grad_cot[e, i] = sum_k c[e, k] d f_i / d v_k` (the derivative of the
    edge function along `c`) and
    `edge_vec_grad[e, j] = sum_i grad[e, i] sum_k c[e, k] d^2 f_i / (d v_k d v_j)`.

    Shapes: }] # shapes # [{

    Example:
    ```mlir
    }] # example # [{
    ```
  }];
  let results = (outs SeZM_FloatTensor:$grad_cot,
                      SeZM_FloatTensor:$edge_vec_grad);
}

def SeZM_EnvelopeGradGradOp
    : SeZM_EdgeSecondOrderOp<"envelope_grad_grad", "envelope",
        "cot (E, 3), grad (E), edge_vec (E, 3) -> (E), (E, 3).",
        [{%gg, %gv = sezm.envelope_grad_grad %c, %g, %v rcut = 6.0 exponent = 5
        : (tensor<?x3xf64>, tensor<?xf64>, tensor<?x3xf64>)
        -> (tensor<?xf64>, tensor<?x3xf64>)}]> {
  let arguments = (ins SeZM_FloatTensor:$cot, SeZM_FloatTensor:$grad,
                       SeZM_FloatTensor:$edge_vec, F64Attr:$rcut,
                       I64Attr:$exponent);
  let assemblyFormat = [{
    $cot `,` $grad `,` $edge_vec `rcut` `=` $rcut `exponent` `=` $exponent
    attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_RadialBasisGradGradOp
    : SeZM_EdgeSecondOrderOp<"radial_basis_grad_grad", "radial_basis",
        "cot (E, 3), grad (E, K), edge_vec (E, 3) -> (E, K), (E, 3).",
        [{%gg, %gv = sezm.radial_basis_grad_grad %c, %g, %v rcut = 6.0 exponent = 7
        : (tensor<?x3xf64>, tensor<?x16xf64>, tensor<?x3xf64>)
        -> (tensor<?x16xf64>, tensor<?x3xf64>)}]> {
  let arguments = (ins SeZM_FloatTensor:$cot, SeZM_FloatTensor:$grad,
                       SeZM_FloatTensor:$edge_vec,
                       Optional<SeZM_FloatTensor>:$freqs, F64Attr:$rcut,
                       I64Attr:$exponent);
  let assemblyFormat = [{
    $cot `,` $grad `,` $edge_vec (`freqs` $freqs^)? `rcut` `=` $rcut
    `exponent` `=` $exponent attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_WignerGradGradOp
    : SeZM_EdgeSecondOrderOp<"wigner_grad_grad", "wigner",
        "cot (E, 3), grad (E, D, D), edge_vec (E, 3) -> (E, D, D), (E, 3); "
        "grad_cot is zero off the diagonal blocks.",
        [{%gg, %gv = sezm.wigner_grad_grad %c, %gd, %v lmax = 3
        : (tensor<?x3xf64>, tensor<?x16x16xf64>, tensor<?x3xf64>)
        -> (tensor<?x16x16xf64>, tensor<?x3xf64>)}]> {
  let arguments = (ins SeZM_FloatTensor:$cot, SeZM_FloatTensor:$grad,
                       SeZM_FloatTensor:$edge_vec, I64Attr:$lmax);
  let assemblyFormat = [{
    $cot `,` $grad `,` $edge_vec `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Rotation and radial degree mixing [2.3, 3.3, 4.1]
//===----------------------------------------------------------------------===//

def SeZM_RotateOp : SeZM_Op<"rotate", [SeZM_Differentiable]> {
  let summary = "gather source features and rotate them into the edge frame";
  let description = [{
    Math: sezm-ops.md sections 2.3, 3.3.

    `result[e, j, c] = sum_{d in block deg(j)} wigner[e, coeff[j], d] * x[src[e], d, c]`:
    only the rows |m| <= 1 of each diagonal block are kept, in the m-major
    reduced order (m = 0 for l = 0..lmax, then m = -1 and m = +1 for
    l = 1..lmax).

    Shapes: x (N, D, C), src (E), wigner (E, D, D) -> (E, Dm, C).

    The Wigner-D may instead hold only the entries a rotation keeps,
    (E, K) with K = (lmax+1)^2 + 2*lmax*(lmax+2) (46 at lmax 3), in the
    order of reduced row j, then column d of its degree's block: a sixth of
    the bytes at lmax 3, the same numbers. So may every op that takes a
    Wigner-D (the rotations, `sezm.rotate_back`, the aggregations and their
    gradients, whose `wigner_grad` then has that form too).

    Example:
    ```mlir
    %xl = sezm.rotate %x[%src] by %wd lmax = 3
        : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>)
        -> tensor<?x10x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$x, SeZM_IndexTensor:$src, SeZM_FloatTensor:$wigner,
                       I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `[` $src `]` `by` $wigner `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_RotateGradOp : SeZM_Op<"rotate_grad"> {
  let summary = "per-edge gradients of sezm.rotate";
  let description = [{
    Math: sezm-ops.md section 4.1.

    `node_grad[e, d, c] = sum_{j: deg(j) = l(d)} wigner[e, coeff[j], d] * grad[e, j, c]`
    is the gradient reaching `x[src[e]]` from edge e (a `sezm.segment_reduce`
    over the source CSR turns it into the gradient of x);
    `wigner_grad[e, coeff[j], d] = sum_c grad[e, j, c] * x[src[e], d, c]` on
    the kept rows of the diagonal blocks, exactly 0 elsewhere.

    Shapes: grad (E, Dm, C), x (N, D, C), src (E), wigner (E, D, D)
    -> node_grad (E, D, C), wigner_grad (E, D, D).

    Example:
    ```mlir
    %gxe, %gwd = sezm.rotate_grad %g, %x[%src] by %wd lmax = 3
        : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
           tensor<?x16x16xf32>) -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$x, SeZM_IndexTensor:$src,
                       SeZM_FloatTensor:$wigner, I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$node_grad, SeZM_FloatTensor:$wigner_grad);
  let assemblyFormat = [{
    $grad `,` $x `[` $src `]` `by` $wigner `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_MixOp : SeZM_Op<"mix", [SeZM_Differentiable]> {
  let summary = "edge-conditioned radial degree mixing in the edge frame";
  let description = [{
    Math: sezm-ops.md sections 1.7, 3.2, 3.3.

    With rank R >= 1, `kc` is the compact per-edge kernel (E, KSZ*R),
    KSZ = (lmax+1)^2 + lmax^2, and `cb` the channel basis (R, C):
    `Keff[e, i, o, c] = sum_r kc[e, k(i, o)*R + r] * cb[r, c]` mixes degrees
    within the m = 0 rows (k = i*(lmax+1) + o) and, with one shared kernel,
    within the m = -1 rows and the m = +1 rows
    (k = (lmax+1)^2 + i*lmax + o, degrees i+1 -> o+1):
    `result[e, o, c] = sum_i Keff[e, i, o, c] * xl[e, i, c]` per m group.

    With rank 0 (mixer-free), `kc` is the radial feature (E, lmax+1, C),
    there is no `cb`, and `result[e, j, c] = xl[e, j, c] * kc[e, deg(j), c]`.

    Shapes: xl (E, Dm, C), kc (E, KSZ*R) or (E, lmax+1, C), cb (R, C)
    -> (E, Dm, C).

    Example:
    ```mlir
    %y = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
        : (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
        -> tensor<?x10x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$xl, SeZM_FloatTensor:$kc,
                       Optional<SeZM_FloatTensor>:$cb, I64Attr:$lmax,
                       I64Attr:$rank);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $xl `kernel` $kc (`basis` $cb^)? `lmax` `=` $lmax `rank` `=` $rank
    attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_MixGradOp : SeZM_Op<"mix_grad"> {
  let summary = "gradients of sezm.mix";
  let description = [{
    Math: sezm-ops.md section 4.1.

    `xl_grad[e, i, c] = sum_o Keff[e, i, o, c] * grad[e, o, c]` per m group;
    `kc_grad[e, k(i, o)*R + r] = sum_c cb[r, c] * grad[e, o, c] * xl[e, i, c]`
    (both |m| = 1 groups summed); the optional `cb_grad` (only with rank >= 1,
    left out when nothing needs the weight gradient) is
    `cb_grad[r, c] = sum_e sum_(i,o) kc[e, k*R + r] * grad[e, o, c] * xl[e, i, c]`.
    Rank 0: `xl_grad = grad * kc[deg]`,
    `kc_grad[e, l, c] = sum_{deg(j) = l} grad[e, j, c] * xl[e, j, c]`.

    Example:
    ```mlir
    %gxl, %gkc = sezm.mix_grad %g, %xl kernel %kc basis %cb lmax = 3 rank = 1
        : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>,
           tensor<1x64xf32>) -> (tensor<?x10x64xf32>, tensor<?x25xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$xl, SeZM_FloatTensor:$kc,
                       Optional<SeZM_FloatTensor>:$cb, I64Attr:$lmax,
                       I64Attr:$rank);
  let results = (outs SeZM_FloatTensor:$xl_grad, SeZM_FloatTensor:$kc_grad,
                      Optional<SeZM_FloatTensor>:$cb_grad);
  let assemblyFormat = [{
    $grad `,` $xl `kernel` $kc (`basis` $cb^)? `lmax` `=` $lmax
    `rank` `=` $rank attr-dict `:` functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def SeZM_RotateMixOp : SeZM_Op<"rotate_mix", [SeZM_Differentiable,
    SeZM_EdgeRowwise]> {
  let summary = "fused sezm.rotate + sezm.mix (made by sezm-fuse-rotate-mix)";
  let description = [{
    Math: sezm-ops.md section 3.3.

    `rotate_mix(x, src, wigner, kc, cb) = mix(rotate(x, src, wigner), kc, cb)`
    in one pass per edge; the rotated features are never stored.

    With `focus_major = F` the result is stored in the focus-major layout
    `(F, E, Dm*Cf)` that a mixing stack working per focus stream reads
    (sezm-ops.md 1.4, 3.3): element `[f, e, j*Cf + cf]` is element
    `[e, j, f*Cf + cf]` of the edge-frame result, `Cf = C / F`. The values
    are the same; only the store addresses change.

    The Wigner-D may be whole or its kept entries alone (see `sezm.rotate`).

    Example:
    ```mlir
    %u = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
        : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
           tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
    %uk = sezm.rotate_mix %x[%src] by %wk kernel %kc basis %cb lmax = 3 rank = 1
        : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>,
           tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
    %u0 = sezm.rotate_mix %x[%src] by %wd kernel %kc basis %cb lmax = 3 rank = 1
        focus_major = 2
        : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
           tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<2x?x320xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$x, SeZM_IndexTensor:$src, SeZM_FloatTensor:$wigner,
                       SeZM_FloatTensor:$kc, Optional<SeZM_FloatTensor>:$cb,
                       I64Attr:$lmax, I64Attr:$rank,
                       OptionalAttr<I64Attr>:$focus_major);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `[` $src `]` `by` $wigner `kernel` $kc (`basis` $cb^)?
    `lmax` `=` $lmax `rank` `=` $rank (`focus_major` `=` $focus_major^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_RotateMixGradOp : SeZM_Op<"rotate_mix_grad", [
    DeclareOpInterfaceMethods<SeZM_EdgeRowwiseOpInterface, ["getEdgeSumResults"]>]> {
  let summary = "per-edge gradients of sezm.rotate_mix";
  let description = [{
    Math: sezm-ops.md section 4.1.

    The composition of `sezm.mix_grad` and `sezm.rotate_grad`, recomputing
    the rotated features per edge: `node_grad` (E, D, C) is the gradient
    reaching `x[src[e]]` from edge e, plus `wigner_grad`, `kc_grad` and the
    optional `cb_grad`.

    Example:
    ```mlir
    %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc
        basis %cb lmax = 3 rank = 1
        : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
           tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
        -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$x, SeZM_IndexTensor:$src,
                       SeZM_FloatTensor:$wigner, SeZM_FloatTensor:$kc,
                       Optional<SeZM_FloatTensor>:$cb, I64Attr:$lmax,
                       I64Attr:$rank);
  let results = (outs SeZM_FloatTensor:$node_grad, SeZM_FloatTensor:$wigner_grad,
                      SeZM_FloatTensor:$kc_grad, Optional<SeZM_FloatTensor>:$cb_grad);
  let assemblyFormat = [{
    $grad `,` $x `[` $src `]` `by` $wigner `kernel` $kc (`basis` $cb^)?
    `lmax` `=` $lmax `rank` `=` $rank attr-dict
    `:` functional-type(operands, results)
  }];
  let hasCanonicalizer = 1;
}

def SeZM_RotateMixGradReduceOp : SeZM_Op<"rotate_mix_grad_reduce",
    [AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<SeZM_EdgeRangeSumOpInterface,
                               ["getSumOrder", "getSumRowptr"]>]> {
  let summary = "rotate_mix backward fused with the source segment reduction";
  let description = [{
    Math: sezm-ops.md section 4.3.

    `x_grad[n] = sum_{t = src_rowptr[n]}^{src_rowptr[n+1]-1} node_grad[src_order[t]]`
    where `node_grad` is that of `sezm.rotate_mix_grad`, reduced on chip in
    CSR order per source node: the per-edge node gradient never exists.
    Also returns `wigner_grad` and `kc_grad`; never `cb_grad`. It has no
    derivative rule, so it only appears under the inference schedule, and it
    requires rank <= 1.

    With `from %first` (`sezm-chunk-edges`' loops) the per-edge operands and
    results are the edges first, first + 1, ... and `x_grad` sums only
    those (EdgeRangeSumOpInterface).

    Example:
    ```mlir
    %gx, %gwd, %gkc = sezm.rotate_mix_grad_reduce %g, %x[%src] by %wd
        kernel %kc basis %cb over(%so, %sr) lmax = 3 rank = 1
        : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
           tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>,
           tensor<?xi64>, tensor<?xi64>)
        -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$x, SeZM_IndexTensor:$src,
                       SeZM_FloatTensor:$wigner, SeZM_FloatTensor:$kc,
                       Optional<SeZM_FloatTensor>:$cb, SeZM_IndexTensor:$src_order,
                       SeZM_IndexTensor:$src_rowptr, Optional<Index>:$first_edge,
                       I64Attr:$lmax, I64Attr:$rank);
  let results = (outs SeZM_FloatTensor:$x_grad, SeZM_FloatTensor:$wigner_grad,
                      SeZM_FloatTensor:$kc_grad);
  let assemblyFormat = [{
    $grad `,` $x `[` $src `]` `by` $wigner `kernel` $kc (`basis` $cb^)?
    `over` `(` $src_order `,` $src_rowptr `)` (`from` $first_edge^)?
    `lmax` `=` $lmax
    `rank` `=` $rank attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_RotateBackOp : SeZM_Op<"rotate_back", [SeZM_Differentiable]> {
  let summary = "rotate edge-frame features back to the packed SO(3) layout";
  let description = [{
    Math: sezm-ops.md sections 2.3, 3.6.

    `result[e, d, c] = rescale[d] * sum_{j: deg(j) = l(d)} wigner[e, coeff[j], d] * xl[e, j, c]`:
    the transpose of the Wigner-D restricted to the kept rows, with
    `rescale[d] = sqrt((2 l(d) + 1) / 3)` for l(d) > 1 and 1 otherwise; the
    truncated orders are zero.

    Shapes: xl (E, Dm, C), wigner (E, D, D) -> (E, D, C).

    Example:
    ```mlir
    %m = sezm.rotate_back %xl by %wd lmax = 3
        : (tensor<?x10x64xf32>, tensor<?x16x16xf32>) -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$xl, SeZM_FloatTensor:$wigner, I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $xl `by` $wigner `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_RotateBackGradOp : SeZM_Op<"rotate_back_grad"> {
  let summary = "gradients of sezm.rotate_back";
  let description = [{
    Math: sezm-ops.md section 4.5.

    `xl_grad[e, j, c] = sum_{d in block deg(j)} wigner[e, coeff[j], d] * rescale[d] * grad[e, d, c]`;
    `wigner_grad[e, coeff[j], d] = rescale[d] * sum_c grad[e, d, c] * xl[e, j, c]`
    on the kept rows of the diagonal blocks, exactly 0 elsewhere.

    Example:
    ```mlir
    %gxl, %gwd = sezm.rotate_back_grad %g, %xl by %wd lmax = 3
        : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>)
        -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$xl,
                       SeZM_FloatTensor:$wigner, I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$xl_grad, SeZM_FloatTensor:$wigner_grad);
  let assemblyFormat = [{
    $grad `,` $xl `by` $wigner `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// CSR segment reduction [1.6, 4.2]
//===----------------------------------------------------------------------===//

def SeZM_SegmentReduceOp : SeZM_Op<"segment_reduce", [SeZM_Differentiable]> {
  let summary = "sum of edge values into nodes over a CSR segmentation";
  let description = [{
    Math: sezm-ops.md sections 1.6, 4.2.

    `result[n] = sum_{t = rowptr[n]}^{rowptr[n+1]-1} values[order[t]]`,
    summed sequentially in CSR order: no atomics, repeatable bit for bit.
    Empty segments give zeros. The trailing dimensions are carried through.

    Shapes: values (E, ...), order (E), rowptr (N+1) -> (N, ...).

    Example:
    ```mlir
    %gx = sezm.segment_reduce %gxe over(%so, %sr)
        : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>)
        -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$values, SeZM_IndexTensor:$order,
                       SeZM_IndexTensor:$rowptr);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $values `over` `(` $order `,` $rowptr `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_SegmentReduceGradOp : SeZM_Op<"segment_reduce_grad", [SeZM_Differentiable]> {
  let summary = "gradient of sezm.segment_reduce: broadcast nodes to edges";
  let description = [{
    Math: sezm-ops.md sections 1.6, 4.2.

    `result[order[t]] = grad[n]` for t in [rowptr[n], rowptr[n+1]); edges in
    no segment get zeros. Its own derivative is `sezm.segment_reduce`.

    Shapes: grad (N, ...), order (E), rowptr (N+1) -> (E, ...).

    Example:
    ```mlir
    %ge = sezm.segment_reduce_grad %gn over(%do, %dr)
        : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>)
        -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_IndexTensor:$order,
                       SeZM_IndexTensor:$rowptr);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `over` `(` $order `,` $rowptr `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Gated SO(2) mixing stack [3.4, 3.5, 4.4]
//===----------------------------------------------------------------------===//

def SeZM_SO2LinearOp : SeZM_Op<"so2_linear", [SeZM_Differentiable,
    SeZM_AccumulatingOpInterface, SeZM_EdgeRowwise]> {
  let summary = "m-blocked SO(2) linear layer, per focus stream";
  let description = [{
    Math: sezm-ops.md section 3.5.

    Channels split into `focus` streams of Cf = C / focus (c = f*Cf + cf).
    Per edge and stream, the m = 0 rows (flattened to M0 = (lmax+1)*Cf) are
    multiplied by `w0[f]` (M0 x M0); the m = -1 and m = +1 rows (each
    flattened to lmax*Cf) by the complex-structured
    `[[wu[f], wv[f]], [-wv[f], wu[f]]]`:
    `z_neg = x_neg wu - x_pos wv`, `z_pos = x_neg wv + x_pos wu`.
    This commutes with rotations about the edge axis.

    Shapes: u (E, Dm, C), w0 (F, M0, M0), wu and wv (F, lmax*Cf, lmax*Cf)
    -> (E, Dm, C).

    With `plus %acc` (E, Dm, C), the result is acc + the layer's output,
    each output's sum starting from acc's element: a residual add folded
    in by `sezm-fuse-accumulate`.

    Example:
    ```mlir
    %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
        : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
           tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
    %r = sezm.so2_linear %u weights(%w0, %wu, %wv) plus %x lmax = 3 focus = 2
        : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
           tensor<2x96x96xf32>, tensor<?x10x64xf32>) -> tensor<?x10x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$u, SeZM_FloatTensor:$w0, SeZM_FloatTensor:$wu,
                       SeZM_FloatTensor:$wv, Optional<SeZM_FloatTensor>:$acc,
                       I64Attr:$lmax, I64Attr:$focus);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $u `weights` `(` $w0 `,` $wu `,` $wv `)` (`plus` $acc^)? `lmax` `=` $lmax
    `focus` `=` $focus attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_SO2LinearGradOp : SeZM_Op<"so2_linear_grad",
    [SeZM_AccumulatingOpInterface,
     DeclareOpInterfaceMethods<SeZM_EdgeRowwiseOpInterface, ["getEdgeSumResults"]>]> {
  let summary = "gradients of sezm.so2_linear";
  let description = [{
    Math: sezm-ops.md section 4.4.

    `u_grad` is the transposed layer applied to `grad`; the weight gradients
    are `w0_grad[f] = u0^T g0`, `wu_grad[f] = x_neg^T g_neg + x_pos^T g_pos`,
    `wv_grad[f] = x_neg^T g_pos - x_pos^T g_neg`, summed over edges.
    With `plus %acc` (E, Dm, C), `u_grad` is acc + the transposed layer's
    output, each sum starting from acc's element (`sezm-fuse-accumulate`).

    Example:
    ```mlir
    %gu, %gw0, %gwu, %gwv = sezm.so2_linear_grad %g, %u weights(%w0, %wu, %wv)
        lmax = 3 focus = 2
        : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
           tensor<2x96x96xf32>, tensor<2x96x96xf32>)
        -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
            tensor<2x96x96xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$u, SeZM_FloatTensor:$w0,
                       SeZM_FloatTensor:$wu, SeZM_FloatTensor:$wv,
                       Optional<SeZM_FloatTensor>:$acc, I64Attr:$lmax,
                       I64Attr:$focus);
  let results = (outs SeZM_FloatTensor:$u_grad, SeZM_FloatTensor:$w0_grad,
                      SeZM_FloatTensor:$wu_grad, SeZM_FloatTensor:$wv_grad);
  let assemblyFormat = [{
    $grad `,` $u `weights` `(` $w0 `,` $wu `,` $wv `)` (`plus` $acc^)?
    `lmax` `=` $lmax
    `focus` `=` $focus attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_GateOp : SeZM_Op<"gate", [SeZM_Differentiable,
    SeZM_AccumulatingOpInterface, SeZM_EdgeRowwise]> {
  let summary = "degree-grouped sigmoid gate of a gated SO(2) layer";
  let description = [{
    Math: sezm-ops.md section 3.5.

    Per edge and focus stream, with zs = z[e, 0, f-stream] (the l = 0 row):
    `sig = sigmoid(zs @ gw[f])` (Cf -> lmax*Cf, group l-1 in columns
    (l-1)*Cf .. l*Cf); the l = 0 row becomes `silu(zs)`, and the three rows
    of degree l >= 1 (m = 0, -1, +1) are multiplied by gate group l-1,
    channel by channel.

    Shapes: z (E, Dm, C), gw (F, Cf, lmax*Cf) -> (E, Dm, C).

    With `plus %acc` (E, Dm, C), the result is acc + the gated z, added
    element by element as a separate add would (`sezm-fuse-accumulate`).

    Example:
    ```mlir
    %act = sezm.gate %z weight %gw lmax = 3 focus = 2
        : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
    %r = sezm.gate %z weight %gw plus %u lmax = 3 focus = 2
        : (tensor<?x10x64xf32>, tensor<2x32x96xf32>, tensor<?x10x64xf32>)
        -> tensor<?x10x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$z, SeZM_FloatTensor:$gw,
                       Optional<SeZM_FloatTensor>:$acc, I64Attr:$lmax,
                       I64Attr:$focus);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $z `weight` $gw (`plus` $acc^)? `lmax` `=` $lmax `focus` `=` $focus attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_GateGradOp : SeZM_Op<"gate_grad", [
    DeclareOpInterfaceMethods<SeZM_EdgeRowwiseOpInterface, ["getEdgeSumResults"]>]> {
  let summary = "gradients of sezm.gate";
  let description = [{
    Math: sezm-ops.md section 4.4.

    `z_grad` and `gw_grad` of `sezm.gate`: the gated rows pass `grad * sig`;
    the l = 0 row gets silu'(zs) * grad[0] plus the gate path
    `(sum over the three rows of degree l of grad * z) * sig * (1 - sig) @ gw^T`.

    Example:
    ```mlir
    %gz, %ggw = sezm.gate_grad %g, %z weight %gw lmax = 3 focus = 2
        : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x32x96xf32>)
        -> (tensor<?x10x64xf32>, tensor<2x32x96xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$z, SeZM_FloatTensor:$gw,
                       I64Attr:$lmax, I64Attr:$focus);
  let results = (outs SeZM_FloatTensor:$z_grad, SeZM_FloatTensor:$gw_grad);
  let assemblyFormat = [{
    $grad `,` $z `weight` $gw `lmax` `=` $lmax `focus` `=` $focus attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_FocusCompeteOp : SeZM_Op<"focus_compete", [SeZM_Differentiable,
    SeZM_EdgeRowwise]> {
  let summary = "cross-focus competition weights alpha per edge";
  let description = [{
    Math: sezm-ops.md section 3.4.

    With s[e, f, :] = u[e, 0, f*Cf : (f+1)*Cf] (the l = 0, m = 0 row),
    optionally normalized `s / sqrt(mean(s^2) + 1e-7) * norm_scale[f]`:
    `logit[e, f] = sum_i s[e, f, i] * wfc[i, f]`,
    `alpha[e, f] = 0.98 * softmax_f(logit[e, :]) + 0.02 / F`.

    Shapes: u (E, Dm, C), wfc (Cf, F), norm_scale (F, Cf) -> (E, F).

    Example:
    ```mlir
    %alpha = sezm.focus_compete %u weight %wfc lmax = 3 focus = 2
        : (tensor<?x10x64xf32>, tensor<32x2xf32>) -> tensor<?x2xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$u, SeZM_FloatTensor:$wfc,
                       Optional<SeZM_FloatTensor>:$norm_scale, I64Attr:$lmax,
                       I64Attr:$focus);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $u `weight` $wfc (`norm` $norm_scale^)? `lmax` `=` $lmax
    `focus` `=` $focus attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_FocusCompeteGradOp : SeZM_Op<"focus_compete_grad", [
    AttrSizedOperandSegments, SeZM_AccumulatingOpInterface,
    DeclareOpInterfaceMethods<SeZM_EdgeRowwiseOpInterface, ["getEdgeSumResults"]>]> {
  let summary = "gradients of sezm.focus_compete";
  let description = [{
    Math: sezm-ops.md section 4.4.

    `u_grad` (nonzero only on the l = 0, m = 0 row), `wfc_grad`, and
    `norm_scale_grad` exactly when `norm_scale` is given.

    With `plus %acc` (E, Dm, C), u_grad is acc with the l = 0, m = 0 row's
    gradient added to that row as a separate add would
    (`sezm-fuse-accumulate`): the message's gradient from the mixing stack
    meets the competition's without a zero-filled tensor and an add.

    Example:
    ```mlir
    %gu, %gw = sezm.focus_compete_grad %ga, %u weight %wfc lmax = 3 focus = 2
        : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>)
        -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
    %su, %sw = sezm.focus_compete_grad %ga, %u weight %wfc plus %gs lmax = 3
        focus = 2
        : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>,
           tensor<?x10x64xf32>) -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$u, SeZM_FloatTensor:$wfc,
                       Optional<SeZM_FloatTensor>:$norm_scale,
                       Optional<SeZM_FloatTensor>:$acc, I64Attr:$lmax,
                       I64Attr:$focus);
  let results = (outs SeZM_FloatTensor:$u_grad, SeZM_FloatTensor:$wfc_grad,
                      Optional<SeZM_FloatTensor>:$norm_scale_grad);
  let assemblyFormat = [{
    $grad `,` $u `weight` $wfc (`norm` $norm_scale^)? (`plus` $acc^)?
    `lmax` `=` $lmax `focus` `=` $focus attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_FocusScaleOp : SeZM_Op<"focus_scale", [SeZM_Differentiable,
    SeZM_EdgeRowwise]> {
  let summary = "scale each focus stream of an edge by its alpha";
  let description = [{
    Math: sezm-ops.md sections 3.4, 3.5.

    `result[e, j, f*Cf + cf] = alpha[e, f] * y[e, j, f*Cf + cf]`.

    Shapes: y (E, R, C), alpha (E, F) -> (E, R, C).

    Example:
    ```mlir
    %out = sezm.focus_scale %y by %alpha
        : (tensor<?x10x64xf32>, tensor<?x2xf32>) -> tensor<?x10x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$y, SeZM_FloatTensor:$alpha);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $y `by` $alpha attr-dict `:` functional-type(operands, results)
  }];
}

def SeZM_FocusScaleGradOp : SeZM_Op<"focus_scale_grad", [SeZM_EdgeRowwise]> {
  let summary = "gradients of sezm.focus_scale";
  let description = [{
    Math: sezm-ops.md section 4.4.

    `y_grad = focus_scale(grad, alpha)`,
    `alpha_grad[e, f] = sum_{j, cf} grad[e, j, f*Cf + cf] * y[e, j, f*Cf + cf]`.

    Example:
    ```mlir
    %gy, %ga = sezm.focus_scale_grad %g, %y by %alpha
        : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>)
        -> (tensor<?x10x64xf32>, tensor<?x2xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$y, SeZM_FloatTensor:$alpha);
  let results = (outs SeZM_FloatTensor:$y_grad, SeZM_FloatTensor:$alpha_grad);
  let assemblyFormat = [{
    $grad `,` $y `by` $alpha attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Per-degree channel mixing of node features [3.1, 3.7]
//===----------------------------------------------------------------------===//

def SeZM_DegreeLinearOp : SeZM_Op<"degree_linear", [SeZM_Differentiable]> {
  let summary = "per-degree channel linear map of packed node features";
  let description = [{
    Math: sezm-ops.md sections 3.1 (pre_focus_mix) and 3.7 (post_focus_mix).

    `result[n, d, co] = sum_ci x[n, d, ci] * w[l(d), ci, co]`, with l(d) the
    degree of packed row d: one (Cin x Cout) matrix per degree, shared by
    the 2l+1 rows of that degree, so that the map commutes with rotations.
    With `transposed` the weight is read as `w[l(d), co, ci]`: the gradient
    with respect to `x` is the transposed map of the result's gradient.

    Shapes: x (N, D, Cin), w (lmax+1, Cin, Cout) (or (lmax+1, Cout, Cin)
    when transposed) -> (N, D, Cout).

    Example:
    ```mlir
    %xw = sezm.degree_linear %x weight %wpre lmax = 3
        : (tensor<?x16x32xf32>, tensor<4x32x64xf32>) -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$x, SeZM_FloatTensor:$w,
                       I64Attr:$lmax, UnitAttr:$transposed);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `weight` $w `lmax` `=` $lmax (`transposed` $transposed^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_DegreeLinearWeightGradOp : SeZM_Op<"degree_linear_weight_grad"> {
  let summary = "weight gradient of sezm.degree_linear";
  let description = [{
    `result[l, ci, co] = sum_n sum_{d : l(d) = l} x[n, d, ci] * grad[n, d, co]`,
    summed over nodes in order: the gradient of `degree_linear`'s weight
    for the cotangent `grad` of its result. With `transposed` (the weight of
    a transposed `degree_linear`) the result is `[l, co, ci]`.

    Shapes: grad (N, D, Cout), x (N, D, Cin) -> (lmax+1, Cin, Cout) (or
    (lmax+1, Cout, Cin) when transposed).

    Example:
    ```mlir
    %gw = sezm.degree_linear_weight_grad %g, %x lmax = 3
        : (tensor<?x16x64xf32>, tensor<?x16x32xf32>) -> tensor<4x32x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$x,
                       I64Attr:$lmax, UnitAttr:$transposed);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $x `lmax` `=` $lmax (`transposed` $transposed^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Channel RMS norm (DPA4's radial MLP norm with edge_norm)
//===----------------------------------------------------------------------===//

def SeZM_RmsNormOp : SeZM_Op<"rms_norm", [SeZM_Differentiable]> {
  let summary = "RMS norm over the channels of each row";
  let description = [{
    Math: sezm-ops.md section 3.2; DeePMD-kit's RMSNorm (the radial MLP's,
    with edge_norm).

    `result[i, c] = x[i, c] rsqrt(mean_c x[i, c]^2 + eps) scale[c]`.

    Shapes: x (R, C), scale (C) -> (R, C).

    Example:
    ```mlir
    %y = sezm.rms_norm %h scale %s eps = 1.0e-7
        : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$x, SeZM_FloatTensor:$scale,
                       F64Attr:$eps);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `scale` $scale `eps` `=` $eps attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_RmsNormGradOp : SeZM_Op<"rms_norm_grad"> {
  let summary = "input gradient of sezm.rms_norm";
  let description = [{
    Math: sezm-ops.md section 4.7.

    With `r = rsqrt(mean_c x^2 + eps)` per row and `G` the result's
    cotangent: `dx[i, c] = r G[i, c] scale[c] - r^3 x[i, c]
    (sum_c' G[i, c'] scale[c'] x[i, c']) / C`. (`scale` is a weight: no
    gradient is taken with respect to it.)

    Shapes: grad (R, C), x (R, C), scale (C) -> (R, C).

    Example:
    ```mlir
    %gx = sezm.rms_norm_grad %g, %h scale %s eps = 1.0e-7
        : (tensor<?x32xf32>, tensor<?x32xf32>, tensor<32xf32>)
        -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$x,
                       SeZM_FloatTensor:$scale, F64Attr:$eps);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $x `scale` $scale `eps` `=` $eps attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Equivariant RMS norm of node features (DPA4's sandwich norms)
//===----------------------------------------------------------------------===//

def SeZM_EquivariantRmsNormOp
    : SeZM_Op<"equivariant_rms_norm", [SeZM_Differentiable]> {
  let summary = "degree-balanced RMS norm of packed node features";
  let description = [{
    Math: sezm-ops.md section 3.7; DeePMD-kit's EquivariantRMSNorm.

    Per node: the l = 0 row is centred over channels,
    `u0 = x[n, 0, :] - mean_c x[n, 0, c]`, and the rows of degree l >= 1
    are kept, `u = x`. One RMS over all rows, each degree weighted by
    `w_l = 1 / ((2l+1) (lmax+1) C)`: `ms = sum_d w_l(d) sum_c u[d, c]^2`.
    `degree_weights` (lmax+1 values) gives the w_l instead: a DeePMD-kit
    checkpoint stores them (`balance_weight`), rounded to its precision.
    Then `result[n, d, c] = u[d, c] rsqrt(ms + eps) scale[l(d), c]`, plus
    `bias[c]` on the l = 0 row. The map commutes with rotations.

    Shapes: x (N, D, C), scale (lmax+1, C), bias (C) -> (N, D, C).

    Example:
    ```mlir
    %y = sezm.equivariant_rms_norm %x scale %s bias %b lmax = 3 eps = 1.0e-5
        : (tensor<?x16x32xf32>, tensor<4x32xf32>, tensor<32xf32>)
        -> tensor<?x16x32xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$x, SeZM_FloatTensor:$scale,
                       SeZM_FloatTensor:$bias, I64Attr:$lmax, F64Attr:$eps,
                       OptionalAttr<F64ArrayAttr>:$degree_weights);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $x `scale` $scale `bias` $bias `lmax` `=` $lmax `eps` `=` $eps attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_EquivariantRmsNormGradOp
    : SeZM_Op<"equivariant_rms_norm_grad"> {
  let summary = "input gradient of sezm.equivariant_rms_norm";
  let description = [{
    Math: sezm-ops.md section 4.7.

    With `r = rsqrt(ms + eps)` (and the forward's `degree_weights`), `G`
    the result's cotangent and
    `A = sum_d sum_c G[d, c] scale[l(d), c] u[d, c]`:
    `du[d, c] = r G[d, c] scale[l(d), c] - r^3 w_l(d) u[d, c] A`; the rows
    of degree l >= 1 take `du`, the l = 0 row `du - mean_c du` (the
    centring's transpose). (`scale` and `bias` are weights: no gradient is
    taken with respect to them.)

    Shapes: grad (N, D, C), x (N, D, C), scale (lmax+1, C) -> (N, D, C).

    Example:
    ```mlir
    %gx = sezm.equivariant_rms_norm_grad %g, %x scale %s lmax = 3 eps = 1.0e-5
        : (tensor<?x16x32xf32>, tensor<?x16x32xf32>, tensor<4x32xf32>)
        -> tensor<?x16x32xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$x,
                       SeZM_FloatTensor:$scale, I64Attr:$lmax, F64Attr:$eps,
                       OptionalAttr<F64ArrayAttr>:$degree_weights);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $x `scale` $scale `lmax` `=` $lmax `eps` `=` $eps attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Gated linear units of node features (DPA4's FFNs and fitting net)
//===----------------------------------------------------------------------===//

def SeZM_GluOp : SeZM_Op<"glu", [SeZM_Differentiable]> {
  let summary = "equivariant GLU of packed node features";
  let description = [{
    Math: sezm-ops.md section 3.8; DeePMD-kit's GatedActivation in GLU mode
    (the EquivariantFFN of DPA4 without s2_activation).

    `x` holds two halves of H channels each: the value `v = x[:, :, :H]`
    and the gate `g = x[:, :, H:]`. Only the gate's l = 0 row is used, so
    that scalars gate vectors and the map commutes with rotations:
    `result[n, 0, c] = v[n, 0, c] * silu(g[n, 0, c])` and, for a row d of
    degree l >= 1, `result[n, d, c] = v[n, d, c] * s[n, (l-1)*H + c]`
    with `s = sigmoid(g[n, 0, :] @ gw)`. With lmax = 0 there is no `gw`
    and the op is the plain GLU `v * silu(g)` (the readout FFN and the
    fitting net).

    Shapes: x (N, D, 2H), gw (H, lmax*H) (lmax >= 1) -> (N, D, H), with
    D = (lmax+1)^2.

    Example:
    ```mlir
    %h = sezm.glu %x weight %gw lmax = 3
        : (tensor<?x16x192xf32>, tensor<96x288xf32>) -> tensor<?x16x96xf32>
    %s = sezm.glu %y lmax = 0 : (tensor<?x1x192xf32>) -> tensor<?x1x96xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$x, Optional<SeZM_FloatTensor>:$gw,
                       I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $x (`weight` $gw^)? `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_GluGradOp : SeZM_Op<"glu_grad"> {
  let summary = "input gradient of sezm.glu";
  let description = [{
    Math: sezm-ops.md section 4.8.

    The cotangent of `x` for the cotangent `grad` of `sezm.glu`'s result:
    the value half gets `grad * silu(g0)` (row 0) and `grad * s` (rows of
    degree l >= 1); the gate half's row 0 gets `grad[0] * v[0] * silu'(g0)`
    plus `(sum over the rows of degree l of grad * v) * s * (1 - s) @ gw^T`;
    its other rows get zero. (`gw` is a weight: no gradient is taken with
    respect to it.)

    Shapes: grad (N, D, H), x (N, D, 2H), gw (H, lmax*H) -> (N, D, 2H).

    Example:
    ```mlir
    %gx = sezm.glu_grad %g, %x weight %gw lmax = 3
        : (tensor<?x16x96xf32>, tensor<?x16x192xf32>, tensor<96x288xf32>)
        -> tensor<?x16x192xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$x,
                       Optional<SeZM_FloatTensor>:$gw, I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $x (`weight` $gw^)? `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Products on a grid (DeePMD-kit's S2 and SO(3) grid nets) [3.9, 4.9]
//===----------------------------------------------------------------------===//

def SeZM_GridProductOp : SeZM_Op<"grid_product", [SeZM_Differentiable]> {
  let summary = "product of two fields on a sphere or SO(3) grid";
  let description = [{
    Math: sezm-ops.md sections 3.9 and 4.9; DeePMD-kit's grid nets
    (S2GridNet, SO3GridNet) between their input maps and output map.

    For each node n and channel c, both fields' J coefficients are taken to
    the P grid points, multiplied there and taken back:
    `result[n, j, c] = sum_p from_grid[p, j] * A[p] * B[p]` with
    `A[p] = sum_i a[n, i, c] * to_grid[i, p]` and B the same of `b`, each
    sum in order (i, then p). The J coefficients are one frame's packed
    rows (S2 grid, J = (lmax+1)^2) or those of K frames (SO(3) grid,
    J = D K, j = d K + k). The grid matrices are constants of the model: no
    gradient is taken with respect to them.

    One op rather than two matmuls, a product and a matmul over transposed
    copies: the grid values never leave the kernel, and the fields are read
    and written in place, channels across threads.

    Shapes: a, b (N, J, W), to_grid (J, P), from_grid (P, J) -> (N, J, W).

    Example:
    ```mlir
    %p = sezm.grid_product %a, %b grid(%to, %from)
        : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<27x104xf32>,
           tensor<104x27xf32>) -> tensor<?x27x32xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$a, SeZM_FloatTensor:$b,
                       SeZM_FloatTensor:$to_grid, SeZM_FloatTensor:$from_grid);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $a `,` $b `grid` `(` $to_grid `,` $from_grid `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_GridProductGradOp : SeZM_Op<"grid_product_grad"> {
  let summary = "input gradients of sezm.grid_product";
  let description = [{
    Math: sezm-ops.md section 4.9.

    The cotangents of `a` and `b` for the cotangent `grad` of
    `sezm.grid_product`'s result, per node n and channel c, with A and B the
    fields on the grid and `G[p] = sum_j grad[n, j, c] * from_grid[p, j]`:
    `a_grad[n, i, c] = sum_p to_grid[i, p] * G[p] * B[p]` and
    `b_grad[n, i, c] = sum_p to_grid[i, p] * G[p] * A[p]`, summed over p in
    order. (The grid matrices are constants: no gradient with respect to
    them.)

    Shapes: grad, a, b (N, J, W), to_grid (J, P), from_grid (P, J) ->
    (N, J, W), (N, J, W).

    Example:
    ```mlir
    %ga, %gb = sezm.grid_product_grad %g, %a, %b grid(%to, %from)
        : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<?x27x32xf32>,
           tensor<27x104xf32>, tensor<104x27xf32>)
        -> (tensor<?x27x32xf32>, tensor<?x27x32xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$a,
                       SeZM_FloatTensor:$b, SeZM_FloatTensor:$to_grid,
                       SeZM_FloatTensor:$from_grid);
  let results = (outs SeZM_FloatTensor:$a_grad, SeZM_FloatTensor:$b_grad);
  let assemblyFormat = [{
    $grad `,` $a `,` $b `grid` `(` $to_grid `,` $from_grid `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Aggregation into destination atoms [3.6, 4.5]
//===----------------------------------------------------------------------===//

def SeZM_EnvelopeAggregateOp : SeZM_Op<"envelope_aggregate",
    [SeZM_Differentiable, AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<SeZM_EdgeRangeSumOpInterface,
                               ["getSumOrder", "getSumRowptr"]>]> {
  let summary = "envelope-weighted rotate-back summed over the destination CSR";
  let description = [{
    Math: sezm-ops.md section 3.6a.

    `result[n] = inv_sqrt_deg[n] * sum_{dst[e] = n} env[e] * rotate_back(xl[e], wigner[e])`,
    summed in destination-CSR order.

    Shapes: xl (E, Dm, C), wigner (E, D, D), env (E), inv_sqrt_deg (N),
    dst_order (E), dst_rowptr (N+1) -> (N, D, C).

    With `from %first` (`sezm-chunk-edges`' loops) xl, wigner and env hold
    the edges first, first + 1, ... of the CSR's edge list and the result
    sums only those (EdgeRangeSumOpInterface): `inv_sqrt_deg[n]` times the
    range's part of node n's sum, zero at a node with none of its edges.

    With `scaled %alpha` (E, F) xl is first scaled per focus stream as
    `sezm.focus_scale` does, `xl[e, j, f*Cf + cf] * alpha[e, f]`
    (`sezm-fuse-focus-scale`): the scaled message is never stored.

    Example:
    ```mlir
    %agg = sezm.envelope_aggregate %xl by %wd env %env norm %isd
        over(%do, %dr) lmax = 3
        : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
           tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
    %sagg = sezm.envelope_aggregate %y scaled %alpha by %wd env %env
        norm %isd over(%do, %dr) lmax = 3
        : (tensor<?x10x64xf32>, tensor<?x2xf32>, tensor<?x16x16xf32>,
           tensor<?xf32>, tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
        -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$xl,
                       Optional<SeZM_FloatTensor>:$focus_alpha,
                       SeZM_FloatTensor:$wigner, SeZM_FloatTensor:$env,
                       SeZM_FloatTensor:$inv_sqrt_deg, SeZM_IndexTensor:$dst_order,
                       SeZM_IndexTensor:$dst_rowptr, Optional<Index>:$first_edge,
                       I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $xl (`scaled` $focus_alpha^)? `by` $wigner `env` $env `norm` $inv_sqrt_deg
    `over` `(` $dst_order `,` $dst_rowptr `)` (`from` $first_edge^)?
    `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_EnvelopeAggregateGradOp : SeZM_Op<"envelope_aggregate_grad",
    [SeZM_EdgeRowwise]> {
  let summary = "per-edge gradients of sezm.envelope_aggregate";
  let description = [{
    Math: sezm-ops.md section 4.5.

    With g_e = inv_sqrt_deg[dst[e]] * env[e] * grad[dst[e]]:
    `xl_grad, wigner_grad = rotate_back_grad(g_e, xl, wigner)`,
    `env_grad[e] = inv_sqrt_deg[dst[e]] * <grad[dst[e]], rotate_back(xl[e])>`,
    `norm_terms[e] = env[e] * <grad[dst[e]], rotate_back(xl[e])>`.

    Every result is computed for each edge on its own (the node gradient is
    read at the edge's destination), so the op runs in `sezm-chunk-edges`'
    loops; the gradient of `inv_sqrt_deg` is the `sezm.segment_reduce` of
    `norm_terms` over the destination CSR, which the derivative rule of
    `sezm.envelope_aggregate` adds after it.

    With `scaled %alpha` (E, F) the messages are xl scaled per focus stream
    as `sezm.focus_scale` scales them (`sezm-fuse-focus-scale`), and the op
    is that scale's backward too: `xl_grad` is the gradient of the unscaled
    xl (`alpha` times the scaled messages' gradient) and the extra result
    `alpha_grad` (E, F) sums, per stream, the scaled messages' gradient
    times xl, as `sezm.focus_scale_grad` does. Neither the scaled messages
    nor their gradient are stored.

    Shapes: grad (N, D, C), xl (E, Dm, C), wigner (E, D, D), env (E),
    inv_sqrt_deg (N), dst (E) -> xl_grad (E, Dm, C), wigner_grad
    (E, D, D), env_grad (E), norm_terms (E) [, alpha_grad (E, F)].

    Example:
    ```mlir
    %gxl, %gwd, %genv, %terms = sezm.envelope_aggregate_grad %g, %xl by %wd
        env %env norm %isd at %dst lmax = 3
        : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
           tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
        -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
            tensor<?xf32>)
    %gisd = sezm.segment_reduce %terms over(%do, %dr)
        : (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
    %gy, %gwd2, %genv2, %terms2, %galpha = sezm.envelope_aggregate_grad %g,
        %y scaled %alpha by %wd env %env norm %isd at %dst lmax = 3
        : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>,
           tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
        -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>,
            tensor<?xf32>, tensor<?x2xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$xl,
                       Optional<SeZM_FloatTensor>:$focus_alpha,
                       SeZM_FloatTensor:$wigner, SeZM_FloatTensor:$env,
                       SeZM_FloatTensor:$inv_sqrt_deg, SeZM_IndexTensor:$dst,
                       I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$xl_grad, SeZM_FloatTensor:$wigner_grad,
                      SeZM_FloatTensor:$env_grad, SeZM_FloatTensor:$norm_terms,
                      Optional<SeZM_FloatTensor>:$alpha_grad);
  let assemblyFormat = [{
    $grad `,` $xl (`scaled` $focus_alpha^)? `by` $wigner `env` $env
    `norm` $inv_sqrt_deg `at` $dst `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_AttentionAggregateOp : SeZM_Op<"attention_aggregate",
    [SeZM_Differentiable]> {
  let summary = "envelope-gated softmax attention over the destination CSR";
  let description = [{
    Math: sezm-ops.md section 3.6b.

    Channels split into F focus streams of H heads (c = f*Cf + h*(Cf/H) + ch).
    `mass[e, f, h] = env[e]^2 * exp(logit[e, f, h])` (0 when env = 0),
    `att[e, f, h] = mass / (softplus(null_logit[f, h]) + 1e-7 + sum_{dst[e'] = dst[e]} mass[e'])`,
    `result[n, d, c] = sum_{dst[e] = n} att[e, f(c), h(c)] * rotate_back(xl[e], wigner[e])[d, c]`,
    evaluated stably in log space (empty segments are finite).

    Shapes: xl (E, Dm, C), wigner (E, D, D), logit (E, F, H), env (E),
    null_logit (F, H), dst_order (E), dst_rowptr (N+1) -> (N, D, C).

    Example:
    ```mlir
    %pre = sezm.attention_aggregate %xl by %wd logit %lg env %env null %z
        over(%do, %dr) lmax = 3
        : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>,
           tensor<?xf32>, tensor<2x1xf32>, tensor<?xi64>, tensor<?xi64>)
        -> tensor<?x16x64xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$xl, SeZM_FloatTensor:$wigner,
                       SeZM_FloatTensor:$logit, SeZM_FloatTensor:$env,
                       SeZM_FloatTensor:$null_logit, SeZM_IndexTensor:$dst_order,
                       SeZM_IndexTensor:$dst_rowptr, I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = [{
    $xl `by` $wigner `logit` $logit `env` $env `null` $null_logit
    `over` `(` $dst_order `,` $dst_rowptr `)` `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

def SeZM_AttentionAggregateGradOp : SeZM_Op<"attention_aggregate_grad"> {
  let summary = "gradients of sezm.attention_aggregate";
  let description = [{
    Math: sezm-ops.md section 4.5.

    Returns `xl_grad`, `wigner_grad`, `logit_grad`, `env_grad` and
    `null_logit_grad`, each of the shape of its input (section 4.5).

    Example:
    ```mlir
    %gxl, %gwd, %glg, %genv, %gz = sezm.attention_aggregate_grad %g, %xl
        by %wd logit %lg env %env null %z over(%do, %dr) lmax = 3
        : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
           tensor<?x2x1xf32>, tensor<?xf32>, tensor<2x1xf32>, tensor<?xi64>,
           tensor<?xi64>)
        -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>,
            tensor<?xf32>, tensor<2x1xf32>)
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$grad, SeZM_FloatTensor:$xl,
                       SeZM_FloatTensor:$wigner, SeZM_FloatTensor:$logit,
                       SeZM_FloatTensor:$env, SeZM_FloatTensor:$null_logit,
                       SeZM_IndexTensor:$dst_order, SeZM_IndexTensor:$dst_rowptr,
                       I64Attr:$lmax);
  let results = (outs SeZM_FloatTensor:$xl_grad, SeZM_FloatTensor:$wigner_grad,
                      SeZM_FloatTensor:$logit_grad, SeZM_FloatTensor:$env_grad,
                      SeZM_FloatTensor:$null_logit_grad);
  let assemblyFormat = [{
    $grad `,` $xl `by` $wigner `logit` $logit `env` $env `null` $null_logit
    `over` `(` $dst_order `,` $dst_rowptr `)` `lmax` `=` $lmax attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Stages
//===----------------------------------------------------------------------===//

def SeZM_ExchangeOp : SeZM_Op<"exchange", [SeZM_Differentiable,
    AllTypesMatch<["features", "result"]>]> {
  let summary = "a block boundary, where ghost atoms take their owners' features";
  let description = [{
    Marks the node features between two blocks of a model. Over a whole
    structure in one process it is the identity (and folds away). Under a
    domain decomposition a rank's nodes are its own atoms and ghost copies of
    other ranks' atoms, whose features a block cannot compute (their
    neighbourhoods are elsewhere): `sezm-split-stages` cuts the energy
    function at each exchange into stages, and between two stages the caller
    replaces each ghost's rows by its owner's (an MD engine's forward
    communication); in the backward it adds each ghost row's gradient into its
    owner's (reverse communication). Its derivative passes the gradient
    through.

    Shapes: features (N, ...) -> (N, ...).

    Example:
    ```mlir
    %x1 = sezm.exchange %b0x : tensor<?x16x32xf32>
    ```
  }];
  let arguments = (ins SeZM_FloatTensor:$features);
  let results = (outs SeZM_FloatTensor:$result);
  let assemblyFormat = "$features attr-dict `:` type($features)";
  let hasFolder = 1;
}

#endif // SEZM_DIALECT_SEZM_SEZMOPS_TD
