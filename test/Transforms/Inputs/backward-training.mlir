// The unfused rotate+mix backward of the training schedule: the per-edge
// node gradient lives until the source segment reduction.
func.func @backward(%g: tensor<?x10x64xf32>, %x: tensor<?x16x64xf32>,
    %src: tensor<?xi64> {sezm.name = "src", sezm.extents = ["E"]},
    %wd: tensor<?x16x16xf32>, %kc: tensor<?x25xf32>, %cb: tensor<1x64xf32>,
    %so: tensor<?xi64> {sezm.csr_of = "src", sezm.extents = ["E"]},
    %sr: tensor<?xi64> {sezm.csr_of = "src", sezm.extents = ["N+1"]})
    -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>) attributes {sezm.training} {
  %gxe, %gwd, %gkc = sezm.rotate_mix_grad %g, %x[%src] by %wd kernel %kc basis %cb
      lmax = 3 rank = 1
      : (tensor<?x10x64xf32>, tensor<?x16x64xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x64xf32>)
      -> (tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>)
  %gx = sezm.segment_reduce %gxe over(%so, %sr)
      : (tensor<?x16x64xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x16x64xf32>
  return %gx, %gwd, %gkc : tensor<?x16x64xf32>, tensor<?x16x16xf32>, tensor<?x25xf32>
}
