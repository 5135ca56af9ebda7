// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-fold-vd-rescale --canonicalize | FileCheck %s

// One vd per tile: P x V accumulates into o' = o / vd through the product's
// acc operand, scaled by beta = alpha * vd_prev / vd; vd_prev is carried and
// the epilogue multiplies by the last tile's vd once.
// CHECK-LABEL: func @kv_blockscale_page1024
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[R:.*]]:4 = scf.for {{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[O:.*]] = %{{.*}}, %[[VDP:.*]] = %[[ONE]]) -> (vector<16xf32>, vector<16xf32>, vector<16x64xf32>, f32)
// CHECK: %[[VD:.*]] = fmha.gather_descale %arg9{{.*}} -> f32
// CHECK: %[[RATIO:.*]] = arith.divf %[[VDP]], %[[VD]] : f32
// CHECK: %[[RB:.*]] = vector.broadcast %[[RATIO]] : f32 to vector<16xf32>
// CHECK: %[[BETA:.*]] = arith.mulf %{{.*}}, %[[RB]] : vector<16xf32>
// CHECK: %[[BC:.*]] = vector.shape_cast %[[BETA]]
// CHECK: %[[BB:.*]] = vector.broadcast %[[BC]] : vector<16x1xf32> to vector<16x64xf32>
// CHECK: %[[ACC:.*]] = arith.mulf %[[BB]], %[[O]] : vector<16x64xf32>
// CHECK: %[[PV:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %[[ACC]] : vector<16x32xf8E4M3FN>
// CHECK-NOT: arith.addf {{.*}} vector<16x64xf32>
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[PV]], %[[VD]]
// CHECK: %[[VDL:.*]] = vector.broadcast %[[R]]#3 : f32 to vector<16x64xf32>
// CHECK: arith.mulf %[[R]]#2, %[[VDL]] : vector<16x64xf32>
func.func @kv_blockscale_page1024(
    %q: memref<?x8x64xf8E4M3FN>, %k: memref<?x1024x2x64xf8E4M3FN>,
    %v: memref<?x1024x2x64xf8E4M3FN>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x64xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x64xf8E4M3FN>)
      k(%k : memref<?x1024x2x64xf8E4M3FN>) v(%v : memref<?x1024x2x64xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) out(%o : memref<?x8x64xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1024 : i64}
  return
}

// -----

// vd per V row (pages smaller than the tile) rides on k_scale: untouched.
// CHECK-LABEL: func @negative_page16_vd_per_row
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16x64xf32>)
// CHECK: fmha.tile_mma {{.*}} k_scale(
// CHECK: arith.addf {{.*}} : vector<16x64xf32>
func.func @negative_page16_vd_per_row(
    %q: memref<?x8x64xf8E4M3FN>, %k: memref<?x16x2x64xf8E4M3FN>,
    %v: memref<?x16x2x64xf8E4M3FN>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x64xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x64xf8E4M3FN>)
      k(%k : memref<?x16x2x64xf8E4M3FN>) v(%v : memref<?x16x2x64xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) out(%o : memref<?x8x64xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// -----

// No vd at all (quant none): nothing to fold.
// CHECK-LABEL: func @negative_none_no_vd
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16x64xf32>)
// CHECK-NOT: arith.divf {{.*}} : f32
func.func @negative_none_no_vd(
    %q: memref<?x8x64xbf16>, %k: memref<?x16x2x64xbf16>,
    %v: memref<?x16x2x64xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x64xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x64xbf16>)
      k(%k : memref<?x16x2x64xbf16>) v(%v : memref<?x16x2x64xbf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x64xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
