// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile --fmha-prefetch-page-ids | FileCheck %s
// Idempotent: a second run finds no page_ids computed from the induction
// variable and changes nothing (the iter_arg type lists below pin the count).
// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile --fmha-prefetch-page-ids --fmha-prefetch-page-ids | FileCheck %s
// per-token=false (the GPU pipelines): uniform ids are still carried,
// per-token ids (pages smaller than the tile) stay in their iteration.
// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile --fmha-prefetch-page-ids=per-token=false | FileCheck %s --check-prefix=UNIFORM
// UNIFORM-LABEL: func.func @kv_blockscale_page1024_csr
// UNIFORM: fmha.page_ids {{.*}} -> i32
// UNIFORM: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16x128xf32>, i32, f32, f32)
// UNIFORM-LABEL: func.func @kv_blockscale_page16_block_table
// UNIFORM-NOT: fmha.page_ids
// UNIFORM: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16x128xf32>) {
// UNIFORM: fmha.page_ids {{.*}} -> vector<32xi32>
// UNIFORM: } {fmha.kv_loop}
// UNIFORM-LABEL: func.func @per_tensor_page48_csr
// UNIFORM-NOT: fmha.page_ids
// UNIFORM: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16x128xf32>) {
// UNIFORM: fmha.page_ids {{.*}} -> vector<32xi32>
//

// Page 1024 holds whole BlockN = 32 tiles: one uniform i32 id and one scalar
// kd/vd per tile. The prologue loads tile lo's before the loop; the top of the
// body loads tile t + 1's id, and its descales follow tile t's last gather
// (so the id's load has the gathers' issue to land); the loop carries id,
// kd, vd after m, l, o, and the gathers and dequantization of tile t read
// the carried values.
// CHECK-LABEL: func @kv_blockscale_page1024_csr
// CHECK-SAME: %[[KDS:[a-z0-9]+]]: memref<?x2xf32>, %[[VDS:[a-z0-9]+]]: memref<?x2xf32>
// CHECK: %[[S0:[a-z0-9_]+]] = arith.muli %[[LO:[a-z0-9_]+]], %c32{{[_0-9]*}} : index
// CHECK-NEXT: %[[ID0:[a-z0-9_]+]] = fmha.page_ids %[[PAGES:[a-z0-9_]+]][%[[S0]]] len(%[[SK:[a-z0-9_]+]]) {page_size = 1024 : i64} : {{.*}} -> i32
// CHECK-NEXT: %[[KD0:[a-z0-9_]+]] = fmha.gather_descale %[[KDS]][%[[ID0]]] head(%[[G:[a-z0-9_]+]]) : memref<?x2xf32>, i32 -> f32
// CHECK-NEXT: %[[VD0:[a-z0-9_]+]] = fmha.gather_descale %[[VDS]][%[[ID0]]] head(%[[G]]) : memref<?x2xf32>, i32 -> f32
// CHECK-NEXT: scf.for %[[T:[a-z0-9_]+]] = %[[LO]] to %{{[a-z0-9_]+}} step %[[STEP:[a-z0-9_]+]]
// CHECK-SAME: iter_args(%{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %[[ID:[a-z0-9_]+]] = %[[ID0]], %[[KD:[a-z0-9_]+]] = %[[KD0]], %[[VD:[a-z0-9_]+]] = %[[VD0]])
// CHECK-SAME: -> (vector<16xf32>, vector<16xf32>, vector<16x128xf32>, i32, f32, f32)
// CHECK-NEXT: %[[TN:[a-z0-9_]+]] = arith.addi %[[T]], %[[STEP]] : index
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = arith.constant 32 : index
// CHECK-NEXT: %[[SN:[a-z0-9_]+]] = arith.muli %[[TN]], %[[C]] : index
// CHECK-NEXT: %[[IDN:[a-z0-9_]+]] = fmha.page_ids %[[PAGES]][%[[SN]]] len(%[[SK]]) {page_size = 1024 : i64} : {{.*}} -> i32
// Nothing below reads the page table for the current tile any more.
// CHECK-NOT: fmha.page_ids
// CHECK-NOT: fmha.gather_descale
// CHECK: %[[T0:[a-z0-9_]+]] = arith.muli %[[T]], %{{.*}} : index
// CHECK-NEXT: fmha.gather_kv %{{.*}}[%[[ID]]] head(%[[G]]) tile(%[[T0]], %[[SK]]) {{.*}}, i32 -> vector<32x128xf8E4M3FNUZ>
// CHECK-NEXT: fmha.gather_kv %{{.*}}[%[[ID]]] head(%[[G]]) tile(%[[T0]], %[[SK]]) {{.*}}, i32 -> vector<32x128xf8E4M3FNUZ>
// CHECK-NEXT: %[[KDN:[a-z0-9_]+]] = fmha.gather_descale %[[KDS]][%[[IDN]]] head(%[[G]]) : memref<?x2xf32>, i32 -> f32
// CHECK-NEXT: %[[VDN:[a-z0-9_]+]] = fmha.gather_descale %[[VDS]][%[[IDN]]] head(%[[G]]) : memref<?x2xf32>, i32 -> f32
// CHECK-NOT: fmha.page_ids
// CHECK-NOT: fmha.gather_descale
// CHECK: vector.broadcast %[[KD]] : f32 to vector<16x32xf32>
// CHECK-NOT: fmha.page_ids
// CHECK-NOT: fmha.gather_descale
// CHECK: vector.broadcast %[[VD]] : f32 to vector<16x128xf32>
// CHECK-NOT: fmha.page_ids
// CHECK-NOT: fmha.gather_descale
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[IDN]], %[[KDN]], %[[VDN]] : vector<16xf32>, vector<16xf32>, vector<16x128xf32>, i32, f32, f32
// CHECK-NEXT: } {fmha.kv_loop}
// CHECK-NOT: fmha.page_ids
// CHECK: fmha.store_rows
func.func @kv_blockscale_page1024_csr(
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

// -----

// Pages of 16 tokens are smaller than the tile: one id per token
// (vector<32xi32>) and kd/vd per token, all carried; vd per V row still
// reaches the P x V product as its k_scale.
// CHECK-LABEL: func @kv_blockscale_page16_block_table
// CHECK-SAME: %[[KDS:[a-z0-9]+]]: memref<?x2xf32>, %[[VDS:[a-z0-9]+]]: memref<?x2xf32>
// CHECK: %[[ID0:[a-z0-9_]+]] = fmha.page_ids %[[PAGES:[a-z0-9_]+]][%{{.*}}] len(%[[SK:[a-z0-9_]+]]) {page_size = 16 : i64} : {{.*}} -> vector<32xi32>
// CHECK-NEXT: %[[KD0:[a-z0-9_]+]] = fmha.gather_descale %[[KDS]][%[[ID0]]] {{.*}} -> vector<32xf32>
// CHECK-NEXT: %[[VD0:[a-z0-9_]+]] = fmha.gather_descale %[[VDS]][%[[ID0]]] {{.*}} -> vector<32xf32>
// CHECK-NEXT: scf.for %[[T:[a-z0-9_]+]] = {{.*}} step %[[STEP:[a-z0-9_]+]]
// CHECK-SAME: %[[ID:[a-z0-9_]+]] = %[[ID0]], %[[KD:[a-z0-9_]+]] = %[[KD0]], %[[VD:[a-z0-9_]+]] = %[[VD0]])
// CHECK-SAME: -> (vector<16xf32>, vector<16xf32>, vector<16x128xf32>, vector<32xi32>, vector<32xf32>, vector<32xf32>)
// CHECK-NEXT: %[[TN:[a-z0-9_]+]] = arith.addi %[[T]], %[[STEP]] : index
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: %[[SN:[a-z0-9_]+]] = arith.muli %[[TN]], %{{.*}} : index
// CHECK-NEXT: %[[IDN:[a-z0-9_]+]] = fmha.page_ids %[[PAGES]][%[[SN]]] len(%[[SK]]) {page_size = 16 : i64} : {{.*}} -> vector<32xi32>
// CHECK-NOT: fmha.page_ids
// CHECK-NOT: fmha.gather_descale
// CHECK: fmha.gather_kv %{{.*}}[%[[ID]]] {{.*}}, vector<32xi32> -> vector<32x128xf8E4M3FN>
// CHECK-NEXT: fmha.gather_kv %{{.*}}[%[[ID]]] {{.*}}, vector<32xi32> -> vector<32x128xf8E4M3FN>
// CHECK-NEXT: %[[KDN:[a-z0-9_]+]] = fmha.gather_descale %[[KDS]][%[[IDN]]] {{.*}} -> vector<32xf32>
// CHECK-NEXT: %[[VDN:[a-z0-9_]+]] = fmha.gather_descale %[[VDS]][%[[IDN]]] {{.*}} -> vector<32xf32>
// CHECK-NOT: fmha.page_ids
// CHECK-NOT: fmha.gather_descale
// CHECK: vector.broadcast %[[KD]] : vector<32xf32> to vector<16x32xf32>
// CHECK-NOT: fmha.page_ids
// CHECK-NOT: fmha.gather_descale
// CHECK: fmha.tile_mma {{.*}} k_scale(%[[VD]] : vector<32xf32>)
// CHECK-NOT: fmha.page_ids
// CHECK-NOT: fmha.gather_descale
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[IDN]], %[[KDN]], %[[VDN]] :
// CHECK-NEXT: } {fmha.kv_loop}
func.func @kv_blockscale_page16_block_table(
    %q: memref<?x8x128xf8E4M3FN>, %k: memref<?x2x16x128xf8E4M3FN>,
    %v: memref<?x2x16x128xf8E4M3FN>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %qd: memref<1xf32>, %kd: memref<?x2xf32>,
    %vd: memref<?x2xf32>, %o: memref<?x8x128xf16>, %lse: memref<?x8xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FN>)
      k(%k : memref<?x2x16x128xf8E4M3FN>) v(%v : memref<?x2x16x128xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<?x2xf32>) v_descale(%vd : memref<?x2xf32>)
      out(%o : memref<?x8x128xf16>) lse(%lse : memref<?x8xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<window, left = 64, right = 0>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<hnd>,
       page_size = 16 : i64}
  return
}

// -----

// Quant none: no descales exist, only the (uniform, page 64) id is carried.
// CHECK-LABEL: func @none_bf16_page64
// CHECK-NOT: fmha.gather_descale
// CHECK: %[[ID0:[a-z0-9_]+]] = fmha.page_ids %[[PAGES:[a-z0-9_]+]][%{{.*}}] len(%[[SK:[a-z0-9_]+]]) {page_size = 64 : i64} : {{.*}} -> i32
// CHECK-NEXT: scf.for %[[T:[a-z0-9_]+]] = {{.*}} step %[[STEP:[a-z0-9_]+]]
// CHECK-SAME: %[[ID:[a-z0-9_]+]] = %[[ID0]])
// CHECK-SAME: -> (vector<16xf32>, vector<16xf32>, vector<16x128xf32>, i32)
// CHECK-NEXT: %[[TN:[a-z0-9_]+]] = arith.addi %[[T]], %[[STEP]] : index
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: %[[SN:[a-z0-9_]+]] = arith.muli %[[TN]], %{{.*}} : index
// CHECK-NEXT: %[[IDN:[a-z0-9_]+]] = fmha.page_ids %[[PAGES]][%[[SN]]] len(%[[SK]]) {page_size = 64 : i64} : {{.*}} -> i32
// CHECK-NOT: fmha.page_ids
// CHECK: fmha.gather_kv %{{.*}}[%[[ID]]] {{.*}} -> vector<32x128xbf16>
// CHECK-NOT: fmha.page_ids
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[IDN]] : vector<16xf32>, vector<16xf32>, vector<16x128xf32>, i32
// CHECK-NOT: fmha.gather_descale
func.func @none_bf16_page64(
    %q: memref<?x8x128xbf16>, %k: memref<?x64x2x128xbf16>,
    %v: memref<?x64x2x128xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x128xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x128xbf16>)
      k(%k : memref<?x64x2x128xbf16>) v(%v : memref<?x64x2x128xbf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x128xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 64 : i64}
  return
}

// -----

// Per tensor: kd/vd are loop-invariant scalars, nothing but the per-token ids
// (page 48 is not a multiple of BlockN) is carried.
// CHECK-LABEL: func @per_tensor_page48_csr
// CHECK-NOT: fmha.gather_descale
// CHECK: %[[ID0:[a-z0-9_]+]] = fmha.page_ids {{.*}} {page_size = 48 : i64} : {{.*}} -> vector<32xi32>
// CHECK-NEXT: scf.for
// CHECK-SAME: %[[ID:[a-z0-9_]+]] = %[[ID0]])
// CHECK-SAME: -> (vector<16xf32>, vector<16xf32>, vector<16x128xf32>, vector<32xi32>)
// CHECK: %[[IDN:[a-z0-9_]+]] = fmha.page_ids {{.*}} {page_size = 48 : i64} : {{.*}} -> vector<32xi32>
// CHECK-NOT: fmha.page_ids
// CHECK: fmha.gather_kv %{{.*}}[%[[ID]]]
// CHECK-NOT: fmha.page_ids
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[IDN]] : vector<16xf32>, vector<16xf32>, vector<16x128xf32>, vector<32xi32>
// CHECK-NOT: fmha.gather_descale
func.func @per_tensor_page48_csr(
    %q: memref<?x8x128xf8E4M3FN>, %k: memref<?x48x2x128xf8E4M3FN>,
    %v: memref<?x48x2x128xf8E4M3FN>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<1xf32>, %vd: memref<1xf32>, %o: memref<?x8x128xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FN>)
      k(%k : memref<?x48x2x128xf8E4M3FN>) v(%v : memref<?x48x2x128xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<1xf32>)
      v_descale(%vd : memref<1xf32>) out(%o : memref<?x8x128xbf16>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 48 : i64}
  return
}

// -----

// A KV loop with another step: the next tile is iv + step, and the prologue
// starts at the lower bound. A descale whose head is computed per iteration
// cannot move; it stays and reads the carried ids of the current tile.
// CHECK-LABEL: func @marked_loop_step2
// CHECK-SAME: (%[[PAGES:[a-z0-9]+]]: memref<?xi32>, %[[K:[a-z0-9]+]]: memref<?x64x1x16xbf16>, %[[DS:[a-z0-9]+]]: memref<?x1xf32>, %[[SK:[a-z0-9]+]]: index, %[[LO:[a-z0-9]+]]: index, %[[HI:[a-z0-9]+]]: index)
// CHECK: %[[C2:[a-z0-9_]+]] = arith.constant 2 : index
// CHECK: %[[S0:[a-z0-9_]+]] = arith.muli %[[LO]], %{{.*}} : index
// CHECK-NEXT: %[[ID0:[a-z0-9_]+]] = fmha.page_ids %[[PAGES]][%[[S0]]] len(%[[SK]]) {page_size = 64 : i64} : memref<?xi32> -> i32
// CHECK-NEXT: scf.for %[[T:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step %[[C2]] iter_args(%{{.*}} = %{{.*}}, %[[ID:[a-z0-9_]+]] = %[[ID0]]) -> (f32, i32)
// CHECK-NEXT: %[[TN:[a-z0-9_]+]] = arith.addi %[[T]], %[[C2]] : index
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: %[[SN:[a-z0-9_]+]] = arith.muli %[[TN]], %{{.*}} : index
// CHECK-NEXT: %[[IDN:[a-z0-9_]+]] = fmha.page_ids %[[PAGES]][%[[SN]]] len(%[[SK]])
// CHECK-NOT: fmha.page_ids
// CHECK: fmha.gather_kv %[[K]][%[[ID]]]
// CHECK: fmha.gather_descale %[[DS]][%[[ID]]]
// CHECK: scf.yield %{{.*}}, %[[IDN]] : f32, i32
func.func @marked_loop_step2(%pages: memref<?xi32>, %k: memref<?x64x1x16xbf16>,
                             %ds: memref<?x1xf32>, %sk: index, %lo: index,
                             %hi: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %lo to %hi step %c2 iter_args(%acc = %zero) -> (f32) {
    %c32 = arith.constant 32 : index
    %t0 = arith.muli %t, %c32 : index
    %id = fmha.page_ids %pages[%t0] len(%sk) {page_size = 64 : i64} : memref<?xi32> -> i32
    %kt = fmha.gather_kv %k[%id] head(%c0) tile(%t0, %sk) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x64x1x16xbf16>, i32 -> vector<32x16xbf16>
    %h = arith.remui %t, %c2 : index
    %d = fmha.gather_descale %ds[%id] head(%h) : memref<?x1xf32>, i32 -> f32
    %e = vector.extract %kt[0, 0] : bf16 from vector<32x16xbf16>
    %ef = arith.extf %e : bf16 to f32
    %s = arith.addf %acc, %ef : f32
    %s2 = arith.addf %s, %d : f32
    scf.yield %s2 : f32
  } {fmha.kv_loop}
  return %r : f32
}

// -----

// Without the fmha.kv_loop marker the loop is not the KV loop: untouched.
// CHECK-LABEL: func @negative_unmarked_loop
// CHECK-NOT: fmha.page_ids
// CHECK: scf.for %[[T:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: %[[T0:[a-z0-9_]+]] = arith.muli %[[T]], %{{.*}} : index
// CHECK-NEXT: %[[ID:[a-z0-9_]+]] = fmha.page_ids %{{.*}}[%[[T0]]]
// CHECK-NEXT: fmha.gather_kv %{{.*}}[%[[ID]]]
// CHECK-NOT: fmha.page_ids
func.func @negative_unmarked_loop(%pages: memref<?xi32>, %k: memref<?x64x1x16xbf16>,
                                  %sk: index, %lo: index, %hi: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f32) {
    %c32 = arith.constant 32 : index
    %t0 = arith.muli %t, %c32 : index
    %id = fmha.page_ids %pages[%t0] len(%sk) {page_size = 64 : i64} : memref<?xi32> -> i32
    %kt = fmha.gather_kv %k[%id] head(%c0) tile(%t0, %sk) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x64x1x16xbf16>, i32 -> vector<32x16xbf16>
    %e = vector.extract %kt[0, 0] : bf16 from vector<32x16xbf16>
    %ef = arith.extf %e : bf16 to f32
    %s = arith.addf %acc, %ef : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// -----

// Marked loops whose ids are not those of tile iv * BlockN from a
// loop-invariant page list stay as they are: a dynamic tile size, a page list
// that changes per iteration, and ids looked up only on a guarded path.
// CHECK-LABEL: func @negative_not_prefetchable
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-NEXT: %[[T0:[a-z0-9_]+]] = arith.muli
// CHECK-NEXT: fmha.page_ids %{{.*}}[%[[T0]]]
// CHECK: } {fmha.kv_loop}
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: memref.subview
// CHECK: fmha.page_ids
// CHECK: } {fmha.kv_loop}
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: scf.if
// CHECK: fmha.page_ids
// CHECK: } {fmha.kv_loop}
func.func @negative_not_prefetchable(%pages: memref<?xi32>, %sk: index, %bn: index,
                                     %lo: index, %hi: index, %cond: i1) -> f32 {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r0 = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f32) {
    %t0 = arith.muli %t, %bn : index
    %id = fmha.page_ids %pages[%t0] len(%sk) {page_size = 64 : i64} : memref<?xi32> -> i32
    %f = arith.sitofp %id : i32 to f32
    %s = arith.addf %acc, %f : f32
    scf.yield %s : f32
  } {fmha.kv_loop}
  %r1 = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %r0) -> (f32) {
    %c32 = arith.constant 32 : index
    %t0 = arith.muli %t, %c32 : index
    %sub = memref.subview %pages[%t] [%sk] [1] : memref<?xi32> to memref<?xi32, strided<[1], offset: ?>>
    %id = fmha.page_ids %sub[%t0] len(%sk) {page_size = 64 : i64} : memref<?xi32, strided<[1], offset: ?>> -> i32
    %f = arith.sitofp %id : i32 to f32
    %s = arith.addf %acc, %f : f32
    scf.yield %s : f32
  } {fmha.kv_loop}
  %r2 = scf.for %t = %lo to %hi step %c1 iter_args(%acc = %r1) -> (f32) {
    %c32 = arith.constant 32 : index
    %t0 = arith.muli %t, %c32 : index
    %f = scf.if %cond -> (f32) {
      %id = fmha.page_ids %pages[%t0] len(%sk) {page_size = 64 : i64} : memref<?xi32> -> i32
      %g = arith.sitofp %id : i32 to f32
      scf.yield %g : f32
    } else {
      scf.yield %zero : f32
    }
    %s = arith.addf %acc, %f : f32
    scf.yield %s : f32
  } {fmha.kv_loop}
  return %r2 : f32
}
