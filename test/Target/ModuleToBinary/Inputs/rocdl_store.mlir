// One ROCDL kernel: one global pointer, one i32 store.
module attributes {gpu.container_module} {
  gpu.module @amd [#rocdl.target<chip = "gfx942">] {
    llvm.func @store_one(%out: !llvm.ptr<1>) attributes {rocdl.kernel} {
      %c7 = llvm.mlir.constant(7 : i32) : i32
      llvm.store %c7, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
