// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile --fmha-fold-descales --canonicalize | FileCheck %s

// One page per tile (1024 % 32 == 0): sigma = qd * sm_scale * log2(e) once
// before the loop; in the loop no multiply of S by a descale survives: the row
// max is scaled by kd per row and the exp2 argument takes sigma * kd.
// CHECK-LABEL: func @kv_blockscale_page1024
// CHECK: %[[QD:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xf32>
// CHECK: %[[SCALE:.*]] = arith.mulf %[[QD]], %{{.*}} : f32
// CHECK: %[[SIGMA:.*]] = arith.mulf %[[SCALE]], %{{.*}} : f32
// CHECK: scf.for
// CHECK: %[[S:.*]] = fmha.tile_mma {{.*}} {transpose_rhs}
// CHECK-NOT: arith.mulf %[[S]]
// CHECK: %[[KD:.*]] = fmha.gather_descale {{.*}} -> f32
// CHECK: %[[SIGMAT:.*]] = arith.mulf %[[SIGMA]], %[[KD]] : f32
// CHECK: %[[MASKED:.*]] = fmha.mask_tile %[[S]] rows({{.*}} : vector<16x32xf32>
// CHECK: %[[RMAX:.*]] = vector.multi_reduction <maximumf>, %[[MASKED]]
// CHECK: %[[KDROW:.*]] = vector.broadcast %[[KD]] : f32 to vector<16xf32>
// CHECK: arith.mulf %[[RMAX]], %[[KDROW]] : vector<16xf32>
// CHECK: %[[ST:.*]] = vector.broadcast %[[SIGMAT]] : f32 to vector<16x32xf32>
// CHECK: arith.mulf %[[MASKED]], %[[ST]] : vector<16x32xf32>
// CHECK: math.exp2 %{{.*}} : vector<16x32xf32>
// CHECK: math.exp2 %{{.*}} : vector<16xf32>
// CHECK-NOT: math.exp %
// CHECK: } {fmha.descales_folded, fmha.kv_loop}
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

// Pages of 16 tokens: kd stays per column (one multiply per element), but the
// qd * sm_scale multiply is gone and lse is rescaled by ln2 * sigma.
// CHECK-LABEL: func @kv_blockscale_page16_lse
// CHECK: %[[QD:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xf32>
// CHECK: %[[SCALE:.*]] = arith.mulf %[[QD]], %{{.*}} : f32
// CHECK: %[[SIGMA:.*]] = arith.mulf %[[SCALE]], %{{.*}} : f32
// CHECK: %[[SIGMALN2:.*]] = arith.mulf %[[SIGMA]], %{{.*}} : f32
// CHECK: %[[R:.*]]:3 = scf.for
// CHECK: %[[S:.*]] = fmha.tile_mma {{.*}} {transpose_rhs}
// CHECK: %[[KD:.*]] = fmha.gather_descale {{.*}} -> vector<32xf32>
// CHECK: %[[KDT:.*]] = vector.broadcast %[[KD]] : vector<32xf32> to vector<16x32xf32>
// CHECK: arith.mulf %[[S]], %[[KDT]] : vector<16x32xf32>
// CHECK: math.exp2
// CHECK: } {fmha.descales_folded, fmha.kv_loop}
// CHECK: %[[LOG:.*]] = math.log %[[R]]#1
// CHECK: %[[B:.*]] = vector.broadcast %[[SIGMALN2]] : f32 to vector<16xf32>
// CHECK: %[[MS:.*]] = arith.mulf %[[R]]#0, %[[B]] : vector<16xf32>
// CHECK: arith.addf %[[MS]], %[[LOG]]
func.func @kv_blockscale_page16_lse(
    %q: memref<?x8x64xf8E4M3FN>, %k: memref<?x16x2x64xf8E4M3FN>,
    %v: memref<?x16x2x64xf8E4M3FN>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x64xbf16>,
    %lse: memref<?x8xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x64xf8E4M3FN>)
      k(%k : memref<?x16x2x64xf8E4M3FN>) v(%v : memref<?x16x2x64xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) out(%o : memref<?x8x64xbf16>)
      lse(%lse : memref<?x8xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// -----

// A soft cap: cap * tanh(S * scale * kd / cap) becomes tanh(S * c) with
// c = (qd * sm_scale / cap) * kd, one multiply per element, and the cap moves
// into sigma = cap * log2(e) = 43.28 (the softmax runs on t = tanh(...)).
// CHECK-LABEL: func @soft_cap_folds_scale_and_cap
// CHECK-DAG: %[[SIG:.*]] = arith.constant dense<43.28{{[0-9]*}}> : vector<16x32xf32>
// CHECK-DAG: %[[INV:.*]] = arith.constant 0.0333333{{[0-9]*}} : f32
// CHECK: %[[PRE:.*]] = arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK: scf.for
// CHECK: %[[S:.*]] = fmha.tile_mma {{.*}} {transpose_rhs}
// CHECK: %[[KD:.*]] = fmha.gather_descale
// CHECK: %[[C:.*]] = arith.mulf %[[PRE]], %[[KD]] : f32
// CHECK: %[[CB:.*]] = vector.broadcast %[[C]]
// CHECK: %[[X:.*]] = arith.mulf %[[S]], %[[CB]] : vector<16x32xf32>
// CHECK: %[[T:.*]] = math.tanh %[[X]]
// CHECK-NOT: arith.mulf %[[T]]
// CHECK: arith.mulf %{{.*}}, %[[SIG]] : vector<16x32xf32>
// CHECK: math.exp2
func.func @soft_cap_folds_scale_and_cap(
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
       page_size = 1024 : i64, soft_cap = 30.0 : f32}
  return
}

// -----

// A soft cap with pages smaller than the tile (kd per column): S * (scale /
// cap), then kd per column, then tanh; no multiply by the cap after tanh.
// CHECK-LABEL: func @soft_cap_per_column_kd
// CHECK-DAG: %[[INV:.*]] = arith.constant 0.0333333{{[0-9]*}} : f32
// CHECK: %[[PRE:.*]] = arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK: scf.for
// CHECK: %[[S:.*]] = fmha.tile_mma {{.*}} {transpose_rhs}
// CHECK: %[[PREB:.*]] = vector.broadcast %[[PRE]] : f32 to vector<16x32xf32>
// CHECK: %[[X:.*]] = arith.mulf %[[S]], %[[PREB]] : vector<16x32xf32>
// CHECK: %[[XK:.*]] = arith.mulf %[[X]], %{{.*}} : vector<16x32xf32>
// CHECK: %[[T:.*]] = math.tanh %[[XK]]
// CHECK-NOT: arith.mulf %[[T]]
// CHECK: math.exp2
func.func @soft_cap_per_column_kd(
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
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64, soft_cap = 30.0 : f32}
  return
}

// -----

// Loops fmha-tile did not write are left alone.
// CHECK-LABEL: func @negative_unmarked_loop
// CHECK: math.exp
// CHECK-NOT: math.exp2
func.func @negative_unmarked_loop(%x: vector<4xf32>, %n: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (vector<4xf32>) {
    %d = arith.subf %a, %x : vector<4xf32>
    %e = math.exp %d : vector<4xf32>
    scf.yield %e : vector<4xf32>
  }
  return %r : vector<4xf32>
}
