// The warpgroup MMA's rules (LaneForms.cpp), reported before anything is
// rewritten: D = 96 gives staged Q and K rows of 96 bytes, which no wgmma
// swizzle layout holds (32, 64 or a multiple of 128 bytes).
//
// RUN: sed -f %S/Inputs/sm_90a.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90a -verify-diagnostics
// The same kernel on sm_90 (mma.sync from registers) lowers:
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | FileCheck %s --check-prefix=SM90
// SM90: mma.sync.aligned.m16n8k32

module attributes {gpu.container_module} {
gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @scalar_route(%q: memref<?x2x96x@FP8@>, %k: memref<?x1024x1x96x@FP8@>,
                   %v: memref<?x1024x1x96x@FP8@>, %pages: memref<?xi32>,
                   %vds: memref<?x1xf32>, %o: memref<?x2x96xf32>,
                   %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{the warpgroup MMA reads Q as 64 staged rows of 32, 64 or a multiple of 128 bytes; this Q tile is 64 x 96}}
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x96x@FP8@> -> vector<@BM@x96x@FP8@>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x96x@FP8@>, i32 -> vector<@BN@x96x@FP8@>
    %v_t = fmha.gather_kv %v[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x96x@FP8@>, i32 -> vector<@BN@x96x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x96x@FP8@>, vector<@BN@x96x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x96xf32>
    %out = fmha.tile_mma %p8, %v_t, %zo : vector<@BM@x@BN@x@FP8@>, vector<@BN@x96x@FP8@> -> vector<@BM@x96xf32>
    fmha.store_rows %out, %o[%row0, %c0] rows(%rows) : vector<@BM@x96xf32>, memref<?x2x96xf32>
    gpu.return
  }
}
}
