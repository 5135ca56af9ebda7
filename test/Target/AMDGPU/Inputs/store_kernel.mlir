// The smallest kernel: one global pointer, one i32 store. Compiled by the
// error tests, which then break the code object.
module attributes {gpu.container_module} {
  gpu.module @small {
    gpu.func @store_one(%out: !llvm.ptr<1>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c7 = arith.constant 7 : i32
      llvm.store %c7, %out : i32, !llvm.ptr<1>
      gpu.return
    }
  }
}
