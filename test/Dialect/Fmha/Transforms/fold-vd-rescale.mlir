// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --fmha-fold-vd-rescale --canonicalize | FileCheck %s
// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile --fmha-prefetch-page-ids --fmha-fold-vd-rescale | FileCheck %s --check-prefix=PREFETCH
// RUN: fmha-opt %s --split-input-file --fmha-fold-vd-rescale | FileCheck %s --check-prefix=RAW
// A KV loop the pass does not recognise is left exactly as it was:
// RUN: fmha-opt %s --split-input-file --fmha-fold-vd-rescale > %t.folded
// RUN: fmha-opt %s --split-input-file > %t.plain
// RUN: not diff -u -F 'func.func @' %t.plain %t.folded > %t.diff
// RUN: FileCheck %s --check-prefix=DIFF --input-file %t.diff

// One vd per tile: P x V accumulates into o' = o / vd through the product's
// acc operand, scaled by beta = alpha * vd_prev / vd; vd_prev is carried and
// the epilogue multiplies by the last tile's vd once.
// CHECK-LABEL: func @kv_blockscale_page1024
// After fmha-prefetch-page-ids the tile's vd is an iter arg of the loop (it
// was loaded one iteration ahead); the fold finds it in the new loop (this
// used to use the erased loop's argument and crash).
// PREFETCH-LABEL: func @kv_blockscale_page1024
// PREFETCH: %[[R:.*]]:7 = scf.for {{.*}} iter_args({{.*}}, %[[O:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[VD:.*]] = %{{.*}}, %[[VDP:.*]] = %{{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16x64xf32>, i32, f32, f32, f32)
// PREFETCH: arith.divf %[[VDP]], %[[VD]] : f32
// PREFETCH: %[[PV:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %{{.*}} : vector<16x32xf8E4M3FN>, {{.*}} -> vector<16x64xf32>
// PREFETCH: scf.yield %{{.*}}, %{{.*}}, %[[PV]], %{{.*}}, %{{.*}}, %{{.*}}, %[[VD]] :
// PREFETCH: vector.broadcast %[[R]]#6 : f32 to vector<16x64xf32>
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

// vd per V row (pages smaller than the tile) rides on k_scale: o is kept
// in units of c, the vd of the tile's first key (its page's descale, read
// through the tile start's uniform page id), the row scales become vd / c
// (exactly 1 on the first page: fmha.unit_first_page), and the product
// accumulates into beta * o' with beta = alpha * c_prev / c; c is carried
// and the epilogue multiplies by the last one.
// CHECK-LABEL: func @page16_vd_per_row
// CHECK: scf.for %[[T:.*]] = {{.*}} iter_args({{.*}}, %[[O:[a-z0-9_]+]] = %{{.*}}, %[[CPREV:[a-z0-9_]+]] = %cst{{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16x64xf32>, f32)
// CHECK: %[[START:.*]] = arith.muli %[[T]], %c32 : index
// CHECK: %[[IDS:.*]] = fmha.page_ids %[[PAGES:.*]][%[[START]]] {{.*}} -> vector<32xi32>
// CHECK: fmha.gather_descale %{{.*}}[%[[IDS]]] head(%{{.*}}) : memref<?x2xf32>, vector<32xi32> -> vector<32xf32>
// CHECK: %[[VD:.*]] = fmha.gather_descale %[[VDS:[a-z0-9]+]][%[[IDS]]] head(%[[H:.*]]) : memref<?x2xf32>, vector<32xi32> -> vector<32xf32>
// CHECK: %[[ID0:.*]] = fmha.page_ids %[[PAGES]][%[[START]]] {{.*}} -> i32
// CHECK: %[[C:.*]] = fmha.gather_descale %[[VDS]][%[[ID0]]] head(%[[H]]) : memref<?x2xf32>, i32 -> f32
// CHECK: %[[R:.*]] = arith.divf %[[CPREV]], %[[C]] : f32
// CHECK: %[[CV:.*]] = vector.broadcast %[[C]] : f32 to vector<32xf32>
// CHECK: %[[KS:.*]] = arith.divf %[[VD]], %[[CV]] : vector<32xf32>
// CHECK: %[[O2:.*]] = fmha.tile_mma %{{.*}}, %{{.*}}, %{{.*}} k_scale(%[[KS]] : vector<32xf32>) {fmha.unit_first_page}
// CHECK-NOT: arith.addf {{.*}} : vector<16x64xf32>
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[O2]], %[[C]] :
// CHECK: %[[FIX:.*]] = vector.broadcast %{{.*}}#3 : f32 to vector<16x64xf32>
// CHECK: arith.mulf %{{.*}}#2, %[[FIX]] : vector<16x64xf32>
func.func @page16_vd_per_row(
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

// -----

// Hand-written KV loops. The first four are not the loop fmha-tile writes
// and are left alone (the diff: the only difference the pass makes in this file
// is in @raw_fold, the form it does recognise).
// (diff -F names the function of each changed hunk after its @@.)
// DIFF-NOT: @@ {{.*}}@negative_
// DIFF: @@ {{.*}}func.func @raw_fold
// DIFF-NOT: @@ {{.*}}@negative_

// One iter arg (o would be the third): used to read past the yield's operands.
// CHECK-LABEL: func @negative_one_iter_arg
// RAW-LABEL: func @negative_one_iter_arg
// RAW: scf.for {{.*}} -> (f32) {
// RAW-NOT: arith.divf
// RAW: } {fmha.kv_loop}
func.func @negative_one_iter_arg(%pages: memref<?xi32>, %sk: index, %bn: index,
                                 %lo: index, %hi: index) -> f32 {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r0 = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f32) {
    %t0 = arith.muli %t, %bn : index
    %id = fmha.page_ids %pages[%t0] len(%sk) {page_size = 64 : i64} : memref<?xi32> -> i32
    %f = arith.sitofp %id : i32 to f32
    %s = arith.addf %acc, %f : f32
    scf.yield %s : f32
  } {fmha.kv_loop}
  return %r0 : f32
}

// -----

// The third iter arg is a scalar, not the o tile.
// RAW-LABEL: func @negative_o_not_tile
// RAW: scf.for {{.*}} -> (f32, f32, f32) {
// RAW-NOT: arith.divf
// RAW: } {fmha.kv_loop}
func.func @negative_o_not_tile(%x: f32, %lo: index, %hi: index) -> f32 {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r:3 = scf.for %t = %lo to %hi step %c1
      iter_args(%a = %zero, %b = %zero, %o = %zero) -> (f32, f32, f32) {
    %m = arith.mulf %o, %x : f32
    %s = arith.addf %m, %x : f32
    scf.yield %a, %b, %s : f32, f32, f32
  } {fmha.kv_loop}
  return %r#2 : f32
}

// -----

// o is not updated by an addf.
// RAW-LABEL: func @negative_update_not_addf
// RAW: scf.for
// RAW-NOT: arith.divf
// RAW: } {fmha.kv_loop}
func.func @negative_update_not_addf(%p: vector<16x32xf8E4M3FN>, %v: vector<32x64xf8E4M3FN>,
                                    %lo: index, %hi: index) -> vector<16x64xf32> {
  %c1 = arith.constant 1 : index
  %zr = arith.constant dense<0.0> : vector<16xf32>
  %zo = arith.constant dense<0.0> : vector<16x64xf32>
  %r:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %zr, %l = %zr, %o = %zo)
      -> (vector<16xf32>, vector<16xf32>, vector<16x64xf32>) {
    %u = fmha.tile_mma %p, %v, %o : vector<16x32xf8E4M3FN>, vector<32x64xf8E4M3FN> -> vector<16x64xf32>
    scf.yield %m, %l, %u : vector<16xf32>, vector<16xf32>, vector<16x64xf32>
  } {fmha.kv_loop}
  return %r#2 : vector<16x64xf32>
}

// -----

// alpha is computed after the product: beta could not be formed where the
// product is (the fold used to write a use before the def).
// RAW-LABEL: func @negative_alpha_after_pv
// RAW: scf.for
// RAW-NOT: arith.divf
// RAW: arith.addf {{.*}} : vector<16x64xf32>
// RAW: } {fmha.kv_loop}
func.func @negative_alpha_after_pv(%p: vector<16x32xf8E4M3FN>, %v: vector<32x64xf8E4M3FN>,
                                   %vd: f32, %a: vector<16xf32>,
                                   %lo: index, %hi: index) -> vector<16x64xf32> {
  %c1 = arith.constant 1 : index
  %zr = arith.constant dense<0.0> : vector<16xf32>
  %zo = arith.constant dense<0.0> : vector<16x64xf32>
  %r:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %zr, %l = %zr, %o = %zo)
      -> (vector<16xf32>, vector<16xf32>, vector<16x64xf32>) {
    %u = fmha.tile_mma %p, %v, %zo : vector<16x32xf8E4M3FN>, vector<32x64xf8E4M3FN> -> vector<16x64xf32>
    %vds = vector.broadcast %vd : f32 to vector<16x64xf32>
    %uv = arith.mulf %u, %vds : vector<16x64xf32>
    %alpha = arith.addf %m, %a : vector<16xf32>
    %ac = vector.shape_cast %alpha : vector<16xf32> to vector<16x1xf32>
    %ab = vector.broadcast %ac : vector<16x1xf32> to vector<16x64xf32>
    %ao = arith.mulf %ab, %o : vector<16x64xf32>
    %o2 = arith.addf %ao, %uv : vector<16x64xf32>
    scf.yield %alpha, %l, %o2 : vector<16xf32>, vector<16xf32>, vector<16x64xf32>
  } {fmha.kv_loop}
  return %r#2 : vector<16x64xf32>
}

// -----

// The same loop with alpha before the product is folded.
// RAW-LABEL: func @raw_fold
// RAW: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16x64xf32>, f32)
// RAW: arith.divf
// RAW: fmha.tile_mma
// RAW-NOT: arith.addf {{.*}} : vector<16x64xf32>
// RAW: } {fmha.kv_loop}
func.func @raw_fold(%p: vector<16x32xf8E4M3FN>, %v: vector<32x64xf8E4M3FN>,
                    %vd: f32, %a: vector<16xf32>,
                    %lo: index, %hi: index) -> vector<16x64xf32> {
  %c1 = arith.constant 1 : index
  %zr = arith.constant dense<0.0> : vector<16xf32>
  %zo = arith.constant dense<0.0> : vector<16x64xf32>
  %r:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = %zr, %l = %zr, %o = %zo)
      -> (vector<16xf32>, vector<16xf32>, vector<16x64xf32>) {
    %alpha = arith.addf %m, %a : vector<16xf32>
    %u = fmha.tile_mma %p, %v, %zo : vector<16x32xf8E4M3FN>, vector<32x64xf8E4M3FN> -> vector<16x64xf32>
    %vds = vector.broadcast %vd : f32 to vector<16x64xf32>
    %uv = arith.mulf %u, %vds : vector<16x64xf32>
    %ac = vector.shape_cast %alpha : vector<16xf32> to vector<16x1xf32>
    %ab = vector.broadcast %ac : vector<16x1xf32> to vector<16x64xf32>
    %ao = arith.mulf %ab, %o : vector<16x64xf32>
    %o2 = arith.addf %ao, %uv : vector<16x64xf32>
    scf.yield %alpha, %l, %o2 : vector<16xf32>, vector<16xf32>, vector<16x64xf32>
  } {fmha.kv_loop}
  return %r#2 : vector<16x64xf32>
}
