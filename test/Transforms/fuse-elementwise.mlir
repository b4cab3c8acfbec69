// RUN: sezm-opt %s --convert-elementwise-to-linalg --sezm-fuse-elementwise --canonicalize | FileCheck %s

// A chain of elementwise ops of one shape becomes one generic; a value with
// a second use is left as it is.

// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[A:.*]]: tensor<?x16xf32>, %[[B:.*]]: tensor<?x16xf32>, %[[C:.*]]: tensor<?x16xf32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]], %[[C]] : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[Z]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[S]] : f32
// CHECK-NEXT: linalg.yield %[[T]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @chain(%a: tensor<?x16xf32>, %b: tensor<?x16xf32>, %c: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %p = arith.mulf %a, %b : tensor<?x16xf32>
  %s = arith.addf %p, %c : tensor<?x16xf32>
  %t = math.tanh %s : tensor<?x16xf32>
  return %t : tensor<?x16xf32>
}

// CHECK-LABEL: func.func @shared
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-SAME: ins(%[[P]],
// CHECK: arith.addf
// CHECK: return %[[P]], %[[S]]
func.func @shared(%a: tensor<?x16xf32>, %b: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %p = arith.mulf %a, %b : tensor<?x16xf32>
  %s = arith.addf %p, %b : tensor<?x16xf32>
  return %p, %s : tensor<?x16xf32>, tensor<?x16xf32>
}

// A broadcast read in place by one generic is read broadcast by it, and
// that generic fuses into its reader, which reads it in place.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[B:.*]]: tensor<?x16xf32>, %[[C:.*]]: tensor<16xf32>)
// CHECK-NOT: linalg.broadcast
// CHECK: linalg.generic {indexing_maps = [#[[ROWS:.*]], #[[SPREAD:.*]], #[[ID:.*]], #[[ID]]]
// CHECK-SAME: ins(%[[C]], %[[A]], %[[B]] : tensor<16xf32>, tensor<?xf32>, tensor<?x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @broadcast(%a: tensor<?xf32>, %b: tensor<?x16xf32>, %c: tensor<16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %ab = linalg.broadcast ins(%a : tensor<?xf32>) outs(%e : tensor<?x16xf32>) dimensions = [1]
  %p = arith.mulf %ab, %b : tensor<?x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c, %p : tensor<16xf32>, tensor<?x16xf32>) outs(%e : tensor<?x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// A producer that its reader reads broadcast stays: fused, it would be
// computed once per element of the broadcast. A fill read in place (a
// constant) is read as a scalar.
// CHECK-LABEL: func.func @read_broadcast
// CHECK-NOT: linalg.fill
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]], %{{.*}} : tensor<?xf32>, tensor<?x16xf32>)
// CHECK: arith.addf
func.func @read_broadcast(%a: tensor<?xf32>, %b: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %h = linalg.fill ins(%half : f32) outs(%e1 : tensor<?xf32>) -> tensor<?xf32>
  %p = arith.mulf %a, %h : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %b : tensor<?xf32>, tensor<?x16xf32>) outs(%e : tensor<?x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// A column times a constant row of ones from a zero init (the DPA4 import's
// env scaling, a product because autodiff has a rule for it) is the column
// broadcast, which then fuses into its reader: no matmul, no (E, 8) tensor.
// CHECK-LABEL: func.func @ones_product
// CHECK-SAME: (%[[ENV:.*]]: tensor<?x1xf32>, %[[R:.*]]: tensor<?x8xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[ENV]] {{\[\[}}0, 1]] : tensor<?x1xf32> into tensor<?xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[R]], %[[COL]] : tensor<?x8xf32>, tensor<?xf32>)
// CHECK: arith.mulf
// CHECK-NOT: linalg.broadcast
func.func @ones_product(%env: tensor<?x1xf32>, %r: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ones = arith.constant dense<1.0> : tensor<1x8xf32>
  %n = tensor.dim %env, %c0 : tensor<?x1xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %b = linalg.matmul ins(%env, %ones : tensor<?x1xf32>, tensor<1x8xf32>) outs(%z : tensor<?x8xf32>) -> tensor<?x8xf32>
  %p = arith.mulf %r, %b : tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}

// Another init, or a row that is not all ones, stays a matmul.
// CHECK-LABEL: func.func @not_ones
// CHECK: linalg.matmul
// CHECK: linalg.matmul
func.func @not_ones(%env: tensor<?x1xf32>, %init: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ones = arith.constant dense<1.0> : tensor<1x8xf32>
  %twos = arith.constant dense<2.0> : tensor<1x8xf32>
  %n = tensor.dim %env, %c0 : tensor<?x1xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %a = linalg.matmul ins(%env, %ones : tensor<?x1xf32>, tensor<1x8xf32>) outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
  %b = linalg.matmul ins(%env, %twos : tensor<?x1xf32>, tensor<1x8xf32>) outs(%z : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %a, %b : tensor<?x8xf32>, tensor<?x8xf32>
}

// A broadcast that two generics read in place is read broadcast by each.
// CHECK-LABEL: func.func @two_readers
// CHECK-NOT: linalg.broadcast
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?x16xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?x16xf32>)
// CHECK: arith.addf
func.func @two_readers(%a: tensor<?xf32>, %b: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %ab = linalg.broadcast ins(%a : tensor<?xf32>) outs(%e : tensor<?x16xf32>) dimensions = [1]
  %p = arith.mulf %ab, %b : tensor<?x16xf32>
  %s = arith.addf %ab, %b : tensor<?x16xf32>
  return %p, %s : tensor<?x16xf32>, tensor<?x16xf32>
}
