// RUN: fmha-opt %s --fmha-select-config=chip=gfx942 | FileCheck %s
// RUN: fmha-opt %s --fmha-select-config=chip=host | FileCheck %s --check-prefix=HOST
// The host (block_n 32) scales each key of P x V by its own vd: per_key.
// HOST-LABEL: func @one_page_128
// HOST: page_regime = one_page, vd_route = scalar>
// HOST-LABEL: func @page_groups_64
// HOST: page_regime = whole_pages, vd_route = per_key>
// HOST-LABEL: func @scaled_p_unaligned_48
// HOST: page_regime = unaligned, vd_route = per_key>
// The decisions fmha-select-config takes once (docs/REGIMES.md section 2),
// for gfx942 (block_n 128, k_step 16), each by its rule:
// page_regime one_page when P % 128 == 0, whole_pages when 128 % P == 0,
// else unaligned; vd_route scalar unless kv_blockscale off one_page, then
// on AMDGPU without a soft cap exp2_bias unless page_groups fits with at
// most two pages a tile of one k step each (gfx950's K=64 at page 64; since
// 2026-12-06, eleventh session: gfx942's page 64, of 4 k steps a page, took
// page_groups, pv_group = min(128, P) / 16); else page_groups when
// whole_pages and P % 16 == 0, else scaled_p.

// CHECK-LABEL: func @one_page_1024
// CHECK: shift = 7, page_regime = one_page, vd_route = scalar>
func.func @one_page_1024(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x1024x2x128xf8E4M3FNUZ>, %v: memref<?x1024x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x1024x2x128xf8E4M3FNUZ>) v(%v : memref<?x1024x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1024 : i64}
  return
}

// CHECK-LABEL: func @one_page_128
// CHECK: shift = 7, page_regime = one_page, vd_route = scalar>
func.func @one_page_128(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x128x2x128xf8E4M3FNUZ>, %v: memref<?x128x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x128x2x128xf8E4M3FNUZ>) v(%v : memref<?x128x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 128 : i64}
  return
}

// CHECK-LABEL: func @page_groups_64
// CHECK: shift = 7, page_regime = whole_pages, vd_route = exp2_bias>
func.func @page_groups_64(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x64x2x128xf8E4M3FNUZ>, %v: memref<?x64x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x64x2x128xf8E4M3FNUZ>) v(%v : memref<?x64x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 64 : i64}
  return
}

// CHECK-LABEL: func @scaled_p_8
// CHECK: shift = 7, page_regime = whole_pages, vd_route = exp2_bias>
func.func @scaled_p_8(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x8x2x128xf8E4M3FNUZ>, %v: memref<?x8x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x8x2x128xf8E4M3FNUZ>) v(%v : memref<?x8x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 8 : i64}
  return
}

// CHECK-LABEL: func @scaled_p_unaligned_48
// CHECK: shift = 7, page_regime = unaligned, vd_route = exp2_bias>
func.func @scaled_p_unaligned_48(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x48x2x128xf8E4M3FNUZ>, %v: memref<?x48x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x48x2x128xf8E4M3FNUZ>) v(%v : memref<?x48x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 48 : i64}
  return
}

// CHECK-LABEL: func @scaled_p_unaligned_192
// CHECK: shift = 7, page_regime = unaligned, vd_route = exp2_bias>
func.func @scaled_p_unaligned_192(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x192x2x128xf8E4M3FNUZ>, %v: memref<?x192x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x192x2x128xf8E4M3FNUZ>) v(%v : memref<?x192x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 192 : i64}
  return
}

// CHECK-LABEL: func @per_tensor_small_page
// CHECK: shift = 7, page_regime = whole_pages, vd_route = scalar>
func.func @per_tensor_small_page(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x16x2x128xf8E4M3FNUZ>, %v: memref<?x16x2x128xf8E4M3FNUZ>,
    %qo: memref<?xi32>, %bt: memref<?x?xi32>, %sl: memref<?xi32>,
    %qd: memref<1xf32>, %kd: memref<1xf32>, %vd: memref<1xf32>, %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x16x2x128xf8E4M3FNUZ>) v(%v : memref<?x16x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<1xf32>) v_descale(%vd : memref<1xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
