// RUN: sezm-opt %s --convert-elementwise-to-linalg --sezm-fuse-elementwise --canonicalize | FileCheck %s

// The maps of the products over the middle axis (@middle_axis below).
// CHECK-DAG: #[[XIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[XROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>

// A chain of elementwise ops of one shape becomes one generic.

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

// A value also used after its consumer (a forward value that the backward
// reads again) stays a result of the fused generic: one kernel writes both,
// and the sum does not read the product back.
// CHECK-LABEL: func.func @shared
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: %[[S:.*]] = arith.addf %[[P]],
// CHECK: linalg.yield %[[P]], %[[S]] : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#0, %[[F]]#1
func.func @shared(%a: tensor<?x16xf32>, %b: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %p = arith.mulf %a, %b : tensor<?x16xf32>
  %s = arith.addf %p, %b : tensor<?x16xf32>
  return %p, %s : tensor<?x16xf32>, tensor<?x16xf32>
}

// A chain whose every link is kept (the radial MLP's SiLU: the backward
// reads the tanh and the sigmoid again): one generic with all three
// results.
// CHECK-LABEL: func.func @kept_chain
// CHECK: %[[F:.*]]:3 = linalg.generic
// CHECK: math.tanh
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: linalg.yield {{.*}} : f32, f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @kept_chain(%x: tensor<?x16xf32>, %h: tensor<?x16xf32>)
    -> (tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>) {
  %t = math.tanh %x : tensor<?x16xf32>
  %s = arith.addf %t, %h : tensor<?x16xf32>
  %y = arith.mulf %x, %s : tensor<?x16xf32>
  return %t, %s, %y : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>
}

// A cheap value that the backward reads again (the SiLU's tanh and
// sigmoid) is computed again there from what the backward reads anyway
// (x): the forward stores only y, and the backward's generic recomputes
// tanh(x) for each of its two uses.
// CHECK-LABEL: func.func @recomputed
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x16xf32>, %[[H:[^:]*]]: tensor<?x16xf32>,
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: outs(%{{[^:]*}} : tensor<?x16xf32>)
// CHECK: math.tanh
// CHECK: linalg.yield %{{[^,]*}} : f32
// CHECK: %[[G:.*]] = linalg.matmul ins(%[[Y]],
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[G]], %[[X]], %[[H]], %[[G]], %[[X]], %[[X]] :
// CHECK-COUNT-2: math.tanh
// CHECK: linalg.yield %{{[^,]*}} : f32
// CHECK: return %[[Y]], %[[R]]
func.func @recomputed(%x: tensor<?x16xf32>, %h: tensor<?x16xf32>,
                      %w: tensor<16x16xf32>, %z: tensor<?x16xf32>)
    -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %t = math.tanh %x : tensor<?x16xf32>
  %s = arith.addf %t, %h : tensor<?x16xf32>
  %y = arith.mulf %x, %s : tensor<?x16xf32>
  %g = linalg.matmul ins(%y, %w : tensor<?x16xf32>, tensor<16x16xf32>)
      outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %d = arith.mulf %g, %x : tensor<?x16xf32>
  %ds = arith.mulf %g, %s : tensor<?x16xf32>
  %dt = arith.mulf %d, %t : tensor<?x16xf32>
  %r = arith.addf %ds, %dt : tensor<?x16xf32>
  return %y, %r : tensor<?x16xf32>, tensor<?x16xf32>
}

// Not where the recomputation would keep more alive than the value: the
// tanh of a product of two products (not arguments) that die before the
// backward stays stored, as does one that a matmul reads again.
// CHECK-LABEL: func.func @recompute_refused
// CHECK: %[[A:.*]] = linalg.matmul
// CHECK: %[[B:.*]] = linalg.matmul
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]], %{{.*}} :
// CHECK: math.tanh
// CHECK: linalg.yield {{.*}} : f32, f32
// CHECK: %[[G:.*]] = linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[G]], %[[F]]#0 :
// CHECK-NOT: math.tanh
// CHECK: return
func.func @recompute_refused(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>,
                             %z: tensor<?x16xf32>)
    -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %a = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x16xf32>)
      outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %b = linalg.matmul ins(%a, %w : tensor<?x16xf32>, tensor<16x16xf32>)
      outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %p = arith.mulf %a, %b : tensor<?x16xf32>
  %t = math.tanh %p : tensor<?x16xf32>
  %y = arith.addf %t, %x : tensor<?x16xf32>
  %g = linalg.matmul ins(%y, %w : tensor<?x16xf32>, tensor<16x16xf32>)
      outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %dt = arith.mulf %g, %t : tensor<?x16xf32>
  return %y, %dt : tensor<?x16xf32>, tensor<?x16xf32>
}

// CHECK-LABEL: func.func @recompute_matmul_reader
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK: math.tanh
// CHECK: linalg.yield {{.*}} : f32, f32
// CHECK: linalg.matmul ins(%[[F]]#1,
// CHECK: linalg.matmul ins(%[[F]]#0,
// CHECK-NOT: math.tanh
// CHECK: return
func.func @recompute_matmul_reader(%x: tensor<?x16xf32>,
                                   %w: tensor<16x16xf32>,
                                   %z: tensor<?x16xf32>)
    -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %t = math.tanh %x : tensor<?x16xf32>
  %y = arith.addf %t, %x : tensor<?x16xf32>
  %g = linalg.matmul ins(%y, %w : tensor<?x16xf32>, tensor<16x16xf32>)
      outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %u = linalg.matmul ins(%t, %w : tensor<?x16xf32>, tensor<16x16xf32>)
      outs(%g : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y, %u : tensor<?x16xf32>, tensor<?x16xf32>
}

// A small contraction (a product over the middle axis) that a reader reads
// again after other sezm ops have run since its first reader is computed
// again in front of it, from what is live there (r, an argument): the
// scale, the fill and the contraction are copied, and the first copy is
// not kept between the two readers.
// CHECK-LABEL: func.func @recomputed_contraction
// CHECK: %[[XS:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 :
// CHECK: %[[Y:.*]] = linalg.generic {{.*}}"reduction"{{.*}} ins(%[[XS]], %arg2 :
// CHECK: sezm.segment_reduce %[[Y]] over
// CHECK: sezm.segment_reduce %arg5 over
// CHECK: %[[XS2:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 :
// CHECK: %[[Y2:.*]] = linalg.generic {{.*}}"reduction"{{.*}} ins(%[[XS2]], %arg2 :
// CHECK: sezm.segment_reduce %[[Y2]] over
// CHECK-NOT: %[[Y]]
// CHECK: return
#rows3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#scale3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#mixIn = affine_map<(e, j, c, i) -> (e, i, c)>
#mixW = affine_map<(e, j, c, i) -> (i, j)>
#mixOut = affine_map<(e, j, c, i) -> (e, j, c)>
func.func @recomputed_contraction(%r: tensor<?x3x32xf32>, %s: tensor<3x32xf32>,
                                  %w: tensor<3x7xf32>, %order: tensor<?xi64>,
                                  %rowptr: tensor<?xi64>, %q: tensor<?x7x32xf32>)
    -> (tensor<?x7x32xf32>, tensor<?x7x32xf32>, tensor<?x7x32xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %r, %c0 : tensor<?x3x32xf32>
  %e0 = tensor.empty(%n) : tensor<?x3x32xf32>
  %xs = linalg.generic {indexing_maps = [#rows3, #scale3, #rows3],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r, %s : tensor<?x3x32xf32>, tensor<3x32xf32>)
      outs(%e0 : tensor<?x3x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<?x3x32xf32>
  %e = tensor.empty(%n) : tensor<?x7x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x7x32xf32>) -> tensor<?x7x32xf32>
  %y = linalg.generic {indexing_maps = [#mixIn, #mixW, #mixOut],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%xs, %w : tensor<?x3x32xf32>, tensor<3x7xf32>) outs(%init : tensor<?x7x32xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %t = arith.addf %acc, %p : f32
      linalg.yield %t : f32
  } -> tensor<?x7x32xf32>
  %first = sezm.segment_reduce %y over(%order, %rowptr)
      : (tensor<?x7x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x7x32xf32>
  %between = sezm.segment_reduce %q over(%order, %rowptr)
      : (tensor<?x7x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x7x32xf32>
  %late = sezm.segment_reduce %y over(%order, %rowptr)
      : (tensor<?x7x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x7x32xf32>
  return %first, %between, %late : tensor<?x7x32xf32>, tensor<?x7x32xf32>, tensor<?x7x32xf32>
}

// Not where what would stay alive longer instead is larger per row: a
// mixing of 7 directions into 3 whose x (7 x 32 a row, a matmul's, dead
// after the contraction) would be kept for the copy stays as it is.
// CHECK-LABEL: func.func @contraction_kept
// CHECK-COUNT-1: "reduction"
// CHECK-NOT: "reduction"
// CHECK: return
#mixBackIn = affine_map<(e, j, c, i) -> (e, i, c)>
func.func @contraction_kept(%x: tensor<?x224xf32>, %m: tensor<224x224xf32>,
                            %z: tensor<?x224xf32>, %w: tensor<7x3xf32>,
                            %order: tensor<?xi64>, %rowptr: tensor<?xi64>,
                            %q: tensor<?x3x32xf32>)
    -> (tensor<?x3x32xf32>, tensor<?x3x32xf32>, tensor<?x3x32xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %p = linalg.matmul ins(%x, %m : tensor<?x224xf32>, tensor<224x224xf32>)
      outs(%z : tensor<?x224xf32>) -> tensor<?x224xf32>
  %n = tensor.dim %x, %c0 : tensor<?x224xf32>
  %p3 = tensor.expand_shape %p [[0], [1, 2]] output_shape [%n, 7, 32]
      : tensor<?x224xf32> into tensor<?x7x32xf32>
  %e = tensor.empty(%n) : tensor<?x3x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x3x32xf32>) -> tensor<?x3x32xf32>
  %y = linalg.generic {indexing_maps = [#mixBackIn, #mixW, #mixOut],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p3, %w : tensor<?x7x32xf32>, tensor<7x3xf32>) outs(%init : tensor<?x3x32xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %pr = arith.mulf %a, %b : f32
      %t = arith.addf %acc, %pr : f32
      linalg.yield %t : f32
  } -> tensor<?x3x32xf32>
  %first = sezm.segment_reduce %y over(%order, %rowptr)
      : (tensor<?x3x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3x32xf32>
  %between = sezm.segment_reduce %q over(%order, %rowptr)
      : (tensor<?x3x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3x32xf32>
  %late = sezm.segment_reduce %y over(%order, %rowptr)
      : (tensor<?x3x32xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x3x32xf32>
  return %first, %between, %late : tensor<?x3x32xf32>, tensor<?x3x32xf32>, tensor<?x3x32xf32>
}

// A value that something reads before its consumer's place stays where it
// is: the fused generic would come after that reader.
// CHECK-LABEL: func.func @read_before
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.matmul ins(%[[P]],
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]],
// CHECK: arith.addf
func.func @read_before(%a: tensor<?x16xf32>, %b: tensor<?x16xf32>,
                       %w: tensor<16x16xf32>, %z: tensor<?x16xf32>)
    -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %p = arith.mulf %a, %b : tensor<?x16xf32>
  %m = linalg.matmul ins(%p, %w : tensor<?x16xf32>, tensor<16x16xf32>)
      outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %s = arith.addf %p, %b : tensor<?x16xf32>
  return %m, %s : tensor<?x16xf32>, tensor<?x16xf32>
}

// Two elementwise ops that read one tensor in place (a product's backward,
// da = g * b and db = g * a) become one generic with both results, which
// reads g once.
// CHECK-LABEL: func.func @siblings
// CHECK-SAME: (%[[G:.*]]: tensor<?x16xf32>, %[[A:.*]]: tensor<?x16xf32>, %[[B:.*]]: tensor<?x16xf32>)
// CHECK: %[[BOTH:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%[[G]], %[[B]], %[[G]], %[[A]] : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>)
// CHECK-NEXT: ^bb0(%[[G0:.*]]: f32, %[[B0:.*]]: f32, %[[G1:.*]]: f32, %[[A1:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[DA:.*]] = arith.mulf %[[G0]], %[[B0]] : f32
// CHECK-NEXT: %[[DB:.*]] = arith.mulf %[[G1]], %[[A1]] : f32
// CHECK-NEXT: linalg.yield %[[DA]], %[[DB]] : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[BOTH]]#0, %[[BOTH]]#1
func.func @siblings(%g: tensor<?x16xf32>, %a: tensor<?x16xf32>, %b: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %da = arith.mulf %g, %b : tensor<?x16xf32>
  %db = arith.mulf %g, %a : tensor<?x16xf32>
  return %da, %db : tensor<?x16xf32>, tensor<?x16xf32>
}

// Siblings stay apart where the earlier one's result is read before the
// later one (the later one would have to move up past that reader); two
// others of the same function still merge, and the later product fuses
// into the difference that reads it, kept as its second result.
// CHECK-LABEL: func.func @siblings_apart
// CHECK: %[[DA:.*]] = linalg.generic
// CHECK: linalg.copy ins(%[[DA]]
// CHECK: %[[XY:.*]]:2 = linalg.generic
// CHECK: %[[DZ:.*]]:2 = linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return %[[DZ]]#1, %[[DZ]]#0, %[[XY]]#0, %[[XY]]#1
func.func @siblings_apart(%g: tensor<?x16xf32>, %a: tensor<?x16xf32>, %b: tensor<?x16xf32>, %r: tensor<16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %da = arith.mulf %g, %b : tensor<?x16xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %da, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %used = linalg.copy ins(%da : tensor<?x16xf32>) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %db = arith.mulf %g, %a : tensor<?x16xf32>
  %x = arith.mulf %r, %r : tensor<16xf32>
  %y = arith.addf %r, %r : tensor<16xf32>
  %z = arith.subf %used, %db : tensor<?x16xf32>
  return %z, %db, %x, %y : tensor<?x16xf32>, tensor<?x16xf32>, tensor<16xf32>, tensor<16xf32>
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

// A broadcast that two generics read in place is read broadcast by each
// (which, as both read %b in place, then become one with two results).
// CHECK-LABEL: func.func @two_readers
// CHECK-NOT: linalg.broadcast
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?x16xf32>, tensor<?xf32>, tensor<?x16xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @two_readers(%a: tensor<?xf32>, %b: tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %ab = linalg.broadcast ins(%a : tensor<?xf32>) outs(%e : tensor<?x16xf32>) dimensions = [1]
  %p = arith.mulf %ab, %b : tensor<?x16xf32>
  %s = arith.addf %ab, %b : tensor<?x16xf32>
  return %p, %s : tensor<?x16xf32>, tensor<?x16xf32>
}

// A product over the middle axis, out[e, j, c] = sum_i x[e, i, c] w[i, j],
// written transpose -> collapse -> matmul -> expand -> transpose (the DPA4
// import's), is one contraction that reads x and writes out in place: no
// transposed copy, the sums over i from the zero init.
// CHECK-LABEL: func.func @middle_axis
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.matmul
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<?x7x32xf32>
// CHECK: linalg.generic {indexing_maps = [#[[XIN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %arg1 : tensor<?x3x32xf32>, tensor<3x7xf32>) outs(%[[ZERO]] : tensor<?x7x32xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @middle_axis(%x: tensor<?x3x32xf32>, %w: tensor<3x7xf32>) -> tensor<?x7x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x3x32xf32>
  %e1 = tensor.empty(%n) : tensor<?x32x3xf32>
  %t = linalg.transpose ins(%x : tensor<?x3x32xf32>) outs(%e1 : tensor<?x32x3xf32>) permutation = [0, 2, 1]
  %rows = tensor.collapse_shape %t [[0, 1], [2]] : tensor<?x32x3xf32> into tensor<?x3xf32>
  %m = tensor.dim %rows, %c0 : tensor<?x3xf32>
  %e2 = tensor.empty(%m) : tensor<?x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x7xf32>) -> tensor<?x7xf32>
  %p = linalg.matmul ins(%rows, %w : tensor<?x3xf32>, tensor<3x7xf32>) outs(%f : tensor<?x7xf32>) -> tensor<?x7xf32>
  %y = tensor.expand_shape %p [[0, 1], [2]] output_shape [%n, 32, 7] : tensor<?x7xf32> into tensor<?x32x7xf32>
  %e3 = tensor.empty(%n) : tensor<?x7x32xf32>
  %out = linalg.transpose ins(%y : tensor<?x32x7xf32>) outs(%e3 : tensor<?x7x32xf32>) permutation = [0, 2, 1]
  return %out : tensor<?x7x32xf32>
}

// With one transpose (here the input's: x already (e, c, i)), the same:
// out[e, j, c] read in place. The transpose's init sized by the product's
// rows (as autodiff sizes it) keeps no use of the product.
// CHECK-LABEL: func.func @middle_axis_out
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[XROW]], #[[W]], #[[OUT]]]
// CHECK-SAME: ins(%arg0, %arg1 : tensor<?x32x3xf32>, tensor<3x7xf32>) outs(%{{.*}} : tensor<?x7x32xf32>)
func.func @middle_axis_out(%x: tensor<?x32x3xf32>, %w: tensor<3x7xf32>) -> tensor<?x7x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x32x3xf32>
  %rows = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x32x3xf32> into tensor<?x3xf32>
  %m = tensor.dim %rows, %c0 : tensor<?x3xf32>
  %e2 = tensor.empty(%m) : tensor<?x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x7xf32>) -> tensor<?x7xf32>
  %p = linalg.matmul ins(%rows, %w : tensor<?x3xf32>, tensor<3x7xf32>) outs(%f : tensor<?x7xf32>) -> tensor<?x7xf32>
  %y = tensor.expand_shape %p [[0, 1], [2]] output_shape [%n, 32, 7] : tensor<?x7xf32> into tensor<?x32x7xf32>
  %ny = tensor.dim %y, %c0 : tensor<?x32x7xf32>
  %e3 = tensor.empty(%ny) : tensor<?x7x32xf32>
  %out = linalg.transpose ins(%y : tensor<?x32x7xf32>) outs(%e3 : tensor<?x7x32xf32>) permutation = [0, 2, 1]
  return %out : tensor<?x7x32xf32>
}

// What stays: no transpose to save (a plain product of rows, which the GEMM
// takes), an init that is not zero (its sums start elsewhere), a product
// read also as rows.
// CHECK-LABEL: func.func @middle_axis_kept
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT: "reduction"
func.func @middle_axis_kept(%x: tensor<?x3x32xf32>, %w: tensor<3x7xf32>,
                            %init: tensor<?x7xf32>)
    -> (tensor<?x32x7xf32>, tensor<?x7x32xf32>, tensor<?x7x32xf32>, tensor<?x7xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x3x32xf32>
  %e1 = tensor.empty(%n) : tensor<?x32x3xf32>
  %t = linalg.transpose ins(%x : tensor<?x3x32xf32>) outs(%e1 : tensor<?x32x3xf32>) permutation = [0, 2, 1]
  %rows = tensor.collapse_shape %t [[0, 1], [2]] : tensor<?x32x3xf32> into tensor<?x3xf32>
  %plainRows = tensor.collapse_shape %e1 [[0, 1], [2]] : tensor<?x32x3xf32> into tensor<?x3xf32>
  %m = tensor.dim %rows, %c0 : tensor<?x3xf32>
  %e2 = tensor.empty(%m) : tensor<?x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x7xf32>) -> tensor<?x7xf32>
  %p0 = linalg.matmul ins(%plainRows, %w : tensor<?x3xf32>, tensor<3x7xf32>) outs(%f : tensor<?x7xf32>) -> tensor<?x7xf32>
  %y0 = tensor.expand_shape %p0 [[0, 1], [2]] output_shape [%n, 32, 7] : tensor<?x7xf32> into tensor<?x32x7xf32>
  %p1 = linalg.matmul ins(%rows, %w : tensor<?x3xf32>, tensor<3x7xf32>) outs(%init : tensor<?x7xf32>) -> tensor<?x7xf32>
  %y1 = tensor.expand_shape %p1 [[0, 1], [2]] output_shape [%n, 32, 7] : tensor<?x7xf32> into tensor<?x32x7xf32>
  %e3 = tensor.empty(%n) : tensor<?x7x32xf32>
  %o1 = linalg.transpose ins(%y1 : tensor<?x32x7xf32>) outs(%e3 : tensor<?x7x32xf32>) permutation = [0, 2, 1]
  %p2 = linalg.matmul ins(%rows, %w : tensor<?x3xf32>, tensor<3x7xf32>) outs(%f : tensor<?x7xf32>) -> tensor<?x7xf32>
  %y2 = tensor.expand_shape %p2 [[0, 1], [2]] output_shape [%n, 32, 7] : tensor<?x7xf32> into tensor<?x32x7xf32>
  %e4 = tensor.empty(%n) : tensor<?x7x32xf32>
  %o2 = linalg.transpose ins(%y2 : tensor<?x32x7xf32>) outs(%e4 : tensor<?x7x32xf32>) permutation = [0, 2, 1]
  return %y0, %o1, %o2, %p2 : tensor<?x32x7xf32>, tensor<?x7x32xf32>, tensor<?x7x32xf32>, tensor<?x7xf32>
}

// The gradient of an outer product: each factor's gradient is the incoming
// gradient times the other factor, summed over the axis that factor was
// broadcast along. Each product fuses into its sum (its extents, which
// autodiff reads for the sum's init, taken from its destination): the
// terms are never stored.
// CHECK-LABEL: func.func @outer_product_grad
// CHECK-SAME: (%[[G:.*]]: tensor<?x4x32xf32>, %[[V:.*]]: tensor<?x32xf32>, %[[A:.*]]: tensor<?x4xf32>)
// CHECK: %[[DV:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME: ins(%[[G]], %[[A]] : tensor<?x4x32xf32>, tensor<?x4xf32>)
// CHECK-NEXT: ^bb0(%[[GI:.*]]: f32, %[[AI:.*]]: f32, %[[SUM:.*]]: f32):
// CHECK-NEXT: %[[TERM:.*]] = arith.mulf %[[GI]], %[[AI]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[TERM]], %[[SUM]]
// CHECK-NEXT: linalg.yield %[[NEXT]]
// CHECK: %[[DA:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[G]], %[[V]] : tensor<?x4x32xf32>, tensor<?x32xf32>)
// CHECK-NOT: linalg.reduce
// CHECK: return %[[DV]], %[[DA]]
func.func @outer_product_grad(%g: tensor<?x4x32xf32>, %v: tensor<?x32xf32>,
                              %a: tensor<?x4xf32>)
    -> (tensor<?x32xf32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %g, %c0 : tensor<?x4x32xf32>
  %e = tensor.empty(%n) : tensor<?x4x32xf32>
  %vx = linalg.broadcast ins(%v : tensor<?x32xf32>) outs(%e : tensor<?x4x32xf32>) dimensions = [1]
  %ax = linalg.broadcast ins(%a : tensor<?x4xf32>) outs(%e : tensor<?x4x32xf32>) dimensions = [2]
  %gv = arith.mulf %g, %vx : tensor<?x4x32xf32>
  %ga = arith.mulf %g, %ax : tensor<?x4x32xf32>
  %m = tensor.dim %ga, %c0 : tensor<?x4x32xf32>
  %e1 = tensor.empty(%m) : tensor<?x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %dv = linalg.reduce ins(%ga : tensor<?x4x32xf32>) outs(%z1 : tensor<?x32xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty(%n) : tensor<?x4xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %da = linalg.reduce ins(%gv : tensor<?x4x32xf32>) outs(%z2 : tensor<?x4xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %dv, %da : tensor<?x32xf32>, tensor<?x4xf32>
}

// What stays a reduce: a sum over the rows (a full sum, which has a kernel
// of its own), and terms that something else reads too.
// CHECK-LABEL: func.func @reductions_kept
// CHECK: %[[P:.*]] = linalg.generic
// CHECK-NOT: "reduction"
// CHECK: linalg.reduce ins(%[[P]]
// CHECK-SAME: dimensions = [0]
// CHECK: %[[Q:.*]] = linalg.generic
// CHECK-NOT: "reduction"
// CHECK: linalg.reduce ins(%[[Q]]
// CHECK-SAME: dimensions = [1]
// CHECK: return
func.func @reductions_kept(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>)
    -> (tensor<8xf32>, tensor<?xf32>, tensor<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %p = arith.mulf %x, %y : tensor<?x8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s1 = linalg.reduce ins(%p : tensor<?x8xf32>) outs(%z1 : tensor<8xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  %q = arith.addf %x, %y : tensor<?x8xf32>
  %e2 = tensor.empty(%n) : tensor<?xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
  %s2 = linalg.reduce ins(%q : tensor<?x8xf32>) outs(%z2 : tensor<?xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %s1, %s2, %q : tensor<8xf32>, tensor<?xf32>, tensor<?x8xf32>
}
