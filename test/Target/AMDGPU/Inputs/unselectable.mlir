// An x86 intrinsic in an AMDGPU kernel: instruction selection gives up with
// a fatal error ("Cannot select").
module attributes {gpu.container_module} {
  gpu.module @sel {
    gpu.func @cannot_select(%out: !llvm.ptr<1>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %r = llvm.call_intrinsic "llvm.x86.rdtsc"() : () -> i64
      llvm.store %r, %out : i64, !llvm.ptr<1>
      gpu.return
    }
  }
}
