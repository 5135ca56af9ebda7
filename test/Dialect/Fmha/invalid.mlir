// Every verifier rule of fmha.batch_prefill and #fmha.mask, one case each.
// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// Each operand has one rank.
func.func @rank_q(%q: memref<?x32xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q' must have rank 3 ([total_q, Hq, D]), got memref<?x32xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// A rank-0 memref where a rank-3 one is expected is diagnosed, not indexed.
func.func @rank_q_scalar(%q: memref<bf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q' must have rank 3 ([total_q, Hq, D]), got memref<bf16>}}
  fmha.batch_prefill
      q(%q : memref<bf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @rank_k_cache_nhd(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x1024xbf16>, %v: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' must have rank 4 ([N_pages, P, Hkv, D] for kv_layout nhd), got memref<?x16x1024xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x1024xbf16>)
      v(%v : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// The expected shape follows kv_layout.
func.func @rank_k_cache_hnd(%q: memref<?x32x128xbf16>,
    %k: memref<?x8x16x128x1xbf16>, %v: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' must have rank 4 ([N_pages, Hkv, P, D] for kv_layout hnd), got memref<?x8x16x128x1xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x8x16x128x1xbf16>)
      v(%v : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<hnd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @rank_v_cache(%q: memref<?x32x128xbf16>, %k: memref<?x16x8x128xbf16>,
    %v: memref<?x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_cache' must have rank 4 ([N_pages, P, Hkv, D] for kv_layout nhd), got memref<?x8x128xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @rank_out(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x4096xbf16>) {
  // expected-error @+1 {{operand 'out' must have rank 3 ([total_q, Hq, Dv]), got memref<?x4096xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x4096xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @rank_qo_indptr(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<?x1xi32>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'qo_indptr' must have rank 1 ([B+1]), got memref<?x1xi32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<?x1xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @rank_qo_indptr_scalar(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<i32>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'qo_indptr' must have rank 1 ([B+1]), got memref<i32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<i32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @rank_kv_indptr(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %kv_indptr: memref<?x2xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_indptr' must have rank 1 ([B+1]), got memref<?x2xi32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?x2xi32>)
      kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @rank_kv_page_indices(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %kv_page_indices: memref<?x?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_page_indices' must have rank 1 ([nnz]), got memref<?x?xi32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?x?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @rank_kv_last_page_len(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %kv_last_page_len: memref<i32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_last_page_len' must have rank 1 ([B]), got memref<i32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<i32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// A flattened block table is not accepted.
func.func @rank_block_table(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'block_table' must have rank 2 ([B, max_pages]), got memref<?xi32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      block_table(%idx : memref<?xi32>) kv_seqlen(%idx : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @rank_kv_seqlen(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<?xi32>,
    %block_table: memref<?x?xi32>, %kv_seqlen: memref<?x1xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_seqlen' must have rank 1 ([B]), got memref<?x1xi32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%kv_seqlen : memref<?x1xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// lse has no head-dim axis.
func.func @rank_lse(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>,
    %lse: memref<?x32x1xf32>) {
  // expected-error @+1 {{operand 'lse' must have rank 2 ([total_q, Hq]), got memref<?x32x1xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      lse(%lse : memref<?x32x1xf32>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Unranked memrefs are rejected by the operand types, before the verifier
// could cast them to ranked ones: in the custom form...
func.func @unranked_q(%q: memref<*xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+2 {{invalid kind of type specified: expected builtin.memref, but found 'memref<*xbf16>'}}
  fmha.batch_prefill
      q(%q : memref<*xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// ... and in the generic form.
func.func @unranked_k_cache_generic(%q: memref<?x32x128xbf16>,
    %k: memref<*xbf16>, %v: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand #1 must be memref of any type values, but got 'memref<*xbf16>'}}
  "fmha.batch_prefill"(%q, %k, %v, %idx, %idx, %idx, %idx, %out)
      <{quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
        page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
        page_size = 16 : i64,
        operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0>}>
      : (memref<?x32x128xbf16>, memref<*xbf16>, memref<?x16x8x128xbf16>,
         memref<?xi32>, memref<?xi32>, memref<?xi32>, memref<?xi32>,
         memref<?x32x128xbf16>) -> ()
  return
}

// -----

// Element types per operand.
func.func @q_f32(%q: memref<?x32x128xf32>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q' has element type f32; allowed: bf16, f16, f8E4M3FN, f8E4M3FNUZ}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf32>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// e5m2 is a KV-only type.
func.func @q_e5m2(%q: memref<?x32x128xf8E5M2>, %kv: memref<?x16x8x128xf8E5M2>,
    %idx: memref<?xi32>, %scale: memref<1xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q' has element type f8E5M2; allowed: bf16, f16, f8E4M3FN, f8E4M3FNUZ}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E5M2>) k(%kv : memref<?x16x8x128xf8E5M2>)
      v(%kv : memref<?x16x8x128xf8E5M2>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%scale : memref<1xf32>) v_descale(%scale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @k_cache_f32(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xf32>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' has element type f32; allowed: bf16, f16, f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xf32>)
      v(%kv : memref<?x16x8x128xf32>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// An fp8 type outside the six (IEEE-style f8E4M3).
func.func @k_cache_ieee_e4m3(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3>, %idx: memref<?xi32>, %scale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' has element type f8E4M3; allowed: bf16, f16, f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3>)
      v(%kv : memref<?x16x8x128xf8E4M3>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%scale : memref<1xf32>) v_descale(%scale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @k_cache_i8(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xi8>, %idx: memref<?xi32>, %scale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' has element type i8; allowed: bf16, f16, f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xi8>)
      v(%kv : memref<?x16x8x128xi8>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%scale : memref<1xf32>) v_descale(%scale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @v_cache_f32(%q: memref<?x32x128xbf16>, %k: memref<?x16x8x128xbf16>,
    %v: memref<?x16x8x128xf32>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_cache' has element type f32; allowed: bf16, f16, f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x128xf32>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// No fp8 output.
func.func @out_fp8(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %scale: memref<?x8xf32>,
    %out: memref<?x32x128xf8E4M3FNUZ>) {
  // expected-error @+1 {{operand 'out' has element type f8E4M3FNUZ; allowed: bf16, f16, f32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>) k_descale(%scale : memref<?x8xf32>)
      v_descale(%scale : memref<?x8xf32>)
      out(%out : memref<?x32x128xf8E4M3FNUZ>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @out_f64(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xf64>) {
  // expected-error @+1 {{operand 'out' has element type f64; allowed: bf16, f16, f32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xf64>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Index operands are i32, as FlashInfer and vLLM pass them.
func.func @qo_indptr_i64(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<?xi64>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'qo_indptr' has element type i64; allowed: i32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<?xi64>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_indptr_i64(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %kv_indptr: memref<?xi64>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_indptr' has element type i64; allowed: i32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi64>)
      kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_page_indices_index(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %kv_page_indices: memref<?xindex>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_page_indices' has element type index; allowed: i32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xindex>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_last_page_len_i16(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %kv_last_page_len: memref<?xi16>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_last_page_len' has element type i16; allowed: i32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi16>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @block_table_i64(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %block_table: memref<?x?xi64>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'block_table' has element type i64; allowed: i32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      block_table(%block_table : memref<?x?xi64>)
      kv_seqlen(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Signless i32 only.
func.func @kv_seqlen_ui32(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<?xi32>,
    %block_table: memref<?x?xi32>, %kv_seqlen: memref<?xui32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_seqlen' has element type ui32; allowed: i32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%kv_seqlen : memref<?xui32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Descales are f32.
func.func @q_descale_f16(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf16>, %scale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q_descale' has element type f16; allowed: f32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf16>) k_descale(%scale : memref<?x8xf32>)
      v_descale(%scale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @k_descale_bf16(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %k_descale: memref<?x8xbf16>,
    %v_descale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' has element type bf16; allowed: f32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x8xbf16>)
      v_descale(%v_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @v_descale_f64(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %scale: memref<1xf32>, %v_descale: memref<1xf64>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_descale' has element type f64; allowed: f32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%scale : memref<1xf32>) v_descale(%v_descale : memref<1xf64>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @lse_bf16(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>, %lse: memref<?x32xbf16>) {
  // expected-error @+1 {{operand 'lse' has element type bf16; allowed: f32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      lse(%lse : memref<?x32xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Heads, head dims and the page size are static.
func.func @q_dynamic_heads(%q: memref<?x?x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q' must have a static head count Hq (dimension 1), got memref<?x?x128xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x?x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @q_dynamic_head_dim(%q: memref<?x32x?xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q' must have a static head dim D (dimension 2), got memref<?x32x?xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x?xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @k_cache_dynamic_page_nhd(%q: memref<?x32x128xbf16>,
    %k: memref<?x?x8x128xbf16>, %v: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' must have a static page size (dimension 1), got memref<?x?x8x128xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x?x8x128xbf16>)
      v(%v : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @k_cache_dynamic_heads_hnd(%q: memref<?x32x128xbf16>,
    %k: memref<?x?x16x128xbf16>, %v: memref<?x8x16x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' must have a static head count Hkv (dimension 1), got memref<?x?x16x128xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x?x16x128xbf16>)
      v(%v : memref<?x8x16x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<hnd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @k_cache_dynamic_head_dim(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x?xbf16>, %v: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' must have a static head dim D (dimension 3), got memref<?x16x8x?xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x?xbf16>)
      v(%v : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @v_cache_dynamic_page_hnd(%q: memref<?x32x128xbf16>,
    %k: memref<?x8x16x128xbf16>, %v: memref<?x8x?x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_cache' must have a static page size (dimension 2), got memref<?x8x?x128xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x8x16x128xbf16>)
      v(%v : memref<?x8x?x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<hnd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @v_cache_dynamic_heads(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>, %v: memref<?x16x?x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_cache' must have a static head count Hkv (dimension 2), got memref<?x16x?x128xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x?x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @v_cache_dynamic_head_dim(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>, %v: memref<?x16x8x?xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_cache' must have a static head dim Dv (dimension 3), got memref<?x16x8x?xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x?xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @out_dynamic_heads(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x?x128xbf16>) {
  // expected-error @+1 {{operand 'out' must have a static head count Hq (dimension 1), got memref<?x?x128xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x?x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @out_dynamic_head_dim(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x?xbf16>) {
  // expected-error @+1 {{operand 'out' must have a static head dim Dv (dimension 2), got memref<?x32x?xbf16>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x?xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Every operand but the descales has a contiguous innermost dimension.
func.func @q_innermost_stride_2(
    %q: memref<?x32x128xbf16, strided<[8192, 256, 2]>>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q' must have a contiguous innermost dimension (stride 1), got memref<?x32x128xbf16, strided<[8192, 256, 2]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16, strided<[8192, 256, 2]>>)
      k(%kv : memref<?x16x8x128xbf16>) v(%kv : memref<?x16x8x128xbf16>)
      qo_indptr(%idx : memref<?xi32>) kv_indptr(%idx : memref<?xi32>)
      kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// A dynamic innermost stride may not be 1.
func.func @q_innermost_stride_dynamic(
    %q: memref<?x32x128xbf16, strided<[?, ?, ?]>>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q' must have a contiguous innermost dimension (stride 1), got memref<?x32x128xbf16, strided<[?, ?, ?]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16, strided<[?, ?, ?]>>)
      k(%kv : memref<?x16x8x128xbf16>) v(%kv : memref<?x16x8x128xbf16>)
      qo_indptr(%idx : memref<?xi32>) kv_indptr(%idx : memref<?xi32>)
      kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// A non-strided (permuted) layout.
func.func @q_transposed_map(
    %q: memref<?x32x128xbf16, affine_map<(d0, d1, d2) -> (d2, d1, d0)>>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q' must have a contiguous innermost dimension (stride 1), got memref<?x32x128xbf16, affine_map<(d0, d1, d2) -> (d2, d1, d0)>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16, affine_map<(d0, d1, d2) -> (d2, d1, d0)>>)
      k(%kv : memref<?x16x8x128xbf16>) v(%kv : memref<?x16x8x128xbf16>)
      qo_indptr(%idx : memref<?xi32>) kv_indptr(%idx : memref<?xi32>)
      kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @k_cache_innermost_stride(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16, strided<[?, 2048, 256, 2]>>,
    %v: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' must have a contiguous innermost dimension (stride 1), got memref<?x16x8x128xbf16, strided<[?, 2048, 256, 2]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>)
      k(%k : memref<?x16x8x128xbf16, strided<[?, 2048, 256, 2]>>)
      v(%v : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @v_cache_innermost_stride(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>,
    %v: memref<?x16x8x128xbf16, strided<[?, ?, ?, ?]>>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_cache' must have a contiguous innermost dimension (stride 1), got memref<?x16x8x128xbf16, strided<[?, ?, ?, ?]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x128xbf16, strided<[?, ?, ?, ?]>>)
      qo_indptr(%idx : memref<?xi32>) kv_indptr(%idx : memref<?xi32>)
      kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @out_innermost_stride(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16, strided<[4096, 1, 32]>>) {
  // expected-error @+1 {{operand 'out' must have a contiguous innermost dimension (stride 1), got memref<?x32x128xbf16, strided<[4096, 1, 32]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      out(%out : memref<?x32x128xbf16, strided<[4096, 1, 32]>>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @qo_indptr_innermost_stride(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<?xi32, strided<[2]>>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'qo_indptr' must have a contiguous innermost dimension (stride 1), got memref<?xi32, strided<[2]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>)
      qo_indptr(%qo_indptr : memref<?xi32, strided<[2]>>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_indptr_innermost_stride(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %kv_indptr: memref<?xi32, strided<[2]>>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_indptr' must have a contiguous innermost dimension (stride 1), got memref<?xi32, strided<[2]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%kv_indptr : memref<?xi32, strided<[2]>>)
      kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_page_indices_innermost_stride(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %kv_page_indices: memref<?xi32, strided<[?], offset: ?>>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_page_indices' must have a contiguous innermost dimension (stride 1), got memref<?xi32, strided<[?], offset: ?>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>)
      kv_page_indices(%kv_page_indices : memref<?xi32, strided<[?], offset: ?>>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_last_page_len_innermost_stride(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %kv_last_page_len: memref<?xi32, strided<[4]>>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_last_page_len' must have a contiguous innermost dimension (stride 1), got memref<?xi32, strided<[4]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%kv_last_page_len : memref<?xi32, strided<[4]>>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// A column-major block table.
func.func @block_table_innermost_stride(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %block_table: memref<?x?xi32, strided<[1, ?]>>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'block_table' must have a contiguous innermost dimension (stride 1), got memref<?x?xi32, strided<[1, ?]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32, strided<[1, ?]>>)
      kv_seqlen(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_seqlen_innermost_stride(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<?xi32>,
    %block_table: memref<?x?xi32>,
    %kv_seqlen: memref<?xi32, strided<[2], offset: 1>>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_seqlen' must have a contiguous innermost dimension (stride 1), got memref<?xi32, strided<[2], offset: 1>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%kv_seqlen : memref<?xi32, strided<[2], offset: 1>>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// A head-major lse viewed as [total_q, Hq].
func.func @lse_innermost_stride(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>, %lse: memref<?x32xf32, strided<[1, ?]>>) {
  // expected-error @+1 {{operand 'lse' must have a contiguous innermost dimension (stride 1), got memref<?x32xf32, strided<[1, ?]>>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      lse(%lse : memref<?x32xf32, strided<[1, ?]>>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// K and V share one element type.
func.func @k_v_element_mismatch(%q: memref<?x32x128xf8E4M3FNUZ>,
    %k: memref<?x16x8x128xf8E4M3FNUZ>, %v: memref<?x16x8x128xf8E5M2FNUZ>,
    %idx: memref<?xi32>, %q_descale: memref<1xf32>, %scale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operands 'k_cache' and 'v_cache' must share one element type, got f8E4M3FNUZ and f8E5M2FNUZ}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%k : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%v : memref<?x16x8x128xf8E5M2FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>) k_descale(%scale : memref<?x8xf32>)
      v_descale(%scale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @k_v_element_mismatch_16bit(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>, %v: memref<?x16x8x128xf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operands 'k_cache' and 'v_cache' must share one element type, got bf16 and f16}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x128xf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// fp8 Q needs an fp8 MMA, hence fp8 K.
func.func @fp8_q_16bit_kv(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>, %scale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{fp8 operand 'q' (f8E4M3FNUZ) needs an fp8 KV cache, got bf16}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%scale : memref<1xf32>) v_descale(%scale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// 16-bit Q and K share one type.
func.func @q_bf16_k_f16(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{16-bit operands 'q' and 'k_cache' must share one element type, got bf16 and f16}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xf16>)
      v(%kv : memref<?x16x8x128xf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// No MMA mixes the OCP and FNUZ fp8 families.
func.func @fp8_family_fnuz_q_ocp_kv(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FN>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %scale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{fp8 operands must share one family (OCP f8E4M3FN/f8E5M2 or FNUZ f8E4M3FNUZ/f8E5M2FNUZ), got 'q' f8E4M3FNUZ and 'k_cache' f8E4M3FN}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FN>)
      v(%kv : memref<?x16x8x128xf8E4M3FN>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>) k_descale(%scale : memref<?x8xf32>)
      v_descale(%scale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @fp8_family_ocp_q_fnuz_kv(%q: memref<?x32x128xf8E4M3FN>,
    %kv: memref<?x16x8x128xf8E5M2FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %scale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{fp8 operands must share one family (OCP f8E4M3FN/f8E5M2 or FNUZ f8E4M3FNUZ/f8E5M2FNUZ), got 'q' f8E4M3FN and 'k_cache' f8E5M2FNUZ}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FN>) k(%kv : memref<?x16x8x128xf8E5M2FNUZ>)
      v(%kv : memref<?x16x8x128xf8E5M2FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>) k_descale(%scale : memref<?x8xf32>)
      v_descale(%scale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @zero_query_heads(%q: memref<?x0x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x0x128xbf16>) {
  // expected-error @+1 {{head counts and head dims must be >= 1, got Hq = 0, Hkv = 8, D = 128, Dv = 128}}
  fmha.batch_prefill
      q(%q : memref<?x0x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x0x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Hkv = 0 is diagnosed before Hq % Hkv divides by it.
func.func @zero_kv_heads(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x0x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{head counts and head dims must be >= 1, got Hq = 32, Hkv = 0, D = 128, Dv = 128}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x0x128xbf16>)
      v(%kv : memref<?x16x0x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @zero_head_dim(%q: memref<?x32x0xbf16>, %k: memref<?x16x8x0xbf16>,
    %v: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{head counts and head dims must be >= 1, got Hq = 32, Hkv = 8, D = 0, Dv = 128}}
  fmha.batch_prefill
      q(%q : memref<?x32x0xbf16>) k(%k : memref<?x16x8x0xbf16>)
      v(%v : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @zero_value_head_dim(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>, %v: memref<?x16x8x0xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x0xbf16>) {
  // expected-error @+1 {{head counts and head dims must be >= 1, got Hq = 32, Hkv = 8, D = 128, Dv = 0}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x0xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x0xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// GQA needs Hq % Hkv == 0.
func.func @hq_not_multiple_of_hkv(%q: memref<?x12x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x12x128xbf16>) {
  // expected-error @+1 {{query heads must be a multiple of KV heads (Hq % Hkv == 0), got Hq = 12, Hkv = 8}}
  fmha.batch_prefill
      q(%q : memref<?x12x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x12x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @more_kv_heads_than_query_heads(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x64x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{query heads must be a multiple of KV heads (Hq % Hkv == 0), got Hq = 32, Hkv = 64}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x64x128xbf16>)
      v(%kv : memref<?x16x64x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @k_head_dim_mismatch(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x64xbf16>, %v: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' head dim 64 must equal the head dim D = 128 of 'q'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x64xbf16>)
      v(%v : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @v_heads_mismatch(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>, %v: memref<?x16x4x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_cache' has 4 KV heads, 'k_cache' has 8}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x4x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @v_head_dim_mismatch(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>, %v: memref<?x16x8x64xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_cache' head dim 64 must equal the head dim Dv = 128 of 'out'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x16x8x64xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @out_heads_mismatch(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x16x128xbf16>) {
  // expected-error @+1 {{operand 'out' has 16 heads, 'q' has Hq = 32}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x16x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Static token and page counts must agree.
func.func @out_rows_mismatch(%q: memref<40x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<41x32x128xbf16>) {
  // expected-error @+1 {{operand 'out' has 41 rows, 'q' has total_q = 40}}
  fmha.batch_prefill
      q(%q : memref<40x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<41x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @v_pages_mismatch(%q: memref<?x32x128xbf16>,
    %k: memref<12x16x8x128xbf16>, %v: memref<13x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_cache' has 13 pages, 'k_cache' has 12}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<12x16x8x128xbf16>)
      v(%v : memref<13x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @page_size_zero(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_size must be >= 1, got 0}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 0 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Even when the cache agrees.
func.func @page_size_zero_empty_pages(%q: memref<?x32x128xbf16>,
    %kv: memref<?x0x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_size must be >= 1, got 0}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x0x8x128xbf16>)
      v(%kv : memref<?x0x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 0 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @page_size_negative(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_size must be >= 1, got -16}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = -16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @page_size_mismatch(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_size 32 must equal the page dimension of 'k_cache' (16) and 'v_cache' (16)}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 32 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @page_size_mismatch_v(%q: memref<?x32x128xbf16>,
    %k: memref<?x16x8x128xbf16>, %v: memref<?x32x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_size 16 must equal the page dimension of 'k_cache' (16) and 'v_cache' (32)}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%k : memref<?x16x8x128xbf16>)
      v(%v : memref<?x32x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// An HND cache [N_pages, 8, 16, D] labelled nhd reads P = 8, Hkv = 16.
func.func @page_size_hnd_cache_called_nhd(%q: memref<?x32x128xbf16>,
    %kv: memref<?x8x16x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_size 16 must equal the page dimension of 'k_cache' (8) and 'v_cache' (8)}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x8x16x128xbf16>)
      v(%kv : memref<?x8x16x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// qo_indptr has B+1 >= 1 entries.
func.func @qo_indptr_empty(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<0xi32>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'qo_indptr' must have B+1 >= 1 entries, got 0}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<0xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// The operands of the chosen page-table form are present...
func.func @csr_missing_kv_indptr(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_table csr needs operand 'kv_indptr'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @csr_missing_kv_page_indices(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_table csr needs operand 'kv_page_indices'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_last_page_len(%idx : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @csr_missing_kv_last_page_len(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_table csr needs operand 'kv_last_page_len'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @block_table_missing_block_table(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_table block_table needs operand 'block_table'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_seqlen(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @block_table_missing_kv_seqlen(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<?xi32>,
    %block_table: memref<?x?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_table block_table needs operand 'kv_seqlen'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// A vLLM page table with page_table left at csr.
func.func @csr_given_block_table_operands(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %block_table: memref<?x?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{page_table csr needs operand 'kv_indptr'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// ... and those of the other form absent.
func.func @csr_with_block_table(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %block_table: memref<?x?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'block_table' belongs to the other page-table form; page_table is csr}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @csr_with_kv_seqlen(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_seqlen' belongs to the other page-table form; page_table is csr}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) kv_seqlen(%idx : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @block_table_with_kv_indptr(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %block_table: memref<?x?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_indptr' belongs to the other page-table form; page_table is block_table}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @block_table_with_kv_page_indices(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %block_table: memref<?x?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_page_indices' belongs to the other page-table form; page_table is block_table}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_page_indices(%idx : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @block_table_with_kv_last_page_len(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %block_table: memref<?x?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_last_page_len' belongs to the other page-table form; page_table is block_table}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Static batch sizes agree with qo_indptr (B+1 entries).
func.func @kv_indptr_batch_mismatch(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<5xi32>,
    %kv_indptr: memref<4xi32>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_indptr' has 4 entries, expected B+1 = 5 (from 'qo_indptr' of 5 entries)}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<5xi32>)
      kv_indptr(%kv_indptr : memref<4xi32>)
      kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_last_page_len_batch_mismatch(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<5xi32>, %idx_: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_last_page_len' has 5 entries, expected B = 4 (from 'qo_indptr' of 5 entries)}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<5xi32>)
      kv_indptr(%idx_ : memref<?xi32>) kv_page_indices(%idx_ : memref<?xi32>)
      kv_last_page_len(%idx : memref<5xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @block_table_batch_mismatch(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<5xi32>,
    %block_table: memref<5x3xi32>, %kv_seqlen: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'block_table' has 5 entries, expected B = 4 (from 'qo_indptr' of 5 entries)}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<5xi32>)
      block_table(%block_table : memref<5x3xi32>)
      kv_seqlen(%kv_seqlen : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_seqlen_batch_mismatch(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %qo_indptr: memref<5xi32>,
    %block_table: memref<?x?xi32>, %kv_seqlen: memref<3xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'kv_seqlen' has 3 entries, expected B = 4 (from 'qo_indptr' of 5 entries)}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%qo_indptr : memref<5xi32>)
      block_table(%block_table : memref<?x?xi32>)
      kv_seqlen(%kv_seqlen : memref<3xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<block_table>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// quant none takes no descales.
func.func @none_with_q_descale(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode none takes no descales, but 'q_descale' is given}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @none_with_k_descale(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %k_descale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode none takes no descales, but 'k_descale' is given}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      k_descale(%k_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @none_with_v_descale(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %v_descale: memref<1xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode none takes no descales, but 'v_descale' is given}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      v_descale(%v_descale : memref<1xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// quant none is 16-bit only.
func.func @none_with_fp8_q(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode none needs 16-bit q/k/v, but 'q' is f8E4M3FNUZ; fp8 operands need quant per_tensor or kv_blockscale}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @none_with_fp8_kv(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xf8E5M2>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode none needs 16-bit q/k/v, but 'k_cache' is f8E5M2; fp8 operands need quant per_tensor or kv_blockscale}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xf8E5M2>)
      v(%kv : memref<?x16x8x128xf8E5M2>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// per_tensor and kv_blockscale need all three descales.
func.func @per_tensor_missing_q_descale(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %scale: memref<1xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode per_tensor needs operand 'q_descale'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) k_descale(%scale : memref<1xf32>)
      v_descale(%scale : memref<1xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @per_tensor_missing_k_descale(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %scale: memref<1xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode per_tensor needs operand 'k_descale'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      v_descale(%scale : memref<1xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @per_tensor_missing_v_descale(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %scale: memref<1xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode per_tensor needs operand 'v_descale'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%scale : memref<1xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_missing_q_descale(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %scale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode kv_blockscale needs operand 'q_descale'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) k_descale(%scale : memref<?x8xf32>)
      v_descale(%scale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_missing_k_descale(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode kv_blockscale needs operand 'k_descale'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      v_descale(%v_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_missing_v_descale(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %k_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode kv_blockscale needs operand 'v_descale'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// One-element descales.
func.func @per_tensor_q_descale_two_elements(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<2xf32>, %scale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q_descale' must hold one f32 element in quant mode per_tensor, got memref<2xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<2xf32>) k_descale(%scale : memref<1xf32>)
      v_descale(%scale : memref<1xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @per_tensor_q_descale_dynamic(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<?xf32>, %scale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q_descale' must hold one f32 element in quant mode per_tensor, got memref<?xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<?xf32>) k_descale(%scale : memref<1xf32>)
      v_descale(%scale : memref<1xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Per-page descales with quant per_tensor.
func.func @per_tensor_k_descale_per_page(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %scale: memref<1xf32>, %k_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' must hold one f32 element in quant mode per_tensor, got memref<?x8xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%k_descale : memref<?x8xf32>) v_descale(%scale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @per_tensor_v_descale_two_elements(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %scale: memref<1xf32>, %v_descale: memref<1x2xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_descale' must hold one f32 element in quant mode per_tensor, got memref<1x2xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%scale : memref<1xf32>) v_descale(%v_descale : memref<1x2xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @per_tensor_v_descale_empty(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %scale: memref<1xf32>, %v_descale: memref<0xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_descale' must hold one f32 element in quant mode per_tensor, got memref<0xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%scale : memref<1xf32>) v_descale(%v_descale : memref<0xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// 274177 * 67280421310721 = 2^64 + 1: an element count that wraps to 1 in
// int64 is no one-element descale.
func.func @per_tensor_q_descale_wrapping_shape(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<274177x67280421310721xf32>, %scale: memref<1xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q_descale' must hold one f32 element in quant mode per_tensor, got memref<274177x67280421310721xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<274177x67280421310721xf32>)
      k_descale(%scale : memref<1xf32>) v_descale(%scale : memref<1xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<per_tensor>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_q_descale_per_head(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<32xf32>, %scale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'q_descale' must hold one f32 element in quant mode kv_blockscale, got memref<32xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<32xf32>) k_descale(%scale : memref<?x8xf32>)
      v_descale(%scale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// kv_blockscale is for an fp8 KV cache.
func.func @kv_blockscale_bf16_cache(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %scale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode kv_blockscale needs an fp8 KV cache, but 'k_cache' is bf16}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>) k_descale(%scale : memref<?x8xf32>)
      v_descale(%scale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_f16_cache(%q: memref<?x32x128xf16>,
    %kv: memref<?x16x8x128xf16>, %idx: memref<?xi32>, %q_descale: memref<1xf32>,
    %scale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{quant mode kv_blockscale needs an fp8 KV cache, but 'k_cache' is f16}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf16>) k(%kv : memref<?x16x8x128xf16>)
      v(%kv : memref<?x16x8x128xf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>) k_descale(%scale : memref<?x8xf32>)
      v_descale(%scale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// kv_blockscale descales are [N_pages, Hkv].
func.func @kv_blockscale_k_descale_wrong_pages(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<12x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %k_descale: memref<13x8xf32>,
    %v_descale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' must be [N_pages, Hkv] = [12, 8] in quant mode kv_blockscale, got memref<13x8xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>)
      k(%kv : memref<12x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<12x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<13x8xf32>)
      v_descale(%v_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_v_descale_wrong_pages(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<12x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %k_descale: memref<?x8xf32>,
    %v_descale: memref<11x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_descale' must be [N_pages, Hkv] = [12, 8] in quant mode kv_blockscale, got memref<11x8xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>)
      k(%kv : memref<12x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<12x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x8xf32>)
      v_descale(%v_descale : memref<11x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_k_descale_wrong_heads(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %k_descale: memref<?x32xf32>,
    %v_descale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' must be [N_pages, Hkv] = [?, 8] in quant mode kv_blockscale, got memref<?x32xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x32xf32>)
      v_descale(%v_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Hkv is read at the layout's head dimension.
func.func @kv_blockscale_v_descale_wrong_heads_hnd(
    %q: memref<?x32x128xf8E4M3FNUZ>, %kv: memref<?x4x16x128xf8E4M3FNUZ>,
    %idx: memref<?xi32>, %q_descale: memref<1xf32>, %k_descale: memref<?x4xf32>,
    %v_descale: memref<?x16xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'v_descale' must be [N_pages, Hkv] = [?, 4] in quant mode kv_blockscale, got memref<?x16xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x4x16x128xf8E4M3FNUZ>)
      v(%kv : memref<?x4x16x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x4xf32>)
      v_descale(%v_descale : memref<?x16xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<hnd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_k_descale_dynamic_heads(
    %q: memref<?x32x128xf8E4M3FNUZ>, %kv: memref<?x16x8x128xf8E4M3FNUZ>,
    %idx: memref<?xi32>, %q_descale: memref<1xf32>, %k_descale: memref<?x?xf32>,
    %v_descale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' must be [N_pages, Hkv] = [?, 8] in quant mode kv_blockscale, got memref<?x?xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x?xf32>)
      v_descale(%v_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// [Hkv, N_pages] instead of [N_pages, Hkv].
func.func @kv_blockscale_k_descale_transposed(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<12x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %k_descale: memref<8x12xf32>,
    %v_descale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' must be [N_pages, Hkv] = [12, 8] in quant mode kv_blockscale, got memref<8x12xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>)
      k(%kv : memref<12x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<12x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<8x12xf32>)
      v_descale(%v_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_k_descale_rank1(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %k_descale: memref<?xf32>,
    %v_descale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' must be [N_pages, Hkv] = [?, 8] in quant mode kv_blockscale, got memref<?xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?xf32>)
      v_descale(%v_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_k_descale_per_tensor_shape(
    %q: memref<?x32x128xf8E4M3FNUZ>, %kv: memref<?x16x8x128xf8E4M3FNUZ>,
    %idx: memref<?xi32>, %scale: memref<1xf32>, %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' must be [N_pages, Hkv] = [?, 8] in quant mode kv_blockscale, got memref<1xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) q_descale(%scale : memref<1xf32>)
      k_descale(%scale : memref<1xf32>) v_descale(%v_descale : memref<?x8xf32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_blockscale_k_descale_rank0(%q: memref<?x32x128xf8E4M3FNUZ>,
    %kv: memref<?x16x8x128xf8E4M3FNUZ>, %idx: memref<?xi32>,
    %q_descale: memref<1xf32>, %k_descale: memref<f32>,
    %v_descale: memref<?x8xf32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' must be [N_pages, Hkv] = [?, 8] in quant mode kv_blockscale, got memref<f32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>) k_descale(%k_descale : memref<f32>)
      v_descale(%v_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// aiter's [N_pages, Hkv, 2] tensor passed without the [..., 0] view.
func.func @kv_blockscale_k_descale_unsliced_aiter_tensor(
    %q: memref<?x32x128xf8E4M3FNUZ>, %kv: memref<?x16x8x128xf8E4M3FNUZ>,
    %idx: memref<?xi32>, %q_descale: memref<1xf32>,
    %k_descale: memref<?x8x2xf32>, %v_descale: memref<?x8xf32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_descale' must be [N_pages, Hkv] = [?, 8] in quant mode kv_blockscale, got memref<?x8x2xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xf8E4M3FNUZ>) k(%kv : memref<?x16x8x128xf8E4M3FNUZ>)
      v(%kv : memref<?x16x8x128xf8E4M3FNUZ>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      q_descale(%q_descale : memref<1xf32>)
      k_descale(%k_descale : memref<?x8x2xf32>)
      v_descale(%v_descale : memref<?x8xf32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// lse is [total_q, Hq].
func.func @lse_wrong_heads(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>, %lse: memref<?x16xf32>) {
  // expected-error @+1 {{operand 'lse' must be [total_q, Hq] = [?, 32], got memref<?x16xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      lse(%lse : memref<?x16xf32>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @lse_dynamic_heads(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>, %lse: memref<?x?xf32>) {
  // expected-error @+1 {{operand 'lse' must be [total_q, Hq] = [?, 32], got memref<?x?xf32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      lse(%lse : memref<?x?xf32>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @lse_wrong_rows(%q: memref<40x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<40x32x128xbf16>, %lse: memref<41x32xf32>) {
  // expected-error @+1 {{operand 'lse' must be [total_q, Hq] = [40, 32], got memref<41x32xf32>}}
  fmha.batch_prefill
      q(%q : memref<40x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<40x32x128xbf16>)
      lse(%lse : memref<41x32xf32>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Head-major [Hq, total_q] lse.
func.func @lse_transposed(%q: memref<40x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<40x32x128xbf16>, %lse: memref<32x40xf32>) {
  // expected-error @+1 {{operand 'lse' must be [total_q, Hq] = [40, 32], got memref<32x40xf32>}}
  fmha.batch_prefill
      q(%q : memref<40x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<40x32x128xbf16>)
      lse(%lse : memref<32x40xf32>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// sm_scale is finite and > 0.
func.func @sm_scale_zero(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{sm_scale must be finite and > 0, got 0.000000e+00}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       sm_scale = 0.0 : f32,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @sm_scale_negative(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{sm_scale must be finite and > 0, got -1.250000e-01}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       sm_scale = -0.125 : f32,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @sm_scale_nan(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{sm_scale must be finite and > 0, got nan}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       sm_scale = 0x7FC00000 : f32,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @sm_scale_inf(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{sm_scale must be finite and > 0, got}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       sm_scale = 0x7F800000 : f32,
       mask = #fmha.mask<causal>}
  return
}

// -----

// soft_cap is finite and >= 0 (0 = no cap).
func.func @soft_cap_negative(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{soft_cap must be finite and >= 0 (0 = no cap), got -3.000000e+01}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       soft_cap = -30.0 : f32,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @soft_cap_nan(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{soft_cap must be finite and >= 0 (0 = no cap), got nan}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       soft_cap = 0x7FC00000 : f32,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @soft_cap_inf(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{soft_cap must be finite and >= 0 (0 = no cap), got}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       soft_cap = 0x7F800000 : f32,
       mask = #fmha.mask<causal>}
  return
}

// -----

// sm_scale and soft_cap are f32 attributes.
func.func @sm_scale_f64(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      // expected-error @+1 {{attribute 'sm_scale' failed to satisfy constraint: 32-bit float attribute}}
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       sm_scale = 0.125 : f64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @missing_page_size(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{requires attribute 'page_size'}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>,
       mask = #fmha.mask<causal>}
  return
}

// -----

// #fmha.mask: a known kind...
func.func @mask_kind_unknown(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       // expected-error @+1 {{unknown mask kind 'sliding'; expected none, causal or window}}
       mask = #fmha.mask<sliding>}
  return
}

// -----

// ... bounds on window only...
func.func @mask_causal_with_bounds(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       // expected-error @+1 {{mask 'causal' takes no bounds; only 'window' has left/right}}
       mask = #fmha.mask<causal, left = 0>}
  return
}

// -----

func.func @mask_none_with_bounds(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       // expected-error @+1 {{mask 'none' takes no bounds; only 'window' has left/right}}
       mask = #fmha.mask<none, right = -1>}
  return
}

// -----

// ... each >= -1 (-1 = unbounded)...
func.func @mask_window_left_below_minus_one(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       // expected-error @+1 {{window bound 'left' must be >= -1 (-1 means unbounded), got -2}}
       mask = #fmha.mask<window, left = -2, right = 0>}
  return
}

// -----

func.func @mask_window_right_below_minus_one(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       // expected-error @+1 {{window bound 'right' must be >= -1 (-1 means unbounded), got -128}}
       mask = #fmha.mask<window, right = -128>}
  return
}

// -----

// ... given once each...
func.func @mask_window_duplicate_key(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       // expected-error @+1 {{expected 'left' or 'right' once each, got 'left'}}
       mask = #fmha.mask<window, left = 4, left = 8>}
  return
}

// -----

// ... and named left or right.
func.func @mask_window_unknown_key(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       // expected-error @+1 {{expected 'left' or 'right' once each, got 'size'}}
       mask = #fmha.mask<window, size = 8>}
  return
}

// -----

// Enum attributes name a known case.
func.func @quant_mode_unknown(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      // expected-error @+2 {{expected ::mlir::fmha::QuantMode to be one of: none, per_tensor, kv_blockscale}}
      // expected-error @+1 {{failed to parse Fmha_QuantModeAttr parameter 'value'}}
      {quant = #fmha.quant<per_head>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

func.func @kv_layout_unknown(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      // expected-error @+3 {{expected ::mlir::fmha::KVLayout to be one of: nhd, hnd}}
      // expected-error @+2 {{failed to parse Fmha_KVLayoutAttr parameter 'value'}}
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<bhsd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// Run-time scalars are a memref<4xi32>.
func.func @runtime_scalars_wrong_type(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>, %rs: memref<2xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'runtime_scalars' must be memref<4xi32> (sm_scale as f32 bits, window left, window right, soft cap as f32 bits), got memref<2xi32>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) runtime_scalars(%rs : memref<2xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// With run-time scalars the scale is not also an attribute.
func.func @runtime_scalars_and_sm_scale(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>, %rs: memref<4xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{sm_scale comes from runtime_scalars[0] here: drop the sm_scale attribute}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) runtime_scalars(%rs : memref<4xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>, sm_scale = 0.5 : f32}
  return
}

// -----

// With run-time scalars a window's bounds are the buffer's, not the mask's.
func.func @runtime_scalars_window_bounds(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>, %rs: memref<4xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{a window's bounds come from runtime_scalars[1..2] here: write the mask #fmha.mask<window, left = -1, right = -1>}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) runtime_scalars(%rs : memref<4xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<window, left = 24, right = 0>}
  return
}

// -----

// A run-time soft cap is read from runtime_scalars[3]: the op needs the buffer.
func.func @runtime_soft_cap_without_scalars(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{runtime_soft_cap reads the cap from runtime_scalars[3]: the op needs the runtime_scalars operand}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>, runtime_soft_cap}
  return
}

// -----

// A run-time soft cap is not also an attribute.
func.func @runtime_soft_cap_and_soft_cap(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>, %rs: memref<4xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{the soft cap comes from runtime_scalars[3] here (runtime_soft_cap): drop the soft_cap attribute}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) runtime_scalars(%rs : memref<4xi32>)
      out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>, soft_cap = 30.0 : f32, runtime_soft_cap}
  return
}

// -----

// fmha.mask_tile takes no window operands or two.
func.func @mask_tile_one_bound(%s: vector<4x8xf32>, %i: index) -> vector<4x8xf32> {
  // expected-error @+1 {{takes no window operands or two (left, right), got 1}}
  %m = fmha.mask_tile %s rows(%i) keys(%i) len(%i) window(%i) {mask = #fmha.mask<window, left = -1, right = -1>} : vector<4x8xf32>
  return %m : vector<4x8xf32>
}

// -----

// Run-time window bounds need a window mask.
func.func @mask_tile_bounds_causal(%s: vector<4x8xf32>, %i: index) -> vector<4x8xf32> {
  // expected-error @+1 {{window operands need a window mask, got #fmha.mask<causal>}}
  %m = fmha.mask_tile %s rows(%i) keys(%i) len(%i) window(%i, %i) {mask = #fmha.mask<causal>} : vector<4x8xf32>
  return %m : vector<4x8xf32>
}

// -----

// K / V strides (a combined cache's view, --kv-strided): static strides must
// not overlap. Token stride 256 bf16 elements < the 8 x 128 of the heads.
func.func @kv_strides_overlap(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16, strided<[32768, 256, 128, 1]>>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' strides overlap: a stride of 256 is less than the 1024 elements the dimensions below it span}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16, strided<[32768, 256, 128, 1]>>)
      v(%kv : memref<?x16x8x128xbf16, strided<[32768, 256, 128, 1]>>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}

// -----

// A static stride that is not a multiple of 16 bytes (1028 bf16 = 2056 bytes).
func.func @kv_strides_misaligned(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16, strided<[?, 1028, 128, 1], offset: ?>>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  // expected-error @+1 {{operand 'k_cache' strides must be > 0 and multiples of 16 bytes (the kernels read 16-byte chunks)}}
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16, strided<[?, 1028, 128, 1], offset: ?>>)
      v(%kv : memref<?x16x8x128xbf16, strided<[?, 1028, 128, 1], offset: ?>>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, page_table = #fmha.page_table<csr>,
       kv_layout = #fmha.kv_layout<nhd>, page_size = 16 : i64,
       mask = #fmha.mask<causal>}
  return
}
