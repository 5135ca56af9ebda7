// The default request: FP8 e4m3 Q/K/V with one K and one V descale per
// (physical page, KV head) (kv_blockscale), page size 1024, Hq/Hkv 32/8,
// head dim 128, causal, CSR page table, bf16 out. The fnuz flavour of e4m3 is
// the one gfx942 (MI300) computes with; gfx950 and sm_90 use f8E4M3FN.
func.func @default_request(
    %q: memref<?x32x128xf8E4M3FNUZ>,
    %k: memref<?x1024x8x128xf8E4M3FNUZ>,
    %v: memref<?x1024x8x128xf8E4M3FNUZ>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<?x8xf32>,
    %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>)
      k(%k : memref<?x1024x8x128xf8E4M3FNUZ>)
      v(%v : memref<?x1024x8x128xf8E4M3FNUZ>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x8xf32>)
      v_descale(%v_descale : memref<?x8xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1024 : i64}
  return
}
