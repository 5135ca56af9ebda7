// fmha-gpu-module-to-binary's failures: each is an error on the gpu.module
// with the cause, a non-zero exit and no gpu.binary; nothing reaches LLVM's
// default handler (which would print "error: <unknown>:0:0" and exit(1)
// from inside the library) or LLVM ERROR.
// REQUIRES: ld.lld
// RUN: rm -rf %t && mkdir -p %t/fail/llvm/bin %t/hang/llvm/bin
// RUN: printf '#!/bin/sh\necho "ld.lld: error: undefined symbol: nothing" >&2\nexit 1\n' > %t/fail/llvm/bin/ld.lld
// RUN: printf '#!/bin/sh\nexec sleep 60\n' > %t/hang/llvm/bin/ld.lld
// RUN: chmod +x %t/fail/llvm/bin/ld.lld %t/hang/llvm/bin/ld.lld
//
// The LDS the back end cannot fit: LLVM's resource-limit error.
// RUN: not fmha-opt %s --split-input-file --fmha-gpu-module-to-binary="toolkit=%fmha_toolkit" 2>&1 | FileCheck %s --check-prefix=LDS --implicit-check-not="LLVM ERROR"
// A linker that fails, one that hangs (killed after 1 s), none at all.
// RUN: not fmha-opt %S/Inputs/rocdl_store.mlir --fmha-gpu-module-to-binary="toolkit=%t/fail" 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: not fmha-opt %S/Inputs/rocdl_store.mlir --fmha-gpu-module-to-binary="toolkit=%t/hang link-timeout=1" 2>&1 | FileCheck %s --check-prefix=HANG
// RUN: not fmha-opt %S/Inputs/rocdl_store.mlir --fmha-gpu-module-to-binary="toolkit=%t/none" 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not fmha-opt %S/Inputs/rocdl_store.mlir --fmha-gpu-module-to-binary="format=cubin" 2>&1 | FileCheck %s --check-prefix=FORMAT
//
// LDS: errors.mlir:[[@LINE+6]]:3: error: LLVM: local memory (400000) exceeds limit (65536) in function 'too_much_lds'
// FAIL: rocdl_store.mlir:{{[0-9]+}}:3: error: {{.*}}/fail/llvm/bin/ld.lld failed (exit 1): ld.lld: error: undefined symbol: nothing
// HANG: rocdl_store.mlir:{{[0-9]+}}:3: error: {{.*}}/hang/llvm/bin/ld.lld timed out after 1 s and was killed
// NONE: rocdl_store.mlir:{{[0-9]+}}:3: error: linking the code object needs ld.lld at '{{.*}}/none/llvm/bin/ld.lld'
// FORMAT: error: fmha-gpu-module-to-binary: format must be bin, isa or llvm, not 'cubin'
module attributes {gpu.container_module} {
  gpu.module @big [#rocdl.target<chip = "gfx942">] {
    llvm.mlir.global internal @lds() {addr_space = 3 : i32} : !llvm.array<100000 x f32>
    llvm.func @too_much_lds(%out: !llvm.ptr<1>, %i: i32) attributes {rocdl.kernel} {
      %base = llvm.mlir.addressof @lds : !llvm.ptr<3>
      %p = llvm.getelementptr %base[0, %i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<100000 x f32>
      %f = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %f, %p : f32, !llvm.ptr<3>
      %c = llvm.mlir.constant(99999 : i32) : i32
      %q = llvm.getelementptr %base[0, %c] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<100000 x f32>
      %v = llvm.load %q : !llvm.ptr<3> -> f32
      llvm.store %v, %out : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
