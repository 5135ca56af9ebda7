// RUN: fmha-opt %s --fmha-select-config=chip=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: fmha-opt %s --fmha-select-config=chip=host | FileCheck %s --check-prefix=HOST
// OCP e5m2 caches get an e4m3fn P with SHIFT 8 (gfx950 and sm_90 take OCP);
// the bf16 Q is quantized per tile on the GPU (to the cache's e5m2), as
// stored on the host.
// HOST-LABEL: func @config_e5m2_ocp
// HOST: p_type = f8E4M3FN, shift = 8, page_regime = whole_pages, vd_route = scalar>
// SM90-LABEL: func @config_e5m2_ocp
// SM90: block_m = 64, block_n = 64, k_step = 32, {{.*}} p_type = f8E4M3FN, shift = 8, page_regime = whole_pages, vd_route = scalar, q_scale = per_tile>
func.func @config_e5m2_ocp(
    %q: memref<?x8x128xbf16>, %k: memref<?x16x2x128xf8E5M2>,
    %v: memref<?x16x2x128xf8E5M2>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %qd: memref<1xf32>, %kd: memref<1xf32>, %vd: memref<1xf32>,
    %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x16x2x128xf8E5M2>) v(%v : memref<?x16x2x128xf8E5M2>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<1xf32>) v_descale(%vd : memref<1xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
