// RUN: fmha-opt %s --fmha-select-config=chip=host --verify-diagnostics
// The host lowering has one route for per-key V descales (each key's cast p
// times its vd); a config naming a GPU route for it is rejected.
func.func @bad_host_scaled_p(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x16x2x128xf8E4M3FNUZ>, %v: memref<?x16x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config vd_route = scaled_p but the host lowering scales each key: per_key}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x16x2x128xf8E4M3FNUZ>) v(%v : memref<?x16x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<chip = "host", block_m = 16, block_n = 32, k_step = 1,
                             warps = 1, wave_size = 1, mma_m = 1, mma_n = 1,
                             p_type = f8E4M3FNUZ, shift = 7, vd_route = scaled_p>}
  return
}
