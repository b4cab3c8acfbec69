// sezm-run binds named .npy inputs, runs on the CPU and writes named .npy
// outputs; the numbers are worked by hand below.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npytool write %t/x.npy f32 3,1,2 "1 2 3 4 5 6"
// RUN: %npytool write %t/src.npy i64 4 "2 0 2 1"
// RUN: %npytool write %t/w.npy f32 4,1,1 "1 2 -1 0.5"
// RUN: %npytool write %t/order.npy i64 4 "1 3 0 2"
// RUN: %npytool write %t/rowptr.npy i64 4 "0 1 2 4"
// RUN: sezm-run %s --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy --output-dir %t/out | FileCheck %s --check-prefix=SUMMARY
// RUN: sezm-run %s --input x=%t/x.npy --input src=%t/src.npy --input wigner=%t/w.npy --input order=%t/order.npy --input rowptr=%t/rowptr.npy --output-dir %t/again > /dev/null
// RUN: cmp %t/out/messages.npy %t/again/messages.npy
// RUN: cmp %t/out/per_node.npy %t/again/per_node.npy
// RUN: %npytool print %t/out/messages.npy | FileCheck %s --check-prefix=MESSAGES
// RUN: %npytool print %t/out/per_node.npy | FileCheck %s --check-prefix=NODES

// lmax 0: the edge frame is the l = 0 row, so each message is
// wigner[e] * x[src[e]]: (5, 6), (2, 4), (-5, -6), (1.5, 2).
// MESSAGES: <f4 (4, 1, 2)
// MESSAGES-NEXT: 5 6 2 4 -5 -6 1.5 2

// Segments in CSR order: node 0 <- edge 1, node 1 <- edge 3, node 2 <- edges
// 0 then 2.
// NODES: <f4 (3, 1, 2)
// NODES-NEXT: 2 4 1.5 2 0 0

// SUMMARY: @main ran on the CPU
// SUMMARY-NEXT: messages: float32 (4, 1, 2)  min -6  max 6  mean 1.1875
// SUMMARY-NEXT: per_node: float32 (3, 1, 2)  min 0  max 4  mean 1.58333

func.func @main(%x: tensor<?x1x2xf32> {sezm.name = "x"},
                %src: tensor<?xi64> {sezm.name = "src"},
                %w: tensor<?x1x1xf32> {sezm.name = "wigner"},
                %order: tensor<?xi64> {sezm.name = "order"},
                %rowptr: tensor<?xi64> {sezm.name = "rowptr"})
    -> (tensor<?x1x2xf32> {sezm.name = "messages"},
        tensor<?x1x2xf32> {sezm.name = "per_node"}) {
  %m = sezm.rotate %x[%src] by %w lmax = 0
      : (tensor<?x1x2xf32>, tensor<?xi64>, tensor<?x1x1xf32>) -> tensor<?x1x2xf32>
  %n = sezm.segment_reduce %m over(%order, %rowptr)
      : (tensor<?x1x2xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x1x2xf32>
  return %m, %n : tensor<?x1x2xf32>, tensor<?x1x2xf32>
}
