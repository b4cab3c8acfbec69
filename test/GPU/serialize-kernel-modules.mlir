// RUN: sezm-opt %s --split-input-file --verify-diagnostics --sezm-serialize-kernel-modules | FileCheck %s
// RUN: sezm-opt %s --split-input-file --verify-diagnostics --sezm-serialize-kernel-modules --mlir-disable-threading | FileCheck %s

// Every module becomes a binary of its name in its place, with one object
// per target, the same with and without threads.
// CHECK: gpu.binary @first  [#gpu.object<#nvvm.target<chip = "sm_90">,{{.*}}assembly = "{{.*}}.target sm_90{{.*}}.entry first
// CHECK-NEXT: gpu.binary @second  [#gpu.object<#nvvm.target<chip = "sm_90">,{{.*}}.entry second{{.*}}, #gpu.object<#nvvm.target<chip = "sm_80">,{{.*}}.target sm_80{{.*}}.entry second
// CHECK-NEXT: llvm.func @host
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  gpu.module @first [#nvvm.target<chip = "sm_90">] {
    llvm.func @first(%a: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @second [#nvvm.target<chip = "sm_90">,
                      #nvvm.target<chip = "sm_80">] {
    llvm.func @second() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  llvm.func @host() {
    llvm.return
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @below {{the module has no target attributes}}
  gpu.module @untargeted {
  }
}
