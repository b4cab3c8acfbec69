// The SO(2) kernels of the performance targets, at (lmax, Cf, F, rank) =
// (3, 32, 2, 1): the rotate+mix forward (edge-frame and focus-major), the
// backward fused with the source
// segment reduction, its unfused form, and the segment reduction alone.
// Inputs: make-so2-workload.

func.func @rotate_mix(%x: tensor<?x16x64xf32> {sezm.name = "x"},
                      %src: tensor<?xi64> {sezm.name = "src"},
                      %w: tensor<?x16x16xf32> {sezm.name = "wigner"},
                      %kc: tensor<?x25xf32> {sezm.name = "kc"},
                      %cb: tensor<1x64xf32> {sezm.name = "cb"})
    -> (tensor<?x10x64xf32> {sezm.name = "u"}) {
  %u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  return %u : tensor<?x10x64xf32>
}

// The same, stored focus-major (F, E, 10*Cf) as DeePMD-kit's Triton forward
// stores it.
func.func @rotate_mix_focus_major(%x: tensor<?x16x64xf32> {sezm.name = "x"},
                                  %src: tensor<?xi64> {sezm.name = "src"},
                                  %w: tensor<?x16x16xf32> {sezm.name = "wigner"},
                                  %kc: tensor<?x25xf32> {sezm.name = "kc"},
                                  %cb: tensor<1x64xf32> {sezm.name = "cb"})
    -> (tensor<2x?x320xf32> {sezm.name = "u0"}) {
  %u0 = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      focus_major = 2
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<2x?x320xf32>
  return %u0 : tensor<2x?x320xf32>
}

func.func @fused_backward(%g: tensor<?x10x64xf32> {sezm.name = "grad"},
                          %x: tensor<?x16x64xf32> {sezm.name = "x"},
                          %src: tensor<?xi64> {sezm.name = "src"},
                          %w: tensor<?x16x16xf32> {sezm.name = "wigner"},
                          %kc: tensor<?x25xf32> {sezm.name = "kc"},
                          %cb: tensor<1x64xf32> {sezm.name = "cb"},
                          %so: tensor<?xi64> {sezm.name = "src_order"},
                          %sr: tensor<?xi64> {sezm.name = "src_rowptr"})
    -> (tensor<?x16x64xf32> {sezm.name = "x_grad"},
        tensor<?x16x16xf32> {sezm.name = "wigner_grad"},
        tensor<?x25xf32> {sezm.name = "kc_grad"}) {
  %gx, %gw, %gk = sezm.rotate_mix_grad_reduce %g, %x[%src] by %w kernel %kc
      basis %cb over(%so, %sr) lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>,
         tensor<?xi64>, tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  return %gx, %gw, %gk : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}

func.func @unfused_backward(%g: tensor<?x10x64xf32> {sezm.name = "grad"},
                            %x: tensor<?x16x64xf32> {sezm.name = "x"},
                            %src: tensor<?xi64> {sezm.name = "src"},
                            %w: tensor<?x16x16xf32> {sezm.name = "wigner"},
                            %kc: tensor<?x25xf32> {sezm.name = "kc"},
                            %cb: tensor<1x64xf32> {sezm.name = "cb"},
                            %so: tensor<?xi64> {sezm.name = "src_order"},
                            %sr: tensor<?xi64> {sezm.name = "src_rowptr"})
    -> (tensor<?x16x64xf32> {sezm.name = "x_grad"},
        tensor<?x16x16xf32> {sezm.name = "wigner_grad"},
        tensor<?x25xf32> {sezm.name = "kc_grad"}) {
  %gxe, %gw, %gk = sezm.rotate_mix_grad %g, %x[%src] by %w kernel %kc
      basis %cb lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x16x16xf32>, tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %gx, %gw, %gk : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}

// The forward and the fused backward with the Wigner-D as the 46 entries a
// rotation keeps (make-so2-workload's wigner_kept, the same values): the
// bytes the roofline counts, and what sezm stores where it computes the
// Wigner-D itself.
func.func @rotate_mix_kept(%x: tensor<?x16x64xf32> {sezm.name = "x"},
                           %src: tensor<?xi64> {sezm.name = "src"},
                           %w: tensor<?x46xf32> {sezm.name = "wigner_kept"},
                           %kc: tensor<?x25xf32> {sezm.name = "kc"},
                           %cb: tensor<1x64xf32> {sezm.name = "cb"})
    -> (tensor<?x10x64xf32> {sezm.name = "u"}) {
  %u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x46xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>) -> tensor<?x10x64xf32>
  return %u : tensor<?x10x64xf32>
}

func.func @fused_backward_kept(%g: tensor<?x10x64xf32> {sezm.name = "grad"},
                               %x: tensor<?x16x64xf32> {sezm.name = "x"},
                               %src: tensor<?xi64> {sezm.name = "src"},
                               %w: tensor<?x46xf32> {sezm.name = "wigner_kept"},
                               %kc: tensor<?x25xf32> {sezm.name = "kc"},
                               %cb: tensor<1x64xf32> {sezm.name = "cb"},
                               %so: tensor<?xi64> {sezm.name = "src_order"},
                               %sr: tensor<?xi64> {sezm.name = "src_rowptr"})
    -> (tensor<?x16x64xf32> {sezm.name = "x_grad"},
        tensor<?x46xf32> {sezm.name = "wigner_grad"},
        tensor<?x25xf32> {sezm.name = "kc_grad"}) {
  %gx, %gw, %gk = sezm.rotate_mix_grad_reduce %g, %x[%src] by %w kernel %kc
      basis %cb over(%so, %sr) lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>,
         tensor<?x46xf32>, tensor<?x25xf32>, tensor<1x64xf32>,
         tensor<?xi64>, tensor<?xi64>)
      -> (tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x25xf32>)
  return %gx, %gw, %gk : tensor<?x16x64xf32>, tensor<?x46xf32>, tensor<?x25xf32>
}
