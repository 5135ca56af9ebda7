// Round trip (custom and generic form) of fmha.batch_prefill: every attribute
// value, every operand form, every allowed element type.
// RUN: fmha-opt %s | fmha-opt | FileCheck %s
// RUN: fmha-opt %s --mlir-print-op-generic | fmha-opt | FileCheck %s

// The default request (examples/default_request.mlir): e4m3fnuz Q/K/V, one K
// and one V descale per (physical page, KV head), page size 1024, bf16 out.
// CHECK-LABEL: func.func @kv_blockscale_csr_nhd_causal_e4m3fnuz(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x1024x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x1024x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<?x8xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<?x8xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf8E4M3FNUZ>)
// CHECK-SAME:      k(%[[K]] : memref<?x1024x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      v(%[[V]] : memref<?x1024x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<?x8xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<?x8xf32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 1024 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<kv_blockscale>}
func.func @kv_blockscale_csr_nhd_causal_e4m3fnuz(
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

// OCP e4m3 (gfx950, sm_90), vLLM block table, HND cache [N_pages, Hkv, P, D],
// sliding window of 128 keys to the left and none to the right.
// CHECK-LABEL: func.func @kv_blockscale_block_table_hnd_window_e4m3fn_f16_out(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf8E4M3FN>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x8x16x128xf8E4M3FN>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x8x16x128xf8E4M3FN>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[BT:arg[0-9]+]]: memref<?x?xi32>
// CHECK-SAME:      %[[SEQLEN:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<?x8xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<?x8xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf8E4M3FN>)
// CHECK-SAME:      k(%[[K]] : memref<?x8x16x128xf8E4M3FN>)
// CHECK-SAME:      v(%[[V]] : memref<?x8x16x128xf8E4M3FN>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      block_table(%[[BT]] : memref<?x?xi32>)
// CHECK-SAME:      kv_seqlen(%[[SEQLEN]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<?x8xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<?x8xf32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<hnd>, mask = #fmha.mask<window, left = 128, right = 0>, page_size = 16 : i64, page_table = #fmha.page_table<block_table>, quant = #fmha.quant<kv_blockscale>}
func.func @kv_blockscale_block_table_hnd_window_e4m3fn_f16_out(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x8x16x128xf8E4M3FN>,
    %v: memref<?x8x16x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %kv_seqlen: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<?x8xf32>,
    %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x8x16x128xf8E4M3FN>)
      v(%v : memref<?x8x16x128xf8E4M3FN>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%kv_seqlen : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x8xf32>)
      v_descale(%v_descale : memref<?x8xf32>)
      out(%out : memref<?x32x128xf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<window, left = 128, right = 0>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<hnd>,
       page_size = 16 : i64}
  return
}

// e4m3 Q with e5m2 K/V (one OCP family), one descale each, a page size that
// is no power of two, a window unbounded on the left and closed on the right.
// CHECK-LABEL: func.func @per_tensor_block_table_hnd_window_e5m2(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf8E4M3FN>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x8x48x128xf8E5M2>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x8x48x128xf8E5M2>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[BT:arg[0-9]+]]: memref<?x?xi32>
// CHECK-SAME:      %[[SEQLEN:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf8E4M3FN>)
// CHECK-SAME:      k(%[[K]] : memref<?x8x48x128xf8E5M2>)
// CHECK-SAME:      v(%[[V]] : memref<?x8x48x128xf8E5M2>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      block_table(%[[BT]] : memref<?x?xi32>)
// CHECK-SAME:      kv_seqlen(%[[SEQLEN]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<1xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<1xf32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<hnd>, mask = #fmha.mask<window, left = -1, right = 0>, page_size = 48 : i64, page_table = #fmha.page_table<block_table>, quant = #fmha.quant<per_tensor>}
func.func @per_tensor_block_table_hnd_window_e5m2(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x8x48x128xf8E5M2>,
    %v: memref<?x8x48x128xf8E5M2>,
    %qo_indptr: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %kv_seqlen: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<1xf32>,
    %v_descale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x8x48x128xf8E5M2>)
      v(%v : memref<?x8x48x128xf8E5M2>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%kv_seqlen : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<1xf32>)
      v_descale(%v_descale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<window, left = -1, right = 0>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<hnd>,
       page_size = 48 : i64}
  return
}

// FNUZ e4m3 Q with FNUZ e5m2 K/V (gfx942), one token per page, no mask.
// CHECK-LABEL: func.func @per_tensor_csr_nhd_none_e5m2fnuz_page1(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x1x8x128xf8E5M2FNUZ>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x1x8x128xf8E5M2FNUZ>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf8E4M3FNUZ>)
// CHECK-SAME:      k(%[[K]] : memref<?x1x8x128xf8E5M2FNUZ>)
// CHECK-SAME:      v(%[[V]] : memref<?x1x8x128xf8E5M2FNUZ>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<1xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<1xf32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<none>, page_size = 1 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<per_tensor>}
func.func @per_tensor_csr_nhd_none_e5m2fnuz_page1(
    %q: memref<?x32x128xf8E4M3FNUZ>,
    %k: memref<?x1x8x128xf8E5M2FNUZ>,
    %v: memref<?x1x8x128xf8E5M2FNUZ>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<1xf32>,
    %v_descale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>)
      k(%k : memref<?x1x8x128xf8E5M2FNUZ>)
      v(%v : memref<?x1x8x128xf8E5M2FNUZ>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<1xf32>)
      v_descale(%v_descale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1 : i64}
  return
}

// No quantization: bf16 Q/K/V, f32 out and the optional lse [total_q, Hq].
// CHECK-LABEL: func.func @none_bf16_f32_out_lse(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x48x8x128xbf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x48x8x128xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xf32>
// CHECK-SAME:      %[[LSE:arg[0-9]+]]: memref<?x32xf32>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x48x8x128xbf16>)
// CHECK-SAME:      v(%[[V]] : memref<?x48x8x128xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xf32>)
// CHECK-SAME:      lse(%[[LSE]] : memref<?x32xf32>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 48 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
func.func @none_bf16_f32_out_lse(
    %q: memref<?x32x128xbf16>,
    %k: memref<?x48x8x128xbf16>,
    %v: memref<?x48x8x128xbf16>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %out: memref<?x32x128xf32>,
    %lse: memref<?x32xf32>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>)
      k(%k : memref<?x48x8x128xbf16>)
      v(%v : memref<?x48x8x128xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%out : memref<?x32x128xf32>)
      lse(%lse : memref<?x32xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 48 : i64}
  return
}

// f16 Q/K/V/out, a window bounded on both sides.
// CHECK-LABEL: func.func @none_f16_block_table_hnd_window_both_bounded(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x8x1024x128xf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x8x1024x128xf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[BT:arg[0-9]+]]: memref<?x?xi32>
// CHECK-SAME:      %[[SEQLEN:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x8x1024x128xf16>)
// CHECK-SAME:      v(%[[V]] : memref<?x8x1024x128xf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      block_table(%[[BT]] : memref<?x?xi32>)
// CHECK-SAME:      kv_seqlen(%[[SEQLEN]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<hnd>, mask = #fmha.mask<window, left = 64, right = 32>, page_size = 1024 : i64, page_table = #fmha.page_table<block_table>, quant = #fmha.quant<none>}
func.func @none_f16_block_table_hnd_window_both_bounded(
    %q: memref<?x32x128xf16>,
    %k: memref<?x8x1024x128xf16>,
    %v: memref<?x8x1024x128xf16>,
    %qo_indptr: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %kv_seqlen: memref<?xi32>,
    %out: memref<?x32x128xf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf16>)
      k(%k : memref<?x8x1024x128xf16>)
      v(%v : memref<?x8x1024x128xf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%kv_seqlen : memref<?xi32>)
      out(%out : memref<?x32x128xf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<window, left = 64, right = 32>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<hnd>,
       page_size = 1024 : i64}
  return
}

// Mixed precision: 16-bit Q over an fp8 KV cache with per-page descales.
// CHECK-LABEL: func.func @mixed_bf16_q_fp8_kv(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<?x8xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<?x8xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<?x8xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<?x8xf32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<kv_blockscale>}
func.func @mixed_bf16_q_fp8_kv(
    %q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xf8E4M3FNUZ>,
    %v: memref<?x16x8x128xf8E4M3FNUZ>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<?x8xf32>,
    %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>)
      k(%k : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%v : memref<?x16x8x128xf8E4M3FNUZ>)
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
       page_size = 16 : i64}
  return
}

// f16 Q over e5m2 K/V; a window of left = right = 0 shows the diagonal only.
// CHECK-LABEL: func.func @mixed_f16_q_e5m2_kv_per_tensor_window_diagonal(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xf8E5M2>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xf8E5M2>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[BT:arg[0-9]+]]: memref<?x?xi32>
// CHECK-SAME:      %[[SEQLEN:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xf32>
// CHECK-SAME:      %[[LSE:arg[0-9]+]]: memref<?x32xf32>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xf8E5M2>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xf8E5M2>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      block_table(%[[BT]] : memref<?x?xi32>)
// CHECK-SAME:      kv_seqlen(%[[SEQLEN]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<1xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<1xf32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xf32>)
// CHECK-SAME:      lse(%[[LSE]] : memref<?x32xf32>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<window, left = 0, right = 0>, page_size = 16 : i64, page_table = #fmha.page_table<block_table>, quant = #fmha.quant<per_tensor>}
func.func @mixed_f16_q_e5m2_kv_per_tensor_window_diagonal(
    %q: memref<?x32x128xf16>,
    %k: memref<?x16x8x128xf8E5M2>,
    %v: memref<?x16x8x128xf8E5M2>,
    %qo_indptr: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %kv_seqlen: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<1xf32>,
    %v_descale: memref<1xf32>,
    %out: memref<?x32x128xf32>,
    %lse: memref<?x32xf32>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf16>)
      k(%k : memref<?x16x8x128xf8E5M2>)
      v(%v : memref<?x16x8x128xf8E5M2>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%kv_seqlen : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<1xf32>)
      v_descale(%v_descale : memref<1xf32>)
      out(%out : memref<?x32x128xf32>)
      lse(%lse : memref<?x32xf32>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<window, left = 0, right = 0>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// aiter's descales: one [N_pages, Hkv, 2] f32 tensor, K at [..., 0] and V at
// [..., 1] (page stride 2*Hkv, head stride 2). Descale strides are free.
// CHECK-LABEL: func.func @strided_interleaved_descales(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK-SAME:      %[[KV_SCALES:arg[0-9]+]]: memref<?x8x2xf32>
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[N:.*]] = memref.dim %[[KV_SCALES]], %[[C0]] : memref<?x8x2xf32>
// CHECK:         %[[KD:.*]] = memref.subview %[[KV_SCALES]][0, 0, 0] [%[[N]], 8, 1] [1, 1, 1] : memref<?x8x2xf32> to memref<?x8xf32, strided<[16, 2]>>
// CHECK:         %[[VD:.*]] = memref.subview %[[KV_SCALES]][0, 0, 1] [%[[N]], 8, 1] [1, 1, 1] : memref<?x8x2xf32> to memref<?x8xf32, strided<[16, 2], offset: 1>>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf8E4M3FNUZ>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<?x8xf32, strided<[16, 2]>>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<?x8xf32, strided<[16, 2], offset: 1>>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<kv_blockscale>}
func.func @strided_interleaved_descales(
    %q: memref<?x32x128xf8E4M3FNUZ>,
    %k: memref<?x16x8x128xf8E4M3FNUZ>,
    %v: memref<?x16x8x128xf8E4M3FNUZ>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %out: memref<?x32x128xbf16>,
    %kv_scales: memref<?x8x2xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %kv_scales, %c0 : memref<?x8x2xf32>
  %k_descale = memref.subview %kv_scales[0, 0, 0] [%n, 8, 1] [1, 1, 1]
      : memref<?x8x2xf32> to memref<?x8xf32, strided<[16, 2]>>
  %v_descale = memref.subview %kv_scales[0, 0, 1] [%n, 8, 1] [1, 1, 1]
      : memref<?x8x2xf32> to memref<?x8xf32, strided<[16, 2], offset: 1>>
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>)
      k(%k : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%v : memref<?x16x8x128xf8E4M3FNUZ>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x8xf32, strided<[16, 2]>>)
      v_descale(%v_descale : memref<?x8xf32, strided<[16, 2], offset: 1>>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// Explicit strides on every operand; only the innermost stride must be 1.
// CHECK-LABEL: func.func @strided_operands_contiguous_inner(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xbf16, strided<[8192, 256, 1], offset: ?>>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xbf16, strided<[?, 2048, 128, 1]>>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xbf16, strided<[?, 2048, 128, 1], offset: 64>>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32, strided<[1], offset: ?>>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16, strided<[?, ?, 1], offset: ?>>
// CHECK-SAME:      %[[LSE:arg[0-9]+]]: memref<?x32xf32, strided<[64, 1]>>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xbf16, strided<[8192, 256, 1], offset: ?>>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xbf16, strided<[?, 2048, 128, 1]>>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xbf16, strided<[?, 2048, 128, 1], offset: 64>>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32, strided<[1], offset: ?>>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16, strided<[?, ?, 1], offset: ?>>)
// CHECK-SAME:      lse(%[[LSE]] : memref<?x32xf32, strided<[64, 1]>>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
func.func @strided_operands_contiguous_inner(
    %q: memref<?x32x128xbf16, strided<[8192, 256, 1], offset: ?>>,
    %k: memref<?x16x8x128xbf16, strided<[?, 2048, 128, 1]>>,
    %v: memref<?x16x8x128xbf16, strided<[?, 2048, 128, 1], offset: 64>>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32, strided<[1], offset: ?>>,
    %kv_last_page_len: memref<?xi32>,
    %out: memref<?x32x128xbf16, strided<[?, ?, 1], offset: ?>>,
    %lse: memref<?x32xf32, strided<[64, 1]>>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16, strided<[8192, 256, 1], offset: ?>>)
      k(%k : memref<?x16x8x128xbf16, strided<[?, 2048, 128, 1]>>)
      v(%v : memref<?x16x8x128xbf16, strided<[?, 2048, 128, 1], offset: 64>>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32, strided<[1], offset: ?>>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%out : memref<?x32x128xbf16, strided<[?, ?, 1], offset: ?>>)
      lse(%lse : memref<?x32xf32, strided<[64, 1]>>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// An explicit sm_scale (1/sqrt(128)) and a soft cap of 30 (Gemma 2).
// CHECK-LABEL: func.func @sm_scale_soft_cap(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>, sm_scale = 0.0883883461 : f32, soft_cap = 3.000000e+01 : f32}
func.func @sm_scale_soft_cap(
    %q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>,
    %v: memref<?x16x8x128xbf16>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>)
      k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x128xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       sm_scale = 0.0883883461 : f32, soft_cap = 30.0 : f32}
  return
}

// soft_cap = 0 is allowed and means no cap; sm_scale may exceed 1.
// CHECK-LABEL: func.func @soft_cap_zero_means_no_cap(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<none>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>, sm_scale = 2.000000e+00 : f32, soft_cap = 0.000000e+00 : f32}
func.func @soft_cap_zero_means_no_cap(
    %q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>,
    %v: memref<?x16x8x128xbf16>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>)
      k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x128xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       sm_scale = 2.0 : f32, soft_cap = 0.0 : f32}
  return
}

// The optional tile configuration, as fmha-select-config writes it.
// CHECK-LABEL: func.func @config_gfx942(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x1024x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x1024x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<?x8xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<?x8xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf8E4M3FNUZ>)
// CHECK-SAME:      k(%[[K]] : memref<?x1024x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      v(%[[V]] : memref<?x1024x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<?x8xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<?x8xf32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7>, kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 1024 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<kv_blockscale>}
func.func @config_gfx942(
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
       page_size = 1024 : i64,
       config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128,
                             k_step = 16, warps = 4, wave_size = 64, mma_m = 32,
                             mma_n = 32, p_type = f8E4M3FNUZ, shift = 7>}
  return
}

// Config fields parse in any order and print in declaration order.
// CHECK-LABEL: func.func @config_sm_90_fields_any_order(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf8E4M3FN>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xf8E4M3FN>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xf8E4M3FN>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[BT:arg[0-9]+]]: memref<?x?xi32>
// CHECK-SAME:      %[[SEQLEN:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf8E4M3FN>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xf8E4M3FN>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xf8E4M3FN>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      block_table(%[[BT]] : memref<?x?xi32>)
// CHECK-SAME:      kv_seqlen(%[[SEQLEN]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<1xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<1xf32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {config = #fmha.config<chip = "sm_90", block_m = 64, block_n = 16, k_step = 32, warps = 4, wave_size = 32, mma_m = 64, mma_n = 16, p_type = f8E4M3FN, shift = 8>, kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<block_table>, quant = #fmha.quant<per_tensor>}
func.func @config_sm_90_fields_any_order(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x16x8x128xf8E4M3FN>,
    %v: memref<?x16x8x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %kv_seqlen: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<1xf32>,
    %v_descale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x16x8x128xf8E4M3FN>)
      v(%v : memref<?x16x8x128xf8E4M3FN>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%kv_seqlen : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<1xf32>)
      v_descale(%v_descale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<shift = 8, p_type = f8E4M3FN, mma_n = 16, mma_m = 64,
                             wave_size = 32, warps = 4, k_step = 32, block_n = 16,
                             block_m = 64, chip = "sm_90">}
  return
}

// MHA (Hq == Hkv), MQA (Hkv == 1) and GQA (Hq / Hkv == 4) over one page table.
// CHECK-LABEL: func.func @gqa_ratios(
// CHECK-SAME:      %[[MHA_Q:arg[0-9]+]]: memref<?x8x64xbf16>
// CHECK-SAME:      %[[MHA_KV:arg[0-9]+]]: memref<?x16x8x64xbf16>
// CHECK-SAME:      %[[MHA_OUT:arg[0-9]+]]: memref<?x8x64xbf16>
// CHECK-SAME:      %[[MQA_Q:arg[0-9]+]]: memref<?x8x64xbf16>
// CHECK-SAME:      %[[MQA_KV:arg[0-9]+]]: memref<?x16x1x64xbf16>
// CHECK-SAME:      %[[MQA_OUT:arg[0-9]+]]: memref<?x8x64xbf16>
// CHECK-SAME:      %[[GQA_Q:arg[0-9]+]]: memref<?x32x64xbf16>
// CHECK-SAME:      %[[GQA_KV:arg[0-9]+]]: memref<?x16x8x64xbf16>
// CHECK-SAME:      %[[GQA_OUT:arg[0-9]+]]: memref<?x32x64xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK:         fmha.batch_prefill q(%[[MHA_Q]] : memref<?x8x64xbf16>)
// CHECK-SAME:      k(%[[MHA_KV]] : memref<?x16x8x64xbf16>) v(%[[MHA_KV]] : memref<?x16x8x64xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>) kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>) kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[MHA_OUT]] : memref<?x8x64xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
// CHECK:         fmha.batch_prefill q(%[[MQA_Q]] : memref<?x8x64xbf16>)
// CHECK-SAME:      k(%[[MQA_KV]] : memref<?x16x1x64xbf16>) v(%[[MQA_KV]] : memref<?x16x1x64xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>) kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>) kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[MQA_OUT]] : memref<?x8x64xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
// CHECK:         fmha.batch_prefill q(%[[GQA_Q]] : memref<?x32x64xbf16>)
// CHECK-SAME:      k(%[[GQA_KV]] : memref<?x16x8x64xbf16>) v(%[[GQA_KV]] : memref<?x16x8x64xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>) kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>) kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[GQA_OUT]] : memref<?x32x64xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
func.func @gqa_ratios(
    %mha_q: memref<?x8x64xbf16>,
    %mha_kv: memref<?x16x8x64xbf16>,
    %mha_out: memref<?x8x64xbf16>,
    %mqa_q: memref<?x8x64xbf16>,
    %mqa_kv: memref<?x16x1x64xbf16>,
    %mqa_out: memref<?x8x64xbf16>,
    %gqa_q: memref<?x32x64xbf16>,
    %gqa_kv: memref<?x16x8x64xbf16>,
    %gqa_out: memref<?x32x64xbf16>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>) {
  fmha.batch_prefill
      q(%mha_q : memref<?x8x64xbf16>)
      k(%mha_kv : memref<?x16x8x64xbf16>)
      v(%mha_kv : memref<?x16x8x64xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%mha_out : memref<?x8x64xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  fmha.batch_prefill
      q(%mqa_q : memref<?x8x64xbf16>)
      k(%mqa_kv : memref<?x16x1x64xbf16>)
      v(%mqa_kv : memref<?x16x1x64xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%mqa_out : memref<?x8x64xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  fmha.batch_prefill
      q(%gqa_q : memref<?x32x64xbf16>)
      k(%gqa_kv : memref<?x16x8x64xbf16>)
      v(%gqa_kv : memref<?x16x8x64xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%gqa_out : memref<?x32x64xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// D != Dv (DeepSeek MLA prefill: 192 / 128).
// CHECK-LABEL: func.func @head_dim_192_value_dim_128(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x16x192xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x16x192xbf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x16x128xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x16x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x16x192xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x16x192xbf16>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x16x128xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x16x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
func.func @head_dim_192_value_dim_128(
    %q: memref<?x16x192xbf16>,
    %k: memref<?x16x16x192xbf16>,
    %v: memref<?x16x16x128xbf16>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %out: memref<?x16x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x16x192xbf16>)
      k(%k : memref<?x16x16x192xbf16>)
      v(%v : memref<?x16x16x128xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%out : memref<?x16x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// Every count static: B = 4, total_q = 40, N_pages = 12.
// CHECK-LABEL: func.func @static_shapes(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<40x32x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<12x16x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<12x16x8x128xf8E4M3FNUZ>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<5xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<5xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<12xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<4xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<1xf32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<12x8xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<12x8xf32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<40x32x128xbf16>
// CHECK-SAME:      %[[LSE:arg[0-9]+]]: memref<40x32xf32>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<40x32x128xf8E4M3FNUZ>)
// CHECK-SAME:      k(%[[K]] : memref<12x16x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      v(%[[V]] : memref<12x16x8x128xf8E4M3FNUZ>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<5xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<5xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<12xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<4xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<1xf32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<12x8xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<12x8xf32>)
// CHECK-SAME:      out(%[[OUT]] : memref<40x32x128xbf16>)
// CHECK-SAME:      lse(%[[LSE]] : memref<40x32xf32>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<kv_blockscale>}
func.func @static_shapes(
    %q: memref<40x32x128xf8E4M3FNUZ>,
    %k: memref<12x16x8x128xf8E4M3FNUZ>,
    %v: memref<12x16x8x128xf8E4M3FNUZ>,
    %qo_indptr: memref<5xi32>,
    %kv_indptr: memref<5xi32>,
    %kv_page_indices: memref<12xi32>,
    %kv_last_page_len: memref<4xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<12x8xf32>,
    %v_descale: memref<12x8xf32>,
    %out: memref<40x32x128xbf16>,
    %lse: memref<40x32xf32>) {
  fmha.batch_prefill
      q(%q : memref<40x32x128xf8E4M3FNUZ>)
      k(%k : memref<12x16x8x128xf8E4M3FNUZ>)
      v(%v : memref<12x16x8x128xf8E4M3FNUZ>)
      qo_indptr(%qo_indptr : memref<5xi32>)
      kv_indptr(%kv_indptr : memref<5xi32>)
      kv_page_indices(%kv_page_indices : memref<12xi32>)
      kv_last_page_len(%kv_last_page_len : memref<4xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<12x8xf32>)
      v_descale(%v_descale : memref<12x8xf32>)
      out(%out : memref<40x32x128xbf16>)
      lse(%lse : memref<40x32xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// A static block table [B, max_pages] = [4, 3] over an HND cache of 48-token pages.
// CHECK-LABEL: func.func @static_block_table_hnd(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<40x32x128xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<12x8x48x128xbf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<12x8x48x128xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<5xi32>
// CHECK-SAME:      %[[BT:arg[0-9]+]]: memref<4x3xi32>
// CHECK-SAME:      %[[SEQLEN:arg[0-9]+]]: memref<4xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<40x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<40x32x128xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<12x8x48x128xbf16>)
// CHECK-SAME:      v(%[[V]] : memref<12x8x48x128xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<5xi32>)
// CHECK-SAME:      block_table(%[[BT]] : memref<4x3xi32>)
// CHECK-SAME:      kv_seqlen(%[[SEQLEN]] : memref<4xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<40x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<hnd>, mask = #fmha.mask<causal>, page_size = 48 : i64, page_table = #fmha.page_table<block_table>, quant = #fmha.quant<none>}
func.func @static_block_table_hnd(
    %q: memref<40x32x128xbf16>,
    %k: memref<12x8x48x128xbf16>,
    %v: memref<12x8x48x128xbf16>,
    %qo_indptr: memref<5xi32>,
    %block_table: memref<4x3xi32>,
    %kv_seqlen: memref<4xi32>,
    %out: memref<40x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<40x32x128xbf16>)
      k(%k : memref<12x8x48x128xbf16>)
      v(%v : memref<12x8x48x128xbf16>)
      qo_indptr(%qo_indptr : memref<5xi32>)
      block_table(%block_table : memref<4x3xi32>)
      kv_seqlen(%kv_seqlen : memref<4xi32>)
      out(%out : memref<40x32x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<hnd>,
       page_size = 48 : i64}
  return
}

// B = 0: qo_indptr has the one entry 0, no query rows, no pages.
// CHECK-LABEL: func.func @empty_batch(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<0x32x128xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<1xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<1xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<0xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<0xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<0x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<0x32x128xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<1xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<1xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<0xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<0xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<0x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
func.func @empty_batch(
    %q: memref<0x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>,
    %v: memref<?x16x8x128xbf16>,
    %qo_indptr: memref<1xi32>,
    %kv_indptr: memref<1xi32>,
    %kv_page_indices: memref<0xi32>,
    %kv_last_page_len: memref<0xi32>,
    %out: memref<0x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<0x32x128xbf16>)
      k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x128xbf16>)
      qo_indptr(%qo_indptr : memref<1xi32>)
      kv_indptr(%kv_indptr : memref<1xi32>)
      kv_page_indices(%kv_page_indices : memref<0xi32>)
      kv_last_page_len(%kv_last_page_len : memref<0xi32>)
      out(%out : memref<0x32x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// per_tensor descales need one element, of any rank: a scalar memref works.
// CHECK-LABEL: func.func @rank0_descales(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xf8E4M3FN>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xf8E4M3FN>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xf8E4M3FN>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[QD:arg[0-9]+]]: memref<f32>
// CHECK-SAME:      %[[KD:arg[0-9]+]]: memref<1x1xf32>
// CHECK-SAME:      %[[VD:arg[0-9]+]]: memref<f32, strided<[], offset: 3>>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xf8E4M3FN>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xf8E4M3FN>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xf8E4M3FN>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      q_descale(%[[QD]] : memref<f32>)
// CHECK-SAME:      k_descale(%[[KD]] : memref<1x1xf32>)
// CHECK-SAME:      v_descale(%[[VD]] : memref<f32, strided<[], offset: 3>>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<per_tensor>}
func.func @rank0_descales(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x16x8x128xf8E4M3FN>,
    %v: memref<?x16x8x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<f32>,
    %k_descale: memref<1x1xf32>,
    %v_descale: memref<f32, strided<[], offset: 3>>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x16x8x128xf8E4M3FN>)
      v(%v : memref<?x16x8x128xf8E4M3FN>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      q_descale(%q_descale : memref<f32>)
      k_descale(%k_descale : memref<1x1xf32>)
      v_descale(%v_descale : memref<f32, strided<[], offset: 3>>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// A window without bounds is unbounded on both sides, printed explicitly.
// CHECK-LABEL: func.func @window_bounds_default_unbounded(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<window, left = -1, right = -1>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
func.func @window_bounds_default_unbounded(
    %q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>,
    %v: memref<?x16x8x128xbf16>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>)
      k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x128xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<window>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// Bounds parse in either order (and one alone); they print left first.
// CHECK-LABEL: func.func @window_bounds_any_order(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<window, left = 0, right = -1>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
func.func @window_bounds_any_order(
    %q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>,
    %v: memref<?x16x8x128xbf16>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>)
      k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x128xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<window, right = -1, left = 0>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// CHECK-LABEL: func.func @window_right_only(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xbf16>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xbf16>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xbf16>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<window, left = -1, right = 7>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
func.func @window_right_only(
    %q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>,
    %v: memref<?x16x8x128xbf16>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>)
      k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x128xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<window, right = 7>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// Operands may live in a memory space (global memory on the GPU).
// CHECK-LABEL: func.func @memory_space(
// CHECK-SAME:      %[[Q:arg[0-9]+]]: memref<?x32x128xbf16, 1>
// CHECK-SAME:      %[[K:arg[0-9]+]]: memref<?x16x8x128xbf16, 1>
// CHECK-SAME:      %[[V:arg[0-9]+]]: memref<?x16x8x128xbf16, 1>
// CHECK-SAME:      %[[QO:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[KV_INDPTR:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[PAGES:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[LAST:arg[0-9]+]]: memref<?xi32>
// CHECK-SAME:      %[[OUT:arg[0-9]+]]: memref<?x32x128xbf16, 1>
// CHECK:         fmha.batch_prefill q(%[[Q]] : memref<?x32x128xbf16, 1>)
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xbf16, 1>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xbf16, 1>)
// CHECK-SAME:      qo_indptr(%[[QO]] : memref<?xi32>)
// CHECK-SAME:      kv_indptr(%[[KV_INDPTR]] : memref<?xi32>)
// CHECK-SAME:      kv_page_indices(%[[PAGES]] : memref<?xi32>)
// CHECK-SAME:      kv_last_page_len(%[[LAST]] : memref<?xi32>)
// CHECK-SAME:      out(%[[OUT]] : memref<?x32x128xbf16, 1>)
// CHECK-SAME:      {kv_layout = #fmha.kv_layout<nhd>, mask = #fmha.mask<causal>, page_size = 16 : i64, page_table = #fmha.page_table<csr>, quant = #fmha.quant<none>}
func.func @memory_space(
    %q: memref<?x32x128xbf16, 1>,
    %k: memref<?x16x8x128xbf16, 1>,
    %v: memref<?x16x8x128xbf16, 1>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %out: memref<?x32x128xbf16, 1>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16, 1>)
      k(%k : memref<?x16x8x128xbf16, 1>)
      v(%v : memref<?x16x8x128xbf16, 1>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      out(%out : memref<?x32x128xbf16, 1>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// The tile-level mask op, with and without run-time window bounds.
// CHECK-LABEL: func.func @mask_tile(
// CHECK: fmha.mask_tile %{{.*}} rows(%{{.*}}) keys(%{{.*}}) len(%{{.*}}) {mask = #fmha.mask<causal>} : vector<4x8xf32>
// CHECK: fmha.mask_tile %{{.*}} rows(%{{.*}}) keys(%{{.*}}) len(%{{.*}}) window(%{{.*}}, %{{.*}}) {mask = #fmha.mask<window, left = -1, right = -1>} : vector<4x8xf32>
func.func @mask_tile(%s: vector<4x8xf32>, %i: index) -> vector<4x8xf32> {
  %m = fmha.mask_tile %s rows(%i) keys(%i) len(%i) {mask = #fmha.mask<causal>} : vector<4x8xf32>
  %w = fmha.mask_tile %m rows(%i) keys(%i) len(%i) window(%i, %i) {mask = #fmha.mask<window, left = -1, right = -1>} : vector<4x8xf32>
  return %w : vector<4x8xf32>
}

// FlashInfer's and SGLang's combined cache (N_pages, 2, P, Hkv, D): K and V
// are views of it (page stride 2 * P * Hkv * D = 32768, V at offset 16384),
// taken without a copy.
// CHECK-LABEL: func.func @combined_kv_cache_views(
// CHECK:         %[[K:.*]] = memref.subview %{{.*}}[0, 0, 0, 0, 0] [%{{.*}}, 1, 16, 8, 128] [1, 1, 1, 1, 1] : memref<?x2x16x8x128xf8E4M3FN> to memref<?x16x8x128xf8E4M3FN, strided<[32768, 1024, 128, 1]>>
// CHECK:         %[[V:.*]] = memref.subview %{{.*}}[0, 1, 0, 0, 0] [%{{.*}}, 1, 16, 8, 128] [1, 1, 1, 1, 1] : memref<?x2x16x8x128xf8E4M3FN> to memref<?x16x8x128xf8E4M3FN, strided<[32768, 1024, 128, 1], offset: 16384>>
// CHECK:         fmha.batch_prefill
// CHECK-SAME:      k(%[[K]] : memref<?x16x8x128xf8E4M3FN, strided<[32768, 1024, 128, 1]>>)
// CHECK-SAME:      v(%[[V]] : memref<?x16x8x128xf8E4M3FN, strided<[32768, 1024, 128, 1], offset: 16384>>)
func.func @combined_kv_cache_views(
    %q: memref<?x32x128xf8E4M3FN>,
    %kv: memref<?x2x16x8x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<1xf32>,
    %v_descale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %kv, %c0 : memref<?x2x16x8x128xf8E4M3FN>
  %k = memref.subview %kv[0, 0, 0, 0, 0] [%n, 1, 16, 8, 128] [1, 1, 1, 1, 1]
      : memref<?x2x16x8x128xf8E4M3FN> to memref<?x16x8x128xf8E4M3FN, strided<[32768, 1024, 128, 1]>>
  %v = memref.subview %kv[0, 1, 0, 0, 0] [%n, 1, 16, 8, 128] [1, 1, 1, 1, 1]
      : memref<?x2x16x8x128xf8E4M3FN> to memref<?x16x8x128xf8E4M3FN, strided<[32768, 1024, 128, 1], offset: 16384>>
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x16x8x128xf8E4M3FN, strided<[32768, 1024, 128, 1]>>)
      v(%v : memref<?x16x8x128xf8E4M3FN, strided<[32768, 1024, 128, 1], offset: 16384>>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<1xf32>)
      v_descale(%v_descale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
