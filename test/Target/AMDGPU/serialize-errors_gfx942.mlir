// serializeToHsaco's own errors, reported at the input's location with a
// non-zero exit. None of them needs ld.lld: each is found before linking.
//
// RUN: not fmha-elf-manifest --from-mlir %s --chip gfx942 --toolkit %t.none \
// RUN:   -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not fmha-elf-manifest --from-mlir %s --chip sm_90 --toolkit %t.none \
// RUN:   -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not fmha-elf-manifest --from-mlir %s --chip gfx950 --toolkit %t.none \
// RUN:   -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not fmha-elf-manifest --from-mlir %S/Inputs/two_gpu_modules.mlir \
// RUN:   --chip gfx942 --toolkit %t.none -o %t.hsaco 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWO

// The gpu.module's own target names another chip than --chip.
// MISMATCH: serialize-errors_gfx942.mlir:[[@LINE+10]]:3: error: 'gpu.module' op must have no target or exactly one #rocdl.target of chip 'gfx942', has [#rocdl.target<chip = "gfx950">]

// CHIP: serialize-errors_gfx942.mlir:[[@LINE+7]]:1: error: invalid AMDGPU chip 'sm_90' (expected gfxNNN, e.g. gfx942)

// The IR lowers for gfx950; only the linker is missing.
// TOOLKIT: serialize-errors_gfx942.mlir:[[@LINE+4]]:1: error: HSACO linking needs the toolkit folder's llvm/bin/ld.lld, not found at '{{.*}}.none/llvm/bin/ld.lld'

// TWO: two_gpu_modules.mlir:{{[0-9]+}}:1: error: expected exactly one gpu.module to serialize, found 2

module attributes {gpu.container_module} {
  gpu.module @other_chip [#rocdl.target<chip = "gfx950">] {
    gpu.func @store_one(%out: !llvm.ptr<1>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c7 = arith.constant 7 : i32
      llvm.store %c7, %out : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}
