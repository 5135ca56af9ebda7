// The memory patterns' rules, on each chip: what LaneForms rejects before
// any rewrite, naming the rule. (16-bit Q: unsupported-16bit.mlir.)
//
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 --split-input-file --verify-diagnostics
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 --split-input-file --verify-diagnostics
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 --split-input-file --verify-diagnostics

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @kv_tile_not_an_mma_operand(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    // expected-error @+1 {{KV tiles may only feed tile_mma as its right operand}}
    %k2 = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %x = arith.extf %k2 : vector<@BN@x128x@FP8@> to vector<@BN@x128xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @kv_tile_both_k_and_v(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    // expected-error @+1 {{a KV tile must be used as exactly one of K and V}}
    %k2 = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %s2 = fmha.tile_mma %q_t, %k2, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %out = fmha.tile_mma %p8, %k2, %zo : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>
    gpu.return
  }
}


// -----

// A column vector (one value per key) has no row to store it in: BM == BN here.
gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @store_column_vector(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>
    %d = fmha.gather_descale %ds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
    // expected-error @+1 {{1-d store of a vector without row form}}
    fmha.store_rows %d, %lse[%row0, %c0] rows(%rows) : vector<@BN@xf32>, memref<?x2xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @store_symbolic_columns(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %st = vector.step : vector<@BN@xindex>
    %b = vector.broadcast %st : vector<@BN@xindex> to vector<@BM@x@BN@xindex>
    // expected-error @+1 {{stores only accumulator-layout tiles}}
    fmha.store_rows %b, %oi[%row0, %c0] rows(%rows) : vector<@BM@x@BN@xindex>, memref<?x2x@BN@xindex>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @page_size_differs_from_cache(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>
    // expected-error @+1 {{page_ids has page_size 16 but the cache's pages hold 1024}}
    %k2 = fmha.gather_kv %k[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %s2 = fmha.tile_mma %q_t, %k2, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @dynamic_page_dim(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    // expected-error @+1 {{the cache's page dimension must be static}}
    %k2 = fmha.gather_kv %kdyn[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x?x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %s2 = fmha.tile_mma %q_t, %k2, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @descale_ids_not_from_page_ids(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    // expected-error @+1 {{per-key descales need their page_ids in the same tile}}
    %d = fmha.gather_descale %ds[%vids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @head_dim_not_16_byte_chunks(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %qa = fmha.load_rows %q24[%row0, %c0] rows(%rows) : memref<?x2x24x@FP8@> -> vector<@BM@x24x@FP8@>
    // expected-error @+1 {{does not split into 16-byte chunks over}}
    %ka = fmha.gather_kv %k24[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x24x@FP8@>, i32 -> vector<@BN@x24x@FP8@>
    %sa = fmha.tile_mma %qa, %ka, %zs {transpose_rhs} : vector<@BM@x24x@FP8@>, vector<@BN@x24x@FP8@> -> vector<@BM@x@BN@xf32>
    gpu.return
  }
}
