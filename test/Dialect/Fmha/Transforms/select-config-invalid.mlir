// RUN: fmha-opt %s --split-input-file --verify-diagnostics --fmha-select-config=chip=sm_90

func.func @negative_fnuz_on_sm_90(
    %q: memref<?x8x128xbf16>, %k: memref<?x16x2x128xf8E4M3FNUZ>,
    %v: memref<?x16x2x128xf8E4M3FNUZ>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %qd: memref<1xf32>, %kd: memref<1xf32>, %vd: memref<1xf32>,
    %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{sm_90 takes OCP fp8 (f8E4M3FN, f8E5M2), got 'f8E4M3FNUZ'}}
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x16x2x128xf8E4M3FNUZ>) v(%v : memref<?x16x2x128xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<1xf32>) v_descale(%vd : memref<1xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// -----

// D = 80 is not a multiple of mma.sync's K step 32 for fp8.
func.func @negative_head_dim_not_k_step(
    %q: memref<?x8x80xf8E4M3FN>, %k: memref<?x16x2x80xf8E4M3FN>,
    %v: memref<?x16x2x64xf8E4M3FN>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %qd: memref<1xf32>, %kd: memref<1xf32>, %vd: memref<1xf32>,
    %o: memref<?x8x64xf32>) {
  // expected-error @+1 {{head dim D = 80 is not a multiple of the MMA K step 32 of sm_90}}
  fmha.batch_prefill q(%q : memref<?x8x80xf8E4M3FN>)
      k(%k : memref<?x16x2x80xf8E4M3FN>) v(%v : memref<?x16x2x64xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<1xf32>) v_descale(%vd : memref<1xf32>)
      out(%o : memref<?x8x64xf32>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// -----

func.func @negative_config_for_other_chip(
    %q: memref<?x8x128xbf16>, %k: memref<?x16x2x128xbf16>,
    %v: memref<?x16x2x128xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{has a config for chip 'host' but the pass targets 'sm_90'}}
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x16x2x128xbf16>) v(%v : memref<?x16x2x128xbf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<chip = "host", block_m = 8, block_n = 16, k_step = 1,
                             warps = 1, wave_size = 1, mma_m = 1, mma_n = 1,
                             p_type = bf16, shift = 0>}
  return
}

// -----

// A tuner's config that cannot work: BlockM 48 is not a multiple of 16 x 4.
func.func @negative_impossible_config(
    %q: memref<?x8x128xbf16>, %k: memref<?x16x2x128xbf16>,
    %v: memref<?x16x2x128xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config block_m = 48 must be a multiple of mma_m x warps = 64}}
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x16x2x128xbf16>) v(%v : memref<?x16x2x128xbf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<chip = "sm_90", block_m = 48, block_n = 64, k_step = 16,
                             warps = 4, wave_size = 32, mma_m = 16, mma_n = 8,
                             p_type = bf16, shift = 0>}
  return
}

// -----

// SHIFT 9 would put p up to 512, past e4m3fn's 448.
func.func @negative_shift_too_large(
    %q: memref<?x8x128xf8E4M3FN>, %k: memref<?x16x2x128xf8E4M3FN>,
    %v: memref<?x16x2x128xf8E4M3FN>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %qd: memref<1xf32>, %kd: memref<1xf32>, %vd: memref<1xf32>,
    %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{config shift = 9 must be >= 0 with 2^shift below the largest 'f8E4M3FN' (448)}}
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FN>)
      k(%k : memref<?x16x2x128xf8E4M3FN>) v(%v : memref<?x16x2x128xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<1xf32>) v_descale(%vd : memref<1xf32>)
      out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64,
       config = #fmha.config<chip = "sm_90", block_m = 64, block_n = 64, k_step = 32,
                             warps = 4, wave_size = 32, mma_m = 16, mma_n = 8,
                             p_type = f8E4M3FN, shift = 9>}
  return
}
