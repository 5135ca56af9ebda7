// RUN: fmha-opt %s --fmha-select-config=chip=gfx942 | FileCheck %s
// Hand-written configs (a tuner's): the decisions they leave out are taken,
// the ones they state are kept when they fit (gfx942, block_n 128, k_step 16).

// A tuner's config without the decisions: they are taken for it (page 32:
// four pages a tile, exp2_bias).
// CHECK-LABEL: func @hand_config_completed
// CHECK: shift = 7, page_regime = whole_pages, vd_route = exp2_bias>
func.func @hand_config_completed(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x32x2x128xf8E4M3FNUZ>, %v: memref<?x32x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
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
                             p_type = f8E4M3FNUZ, shift = 7>}
  return
}

// A stated route that fits is kept (scaled_p works for any per-key vd).
// CHECK-LABEL: func @hand_config_scaled_p_kept
// CHECK: shift = 7, page_regime = whole_pages, vd_route = scaled_p>
func.func @hand_config_scaled_p_kept(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x32x2x128xf8E4M3FNUZ>, %v: memref<?x32x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
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
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = scaled_p>}
  return
}
