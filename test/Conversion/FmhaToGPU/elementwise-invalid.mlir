// The elementwise patterns' rules, on each chip: what LaneForms rejects
// before any rewrite, naming the rule.
//
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 --split-input-file --verify-diagnostics
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 --split-input-file --verify-diagnostics
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 --split-input-file --verify-diagnostics

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @non_splat_constant(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    // expected-error @+1 {{only splat vector constants are supported}}
    %c = arith.constant dense<[1.0, 2.0]> : vector<2xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @column_reduction(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %a = arith.constant dense<0.0> : vector<@BN@xf32>
    // expected-error @+1 {{only row reductions (dim 1) of accumulator tiles}}
    %r = vector.multi_reduction <add>, %s, %a [0] : vector<@BM@x@BN@xf32> to vector<@BN@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @product_reduction(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %a = arith.constant dense<1.0> : vector<@BM@xf32>
    // expected-error @+1 {{unsupported reduction kind}}
    %r = vector.multi_reduction <mul>, %s, %a [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>
    gpu.return
  }
}


// -----

// A row value (one per query) and a column value (one per key): BM == BN here.
gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @row_plus_column(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %a = arith.constant dense<0.0> : vector<@BM@xf32>
    %r = vector.multi_reduction <add>, %s, %a [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>
    %d = fmha.gather_descale %ds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
    // expected-error @+1 {{mixes row and column vectors}}
    %x = arith.addf %r, %d : vector<@BM@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @shape_cast_to_row(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %a = arith.constant dense<0.0> : vector<@BM@xf32>
    %r = vector.multi_reduction <add>, %s, %a [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>
    // expected-error @+1 {{unsupported shape_cast}}
    %x = vector.shape_cast %r : vector<@BM@xf32> to vector<1x@BM@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @transpose(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    // expected-error @+1 {{is not supported on vectors by the GPU lowering}}
    %t = vector.transpose %s, [1, 0] : vector<@BM@x@BN@xf32> to vector<@BN@x@BM@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @log_of_tile(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    // expected-error @+1 {{only row vectors take a log}}
    %l = math.log %s : vector<@BM@x@BN@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @broadcast_rows_as_columns(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %a = arith.constant dense<0.0> : vector<@BM@xf32>
    %r = vector.multi_reduction <add>, %s, %a [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>
    // expected-error @+1 {{broadcast of a vector that has no column form}}
    %x = vector.broadcast %r : vector<@BM@xf32> to vector<@BM@x@BN@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @region_op(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    // expected-error @+1 {{ops with regions other than scf.for, scf.if and fmha.warp_roles are not lowered to lanes}}
    %x = scf.execute_region -> f32 {
      %one = arith.constant 1.0 : f32
      scf.yield %one : f32
    }
    gpu.return
  }
}


// -----

// A config fmha-select-config has not completed.
gpu.module @fmha_kernels [@TARGET@] {
  // expected-error @+1 {{the kernel's config leaves page_regime or vd_route unset (fmha-select-config takes them)}}
  gpu.func @undecided_config(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    gpu.return
  }
}


// -----

gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @if_with_results(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
    %b = arith.cmpi slt, %row0, %len : index
    // expected-error @+1 {{only uniform scf.if without results}}
    %x = scf.if %b -> (f32) {
      %one = arith.constant 1.0 : f32
      scf.yield %one : f32
    } else {
      %two = arith.constant 2.0 : f32
      scf.yield %two : f32
    }
    gpu.return
  }
}
