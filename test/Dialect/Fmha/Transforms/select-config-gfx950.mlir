// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=gfx950 | FileCheck %s
// gfx950's fp8 MMA is v_mfma_f32_32x32x64_f8f6f4 (k_step 64). With a V
// descale per page and pages smaller than the tile that are not a multiple
// of 64, the page_groups route needs each P x V step inside one page: the
// K=16 MFMA (k_step 16), as with a soft cap. Without one the route is
// exp2_bias (vd joins P before the product), so a step may span pages and
// k_step stays 64.
// CHECK-LABEL: func.func @bs_page1024
// CHECK: chip = "gfx950", block_m = 128, block_n = 128, k_step = 64,
// CHECK-LABEL: func.func @bs_page16
// CHECK: chip = "gfx950", block_m = 128, block_n = 128, k_step = 64,
// CHECK-SAME: vd_route = exp2_bias
// CHECK-LABEL: func.func @bs_page64
// CHECK: chip = "gfx950", block_m = 128, block_n = 128, k_step = 64,
// CHECK-SAME: vd_route = page_groups
// Page 64 with a window takes exp2_bias (decision 6: page_groups' masked
// tiles spilled 363 VGPRs there, test/Target/AMDGPU/sgpr-pressure.test).
// CHECK-LABEL: func.func @bs_page64_window
// CHECK: chip = "gfx950", block_m = 128, block_n = 128, k_step = 64,
// CHECK-SAME: vd_route = exp2_bias
// CHECK-LABEL: func.func @pt_page16
// CHECK: chip = "gfx950", block_m = 128, block_n = 128, k_step = 64,
// CHECK-LABEL: func.func @bs_page16_soft_cap
// CHECK: chip = "gfx950", block_m = 128, block_n = 128, k_step = 16,
// CHECK-SAME: vd_route = page_groups
func.func @bs_page1024(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x1024x8x128xf8E4M3FN>,
    %v: memref<?x1024x8x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<?x8xf32>,
    %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x1024x8x128xf8E4M3FN>)
      v(%v : memref<?x1024x8x128xf8E4M3FN>)
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

// -----
func.func @bs_page16(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x16x8x128xf8E4M3FN>,
    %v: memref<?x16x8x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<?x8xf32>,
    %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x16x8x128xf8E4M3FN>)
      v(%v : memref<?x16x8x128xf8E4M3FN>)
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

// -----
func.func @bs_page64(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x64x8x128xf8E4M3FN>,
    %v: memref<?x64x8x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<?x8xf32>,
    %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x64x8x128xf8E4M3FN>)
      v(%v : memref<?x64x8x128xf8E4M3FN>)
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
       page_size = 64 : i64}
  return
}

// -----
func.func @bs_page64_window(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x64x8x128xf8E4M3FN>,
    %v: memref<?x64x8x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<?x8xf32>,
    %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x64x8x128xf8E4M3FN>)
      v(%v : memref<?x64x8x128xf8E4M3FN>)
      qo_indptr(%qo_indptr : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x8xf32>)
      v_descale(%v_descale : memref<?x8xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<window, left = 256, right = 0>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 64 : i64}
  return
}

// -----
func.func @pt_page16(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x16x8x128xf8E4M3FN>,
    %v: memref<?x16x8x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<1xf32>,
    %v_descale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x16x8x128xf8E4M3FN>)
      v(%v : memref<?x16x8x128xf8E4M3FN>)
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

// -----
func.func @bs_page16_soft_cap(
    %q: memref<?x32x128xf8E4M3FN>,
    %k: memref<?x16x8x128xf8E4M3FN>,
    %v: memref<?x16x8x128xf8E4M3FN>,
    %qo_indptr: memref<?xi32>,
    %kv_indptr: memref<?xi32>,
    %kv_page_indices: memref<?xi32>,
    %kv_last_page_len: memref<?xi32>,
    %q_descale: memref<1xf32>,
    %k_descale: memref<?x8xf32>,
    %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>)
      k(%k : memref<?x16x8x128xf8E4M3FN>)
      v(%v : memref<?x16x8x128xf8E4M3FN>)
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
       page_size = 16 : i64, soft_cap = 30.0 : f32}
  return
}

