// The warpgroup MMA's rules (LaneForms.cpp), reported before anything is
// rewritten. D = 96 gives staged Q and K rows of 96 bytes: the 32B swizzle
// (the widest that divides the row, three column groups) holds them, so it
// lowers (it did not while the swizzle was min(row, 128) bytes); with 8
// warps the kernel is not one warpgroup: an error naming the rule.
//
// RUN: sed -f %S/Inputs/sm_90a.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=SM90A
// SM90A: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// SM90A: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
// RUN: sed -f %S/Inputs/sm_90a.sed %s | sed -e 's/warps = 4/warps = 8/' | not fmha-opt --convert-fmha-to-gpu=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: convert-fmha-to-gpu (sm_90a): block_m / warps = 8 must equal the MMA's query extent 16
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
