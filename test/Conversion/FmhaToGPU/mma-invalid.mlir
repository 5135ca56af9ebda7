// The MMA patterns' rules, on each chip: what LaneForms rejects before any
// rewrite, naming the rule (operand forms, the config's V-descale route).
//
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 --split-input-file --verify-diagnostics
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 --split-input-file --verify-diagnostics
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 --split-input-file --verify-diagnostics

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @rhs_not_staged(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    // expected-error @+1 {{expects a staged KV tile and an accumulator}}
    %x = fmha.tile_mma %q_t, %q_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BM@x128x@FP8@> -> vector<@BM@x@BM@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @qk_with_p(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %kb_t = fmha.gather_kv %kb[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x@BN@x@FP8@>, i32 -> vector<@BN@x@BN@x@FP8@>
    // expected-error @+1 {{Q K^T expects Q operand registers and a K tile}}
    %x = fmha.tile_mma %p8, %kb_t, %zs {transpose_rhs} : vector<@BM@x@BN@x@FP8@>, vector<@BN@x@BN@x@FP8@> -> vector<@BM@x@BN@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @pv_with_q(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %qb = fmha.load_rows %q2[%row0, %c0] rows(%rows) : memref<?x2x@BN@x@FP8@> -> vector<@BM@x@BN@x@FP8@>
    %v_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    // expected-error @+1 {{P V expects fp8 P from scores and a V tile}}
    %x = fmha.tile_mma %qb, %v_t, %zo : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @route_without_descales(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = whole_pages, vd_route = page_groups, pv_group = 1>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %v_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    // expected-error @+1 {{the P V product has no per-key V descales but the config's vd_route is page_groups}}
    %out = fmha.tile_mma %p8, %v_t, %zo : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @descales_with_scalar_route(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>
    %v_t = fmha.gather_kv %k16[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %vd = fmha.gather_descale %ds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
    // expected-error @+1 {{the P V product has per-key V descales but the config's vd_route is scalar}}
    %out = fmha.tile_mma %p8, %v_t, %zo k_scale(%vd : vector<@BN@xf32>) : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @group_does_not_divide(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = whole_pages, vd_route = page_groups, pv_group = 3>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>
    %v_t = fmha.gather_kv %k16[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %vd = fmha.gather_descale %ds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
    // expected-error @+1 {{config pv_group = 3 does not divide the tile's}}
    %out = fmha.tile_mma %p8, %v_t, %zo k_scale(%vd : vector<@BN@xf32>) : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @group_spans_pages(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = whole_pages, vd_route = page_groups, pv_group = 2>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>
    %v_t = fmha.gather_kv %k16[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %vd = fmha.gather_descale %ds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
    // expected-error @+1 {{does not lie in one page of 16}}
    %out = fmha.tile_mma %p8, %v_t, %zo k_scale(%vd : vector<@BN@xf32>) : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @fp8_tile_stored(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    // expected-error @+1 {{fp8 tiles may only feed the P V product}}
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    fmha.store_rows %p8, %o8[%row0, %c0] rows(%rows) : vector<@BM@x@BN@x@FP8@>, memref<?x2x@BN@x@FP8@>
    gpu.return
  }
}
