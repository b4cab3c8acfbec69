// RUN: sezm-opt %s --sezm-drop-port-names | FileCheck %s

// The names go; the other port attributes stay.
// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %{{.*}}: tensor<?xi64> {sezm.extents = ["E"]},
// CHECK-SAME:    %{{.*}}: tensor<?xi64> {sezm.csr_of = "src", sezm.extents = ["E"]})
// CHECK-SAME:    -> tensor<?xi64>
// CHECK-NOT:   sezm.name
func.func @f(%src: tensor<?xi64> {sezm.name = "src", sezm.extents = ["E"]},
             %order: tensor<?xi64> {sezm.name = "src_order", sezm.csr_of = "src", sezm.extents = ["E"]})
    -> (tensor<?xi64> {sezm.name = "y"}) {
  return %order : tensor<?xi64>
}
