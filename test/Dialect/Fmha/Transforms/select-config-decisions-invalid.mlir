// RUN: fmha-opt %s --fmha-select-config=chip=gfx942 --split-input-file --verify-diagnostics
// A hand-written config whose decisions contradict the op is rejected, naming
// the rule.

func.func @bad_regime(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x16x2x128xf8E4M3FNUZ>, %v: memref<?x16x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config page_regime = one_page but page size 16 and block_n 128 give whole_pages (one_page: P % block_n == 0; whole_pages: block_n % P == 0; else unaligned)}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x16x2x128xf8E4M3FNUZ>) v(%v : memref<?x16x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, page_regime = one_page>}
  return
}

// -----

func.func @bad_scalar_route(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x16x2x128xf8E4M3FNUZ>, %v: memref<?x16x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config vd_route = scalar but the V descale differs between keys of a tile (kv_blockscale, pages that do not hold a whole tile): page_groups, scaled_p or exp2_bias}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x16x2x128xf8E4M3FNUZ>) v(%v : memref<?x16x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = scalar>}
  return
}

// -----

func.func @bad_per_key_route(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x1024x2x128xf8E4M3FNUZ>, %v: memref<?x1024x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config vd_route = page_groups but the V descale is one per tile: scalar}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x1024x2x128xf8E4M3FNUZ>) v(%v : memref<?x1024x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1024 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = page_groups, pv_group = 8>}
  return
}

// -----

func.func @bad_page_groups_unaligned(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x48x2x128xf8E4M3FNUZ>, %v: memref<?x48x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config vd_route = page_groups needs tiles of whole pages (block_n % P == 0) and pages of whole MMA steps (P % k_step == 0); page size 48, block_n 128, k_step 16}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x48x2x128xf8E4M3FNUZ>) v(%v : memref<?x48x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 48 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = page_groups, pv_group = 3>}
  return
}

// -----

func.func @bad_page_groups_small_page(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x8x2x128xf8E4M3FNUZ>, %v: memref<?x8x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config vd_route = page_groups needs tiles of whole pages (block_n % P == 0) and pages of whole MMA steps (P % k_step == 0); page size 8, block_n 128, k_step 16}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x8x2x128xf8E4M3FNUZ>) v(%v : memref<?x8x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 8 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = page_groups, pv_group = 1>}
  return
}

// -----

func.func @bad_group(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x32x2x128xf8E4M3FNUZ>, %v: memref<?x32x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config pv_group = 4 but a page is 2 k steps of the tile (min(block_n, P) / k_step)}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x32x2x128xf8E4M3FNUZ>) v(%v : memref<?x32x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 32 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = page_groups, pv_group = 4>}
  return
}

// -----

func.func @bad_group_without_page_groups(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x32x2x128xf8E4M3FNUZ>, %v: memref<?x32x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config pv_group = 2 needs vd_route = page_groups}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x32x2x128xf8E4M3FNUZ>) v(%v : memref<?x32x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 32 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = scaled_p, pv_group = 2>}
  return
}

// -----

func.func @bad_group_unset_route(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x32x2x128xf8E4M3FNUZ>, %v: memref<?x32x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config pv_group = 2 needs vd_route = page_groups}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x32x2x128xf8E4M3FNUZ>) v(%v : memref<?x32x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 32 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, pv_group = 2>}
  return
}

// -----

func.func @bad_gpu_per_key(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x16x2x128xf8E4M3FNUZ>, %v: memref<?x16x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config vd_route = per_key but the GPU lowering's per-key routes are page_groups, scaled_p and exp2_bias}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x16x2x128xf8E4M3FNUZ>) v(%v : memref<?x16x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = per_key>}
  return
}


// -----

func.func @per_tile_fp8_q(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x16x2x128xf8E4M3FNUZ>, %v: memref<?x16x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config q_scale = per_tile quantizes a 16-bit Q for an fp8 cache; this op has Q 'f8E4M3FNUZ' and cache 'f8E4M3FNUZ'}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x16x2x128xf8E4M3FNUZ>) v(%v : memref<?x16x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, q_scale = per_tile>}
  return
}

// -----

// exp2_bias adds log2(vd) to the exp2 argument, which a soft cap's tanh
// would have to take inside: a stated exp2_bias with a cap is refused.
func.func @bad_exp2_bias_soft_cap(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x16x2x128xf8E4M3FNUZ>, %v: memref<?x16x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config vd_route = exp2_bias takes no soft cap (the bias joins the exp2 argument outside the cap's tanh)}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x16x2x128xf8E4M3FNUZ>) v(%v : memref<?x16x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64, soft_cap = 5.0 : f32,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                             warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = exp2_bias>}
  return
}
