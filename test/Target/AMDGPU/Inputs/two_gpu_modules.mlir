// Two gpu.modules: serializeToHsaco returns one code object, so it refuses.
module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @a(%out: !llvm.ptr<1>) kernel {
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @b(%out: !llvm.ptr<1>) kernel {
      gpu.return
    }
  }
}
