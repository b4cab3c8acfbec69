// The GEMM-shaped ops of the default DPA4 (C 64, lmax 3, one focus stream)
// alone, for bench/gemm_precision.py: each one's error against fp64 and its
// time, compiled with --gemm-precision ieee and tf32x3. The script makes
// the fp64 module by replacing f32 with f64.

func.func @so2_linear(%u: tensor<?x10x64xf32> {sezm.name = "u"},
                      %w0: tensor<1x256x256xf32> {sezm.name = "w0"},
                      %wu: tensor<1x192x192xf32> {sezm.name = "wu"},
                      %wv: tensor<1x192x192xf32> {sezm.name = "wv"})
    -> (tensor<?x10x64xf32> {sezm.name = "z"}) {
  %z = sezm.so2_linear %u weights(%w0, %wu, %wv) lmax = 3 focus = 1
      : (tensor<?x10x64xf32>, tensor<1x256x256xf32>, tensor<1x192x192xf32>,
         tensor<1x192x192xf32>) -> tensor<?x10x64xf32>
  return %z : tensor<?x10x64xf32>
}

func.func @so2_linear_grad(%g: tensor<?x10x64xf32> {sezm.name = "g"},
                           %u: tensor<?x10x64xf32> {sezm.name = "u"},
                           %w0: tensor<1x256x256xf32> {sezm.name = "w0"},
                           %wu: tensor<1x192x192xf32> {sezm.name = "wu"},
                           %wv: tensor<1x192x192xf32> {sezm.name = "wv"})
    -> (tensor<?x10x64xf32> {sezm.name = "gu"}) {
  %gu, %gw0, %gwu, %gwv = sezm.so2_linear_grad %g, %u weights(%w0, %wu, %wv)
      lmax = 3 focus = 1
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<1x256x256xf32>,
         tensor<1x192x192xf32>, tensor<1x192x192xf32>)
      -> (tensor<?x10x64xf32>, tensor<1x256x256xf32>, tensor<1x192x192xf32>,
          tensor<1x192x192xf32>)
  return %gu : tensor<?x10x64xf32>
}

func.func @gate(%z: tensor<?x10x64xf32> {sezm.name = "u"},
                %gw: tensor<1x64x192xf32> {sezm.name = "gw"})
    -> (tensor<?x10x64xf32> {sezm.name = "a"}) {
  %a = sezm.gate %z weight %gw lmax = 3 focus = 1
      : (tensor<?x10x64xf32>, tensor<1x64x192xf32>) -> tensor<?x10x64xf32>
  return %a : tensor<?x10x64xf32>
}

func.func @gate_grad(%g: tensor<?x10x64xf32> {sezm.name = "g"},
                     %z: tensor<?x10x64xf32> {sezm.name = "u"},
                     %gw: tensor<1x64x192xf32> {sezm.name = "gw"})
    -> (tensor<?x10x64xf32> {sezm.name = "gz"}) {
  %gz, %ggw = sezm.gate_grad %g, %z weight %gw lmax = 3 focus = 1
      : (tensor<?x10x64xf32>, tensor<?x10x64xf32>, tensor<1x64x192xf32>)
      -> (tensor<?x10x64xf32>, tensor<1x64x192xf32>)
  return %gz : tensor<?x10x64xf32>
}

func.func @matmul(%h: tensor<?x64xf32> {sezm.name = "h"},
                  %w: tensor<64x256xf32> {sezm.name = "w"})
    -> (tensor<?x256xf32> {sezm.name = "r"}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %h, %c0 : tensor<?x64xf32>
  %empty = tensor.empty(%rows) : tensor<?x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x256xf32>)
      -> tensor<?x256xf32>
  %r = linalg.matmul ins(%h, %w : tensor<?x64xf32>, tensor<64x256xf32>)
      outs(%init : tensor<?x256xf32>) -> tensor<?x256xf32>
  return %r : tensor<?x256xf32>
}
