// RUN: fmha-opt %s --fmha-select-config=chip=gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: fmha-opt %s --fmha-select-config=chip=host | FileCheck %s --check-prefix=HOST
// The tile sizes and MMA atom follow the chip; P type and SHIFT follow the
// cache's fp8 family (FNUZ: e4m3fnuz, 7).
// GFX942-LABEL: func @config_kv_blockscale_f8fnuz
// GFX942: config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7, page_regime = whole_pages, vd_route = exp2_bias>
// HOST-LABEL: func @config_kv_blockscale_f8fnuz
// HOST: config = #fmha.config<chip = "host", block_m = 16, block_n = 32, k_step = 1, warps = 1, wave_size = 1, mma_m = 1, mma_n = 1, p_type = f8E4M3FNUZ, shift = 7, page_regime = whole_pages, vd_route = per_key>
func.func @config_kv_blockscale_f8fnuz(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x16x2x128xf8E4M3FNUZ>,
    %v: memref<?x16x2x128xf8E4M3FNUZ>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x16x2x128xf8E4M3FNUZ>) v(%v : memref<?x16x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) out(%o : memref<?x8x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
