// RUN: fmha-opt %s --verify-diagnostics --fmha-tile

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
