// REQUIRES: ld.lld
// The derived occupancy on a kernel with register pressure: 12 live 32x32
// fp8 MFMA accumulators (192 VGPRs) carried through a loop. No scratch, no
// spills; the VGPR budget allows 2 waves per SIMD (169..256 VGPRs).
//
// RUN: fmha-elf-manifest --from-mlir %s --chip gfx942 --toolkit %fmha_toolkit \
// RUN:   -o %t.hsaco > %t.json
// RUN: FileCheck %s < %t.json
// RUN: llvm-readelf --notes %t.hsaco > %t.notes
// RUN: %python %S/Inputs/compare_manifest.py %t.json %t.notes \
// RUN:   | FileCheck %s --check-prefix=SAME
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s --check-prefix=ISA

// CHECK: "private_segment_fixed_size": 0,
// CHECK: "vgpr_count": {{(169|1[7-9][0-9]|2[0-4][0-9]|25[0-6])}},
// CHECK: "sgpr_spill_count": 0,
// CHECK-NEXT: "vgpr_spill_count": 0,
// CHECK: "derived": {
// CHECK-NEXT: "waves_per_simd_by_vgprs": 2,

// SAME: manifest == notes: 1 kernel(s), 3 arg(s)

// ISA-LABEL: <mfma_acc12>:
// ISA-COUNT-12: v_mfma_f32_32x32x16_fp8_fp8
// ISA-NOT: scratch_

module attributes {gpu.container_module} {
  gpu.module @pressure {
    gpu.func @mfma_acc12(%in: !llvm.ptr<1> {llvm.noalias, llvm.readonly},
                         %out: !llvm.ptr<1> {llvm.noalias}, %n: i32) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %zero = arith.constant dense<0.0> : vector<16xf32>
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c8 = arith.constant 8 : i32
      %r:12 = scf.for %k = %c0 to %n step %c1 iter_args(
          %acc0 = %zero, %acc1 = %zero, %acc2 = %zero, %acc3 = %zero,
          %acc4 = %zero, %acc5 = %zero, %acc6 = %zero, %acc7 = %zero,
          %acc8 = %zero, %acc9 = %zero, %acc10 = %zero, %acc11 = %zero)
          -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
              vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
              vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) : i32 {
        %off = arith.muli %k, %c8 : i32
        %o2 = arith.addi %off, %t : i32
        %pa = llvm.getelementptr %in[%o2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
        %ai = llvm.load %pa : !llvm.ptr<1> -> vector<8xi8>
        %a = arith.bitcast %ai : vector<8xi8> to vector<8xf8E4M3FNUZ>
        %d0 = amdgpu.mfma 32x32x16 %a * %a + %acc0 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d1 = amdgpu.mfma 32x32x16 %a * %a + %acc1 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d2 = amdgpu.mfma 32x32x16 %a * %a + %acc2 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d3 = amdgpu.mfma 32x32x16 %a * %a + %acc3 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d4 = amdgpu.mfma 32x32x16 %a * %a + %acc4 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d5 = amdgpu.mfma 32x32x16 %a * %a + %acc5 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d6 = amdgpu.mfma 32x32x16 %a * %a + %acc6 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d7 = amdgpu.mfma 32x32x16 %a * %a + %acc7 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d8 = amdgpu.mfma 32x32x16 %a * %a + %acc8 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d9 = amdgpu.mfma 32x32x16 %a * %a + %acc9 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d10 = amdgpu.mfma 32x32x16 %a * %a + %acc10 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        %d11 = amdgpu.mfma 32x32x16 %a * %a + %acc11 {blocks = 1 : i32} blgp = none
            : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        scf.yield %d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7, %d8, %d9, %d10, %d11
            : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
              vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>,
              vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
      }
      %c0x = arith.constant 0 : i32
      %q0 = arith.addi %c0x, %t : i32
      %po0 = llvm.getelementptr %out[%q0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#0, %po0 : vector<16xf32>, !llvm.ptr<1>
      %c1x = arith.constant 16 : i32
      %q1 = arith.addi %c1x, %t : i32
      %po1 = llvm.getelementptr %out[%q1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#1, %po1 : vector<16xf32>, !llvm.ptr<1>
      %c2x = arith.constant 32 : i32
      %q2 = arith.addi %c2x, %t : i32
      %po2 = llvm.getelementptr %out[%q2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#2, %po2 : vector<16xf32>, !llvm.ptr<1>
      %c3x = arith.constant 48 : i32
      %q3 = arith.addi %c3x, %t : i32
      %po3 = llvm.getelementptr %out[%q3] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#3, %po3 : vector<16xf32>, !llvm.ptr<1>
      %c4x = arith.constant 64 : i32
      %q4 = arith.addi %c4x, %t : i32
      %po4 = llvm.getelementptr %out[%q4] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#4, %po4 : vector<16xf32>, !llvm.ptr<1>
      %c5x = arith.constant 80 : i32
      %q5 = arith.addi %c5x, %t : i32
      %po5 = llvm.getelementptr %out[%q5] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#5, %po5 : vector<16xf32>, !llvm.ptr<1>
      %c6x = arith.constant 96 : i32
      %q6 = arith.addi %c6x, %t : i32
      %po6 = llvm.getelementptr %out[%q6] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#6, %po6 : vector<16xf32>, !llvm.ptr<1>
      %c7x = arith.constant 112 : i32
      %q7 = arith.addi %c7x, %t : i32
      %po7 = llvm.getelementptr %out[%q7] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#7, %po7 : vector<16xf32>, !llvm.ptr<1>
      %c8x = arith.constant 128 : i32
      %q8 = arith.addi %c8x, %t : i32
      %po8 = llvm.getelementptr %out[%q8] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#8, %po8 : vector<16xf32>, !llvm.ptr<1>
      %c9x = arith.constant 144 : i32
      %q9 = arith.addi %c9x, %t : i32
      %po9 = llvm.getelementptr %out[%q9] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#9, %po9 : vector<16xf32>, !llvm.ptr<1>
      %c10x = arith.constant 160 : i32
      %q10 = arith.addi %c10x, %t : i32
      %po10 = llvm.getelementptr %out[%q10] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#10, %po10 : vector<16xf32>, !llvm.ptr<1>
      %c11x = arith.constant 176 : i32
      %q11 = arith.addi %c11x, %t : i32
      %po11 = llvm.getelementptr %out[%q11] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %r#11, %po11 : vector<16xf32>, !llvm.ptr<1>
      gpu.return
    }
  }
}
