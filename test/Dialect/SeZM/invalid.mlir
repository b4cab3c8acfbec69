// Every verifier diagnostic of the sezm dialect, one case each.
// RUN: sezm-opt %s --split-input-file --verify-diagnostics

//===- Attributes ---------------------------------------------------------===//

func.func @lmax_too_large(%v: tensor<?x3xf32>) {
  // expected-error @+1 {{lmax = 7 is outside the supported range 0..6}}
  %0 = sezm.wigner %v lmax = 7 : (tensor<?x3xf32>) -> tensor<?x64x64xf32>
  return
}

// -----

func.func @lmax_negative(%x: tensor<?x1x8xf32>, %src: tensor<?xi64>,
                         %w: tensor<?x1x1xf32>) {
  // expected-error @+1 {{lmax = -1 is outside the supported range 0..6}}
  %0 = sezm.rotate %x[%src] by %w lmax = -1
      : (tensor<?x1x8xf32>, tensor<?xi64>, tensor<?x1x1xf32>) -> tensor<?x1x8xf32>
  return
}

// -----

func.func @rcut_not_positive(%v: tensor<?x3xf32>) {
  // expected-error @+1 {{rcut = -1.50 must be positive}}
  %0 = sezm.envelope %v rcut = -1.5 exponent = 5 : (tensor<?x3xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @exponent_too_small(%v: tensor<?x3xf32>) {
  // expected-error @+1 {{envelope exponent = 0 must be at least 1}}
  %0 = sezm.radial_basis %v rcut = 6.0 exponent = 0
      : (tensor<?x3xf32>) -> tensor<?x16xf32>
  return
}

// -----

func.func @rank_negative(%xl: tensor<?x10x64xf32>, %kc: tensor<?x25xf32>) {
  // expected-error @+1 {{rank = -1 must be non-negative}}
  %0 = sezm.mix %xl kernel %kc lmax = 3 rank = -1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @focus_zero(%z: tensor<?x10x64xf32>, %gw: tensor<2x32x96xf32>) {
  // expected-error @+1 {{focus = 0 must be at least 1}}
  %0 = sezm.gate %z weight %gw lmax = 3 focus = 0
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

//===- Element types ------------------------------------------------------===//

func.func @float_indices(%pos: tensor<?x3xf32>, %src: tensor<?xf32>,
                         %dst: tensor<?xi64>) {
  // expected-error @+1 {{'src' must hold i32 or i64 indices, but has type 'tensor<?xf32>'}}
  %0 = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf32>, tensor<?xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  return
}

// -----

func.func @narrow_indices(%g: tensor<?x3xf32>, %so: tensor<?xi16>,
                          %sr: tensor<?xi64>, %do: tensor<?xi64>,
                          %dr: tensor<?xi64>) {
  // expected-error @+1 {{'src_order' must hold i32 or i64 indices, but has type 'tensor<?xi16>'}}
  %0 = sezm.edge_vectors_grad %g src(%so, %sr) dst(%do, %dr)
      : (tensor<?x3xf32>, tensor<?xi16>, tensor<?xi64>, tensor<?xi64>,
         tensor<?xi64>) -> tensor<?x3xf32>
  return
}

// -----

func.func @half_precision(%v: tensor<?x3xf16>) {
  // expected-error @+1 {{'edge_vec' must hold f32 or f64 values, but has type 'tensor<?x3xf16>'}}
  %0 = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf16>) -> tensor<?xf16>
  return
}

// -----

func.func @mixed_precision(%v: tensor<?x3xf32>) {
  // expected-error @+1 {{'result' has element type 'f64', but 'edge_vec' has 'f32'; all floating-point operands and results must agree}}
  %0 = sezm.wigner %v lmax = 1 : (tensor<?x3xf32>) -> tensor<?x4x4xf64>
  return
}

// -----

//===- Shapes -------------------------------------------------------------===//

func.func @positions_not_xyz(%pos: tensor<?x2xf32>, %src: tensor<?xi64>,
                             %dst: tensor<?xi64>) {
  // expected-error @+1 {{'positions' must have shape (N, 3), but has type 'tensor<?x2xf32>'}}
  %0 = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x2xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3xf32>
  return
}

// -----

func.func @shift_wrong_edges(%pos: tensor<?x3xf32>, %src: tensor<5xi64>,
                             %dst: tensor<5xi64>, %shift: tensor<4x3xf32>) {
  // expected-error @+1 {{dimension 0 of 'shift' is 4, but 'src' has E = 5}}
  %0 = sezm.edge_vectors %pos[%src, %dst] shift %shift
      : (tensor<?x3xf32>, tensor<5xi64>, tensor<5xi64>, tensor<4x3xf32>)
      -> tensor<5x3xf32>
  return
}

// -----

func.func @src_dst_lengths(%pos: tensor<?x3xf32>, %src: tensor<5xi64>,
                           %dst: tensor<6xi64>) {
  // expected-error @+1 {{dimension 0 of 'dst' is 6, but 'src' has E = 5}}
  %0 = sezm.edge_vectors %pos[%src, %dst]
      : (tensor<?x3xf32>, tensor<5xi64>, tensor<6xi64>) -> tensor<?x3xf32>
  return
}

// -----

func.func @rowptr_length(%g: tensor<?x3xf32>, %so: tensor<?xi64>,
                         %sr: tensor<5xi64>, %do: tensor<?xi64>,
                         %dr: tensor<5xi64>) {
  // expected-error @+1 {{dimension 0 of 'result' is 5, but 'src_rowptr' has N = 4}}
  %0 = sezm.edge_vectors_grad %g src(%so, %sr) dst(%do, %dr)
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>,
         tensor<5xi64>) -> tensor<5x3xf32>
  return
}

// -----

func.func @rowptrs_disagree(%g: tensor<?x3xf32>, %so: tensor<?xi64>,
                            %sr: tensor<5xi64>, %do: tensor<?xi64>,
                            %dr: tensor<6xi64>) {
  // expected-error @+1 {{dimension 0 of 'dst_rowptr' is 6, but 'src_rowptr' has N = 4 (expected N+1 = 5)}}
  %0 = sezm.edge_vectors_grad %g src(%so, %sr) dst(%do, %dr)
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<5xi64>, tensor<?xi64>,
         tensor<6xi64>) -> tensor<?x3xf32>
  return
}

// -----

func.func @rowptr_matrix(%g: tensor<?x3xf32>, %so: tensor<?xi64>,
                         %sr: tensor<?x2xi64>, %do: tensor<?xi64>,
                         %dr: tensor<?xi64>) {
  // expected-error @+1 {{'src_rowptr' must have shape (N+1), but has type 'tensor<?x2xi64>'}}
  %0 = sezm.edge_vectors_grad %g src(%so, %sr) dst(%do, %dr)
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?x2xi64>, tensor<?xi64>,
         tensor<?xi64>) -> tensor<?x3xf32>
  return
}

// -----

func.func @envelope_result(%v: tensor<?x3xf32>) {
  // expected-error @+1 {{'result' must have shape (E), but has type 'tensor<?x1xf32>'}}
  %0 = sezm.envelope %v rcut = 6.0 exponent = 5 : (tensor<?x3xf32>) -> tensor<?x1xf32>
  return
}

// -----

func.func @envelope_grad_shape(%g: tensor<?x3xf32>, %v: tensor<?x3xf32>) {
  // expected-error @+1 {{'grad' must have shape (E), but has type 'tensor<?x3xf32>'}}
  %0 = sezm.envelope_grad %g, %v rcut = 6.0 exponent = 5
      : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @radial_basis_dynamic_width(%v: tensor<?x3xf32>) {
  // expected-error @+1 {{dimension 1 (K) of 'result' must be static, but has type 'tensor<?x?xf32>'}}
  %0 = sezm.radial_basis %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @radial_basis_freqs_count(%v: tensor<?x3xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{dimension 0 of 'freqs' is 8, but 'result' has K = 16}}
  %0 = sezm.radial_basis %v freqs %w rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>, tensor<8xf32>) -> tensor<?x16xf32>
  return
}

// -----

func.func @radial_basis_grad_width(%g: tensor<?x16xf32>, %v: tensor<?x3xf32>) {
  // expected-error @+1 {{'result' must have shape (E, 3), but has type 'tensor<?x16xf32>'}}
  %0 = sezm.radial_basis_grad %g, %v rcut = 6.0 exponent = 7
      : (tensor<?x16xf32>, tensor<?x3xf32>) -> tensor<?x16xf32>
  return
}

// -----

func.func @wigner_rows(%v: tensor<?x3xf32>) {
  // expected-error @+1 {{'result' must have shape (E, 16, 16) for lmax = 3, but has type 'tensor<?x9x9xf32>'}}
  %0 = sezm.wigner %v lmax = 3 : (tensor<?x3xf32>) -> tensor<?x9x9xf32>
  return
}

// -----

func.func @wigner_grad_rows(%g: tensor<?x9x9xf32>, %v: tensor<?x3xf32>) {
  // expected-error @+1 {{'grad' must have shape (E, 16, 16) for lmax = 3, but has type 'tensor<?x9x9xf32>'}}
  %0 = sezm.wigner_grad %g, %v lmax = 3
      : (tensor<?x9x9xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @rotate_packed_rows(%x: tensor<?x9x64xf32>, %src: tensor<?xi64>,
                              %w: tensor<?x16x16xf32>) {
  // expected-error @+1 {{'x' must have shape (N, 16, C) for lmax = 3, but has type 'tensor<?x9x64xf32>'}}
  %0 = sezm.rotate %x[%src] by %w lmax = 3
      : (tensor<?x9x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>)
      -> tensor<?x10x64xf32>
  return
}

// -----

func.func @rotate_reduced_rows(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                               %w: tensor<?x16x16xf32>) {
  // expected-error @+1 {{'result' must have shape (E, 10, C) for lmax = 3, but has type 'tensor<?x16x64xf32>'}}
  %0 = sezm.rotate %x[%src] by %w lmax = 3
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>)
      -> tensor<?x16x64xf32>
  return
}

// -----

func.func @rotate_channels(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                           %w: tensor<?x16x16xf32>) {
  // expected-error @+1 {{dimension 2 of 'result' is 32, but 'x' has C = 64}}
  %0 = sezm.rotate %x[%src] by %w lmax = 3
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>)
      -> tensor<?x10x32xf32>
  return
}

// -----

func.func @rotate_dynamic_channels(%x: tensor<?x16x?xf32>, %src: tensor<?xi64>,
                                   %w: tensor<?x16x16xf32>) {
  // expected-error @+1 {{dimension 2 (C) of 'x' must be static, but has type 'tensor<?x16x?xf32>'}}
  %0 = sezm.rotate %x[%src] by %w lmax = 3
      : (tensor<?x16x?xf32>, tensor<?xi64>, tensor<?x16x16xf32>)
      -> tensor<?x10x64xf32>
  return
}

// -----

func.func @rotate_edges(%x: tensor<?x16x64xf32>, %src: tensor<8xi64>,
                        %w: tensor<9x16x16xf32>) {
  // expected-error @+1 {{dimension 0 of 'wigner' is 9, but 'src' has E = 8}}
  %0 = sezm.rotate %x[%src] by %w lmax = 3
      : (tensor<?x16x64xf32>, tensor<8xi64>, tensor<9x16x16xf32>)
      -> tensor<?x10x64xf32>
  return
}

// -----

func.func @rotate_kept_entries(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                               %w: tensor<?x45xf32>) {
  // expected-error @+1 {{'wigner' must have shape (E, 46) for lmax = 3, but has type 'tensor<?x45xf32>'}}
  %0 = sezm.rotate %x[%src] by %w lmax = 3
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x45xf32>)
      -> tensor<?x10x64xf32>
  return
}

// -----

func.func @rotate_mix_grad_kept_entries(%g: tensor<?x10x64xf32>,
                                        %x: tensor<?x16x64xf32>,
                                        %src: tensor<?xi64>,
                                        %w: tensor<?x46xf32>,
                                        %kc: tensor<?x25xf32>,
                                        %cb: tensor<1x64xf32>) {
  // The gradient takes the form of the Wigner-D it is of.
  // expected-error @+1 {{'wigner_grad' must have the type of 'wigner'}}
  %0:3 = sezm.rotate_mix_grad %g, %x[%src] by %w kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x46xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  return
}

// -----

func.func @rotate_grad_node_grad(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                                 %src: tensor<?xi64>, %w: tensor<?x16x16xf32>) {
  // expected-error @+1 {{'node_grad' must have shape (E, 16, C) for lmax = 3, but has type 'tensor<?x10x64xf32>'}}
  %0, %1 = sezm.rotate_grad %g, %x[%src] by %w lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>) -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>)
  return
}

// -----

func.func @rotate_grad_wigner_grad(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                                   %src: tensor<?xi64>, %w: tensor<?x16x16xf32>) {
  // expected-error @+1 {{'wigner_grad' must have the type of 'wigner', 'tensor<?x16x16xf32>', but has type 'tensor<?x16x10xf32>'}}
  %0, %1 = sezm.rotate_grad %g, %x[%src] by %w lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>) -> (tensor<?x16x64xf32>, tensor<?x16x10xf32>)
  return
}

// -----

//===- Radial degree mixing -----------------------------------------------===//

func.func @mix_kernel_width(%xl: tensor<?x10x64xf32>, %kc: tensor<?x24xf32>,
                            %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{'kc' must have shape (E, 25) for lmax = 3 and rank = 1 (KSZ = 25), but has type 'tensor<?x24xf32>'}}
  %0 = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x24xf32>, tensor<1x64xf32>)
      -> tensor<?x10x64xf32>
  return
}

// -----

func.func @mix_rank2_kernel(%xl: tensor<?x7x32xf32>, %kc: tensor<?x13xf32>,
                            %cb: tensor<2x32xf32>) {
  // expected-error @+1 {{'kc' must have shape (E, 26) for lmax = 2 and rank = 2 (KSZ = 13), but has type 'tensor<?x13xf32>'}}
  %0 = sezm.mix %xl kernel %kc basis %cb lmax = 2 rank = 2
      : (tensor<?x7x32xf32>, tensor<?x13xf32>, tensor<2x32xf32>)
      -> tensor<?x7x32xf32>
  return
}

// -----

func.func @mix_basis_shape(%xl: tensor<?x10x64xf32>, %kc: tensor<?x25xf32>,
                           %cb: tensor<2x64xf32>) {
  // expected-error @+1 {{'cb' must have shape (1, C) for lmax = 3 and rank = 1 (KSZ = 25), but has type 'tensor<2x64xf32>'}}
  %0 = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<2x64xf32>)
      -> tensor<?x10x64xf32>
  return
}

// -----

func.func @mix_basis_channels(%xl: tensor<?x10x64xf32>, %kc: tensor<?x25xf32>,
                              %cb: tensor<1x32xf32>) {
  // expected-error @+1 {{dimension 1 of 'cb' is 32, but 'xl' has C = 64}}
  %0 = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x32xf32>)
      -> tensor<?x10x64xf32>
  return
}

// -----

func.func @mix_missing_basis(%xl: tensor<?x10x64xf32>, %kc: tensor<?x25xf32>) {
  // expected-error @+1 {{rank = 1 needs a channel basis 'cb' of shape (1, C)}}
  %0 = sezm.mix %xl kernel %kc lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @mix_free_with_basis(%xl: tensor<?x10x64xf32>, %rad: tensor<?x4x64xf32>,
                               %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{rank = 0 (mixer-free) takes no channel basis 'cb'}}
  %0 = sezm.mix %xl kernel %rad basis %cb lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x4x64xf32>, tensor<1x64xf32>)
      -> tensor<?x10x64xf32>
  return
}

// -----

func.func @mix_free_radial(%xl: tensor<?x10x64xf32>, %rad: tensor<?x25xf32>) {
  // expected-error @+1 {{'kc' must have shape (E, 4, C) for lmax = 3, but has type 'tensor<?x25xf32>'}}
  %0 = sezm.mix %xl kernel %rad lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x25xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @mix_result(%xl: tensor<?x10x64xf32>, %kc: tensor<?x25xf32>,
                      %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{'result' must have shape (E, 10, C) for lmax = 3, but has type 'tensor<?x16x64xf32>'}}
  %0 = sezm.mix %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> tensor<?x16x64xf32>
  return
}

// -----

func.func @mix_grad_kc_grad(%g: tensor<?x10x64xf32>, %xl: tensor<?x10x64xf32>,
                            %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{'kc_grad' must have the type of 'kc', 'tensor<?x25xf32>', but has type 'tensor<?x24xf32>'}}
  %0, %1 = sezm.mix_grad %g, %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> (tensor<?x10x64xf32>, tensor<?x24xf32>)
  return
}

// -----

func.func @mix_grad_basis_grad_without_basis(%g: tensor<?x10x64xf32>,
                                             %xl: tensor<?x10x64xf32>,
                                             %rad: tensor<?x4x64xf32>) {
  // expected-error @+1 {{'cb_grad' needs a 'cb' operand to differentiate against}}
  %0, %1, %2 = sezm.mix_grad %g, %xl kernel %rad lmax = 3 rank = 0
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x4x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x4x64xf32>, tensor<1x64xf32>)
  return
}

// -----

func.func @mix_grad_basis_grad_type(%g: tensor<?x10x64xf32>, %xl: tensor<?x10x64xf32>,
                                    %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{'cb_grad' must have the type of 'cb', 'tensor<1x64xf32>', but has type 'tensor<64xf32>'}}
  %0, %1, %2 = sezm.mix_grad %g, %xl kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x25xf32>,
         tensor<1x64xf32>) -> (tensor<?x10x64xf32>, tensor<?x25xf32>, tensor<64xf32>)
  return
}

// -----

func.func @rotate_mix_result(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                             %w: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
                             %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{'result' must have shape (E, 10, C) for lmax = 3, but has type 'tensor<?x16x64xf32>'}}
  %0 = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x16x64xf32>
  return
}

// -----

func.func @rotate_mix_focus_major_result(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                                         %w: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
                                         %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{'result' must have shape (2, E, 320) for lmax = 3 and focus = 2 streams of Cf = 32, focus-major, but has type 'tensor<?x10x64xf32>'}}
  %0 = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      focus_major = 2
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @rotate_mix_focus_major_split(%x: tensor<?x16x64xf32>, %src: tensor<?xi64>,
                                        %w: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>,
                                        %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{channel width C = 64 of 'x' does not split into focus = 3 streams}}
  %0 = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      focus_major = 3
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<3x?x200xf32>
  return
}

// -----

func.func @rotate_mix_kernel_edges(%x: tensor<?x16x64xf32>, %src: tensor<10xi64>,
                                   %w: tensor<10x16x16xf32>, %kc: tensor<11x25xf32>,
                                   %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{dimension 0 of 'kc' is 11, but 'src' has E = 10}}
  %0 = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<10xi64>, tensor<10x16x16xf32>,
         tensor<11x25xf32>, tensor<1x64xf32>) -> tensor<10x10x64xf32>
  return
}

// -----

func.func @rotate_mix_grad_node_grad(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                                     %src: tensor<?xi64>, %w: tensor<?x16x16xf32>,
                                     %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>) {
  // expected-error @+1 {{'node_grad' must have shape (E, 16, C) for lmax = 3, but has type 'tensor<?x10x64xf32>'}}
  %0, %1, %2 = sezm.rotate_mix_grad %g, %x[%src] by %w kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  return
}

// -----

func.func @grad_reduce_rank2(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                             %src: tensor<?xi64>, %w: tensor<?x16x16xf32>,
                             %kc: tensor<?x50xf32>, %cb: tensor<2x64xf32>,
                             %so: tensor<?xi64>, %sr: tensor<?xi64>) {
  // expected-error @+1 {{rank = 2 is not supported: the fused backward folds a single channel basis, so it needs rank <= 1}}
  %0, %1, %2 = sezm.rotate_mix_grad_reduce %g, %x[%src] by %w kernel %kc
      basis %cb over(%so, %sr) lmax = 3 rank = 2
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x50xf32>, tensor<2x64xf32>,
         tensor<?xi64>, tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x50xf32>)
  return
}

// -----

func.func @grad_reduce_x_grad(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
                              %src: tensor<?xi64>, %w: tensor<?x16x16xf32>,
                              %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>,
                              %so: tensor<?xi64>, %sr: tensor<?xi64>) {
  // expected-error @+1 {{'x_grad' must have the type of 'x', 'tensor<?x16x64xf32>', but has type 'tensor<?x10x64xf32>'}}
  %0, %1, %2 = sezm.rotate_mix_grad_reduce %g, %x[%src] by %w kernel %kc
      basis %cb over(%so, %sr) lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>,
         tensor<?xi64>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  return
}

// -----

func.func @grad_reduce_rowptr_vs_x(%g: tensor<?x10x64xf32>, %x: tensor<4x16x64xf32>,
                                   %src: tensor<?xi64>, %w: tensor<?x16x16xf32>,
                                   %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>,
                                   %so: tensor<?xi64>, %sr: tensor<4xi64>) {
  // expected-error @+1 {{dimension 0 of 'src_rowptr' is 4, but 'x' has N = 4 (expected N+1 = 5)}}
  %0, %1, %2 = sezm.rotate_mix_grad_reduce %g, %x[%src] by %w kernel %kc
      basis %cb over(%so, %sr) lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<4x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>,
         tensor<?xi64>, tensor<4xi64>)
      -> (tensor<4x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  return
}

// -----

// Without `from`, the source CSR lists the op's own edges.
func.func @grad_reduce_range(%g: tensor<4x10x64xf32>, %x: tensor<5x16x64xf32>,
                             %src: tensor<4xi64>, %w: tensor<4x16x16xf32>,
                             %kc: tensor<4x25xf32>, %cb: tensor<1x64xf32>,
                             %so: tensor<9xi64>, %sr: tensor<6xi64>) {
  // expected-error @+1 {{dimension 0 of 'src_order' is 9, but 'src' has E = 4}}
  %0, %1, %2 = sezm.rotate_mix_grad_reduce %g, %x[%src] by %w kernel %kc
      basis %cb over(%so, %sr) lmax = 3 rank = 1
      : (tensor<4x10x64xf32>, tensor<5x16x64xf32>, tensor<4xi64>,
         tensor<4x16x16xf32>, tensor<4x25xf32>, tensor<1x64xf32>,
         tensor<9xi64>, tensor<6xi64>)
      -> (tensor<5x16x64xf32>, tensor<4x16x16xf32>, tensor<4x25xf32>)
  return
}

// -----

func.func @rotate_back_result(%xl: tensor<?x10x64xf32>, %w: tensor<?x16x16xf32>) {
  // expected-error @+1 {{'result' must have shape (E, 16, C) for lmax = 3, but has type 'tensor<?x10x64xf32>'}}
  %0 = sezm.rotate_back %xl by %w lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @rotate_back_grad_xl_grad(%g: tensor<?x16x64xf32>, %xl: tensor<?x10x64xf32>,
                                    %w: tensor<?x16x16xf32>) {
  // expected-error @+1 {{'xl_grad' must have the type of 'xl', 'tensor<?x10x64xf32>', but has type 'tensor<?x16x64xf32>'}}
  %0, %1 = sezm.rotate_back_grad %g, %xl by %w lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>)
  return
}

// -----

//===- Segment reduction --------------------------------------------------===//

func.func @segment_reduce_scalar(%v: tensor<f32>, %o: tensor<?xi64>,
                                 %r: tensor<?xi64>) {
  // expected-error @+1 {{'values' must have rank >= 1, one row per edge, but has type 'tensor<f32>'}}
  %0 = sezm.segment_reduce %v over(%o, %r)
      : (tensor<f32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @segment_reduce_trailing(%v: tensor<?x16x64xf32>, %o: tensor<?xi64>,
                                   %r: tensor<?xi64>) {
  // expected-error @+1 {{'result' must have shape (N, 16, 64), but has type 'tensor<?x16x32xf32>'}}
  %0 = sezm.segment_reduce %v over(%o, %r)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x32xf32>
  return
}

// -----

func.func @segment_reduce_order(%v: tensor<7x4xf32>, %o: tensor<6xi64>,
                                %r: tensor<?xi64>) {
  // expected-error @+1 {{dimension 0 of 'values' is 7, but 'order' has E = 6}}
  %0 = sezm.segment_reduce %v over(%o, %r)
      : (tensor<7x4xf32>, tensor<6xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  return
}

// -----

func.func @segment_reduce_nodes(%v: tensor<?x4xf32>, %o: tensor<?xi32>,
                                %r: tensor<9xi32>) {
  // expected-error @+1 {{dimension 0 of 'result' is 9, but 'rowptr' has N = 8}}
  %0 = sezm.segment_reduce %v over(%o, %r)
      : (tensor<?x4xf32>, tensor<?xi32>, tensor<9xi32>) -> tensor<9x4xf32>
  return
}

// -----

func.func @segment_reduce_grad_scalar(%g: tensor<f32>, %o: tensor<?xi64>,
                                      %r: tensor<?xi64>) {
  // expected-error @+1 {{'grad' must have rank >= 1, one row per node, but has type 'tensor<f32>'}}
  %0 = sezm.segment_reduce_grad %g over(%o, %r)
      : (tensor<f32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @segment_reduce_grad_result(%g: tensor<?x3xf32>, %o: tensor<?xi64>,
                                      %r: tensor<?xi64>) {
  // expected-error @+1 {{'result' must have shape (E, 3), but has type 'tensor<?xf32>'}}
  %0 = sezm.segment_reduce_grad %g over(%o, %r)
      : (tensor<?x3xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  return
}

// -----

//===- Mixing stack -------------------------------------------------------===//

func.func @so2_linear_focus_split(%u: tensor<?x10x64xf32>, %w0: tensor<3x128x128xf32>,
                                  %wu: tensor<3x96x96xf32>, %wv: tensor<3x96x96xf32>) {
  // expected-error @+1 {{channel width C = 64 of 'u' does not split into focus = 3 streams}}
  %0 = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 3
      : (tensor<?x10x64xf32>, tensor<3x128x128xf32>, tensor<3x96x96xf32>,
         tensor<3x96x96xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @so2_linear_m0(%u: tensor<?x10x64xf32>, %w0: tensor<2x256x256xf32>,
                         %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>) {
  // expected-error @+1 {{'w0' must have shape (2, 128, 128) for lmax = 3 and focus = 2 streams of Cf = 32, but has type 'tensor<2x256x256xf32>'}}
  %0 = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x256x256xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @so2_linear_wu(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                         %wu: tensor<2x192x192xf32>, %wv: tensor<2x96x96xf32>) {
  // expected-error @+1 {{'wu' must have shape (2, 96, 96) for lmax = 3 and focus = 2 streams of Cf = 32, but has type 'tensor<2x192x192xf32>'}}
  %0 = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x192x192xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @so2_linear_wv(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                         %wu: tensor<2x96x96xf32>, %wv: tensor<1x96x96xf32>) {
  // expected-error @+1 {{'wv' must have shape (2, 96, 96) for lmax = 3 and focus = 2 streams of Cf = 32, but has type 'tensor<1x96x96xf32>'}}
  %0 = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<1x96x96xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @so2_linear_acc(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                          %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>,
                          %x: tensor<?x10x32xf32>) {
  // expected-error @+1 {{'acc' must have the type of 'u', 'tensor<?x10x64xf32>', but has type 'tensor<?x10x32xf32>'}}
  %0 = sezm.so2_linear %u weights(%w0, %wu, %wv) plus %x lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>, tensor<?x10x32xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @gate_acc(%z: tensor<?x10x64xf32>, %gw: tensor<2x32x96xf32>,
                    %x: tensor<?x16x64xf32>) {
  // expected-error @+1 {{'acc' must have the type of 'z', 'tensor<?x10x64xf32>', but has type 'tensor<?x16x64xf32>'}}
  %0 = sezm.gate %z weight %gw plus %x lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x96xf32>, tensor<?x16x64xf32>)
      -> tensor<?x10x64xf32>
  return
}

// -----

func.func @so2_linear_grad_acc(%g: tensor<?x10x64xf32>, %u: tensor<?x10x64xf32>,
                               %w0: tensor<2x128x128xf32>, %wu: tensor<2x96x96xf32>,
                               %wv: tensor<2x96x96xf32>, %x: tensor<?x10x64xf64>) {
  // expected-error @+1 {{'acc' must have the type of 'u', 'tensor<?x10x64xf32>', but has type 'tensor<?x10x64xf64>'}}
  %0:4 = sezm.so2_linear_grad %g, %u weights(%w0, %wu, %wv) plus %x
      lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>, tensor<?x10x64xf64>)
      -> (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  return
}

// -----

func.func @so2_linear_result(%u: tensor<?x10x64xf32>, %w0: tensor<2x128x128xf32>,
                             %wu: tensor<2x96x96xf32>, %wv: tensor<2x96x96xf32>) {
  // expected-error @+1 {{'result' must have the type of 'u', 'tensor<?x10x64xf32>', but has type 'tensor<?x10x32xf32>'}}
  %0 = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x128x128xf32>, tensor<2x96x96xf32>,
         tensor<2x96x96xf32>) -> tensor<?x10x32xf32>
  return
}

// -----

func.func @so2_linear_grad_w0_grad(%g: tensor<?x10x64xf32>, %u: tensor<?x10x64xf32>,
                                   %w0: tensor<2x128x128xf32>, %wu: tensor<2x96x96xf32>,
                                   %wv: tensor<2x96x96xf32>) {
  // expected-error @+1 {{'w0_grad' must have the type of 'w0', 'tensor<2x128x128xf32>', but has type 'tensor<2x96x96xf32>'}}
  %0, %1, %2, %3 = sezm.so2_linear_grad %g, %u weights(%w0, %wu, %wv)
      lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<2x128x128xf32>,
         tensor<2x96x96xf32>, tensor<2x96x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x96x96xf32>, tensor<2x96x96xf32>,
          tensor<2x96x96xf32>)
  return
}

// -----

func.func @gate_weight(%z: tensor<?x10x64xf32>, %gw: tensor<2x32x64xf32>) {
  // expected-error @+1 {{'gw' must have shape (2, 32, 96) for lmax = 3 and focus = 2 streams of Cf = 32, but has type 'tensor<2x32x64xf32>'}}
  %0 = sezm.gate %z weight %gw lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32x64xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @gate_grad_grad(%g: tensor<?x16x64xf32>, %z: tensor<?x10x64xf32>,
                          %gw: tensor<2x32x96xf32>) {
  // expected-error @+1 {{'grad' must have the type of 'z', 'tensor<?x10x64xf32>', but has type 'tensor<?x16x64xf32>'}}
  %0, %1 = sezm.gate_grad %g, %z weight %gw lmax = 3 focus = 2
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<2x32x96xf32>)
      -> (tensor<?x10x64xf32>, tensor<2x32x96xf32>)
  return
}

// -----

func.func @focus_compete_weight(%u: tensor<?x10x64xf32>, %wfc: tensor<2x32xf32>) {
  // expected-error @+1 {{'wfc' must have shape (32, 2) for lmax = 3 and focus = 2 streams of Cf = 32, but has type 'tensor<2x32xf32>'}}
  %0 = sezm.focus_compete %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<2x32xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @focus_compete_norm(%u: tensor<?x10x64xf32>, %wfc: tensor<32x2xf32>,
                              %ns: tensor<32x2xf32>) {
  // expected-error @+1 {{'norm_scale' must have shape (2, 32) for lmax = 3 and focus = 2 streams of Cf = 32, but has type 'tensor<32x2xf32>'}}
  %0 = sezm.focus_compete %u weight %wfc norm %ns lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<32x2xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @focus_compete_result(%u: tensor<?x10x64xf32>, %wfc: tensor<32x2xf32>) {
  // expected-error @+1 {{'result' must have shape (E, 2) for lmax = 3 and focus = 2 streams of Cf = 32, but has type 'tensor<?x3xf32>'}}
  %0 = sezm.focus_compete %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x10x64xf32>, tensor<32x2xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @focus_compete_grad_missing_norm_grad(%g: tensor<?x2xf32>,
                                                %u: tensor<?x10x64xf32>,
                                                %wfc: tensor<32x2xf32>,
                                                %ns: tensor<2x32xf32>) {
  // expected-error @+1 {{'norm_scale_grad' must be returned when 'norm_scale' is given}}
  %0, %1 = sezm.focus_compete_grad %g, %u weight %wfc norm %ns lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  return
}

// -----

func.func @focus_compete_grad_extra_norm_grad(%g: tensor<?x2xf32>,
                                              %u: tensor<?x10x64xf32>,
                                              %wfc: tensor<32x2xf32>) {
  // expected-error @+1 {{'norm_scale_grad' needs a 'norm_scale' operand to differentiate against}}
  %0, %1, %2 = sezm.focus_compete_grad %g, %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>, tensor<2x32xf32>)
  return
}

// -----

func.func @focus_compete_grad_grad(%g: tensor<?x3xf32>, %u: tensor<?x10x64xf32>,
                                   %wfc: tensor<32x2xf32>) {
  // expected-error @+1 {{'grad' must have shape (E, 2) for lmax = 3 and focus = 2 streams of Cf = 32, but has type 'tensor<?x3xf32>'}}
  %0, %1 = sezm.focus_compete_grad %g, %u weight %wfc lmax = 3 focus = 2
      : (tensor<?x3xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  return
}

// -----

func.func @focus_compete_grad_acc(%g: tensor<?x2xf32>, %u: tensor<?x10x64xf32>,
                                  %wfc: tensor<32x2xf32>,
                                  %acc: tensor<?x16x64xf32>) {
  // expected-error @+1 {{'acc' must have the type of 'u', 'tensor<?x10x64xf32>', but has type 'tensor<?x16x64xf32>'}}
  %0, %1 = sezm.focus_compete_grad %g, %u weight %wfc plus %acc lmax = 3
      focus = 2
      : (tensor<?x2xf32>, tensor<?x10x64xf32>, tensor<32x2xf32>,
         tensor<?x16x64xf32>)
      -> (tensor<?x10x64xf32>, tensor<32x2xf32>)
  return
}

// -----

func.func @degree_linear_degrees(%x: tensor<?x16x32xf32>, %w: tensor<3x32x64xf32>) {
  // expected-error @+1 {{'w' must have shape (4, Cin, Cout) for lmax = 3, but has type 'tensor<3x32x64xf32>'}}
  %0 = sezm.degree_linear %x weight %w lmax = 3
      : (tensor<?x16x32xf32>, tensor<3x32x64xf32>) -> tensor<?x16x64xf32>
  return
}

// -----

func.func @degree_linear_transposed(%x: tensor<?x16x32xf32>, %w: tensor<4x32x64xf32>) {
  // expected-error @+1 {{dimension 2 of 'w' is 64, but 'x' has Cin = 32}}
  %0 = sezm.degree_linear %x weight %w lmax = 3 transposed
      : (tensor<?x16x32xf32>, tensor<4x32x64xf32>) -> tensor<?x16x64xf32>
  return
}

// -----

func.func @focus_scale_split(%y: tensor<?x10x64xf32>, %alpha: tensor<?x3xf32>) {
  // expected-error @+1 {{channel width C = 64 of 'y' does not split into focus = 3 streams}}
  %0 = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x3xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @focus_scale_alpha(%y: tensor<?x10x64xf32>, %alpha: tensor<?x?xf32>) {
  // expected-error @+1 {{dimension 1 (F) of 'alpha' must be static, but has type 'tensor<?x?xf32>'}}
  %0 = sezm.focus_scale %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x?xf32>) -> tensor<?x10x64xf32>
  return
}

// -----

func.func @focus_scale_grad_alpha_grad(%g: tensor<?x10x64xf32>, %y: tensor<?x10x64xf32>,
                                       %alpha: tensor<?x2xf32>) {
  // expected-error @+1 {{'alpha_grad' must have the type of 'alpha', 'tensor<?x2xf32>', but has type 'tensor<?x1xf32>'}}
  %0, %1 = sezm.focus_scale_grad %g, %y by %alpha
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>)
      -> (tensor<?x10x64xf32>, tensor<?x1xf32>)
  return
}

// -----

//===- Aggregation --------------------------------------------------------===//

func.func @envelope_aggregate_norm(%xl: tensor<?x10x64xf32>, %w: tensor<?x16x16xf32>,
                                   %env: tensor<?xf32>, %isd: tensor<7xf32>,
                                   %do: tensor<?xi64>, %dr: tensor<9xi64>) {
  // expected-error @+1 {{dimension 0 of 'inv_sqrt_deg' is 7, but 'dst_rowptr' has N = 8}}
  %0 = sezm.envelope_aggregate %xl by %w env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<7xf32>,
         tensor<?xi64>, tensor<9xi64>) -> tensor<?x16x64xf32>
  return
}

// -----

func.func @envelope_aggregate_scaled(%xl: tensor<?x10x64xf32>, %a: tensor<?x3xf32>,
                                     %w: tensor<?x16x16xf32>, %env: tensor<?xf32>,
                                     %isd: tensor<?xf32>, %do: tensor<?xi64>,
                                     %dr: tensor<?xi64>) {
  // expected-error @+1 {{channel width C = 64 of 'xl' does not split into focus = 3 streams}}
  %0 = sezm.envelope_aggregate %xl scaled %a by %w env %env norm %isd
      over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x3xf32>, tensor<?x16x16xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return
}

// -----

func.func @envelope_aggregate_scaled_edges(%xl: tensor<5x10x64xf32>,
                                           %a: tensor<4x2xf32>,
                                           %w: tensor<5x16x16xf32>,
                                           %env: tensor<5xf32>,
                                           %isd: tensor<?xf32>,
                                           %do: tensor<5xi64>,
                                           %dr: tensor<?xi64>) {
  // expected-error @+1 {{dimension 0 of 'alpha' is 4, but 'xl' has E = 5}}
  %0 = sezm.envelope_aggregate %xl scaled %a by %w env %env norm %isd
      over(%do, %dr) lmax = 3
      : (tensor<5x10x64xf32>, tensor<4x2xf32>, tensor<5x16x16xf32>,
         tensor<5xf32>, tensor<?xf32>, tensor<5xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return
}

// -----

// Without `from`, the CSR lists the op's own edges.
func.func @envelope_aggregate_range(%xl: tensor<4x10x64xf32>, %w: tensor<4x16x16xf32>,
                                    %env: tensor<4xf32>, %isd: tensor<5xf32>,
                                    %do: tensor<9xi64>, %dr: tensor<6xi64>) {
  // expected-error @+1 {{dimension 0 of 'dst_order' is 9, but 'xl' has E = 4}}
  %0 = sezm.envelope_aggregate %xl by %w env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<4x10x64xf32>, tensor<4x16x16xf32>, tensor<4xf32>, tensor<5xf32>,
         tensor<9xi64>, tensor<6xi64>) -> tensor<5x16x64xf32>
  return
}

// -----

func.func @envelope_aggregate_env(%xl: tensor<?x10x64xf32>, %w: tensor<?x16x16xf32>,
                                  %env: tensor<?x1xf32>, %isd: tensor<?xf32>,
                                  %do: tensor<?xi64>, %dr: tensor<?xi64>) {
  // expected-error @+1 {{'env' must have shape (E) for lmax = 3, but has type 'tensor<?x1xf32>'}}
  %0 = sezm.envelope_aggregate %xl by %w env %env norm %isd over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x1xf32>, tensor<?xf32>,
         tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return
}

// -----

func.func @envelope_aggregate_grad_env_grad(%g: tensor<?x16x64xf32>,
                                            %xl: tensor<?x10x64xf32>,
                                            %w: tensor<?x16x16xf32>,
                                            %env: tensor<?xf32>, %isd: tensor<?xf32>,
                                            %dst: tensor<?xi64>) {
  // expected-error @+1 {{'env_grad' must have the type of 'env', 'tensor<?xf32>', but has type 'tensor<?x3xf32>'}}
  %0, %1, %2, %3 = sezm.envelope_aggregate_grad %g, %xl by %w env %env norm %isd
      at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x3xf32>, tensor<?xf32>)
  return
}

// -----

func.func @envelope_aggregate_grad_scaled_pair(%g: tensor<?x16x64xf32>,
                                               %xl: tensor<?x10x64xf32>,
                                               %a: tensor<?x2xf32>,
                                               %w: tensor<?x16x16xf32>,
                                               %env: tensor<?xf32>, %isd: tensor<?xf32>,
                                               %dst: tensor<?xi64>) {
  // expected-error @+1 {{has `scaled` operand but no alpha_grad result: they come together}}
  %0, %1, %2, %3 = sezm.envelope_aggregate_grad %g, %xl scaled %a by %w
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>,
         tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>)
  return
}

// -----

func.func @envelope_aggregate_grad_alpha_grad(%g: tensor<?x16x64xf32>,
                                              %xl: tensor<?x10x64xf32>,
                                              %a: tensor<?x2xf32>,
                                              %w: tensor<?x16x16xf32>,
                                              %env: tensor<?xf32>, %isd: tensor<?xf32>,
                                              %dst: tensor<?xi64>) {
  // expected-error @+1 {{'alpha_grad' must have the type of 'alpha', 'tensor<?x2xf32>', but has type 'tensor<?x4xf32>'}}
  %0, %1, %2, %3, %4 = sezm.envelope_aggregate_grad %g, %xl scaled %a by %w
      env %env norm %isd at %dst lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x2xf32>,
         tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?xf32>, tensor<?xf32>,
          tensor<?x4xf32>)
  return
}

// -----

func.func @attention_heads_split(%xl: tensor<?x10x64xf32>, %w: tensor<?x16x16xf32>,
                                 %lg: tensor<?x2x3xf32>, %env: tensor<?xf32>,
                                 %zn: tensor<2x3xf32>, %do: tensor<?xi64>,
                                 %dr: tensor<?xi64>) {
  // expected-error @+1 {{channel width C = 64 of 'xl' does not split into F = 2 focus streams of H = 3 heads}}
  %0 = sezm.attention_aggregate %xl by %w logit %lg env %env null %zn
      over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x3xf32>,
         tensor<?xf32>, tensor<2x3xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return
}

// -----

func.func @attention_null_logit(%xl: tensor<?x10x64xf32>, %w: tensor<?x16x16xf32>,
                                %lg: tensor<?x2x1xf32>, %env: tensor<?xf32>,
                                %zn: tensor<1x2xf32>, %do: tensor<?xi64>,
                                %dr: tensor<?xi64>) {
  // expected-error @+1 {{dimension 0 of 'null_logit' is 1, but 'logit' has F = 2}}
  %0 = sezm.attention_aggregate %xl by %w logit %lg env %env null %zn
      over(%do, %dr) lmax = 3
      : (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2x1xf32>,
         tensor<?xf32>, tensor<1x2xf32>, tensor<?xi64>, tensor<?xi64>)
      -> tensor<?x16x64xf32>
  return
}

// -----

func.func @attention_grad_logit_grad(%g: tensor<?x16x64xf32>, %xl: tensor<?x10x64xf32>,
                                     %w: tensor<?x16x16xf32>, %lg: tensor<?x2x1xf32>,
                                     %env: tensor<?xf32>, %zn: tensor<2x1xf32>,
                                     %do: tensor<?xi64>, %dr: tensor<?xi64>) {
  // expected-error @+1 {{'logit_grad' must have the type of 'logit', 'tensor<?x2x1xf32>', but has type 'tensor<?x2xf32>'}}
  %0, %1, %2, %3, %4 = sezm.attention_aggregate_grad %g, %xl by %w logit %lg
      env %env null %zn over(%do, %dr) lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x10x64xf32>, tensor<?x16x16xf32>,
         tensor<?x2x1xf32>, tensor<?xf32>, tensor<2x1xf32>, tensor<?xi64>,
         tensor<?xi64>)
      -> (tensor<?x10x64xf32>, tensor<?x16x16xf32>, tensor<?x2xf32>,
          tensor<?xf32>, tensor<2x1xf32>)
  return
}

// -----

//===- Function argument and result names ---------------------------------===//

// expected-error @+1 {{'sezm.name' of argument 0 must be a non-empty string}}
func.func @name_not_string(%x: tensor<?xf32> {sezm.name = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{'sezm.name' of result 0 must be a non-empty string}}
func.func @name_empty() -> (tensor<1xf32> {sezm.name = ""}) {
  %c = arith.constant dense<1.0> : tensor<1xf32>
  return %c : tensor<1xf32>
}

// -----

// expected-error @+1 {{unknown sezm attribute 'sezm.label' on argument 0}}
func.func @unknown_attribute(%x: tensor<?xf32> {sezm.label = "x"}) {
  return
}

// -----

// expected-error @+1 {{'sezm.extents' of argument 0 must name each of the argument's 2 dimensions, but has 1 entries}}
func.func @extents_rank(%x: tensor<?x3xf32> {sezm.extents = ["N"]}) {
  return
}

// -----

// expected-error @+1 {{'sezm.extents' of argument 0 has 'N*2', which is not a name, optionally plus or minus an integer (like "N+1")}}
func.func @extents_syntax(%x: tensor<?xf32> {sezm.extents = ["N*2"]}) {
  return
}

// -----

// expected-error @+1 {{'sezm.extents' of argument 0 must be an array of strings}}
func.func @extents_not_strings(%x: tensor<?xf32> {sezm.extents = [1]}) {
  return
}

// -----

func.func @wigner_grad_grad_cot(%c: tensor<?x16x16xf32>, %g: tensor<?x16x16xf32>,
                                %v: tensor<?x3xf32>) {
  // expected-error @+1 {{'cot' must have shape (E, 3)}}
  %0:2 = sezm.wigner_grad_grad %c, %g, %v lmax = 3
      : (tensor<?x16x16xf32>, tensor<?x16x16xf32>, tensor<?x3xf32>)
      -> (tensor<?x16x16xf32>, tensor<?x3xf32>)
  return
}

// -----

func.func @radial_basis_grad_grad_result(%c: tensor<?x3xf32>, %g: tensor<?x16xf32>,
                                         %v: tensor<?x3xf32>) {
  // expected-error @+1 {{'grad_cot' must have the type of 'grad'}}
  %0:2 = sezm.radial_basis_grad_grad %c, %g, %v rcut = 6.0 exponent = 7
      : (tensor<?x3xf32>, tensor<?x16xf32>, tensor<?x3xf32>)
      -> (tensor<?x8xf32>, tensor<?x3xf32>)
  return
}

// -----

func.func @degree_linear_weight_grad_result(%g: tensor<?x16x64xf32>,
                                            %x: tensor<?x16x32xf32>) {
  // expected-error @+1 {{dimension 1 of 'result' is 64, but 'x' has Cin = 32}}
  %0 = sezm.degree_linear_weight_grad %g, %x lmax = 3
      : (tensor<?x16x64xf32>, tensor<?x16x32xf32>) -> tensor<4x64x32xf32>
  return
}

//===- Gated linear units -------------------------------------------------===//

// -----

func.func @grid_product_channels(%a: tensor<?x27x32xf32>, %b: tensor<?x27x16xf32>,
                                 %to: tensor<27x104xf32>, %from: tensor<104x27xf32>) {
  // expected-error @+1 {{dimension 2 of 'b' is 16, but 'a' has W = 32}}
  %p = sezm.grid_product %a, %b grid(%to, %from)
      : (tensor<?x27x32xf32>, tensor<?x27x16xf32>, tensor<27x104xf32>,
         tensor<104x27xf32>) -> tensor<?x27x32xf32>
  return
}

// -----

func.func @grid_product_to_grid(%a: tensor<?x27x32xf32>, %b: tensor<?x27x32xf32>,
                                %to: tensor<9x104xf32>, %from: tensor<104x27xf32>) {
  // expected-error @+1 {{dimension 0 of 'to_grid' is 9, but 'a' has J = 27}}
  %p = sezm.grid_product %a, %b grid(%to, %from)
      : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<9x104xf32>,
         tensor<104x27xf32>) -> tensor<?x27x32xf32>
  return
}

// -----

func.func @grid_product_from_grid(%a: tensor<?x27x32xf32>, %b: tensor<?x27x32xf32>,
                                  %to: tensor<27x104xf32>, %from: tensor<100x27xf32>) {
  // expected-error @+1 {{dimension 0 of 'from_grid' is 100, but 'to_grid' has P = 104}}
  %p = sezm.grid_product %a, %b grid(%to, %from)
      : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<27x104xf32>,
         tensor<100x27xf32>) -> tensor<?x27x32xf32>
  return
}

// -----

func.func @grid_product_result(%a: tensor<?x27x32xf32>, %b: tensor<?x27x32xf32>,
                               %to: tensor<27x104xf32>, %from: tensor<104x27xf32>) {
  // expected-error @+1 {{'result' must have the type of 'a', 'tensor<?x27x32xf32>', but has type 'tensor<?x27x32xf64>'}}
  %p = sezm.grid_product %a, %b grid(%to, %from)
      : (tensor<?x27x32xf32>, tensor<?x27x32xf32>, tensor<27x104xf32>,
         tensor<104x27xf32>) -> tensor<?x27x32xf64>
  return
}

// -----

func.func @grid_product_grad_grad(%g: tensor<?x27x16xf32>, %a: tensor<?x27x32xf32>,
                                  %b: tensor<?x27x32xf32>, %to: tensor<27x104xf32>,
                                  %from: tensor<104x27xf32>) {
  // expected-error @+1 {{'grad' must have the type of 'a', 'tensor<?x27x32xf32>', but has type 'tensor<?x27x16xf32>'}}
  %p:2 = sezm.grid_product_grad %g, %a, %b grid(%to, %from)
      : (tensor<?x27x16xf32>, tensor<?x27x32xf32>, tensor<?x27x32xf32>,
         tensor<27x104xf32>, tensor<104x27xf32>)
      -> (tensor<?x27x32xf32>, tensor<?x27x32xf32>)
  return
}

// -----

func.func @glu_halves(%x: tensor<?x16x190xf32>, %gw: tensor<96x288xf32>) {
  // expected-error @+1 {{'x' must hold a value and a gate half of 96 channels each (192), but has 190}}
  %0 = sezm.glu %x weight %gw lmax = 3
      : (tensor<?x16x190xf32>, tensor<96x288xf32>) -> tensor<?x16x96xf32>
  return
}

// -----

func.func @glu_rows(%x: tensor<?x9x192xf32>, %gw: tensor<96x288xf32>) {
  // expected-error @+1 {{'x' must have shape (N, 16, 2H)}}
  %0 = sezm.glu %x weight %gw lmax = 3
      : (tensor<?x9x192xf32>, tensor<96x288xf32>) -> tensor<?x16x96xf32>
  return
}

// -----

func.func @glu_needs_weight(%x: tensor<?x16x192xf32>) {
  // expected-error @+1 {{needs a gate weight 'gw' (H, lmax*H) for its rows of degree l >= 1}}
  %0 = sezm.glu %x lmax = 3 : (tensor<?x16x192xf32>) -> tensor<?x16x96xf32>
  return
}

// -----

func.func @glu_scalar_weight(%x: tensor<?x1x192xf32>, %gw: tensor<96x0xf32>) {
  // expected-error @+1 {{has a gate weight 'gw', but at lmax = 0 there are no rows of degree l >= 1 to gate}}
  %0 = sezm.glu %x weight %gw lmax = 0
      : (tensor<?x1x192xf32>, tensor<96x0xf32>) -> tensor<?x1x96xf32>
  return
}

// -----

func.func @glu_weight_shape(%x: tensor<?x16x192xf32>, %gw: tensor<96x96xf32>) {
  // expected-error @+1 {{'gw' must have shape (96, 288) for lmax = 3, but has type 'tensor<96x96xf32>'}}
  %0 = sezm.glu %x weight %gw lmax = 3
      : (tensor<?x16x192xf32>, tensor<96x96xf32>) -> tensor<?x16x96xf32>
  return
}

// -----

func.func @glu_grad_result(%g: tensor<?x16x96xf32>, %x: tensor<?x16x192xf32>,
                           %gw: tensor<96x288xf32>) {
  // expected-error @+1 {{'result' must have the type of 'x', 'tensor<?x16x192xf32>', but has type 'tensor<?x16x96xf32>'}}
  %0 = sezm.glu_grad %g, %x weight %gw lmax = 3
      : (tensor<?x16x96xf32>, tensor<?x16x192xf32>, tensor<96x288xf32>)
      -> tensor<?x16x96xf32>
  return
}

//===- Equivariant RMS norm -----------------------------------------------===//

// -----

func.func @rms_norm_eps(%x: tensor<?x16x32xf32>, %s: tensor<4x32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{eps = 0.00 must be positive}}
  %0 = sezm.equivariant_rms_norm %x scale %s bias %b lmax = 3 eps = 0.0
      : (tensor<?x16x32xf32>, tensor<4x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  return
}

// -----

func.func @rms_norm_scale(%x: tensor<?x16x32xf32>, %s: tensor<3x32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'scale' must have shape (4, C)}}
  %0 = sezm.equivariant_rms_norm %x scale %s bias %b lmax = 3 eps = 1.0e-5
      : (tensor<?x16x32xf32>, tensor<3x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  return
}

// -----

func.func @rms_norm_bias(%x: tensor<?x16x32xf32>, %s: tensor<4x32xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'bias'}}
  %0 = sezm.equivariant_rms_norm %x scale %s bias %b lmax = 3 eps = 1.0e-5
      : (tensor<?x16x32xf32>, tensor<4x32xf32>, tensor<16xf32>) -> tensor<?x16x32xf32>
  return
}

// -----

func.func @rms_norm_weights(%x: tensor<?x16x32xf32>, %s: tensor<4x32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{degree_weights has 2 values, but lmax = 3 has 4 degrees}}
  %0 = sezm.equivariant_rms_norm %x scale %s bias %b lmax = 3 eps = 1.0e-5
      {degree_weights = [0.1, 0.2]}
      : (tensor<?x16x32xf32>, tensor<4x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  return
}

// -----

func.func @rms_norm_rows(%x: tensor<?x9x32xf32>, %s: tensor<4x32xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'x' must have shape (N, 16, C)}}
  %0 = sezm.equivariant_rms_norm %x scale %s bias %b lmax = 3 eps = 1.0e-5
      : (tensor<?x9x32xf32>, tensor<4x32xf32>, tensor<32xf32>) -> tensor<?x9x32xf32>
  return
}

//===- Channel RMS norm ---------------------------------------------------===//

// -----

func.func @rms_norm_scale(%h: tensor<?x32xf32>, %s: tensor<16xf32>) {
  // expected-error @+1 {{'scale'}}
  %0 = sezm.rms_norm %h scale %s eps = 1.0e-7
      : (tensor<?x32xf32>, tensor<16xf32>) -> tensor<?x32xf32>
  return
}

// -----

func.func @rms_norm_eps(%h: tensor<?x32xf32>, %s: tensor<32xf32>) {
  // expected-error @+1 {{must be positive}}
  %0 = sezm.rms_norm %h scale %s eps = -1.0
      : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
  return
}

// -----

func.func @rms_norm_result(%h: tensor<?x32xf32>, %s: tensor<32xf32>) {
  // expected-error @+1 {{'result' must have the type of 'x'}}
  %0 = sezm.rms_norm %h scale %s eps = 1.0e-7
      : (tensor<?x32xf32>, tensor<32xf32>) -> tensor<?x32xf64>
  return
}

// -----

func.func @exchange_rank(%x: tensor<f32>) {
  // expected-error @+1 {{'features' must have rank >= 1, one row per node, but has type 'tensor<f32>'}}
  %0 = sezm.exchange %x : tensor<f32>
  return
}

// -----

func.func @exchange_integers(%x: tensor<?x4xi64>) {
  // expected-error @+1 {{'features' must hold f32 or f64 values, but has type 'tensor<?x4xi64>'}}
  %0 = sezm.exchange %x : tensor<?x4xi64>
  return
}
