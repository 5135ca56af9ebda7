// RUN: fmha-opt %s --split-input-file --verify-diagnostics --fmha-tile

func.func @negative_no_config(
    %q: memref<?x8x128xbf16>, %k: memref<?x16x2x128xbf16>,
    %v: memref<?x16x2x128xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{has no #fmha.config; run fmha-select-config first}}
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x16x2x128xbf16>) v(%v : memref<?x16x2x128xbf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// -----

// A hand-written config that fmha-select-config has not completed: fmha-tile
// reads the page regime from the config and derives nothing itself.
func.func @negative_undecided_config(
    %q: memref<?x8x128xbf16>, %k: memref<?x16x2x128xbf16>,
    %v: memref<?x16x2x128xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config leaves page_regime or vd_route unset; run fmha-select-config first (it takes them)}}
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x16x2x128xbf16>) v(%v : memref<?x16x2x128xbf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<chip = "host", block_m = 8, block_n = 16, k_step = 1,
                             warps = 1, wave_size = 1, mma_m = 1, mma_n = 1,
                             p_type = bf16, shift = 0>}
  return
}
