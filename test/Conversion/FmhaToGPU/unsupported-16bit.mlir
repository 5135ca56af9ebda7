// The GPU lowering's MMAs take fp8 K/V caches only. A 16-bit request is
// outlined, then refused on the kernel before the lane lowering rewrites
// anything: every chip the same way (the error used to be emitted on the
// erased grid on gfx942 and crash while printing it).
// RUN: fmha-opt %s --fmha-select-config=chip=gfx942 --fmha-tile --fmha-outline-kernel=chip=gfx942 --convert-fmha-to-gpu=chip=gfx942 -verify-diagnostics -split-input-file
// RUN: not fmha-opt %s --fmha-select-config=chip=gfx950 --fmha-tile --fmha-outline-kernel=chip=gfx950 --convert-fmha-to-gpu=chip=gfx950 -split-input-file 2>&1 | FileCheck %s --check-prefix=GFX950
// RUN: not fmha-opt %s --fmha-select-config=chip=sm_90 --fmha-tile --fmha-outline-kernel=chip=sm_90 --convert-fmha-to-gpu=chip=sm_90 -split-input-file 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not fmha-opt %s --fmha-to-rocdl-pipeline=chip=gfx942 -split-input-file 2>&1 | FileCheck %s --check-prefix=PIPE

// GFX950: 'gpu.func' op convert-fmha-to-gpu (gfx950): the GPU lowering takes fp8 K/V caches only, not 'bf16'
// GFX950-NOT: gpu.module
// GFX950: 'gpu.func' op convert-fmha-to-gpu (gfx950): the GPU lowering takes fp8 K/V caches only, not 'f16'
// SM90: 'gpu.func' op convert-fmha-to-gpu (sm_90): the GPU lowering takes fp8 K/V caches only, not 'bf16'
// SM90-NOT: gpu.module
// SM90: 'gpu.func' op convert-fmha-to-gpu (sm_90): the GPU lowering takes fp8 K/V caches only, not 'f16'
// PIPE: 'gpu.func' op convert-fmha-to-gpu (gfx942): the GPU lowering takes fp8 K/V caches only, not 'bf16'
// PIPE-NOT: PLEASE submit a bug report
// PIPE: 'gpu.func' op convert-fmha-to-gpu (gfx942): the GPU lowering takes fp8 K/V caches only, not 'f16'
// PIPE-NOT: PLEASE submit a bug report

func.func @negative_bf16(
    %q: memref<?x8x128xbf16>, %k: memref<?x16x2x128xbf16>,
    %v: memref<?x16x2x128xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{convert-fmha-to-gpu (gfx942): the GPU lowering takes fp8 K/V caches only, not 'bf16'}}
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x16x2x128xbf16>) v(%v : memref<?x16x2x128xbf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// -----

func.func @negative_f16(
    %q: memref<?x8x128xf16>, %k: memref<?x16x2x128xf16>,
    %v: memref<?x16x2x128xf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x128xf32>) {
  // expected-error @+1 {{convert-fmha-to-gpu (gfx942): the GPU lowering takes fp8 K/V caches only, not 'f16'}}
  fmha.batch_prefill q(%q : memref<?x8x128xf16>)
      k(%k : memref<?x16x2x128xf16>) v(%v : memref<?x16x2x128xf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
