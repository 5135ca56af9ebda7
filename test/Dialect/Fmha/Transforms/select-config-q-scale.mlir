// RUN: fmha-opt %s --fmha-select-config=chip=gfx942 --split-input-file | FileCheck %s --check-prefix=GFX942
// RUN: fmha-opt %s --fmha-select-config=chip=host --split-input-file | FileCheck %s --check-prefix=HOST
// The q_scale decision: a 16-bit Q with an fp8 cache is quantized per tile
// on a GPU (its MMA takes one fp8 type for both operands) and multiplied as
// stored on the host; an fp8 Q is as stored everywhere (left out when
// printed).

// GFX942-LABEL: func @bf16_q_fp8_cache
// GFX942: p_type = f8E4M3FNUZ, shift = 7, page_regime = one_page, vd_route = scalar, q_scale = per_tile>
// HOST-LABEL: func @bf16_q_fp8_cache
// HOST: vd_route = scalar>
// HOST-NOT: q_scale
func.func @bf16_q_fp8_cache(
    %q: memref<?x8x128xbf16>, %k: memref<?x1024x2x128xf8E4M3FNUZ>,
    %v: memref<?x1024x2x128xf8E4M3FNUZ>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x1024x2x128xf8E4M3FNUZ>) v(%v : memref<?x1024x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) out(%o : memref<?x8x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1024 : i64}
  return
}

// -----

// GFX942-LABEL: func @fp8_q
// GFX942: vd_route = scalar>
// GFX942-NOT: q_scale
func.func @fp8_q(
    %q: memref<?x8x128xf8E4M3FNUZ>, %k: memref<?x1024x2x128xf8E4M3FNUZ>,
    %v: memref<?x1024x2x128xf8E4M3FNUZ>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x128xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FNUZ>)
      k(%k : memref<?x1024x2x128xf8E4M3FNUZ>) v(%v : memref<?x1024x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) out(%o : memref<?x8x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1024 : i64}
  return
}
