// RUN: not sezm-opt %s --sezm-serialize-kernel-modules="format=bogus" 2>&1 | FileCheck %s

// CHECK: error: sezm-serialize-kernel-modules: unknown format 'bogus'
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90">] {
  }
}
