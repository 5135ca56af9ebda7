// RUN: fmha-opt %s --fmha-select-config=chip=gfx950 --fmha-tile | FileCheck %s
// A 16-bit Q over an e5m2 cache: fmha-tile quantizes the Q tile to the
// chip's e4m3 (the config's p_type), not to the cache's e5m2 (two mantissa
// bits), and S = Q K^T is the mixed e4m3 x e5m2 product.
// CHECK: fmha.quantize_tile %{{.*}} : vector<128x128xbf16> -> vector<128x128xf8E4M3FN>
// CHECK: fmha.tile_mma %{{.*}}, %{{.*}} {transpose_rhs} : vector<128x128xf8E4M3FN>, vector<128x128xf8E5M2>
func.func @bf16_q_e5m2_cache(
    %q: memref<?x8x128xbf16>, %k: memref<?x1024x2x128xf8E5M2>,
    %v: memref<?x1024x2x128xf8E5M2>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x1024x2x128xf8E5M2>) v(%v : memref<?x1024x2x128xf8E5M2>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) out(%o : memref<?x8x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1024 : i64}
  return
}
