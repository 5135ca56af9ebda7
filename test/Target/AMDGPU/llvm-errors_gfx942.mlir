// LLVM's own errors in the back end end fmha-elf-manifest cleanly (issue 18),
// never through LLVM's default handlers (which print "LLVM ERROR" or
// "error: <unknown>:0:0" and exit 1 from inside the library):
//  - a diagnostic (the LDS the kernel asks for does not fit) is an error on
//    the gpu.module, exit 1 (bad input), no code object written;
//  - a fatal error (an x86 intrinsic AMDGPU cannot select) is a tool error,
//    exit 3, with LLVM's message; no code object written.
// REQUIRES: ld.lld
// RUN: rm -rf %t && mkdir -p %t
// RUN: fmha-elf-manifest --from-mlir %s --chip gfx942 -o %t/lds.hsaco 2> %t/lds.err; test $? -eq 1
// RUN: FileCheck %s --check-prefix=LDS --implicit-check-not="LLVM ERROR" < %t/lds.err
// RUN: fmha-elf-manifest --from-mlir %S/Inputs/unselectable.mlir --chip gfx942 -o %t/sel.hsaco 2> %t/sel.err; test $? -eq 3
// RUN: FileCheck %s --check-prefix=SEL < %t/sel.err
// RUN: ls -A %t | FileCheck %s --check-prefix=LS --implicit-check-not=hsaco
// LDS: llvm-errors_gfx942.mlir:[[@LINE+5]]:3: error: LLVM: local memory (400000) exceeds limit (65536) in function 'too_much_lds'
// SEL: fmha-elf-manifest: error: Cannot select: intrinsic %llvm.x86.rdtsc
// LS: lds.err
// LS: sel.err
module attributes {gpu.container_module} {
  gpu.module @big {
    gpu.func @too_much_lds(%out: !llvm.ptr<1>) workgroup(%buf : memref<100000xf32, 3>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %t = gpu.thread_id x
      %far = arith.constant 99000 : index
      %i = arith.addi %t, %far : index
      %f = arith.constant 1.0 : f32
      memref.store %f, %buf[%t] : memref<100000xf32, 3>
      gpu.barrier
      %v = memref.load %buf[%i] : memref<100000xf32, 3>
      llvm.store %v, %out : f32, !llvm.ptr<1>
      gpu.return
    }
  }
}
