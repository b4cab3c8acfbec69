// RUN: sezm-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK: module attributes {sezm.rcut = 6.000000e+00 : f64, sezm.type_map = ["O", "H"]}
module attributes {sezm.type_map = ["O", "H"], sezm.rcut = 6.0 : f64} {
}

// -----

// expected-error @+1 {{'sezm.type_map' names species 'O' twice}}
module attributes {sezm.type_map = ["O", "H", "O"]} {
}

// -----

// expected-error @+1 {{'sezm.type_map' must be a non-empty array of species names}}
module attributes {sezm.type_map = []} {
}

// -----

// expected-error @+1 {{'sezm.type_map' holds 3 : i64, which is not a species name}}
module attributes {sezm.type_map = ["O", 3]} {
}

// -----

// expected-error @+1 {{'sezm.rcut' must be a positive cutoff radius in A}}
module attributes {sezm.rcut = -1.0 : f64} {
}

// -----

module {
  // expected-error @+1 {{'sezm.rcut' describes the model: it belongs on the module}}
  func.func @f() attributes {sezm.rcut = 6.0 : f64} {
    return
  }
}
