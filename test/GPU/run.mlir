// On a GPU: the same module runs on both backends and agrees.
// REQUIRES: cuda, runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool random %t/x.npy f32 5,16,32 1
// RUN: %npytool write %t/src.npy i64 6 "4 0 2 1 3 4"
// RUN: %npytool random %t/w.npy f32 6,16,16 2
// RUN: %npytool random %t/kc.npy f32 6,25 3
// RUN: %npytool random %t/cb.npy f32 1,32 4
// RUN: sezm-run %s --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input kc=%t/kc.npy --input cb=%t/cb.npy --verify | FileCheck %s
// CHECK: @main: GPU against CPU
// CHECK-NEXT: u: max abs error {{.*}} ok
// CHECK: @main ran on the GPU
// An artifact that carries cb as a weight runs without it, and agrees with
// the CPU.
// RUN: sezm-run %s --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input kc=%t/kc.npy --input cb=%t/cb.npy --output-dir %t/cpu
// RUN: %python -c "import json, struct, numpy; a = numpy.load('%t/cb.npy').astype('<f4'); h = json.dumps({'cb': {'dtype': 'F32', 'shape': list(a.shape), 'data_offsets': [0, a.nbytes]}}).encode(); open('%t/w.safetensors', 'wb').write(struct.pack('<Q', len(h)) + h + a.tobytes())"
// RUN: sezm-compile %s --weights %t/w.safetensors -o %t/model.sezm
// RUN: sezm-exec %t/model.sezm --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input kc=%t/kc.npy --expect %t/cpu | FileCheck %s --check-prefix=CARRIED
// Timed runs reuse their output blocks: the freed ones are kept, and each
// later run takes them instead of fresh device memory (the peak stays one
// run's outputs, 6*10*32 floats).
// RUN: sezm-exec %t/model.sezm --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input kc=%t/kc.npy --bench 3 | FileCheck %s --check-prefix=REUSE
// REUSE: 3 runs {{.*}} peak 7680 bytes beyond the inputs
// REUSE: freed device blocks kept for reuse: {{[1-9][0-9]*}} bytes
// CARRIED: u: float32 (6, 10, 32)
// CARRIED-NEXT: max abs error {{.*}} ok
// sezm-run runs the artifact too, the carried cb bound by itself.
// RUN: sezm-run %t/model.sezm --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input kc=%t/kc.npy | FileCheck %s --check-prefix=RUNART
// RUNART: @main ran on the GPU
// RUNART-NEXT: u: float32 (6, 10, 32)

func.func @main(%x: tensor<?x16x32xf32> {sezm.name = "x"},
                %src: tensor<?xi64> {sezm.name = "src"},
                %w: tensor<?x16x16xf32> {sezm.name = "wigner"},
                %kc: tensor<?x25xf32> {sezm.name = "kc"},
                %cb: tensor<1x32xf32> {sezm.name = "cb"})
    -> (tensor<?x10x32xf32> {sezm.name = "u"}) {
  %u = sezm.rotate_mix %x[%src] by %w kernel %kc basis %cb lmax = 3 rank = 1
      : (tensor<?x16x32xf32>, tensor<?xi64>, tensor<?x16x16xf32>,
         tensor<?x25xf32>, tensor<1x32xf32>) -> tensor<?x10x32xf32>
  return %u : tensor<?x10x32xf32>
}
