// fmha-gpu-module-to-binary gives upstream gpu-module-to-binary's gpu.binary
// byte for byte (the same serializers; only how failures are reported and
// the HSACO link's time limit differ): HSACO, AMDGCN assembly and bitcode,
// and PTX (whose properties hold compile times, removed before the diff).
// REQUIRES: ld.lld
// RUN: fmha-opt %s --split-input-file --gpu-module-to-binary="format=bin toolkit=%fmha_toolkit" -o %t.up.bin
// RUN: fmha-opt %s --split-input-file --fmha-gpu-module-to-binary="toolkit=%fmha_toolkit" -o %t.ours.bin
// RUN: diff %t.up.bin %t.ours.bin
// RUN: FileCheck %s --input-file=%t.ours.bin
// RUN: fmha-opt %s --split-input-file --gpu-module-to-binary="format=isa" -o %t.up.isa
// RUN: fmha-opt %s --split-input-file --fmha-gpu-module-to-binary="format=isa" -o %t.ours.isa
// RUN: diff %t.up.isa %t.ours.isa
// RUN: FileCheck %s --check-prefix=ISA --input-file=%t.ours.isa
// RUN: fmha-opt %s --split-input-file --gpu-module-to-binary="format=llvm" -o %t.up.ll
// RUN: fmha-opt %s --split-input-file --fmha-gpu-module-to-binary="format=llvm" -o %t.ours.ll
// RUN: diff %t.up.ll %t.ours.ll
// RUN: fmha-opt %S/Inputs/nvvm_store.mlir --gpu-module-to-binary="format=isa" | sed -e 's/properties = {[^}]*}, //' > %t.up.ptx
// RUN: fmha-opt %S/Inputs/nvvm_store.mlir --fmha-gpu-module-to-binary="format=isa" | sed -e 's/properties = {[^}]*}, //' > %t.ours.ptx
// RUN: diff %t.up.ptx %t.ours.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ours.ptx

// CHECK: gpu.binary @amd [#gpu.object<#rocdl.target<chip = "gfx942">, bin = "\7FELF
// CHECK-NOT: gpu.module
// CHECK: gpu.binary @amd950 [#gpu.object<#rocdl.target<chip = "gfx950">, bin = "\7FELF
// ISA: gpu.binary @amd [#gpu.object<#rocdl.target<chip = "gfx942">, assembly = "{{.*}}global_store_dword
// PTX: gpu.binary @nv [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "{{.*}}st.global.b32

module attributes {gpu.container_module} {
  gpu.module @amd [#rocdl.target<chip = "gfx942">] {
    llvm.func @store_one(%out: !llvm.ptr<1>) attributes {rocdl.kernel} {
      %c7 = llvm.mlir.constant(7 : i32) : i32
      llvm.store %c7, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @amd950 [#rocdl.target<chip = "gfx950">] {
    llvm.func @store_two(%out: !llvm.ptr<1>) attributes {rocdl.kernel} {
      %c7 = llvm.mlir.constant(2 : i32) : i32
      llvm.store %c7, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
