// RUN: fmha-opt %s --fmha-select-config=chip=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: fmha-opt %s --fmha-select-config=chip=host | FileCheck %s --check-prefix=HOST
// RUN: fmha-opt %s --fmha-select-config=chip=sm_90a | FileCheck %s --check-prefix=SM90A
// OCP e5m2 caches get an e4m3fn P with SHIFT 8 (gfx950 and sm_90 take OCP);
// the bf16 Q is quantized per tile on the GPU (to the chip's e4m3, p_type),
// as stored on the host.
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

// The staged K and V tiles must fit the workgroup memory: at D 256 sm_90a's
// 128 x (256 + 256) fp8 bytes (64 KiB) pass its 48 KiB, so block_n halves
// to 64 (32 KiB); sm_90's table block_n 64 already fits; D 128 keeps 128.
// SM90A-LABEL: func @config_d256
// SM90A: block_m = 64, block_n = 64, k_step = 32
// SM90-LABEL: func @config_d256
// SM90: block_m = 64, block_n = 64, k_step = 32
// SM90A-LABEL: func @config_d128
// SM90A: block_m = 64, block_n = 128, k_step = 32
func.func @config_d256(
    %q: memref<?x8x256xf8E4M3FN>, %k: memref<?x16x2x256xf8E4M3FN>,
    %v: memref<?x16x2x256xf8E4M3FN>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %qd: memref<1xf32>, %kd: memref<1xf32>, %vd: memref<1xf32>,
    %o: memref<?x8x256xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x256xf8E4M3FN>)
      k(%k : memref<?x16x2x256xf8E4M3FN>) v(%v : memref<?x16x2x256xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<1xf32>) v_descale(%vd : memref<1xf32>)
      out(%o : memref<?x8x256xbf16>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
func.func @config_d128(
    %q: memref<?x8x128xf8E4M3FN>, %k: memref<?x16x2x128xf8E4M3FN>,
    %v: memref<?x16x2x128xf8E4M3FN>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %qd: memref<1xf32>, %kd: memref<1xf32>, %vd: memref<1xf32>,
    %o: memref<?x8x128xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FN>)
      k(%k : memref<?x16x2x128xf8E4M3FN>) v(%v : memref<?x16x2x128xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<1xf32>) v_descale(%vd : memref<1xf32>)
      out(%o : memref<?x8x128xbf16>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
