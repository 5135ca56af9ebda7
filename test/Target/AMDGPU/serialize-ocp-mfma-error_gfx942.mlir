// An OCP fp8 MFMA on gfx942 (FNUZ only) is an error from
// convert-amdgpu-to-rocdl, reported at the op, before any linking.
//
// RUN: not fmha-elf-manifest --from-mlir %s --chip gfx942 --toolkit %t.none \
// RUN:   -o %t.hsaco 2>&1 | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @ocp_on_gfx942 {
    gpu.func @mfma_ocp(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %ai = llvm.load %in : !llvm.ptr<1> -> vector<8xi8>
      %a = arith.bitcast %ai : vector<8xi8> to vector<8xf8E4M3FN>
      %zero = arith.constant dense<0.0> : vector<16xf32>
      // CHECK: serialize-ocp-mfma-error_gfx942.mlir:[[@LINE+1]]:12: error: 'amdgpu.mfma' op no intrinsic matching MFMA size on given chipset
      %d = amdgpu.mfma 32x32x16 %a * %a + %zero {blocks = 1 : i32} blgp = none
          : vector<8xf8E4M3FN>, vector<8xf8E4M3FN>, vector<16xf32>
      llvm.store %d, %out : vector<16xf32>, !llvm.ptr<1>
      gpu.return
    }
  }
}
