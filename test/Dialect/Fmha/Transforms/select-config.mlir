// RUN: fmha-opt %s --fmha-select-config=chip=gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: fmha-opt %s --fmha-select-config=chip=host | FileCheck %s --check-prefix=HOST
// RUN: fmha-opt %s --fmha-select-config=chip=sm_90 | FileCheck %s --check-prefix=SM90
// 16-bit caches keep their type as P with no shift.
// GFX942-LABEL: func @config_bf16
// GFX942: block_n = 64, k_step = 8, {{.*}} p_type = bf16, shift = 0, page_regime = whole_pages, vd_route = scalar>
// HOST-LABEL: func @config_bf16
// HOST: block_n = 32, {{.*}} p_type = bf16, shift = 0, page_regime = whole_pages, vd_route = scalar>
// SM90-LABEL: func @config_bf16
// SM90: config = #fmha.config<chip = "sm_90", block_m = 64, block_n = 64, k_step = 16, warps = 4, wave_size = 32, mma_m = 16, mma_n = 8, p_type = bf16, shift = 0, page_regime = whole_pages, vd_route = scalar>
func.func @config_bf16(
    %q: memref<?x8x128xbf16>, %k: memref<?x16x2x128xbf16>,
    %v: memref<?x16x2x128xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x16x2x128xbf16>) v(%v : memref<?x16x2x128xbf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
