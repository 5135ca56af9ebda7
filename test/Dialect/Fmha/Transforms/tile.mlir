// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile | FileCheck %s

// Page 1024 holds whole BlockN = 32 tiles: one uniform page id and one kd/vd
// per tile. The KV loop carries m, l (per row) and o (BlockM x Dv).
// CHECK-LABEL: func @kv_blockscale_page1024_causal
// CHECK: scf.forall (%[[QT:.*]], %[[H:.*]], %[[B:.*]]) in (%{{.*}}, 8, %{{.*}})
// A grid point past the batch (a larger, graph-captured grid) does nothing:
// the batch is qo_indptr's size - 1, checked before qo_indptr is read.
// CHECK: %[[NB1:.*]] = memref.dim %[[QO:.*]], %{{.*}} : memref<?xi32>
// CHECK: %[[NB:.*]] = arith.subi %[[NB1]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[B]], %[[NB]] : index
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: memref.load %[[QO]][%[[B]]] : memref<?xi32>
// CHECK: memref.subview
// CHECK: %[[Q:.*]] = fmha.load_rows {{.*}} -> vector<16x128xf8E4M3FNUZ>
// CHECK: scf.for {{.*}} iter_args(%[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[O:.*]] = %{{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16x128xf32>)
// CHECK: %[[IDS:.*]] = fmha.page_ids {{.*}} {page_size = 1024 : i64} : {{.*}} -> i32
// CHECK: %[[K:.*]] = fmha.gather_kv {{.*}}[%[[IDS]]] {{.*}} -> vector<32x128xf8E4M3FNUZ>
// CHECK: %[[V:.*]] = fmha.gather_kv {{.*}}[%[[IDS]]] {{.*}} -> vector<32x128xf8E4M3FNUZ>
// CHECK: fmha.tile_mma %[[Q]], %[[K]], %{{.*}} {transpose_rhs}
// CHECK: %[[KD:.*]] = fmha.gather_descale {{.*}}[%[[IDS]]] {{.*}} -> f32
// CHECK: %[[VD:.*]] = fmha.gather_descale {{.*}}[%[[IDS]]] {{.*}} -> f32
// The mask is one op: row 0's absolute query position, the tile's first key,
// Sk, and the mask attribute (fmha-expand-masks writes it out later).
// CHECK: fmha.mask_tile %{{.*}} rows(%{{.*}}) keys(%{{.*}}) len(%{{.*}}) {mask = #fmha.mask<causal>} : vector<16x32xf32>
// CHECK-NOT: arith.cmpi sle
// CHECK: vector.multi_reduction <maximumf>
// CHECK: math.exp
// CHECK: vector.multi_reduction <add>
// The unfolded P cast: scaled by 2^SHIFT = 128 (e4m3fnuz), then truncated.
// CHECK: %[[SCALE:.*]] = arith.constant 1.280000e+02 : f32
// CHECK: %[[PS:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<16x32xf32>
// CHECK: %[[P8:.*]] = arith.truncf %[[PS]] : vector<16x32xf32> to vector<16x32xf8E4M3FNUZ>
// CHECK: fmha.tile_mma %[[P8]], %[[V]], %{{.*}} : vector<16x32xf8E4M3FNUZ>, vector<32x128xf8E4M3FNUZ> -> vector<16x128xf32>
// CHECK: scf.yield
// CHECK: arith.truncf {{.*}} to vector<16x128xbf16>
// CHECK: fmha.store_rows
func.func @kv_blockscale_page1024_causal(
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

// Pages of 16 tokens are smaller than the tile: one page id per token, kd per
// column, and vd per V row through the k_scale of the P x V product.
// CHECK-LABEL: func @kv_blockscale_page16_block_table
// CHECK: fmha.page_ids {{.*}} {page_size = 16 : i64} : {{.*}} -> vector<32xi32>
// CHECK: fmha.gather_descale {{.*}} -> vector<32xf32>
// CHECK: %[[VD:.*]] = fmha.gather_descale {{.*}} -> vector<32xf32>
// CHECK: fmha.tile_mma {{.*}} k_scale(%[[VD]] : vector<32xf32>)
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

// 16-bit K/V: P keeps bf16 and no 2^SHIFT scale, no descales are gathered,
// no mask compare exists for mask none beyond the sequence-length bound.
// CHECK-LABEL: func @negative_none_bf16
// CHECK-NOT: fmha.gather_descale
// CHECK-NOT: arith.cmpi sle
// CHECK: fmha.mask_tile {{.*}} {mask = #fmha.mask<none>}
// CHECK: arith.truncf {{.*}} : vector<16x32xf32> to vector<16x32xbf16>
// CHECK-NOT: fmha.gather_descale
func.func @negative_none_bf16(
    %q: memref<?x8x128xbf16>, %k: memref<?x16x2x128xbf16>,
    %v: memref<?x16x2x128xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x128xf32>) {
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

// Run-time scalars: sm_scale is runtime_scalars[0] as f32 bits, multiplied
// into qd where a constant was; the window bounds are runtime_scalars[1..2],
// each applied only when >= 0: the KV tile range and the visible mask select
// on them instead of folding constants.
// CHECK-LABEL: func @runtime_scalars_window
// CHECK: scf.forall
// CHECK: %[[BITS:.*]] = memref.load %[[RS:.*]][%{{.*}}] : memref<4xi32>
// CHECK: %[[SM:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK: %[[L:.*]] = memref.load %[[RS]][%{{.*}}] : memref<4xi32>
// CHECK: %[[LI:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK: %[[R:.*]] = memref.load %[[RS]][%{{.*}}] : memref<4xi32>
// CHECK: %[[RI:.*]] = arith.index_cast %[[R]] : i32 to index
// CHECK: %[[QD:.*]] = memref.load %{{.*}} : memref<1xf32>
// CHECK: arith.mulf %[[QD]], %[[SM]] : f32
// CHECK: arith.cmpi sge
// CHECK: arith.select
// CHECK: arith.select
// CHECK: scf.for
// CHECK: fmha.mask_tile {{.*}} window(%[[LI]], %[[RI]]) {mask = #fmha.mask<window, left = -1, right = -1>}
// CHECK-NOT: 8.838
func.func @runtime_scalars_window(
    %q: memref<?x8x128xf8E4M3FN>, %k: memref<?x16x2x128xf8E4M3FN>,
    %v: memref<?x16x2x128xf8E4M3FN>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %rs: memref<4xi32>,
    %o: memref<?x8x128xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FN>)
      k(%k : memref<?x16x2x128xf8E4M3FN>) v(%v : memref<?x16x2x128xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) runtime_scalars(%rs : memref<4xi32>)
      out(%o : memref<?x8x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<window, left = -1, right = -1>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
