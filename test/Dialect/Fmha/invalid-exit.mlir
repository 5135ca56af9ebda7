// An invalid request makes fmha-opt exit with status 1 (an error, not a crash,
// which would be 128 + the signal) and the verifier's or the parser's message,
// and leaves the output file as it was: the stale one stays, and the printed
// form of the valid chunk before the bad ones is not written (fmha-opt writes
// -o to a temporary, renamed onto it only on success; issue 18).
// (`not` is not on this lit config's PATH, hence the explicit status check.)
// RUN: echo stale > %t.out
// RUN: fmha-opt %s -split-input-file -o %t.out > %t.split.log 2>&1; test $? -eq 1
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t.split.log \
// RUN:   --implicit-check-not="Stack dump"
// RUN: grep -x stale %t.out
// RUN: echo stale > %t.out
// RUN: fmha-opt %s -o %t.out > %t.whole.log 2>&1; test $? -eq 1
// RUN: FileCheck %s --check-prefix=WHOLE --input-file=%t.whole.log \
// RUN:   --implicit-check-not="Stack dump"
// RUN: grep -x stale %t.out

func.func @valid(%q: memref<?x32x128xbf16>, %kv: memref<?x16x8x128xbf16>,
    %idx: memref<?xi32>, %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// -----

// A verifier error (only reached with -split-input-file: without it the
// parse error below stops the whole file first).
// SPLIT: invalid-exit.mlir:[[# @LINE + 5]]:3: error: 'fmha.batch_prefill' op query heads must be a multiple of KV heads (Hq % Hkv == 0), got Hq = 12, Hkv = 8
// WHOLE-NOT: query heads must be a multiple
func.func @hq_not_multiple_of_hkv(%q: memref<?x12x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x12x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x12x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x12x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// -----

// A parse error in an attribute.
// SPLIT: invalid-exit.mlir:[[# @LINE + 10]]:53: error: unknown mask kind 'diagonal'; expected none, causal or window
// WHOLE: invalid-exit.mlir:[[# @LINE + 9]]:53: error: unknown mask kind 'diagonal'; expected none, causal or window
func.func @unknown_mask(%q: memref<?x32x128xbf16>,
    %kv: memref<?x16x8x128xbf16>, %idx: memref<?xi32>,
    %out: memref<?x32x128xbf16>) {
  fmha.batch_prefill
      q(%q : memref<?x32x128xbf16>) k(%kv : memref<?x16x8x128xbf16>)
      v(%kv : memref<?x16x8x128xbf16>) qo_indptr(%idx : memref<?xi32>)
      kv_indptr(%idx : memref<?xi32>) kv_page_indices(%idx : memref<?xi32>)
      kv_last_page_len(%idx : memref<?xi32>) out(%out : memref<?x32x128xbf16>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<diagonal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
