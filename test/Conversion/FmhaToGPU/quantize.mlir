// The quantize pattern (QuantizePatterns.cpp) on each chip: a bf16 Q tile
// loaded into the fp8 MMA's operand registers as 16-bit elements, its amax
// reduced over the lane, the wave (a shuffle per lane bit) and the
// workgroup (one f32 per wave in LDS, a barrier), two divisions, and the
// elements packed to fp8 for the product. A hand-written kernel, page 16.
//
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,AMD,GFX942
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 | FileCheck %s --check-prefixes=CHECK,AMD,GFX950
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | FileCheck %s --check-prefixes=CHECK,SM90
//
// CHECK-LABEL: gpu.func @quantize
// The LDS slot of the workgroup max: one f32 per wave, after K's buffer.
// CHECK-SAME: memref<4xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// Q: 16-bit elements in the operand layout (twice the bytes of an fp8 Q).
// GFX942: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x2x128xbf16, 1>, vector<64xbf16>
// GFX950: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x2x128xbf16, 1>, vector<32xbf16>
// SM90: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x2x128xbf16, 1>, vector<16xbf16>
// CHECK: arith.extf %{{.*}} : vector<{{[0-9]+}}xbf16> to vector<{{[0-9]+}}xf32>
// The wave's max: a shuffle per lane bit (6 on AMD, 5 on NVIDIA), the last
// over half the wave.
// AMD-COUNT-5: gpu.shuffle xor
// AMD-NEXT: arith.maxnumf
// AMD-NEXT: arith.constant 32 : i32
// AMD-NEXT: arith.constant 64 : i32
// AMD-NEXT: gpu.shuffle xor
// AMD-NEXT: arith.maxnumf
// AMD-NOT: gpu.shuffle
// SM90-COUNT-4: gpu.shuffle xor
// SM90: arith.constant 16 : i32
// SM90-NEXT: arith.constant 32 : i32
// SM90-NEXT: gpu.shuffle xor
// SM90-NOT: gpu.shuffle
// Lane 0 writes its wave's max, everyone reads all four after the barrier.
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// The floor 2^-100, then M / amax and amax / M (M = 240 FNUZ, 448 OCP).
// CHECK: arith.constant 7.88860905E-31 : f32
// GFX942: arith.constant 2.400000e+02 : f32
// GFX950: arith.constant 4.480000e+02 : f32
// SM90: arith.constant 4.480000e+02 : f32
// CHECK: arith.divf
// CHECK: arith.divf
// The packs: AMD v_cvt_pk_fp8_f32, NVIDIA cvt.rn.satfinite.e4m3x2.
// AMD: rocdl.cvt.pk.fp8.f32
// SM90: cvt.rn.satfinite.e4m3x2.f32
// Then the product on the fp8 registers.
// AMD: amdgpu.mfma
// SM90: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// The descale multiplies S.
// CHECK: arith.mulf
// CHECK: gpu.return
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefix=NEG
// NEG-NOT: fmha.quantize_tile
// NEG-NOT: fmha.load_rows

module attributes {gpu.container_module} {
gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @quantize(%q: memref<?x2x128xbf16>, %k: memref<?x16x1x128x@FP8@>,
                     %pages: memref<?xi32>, %o: memref<?x2x@BN@xf32>,
                     %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = whole_pages, vd_route = scaled_p, q_scale = per_tile>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q16 = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128xbf16> -> vector<@BM@x128xbf16>
    %q_t, %qs = fmha.quantize_tile %q16 : vector<@BM@x128xbf16> -> vector<@BM@x128x@FP8@>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>
    %k_t = fmha.gather_kv %k[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %zero = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zero {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %qs2 = vector.broadcast %qs : f32 to vector<@BM@x@BN@xf32>
    %s2 = arith.mulf %s, %qs2 : vector<@BM@x@BN@xf32>
    fmha.store_rows %s2, %o[%row0, %c0] rows(%rows) : vector<@BM@x@BN@xf32>, memref<?x2x@BN@xf32>
    gpu.return
  }
}
}
