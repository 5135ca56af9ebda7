// RUN: fmha-opt %s --fmha-select-config=chip=gfx942 --fmha-tile | FileCheck %s
// RUN: fmha-opt %s --fmha-select-config=chip=gfx942 --fmha-tile --fmha-fold-descales | FileCheck %s --check-prefix=FOLD
// config q_scale = per_tile (a bf16 Q with an fp8 cache on a GPU): fmha-tile
// quantizes the loaded Q tile (fmha.quantize_tile) before the KV loop, the
// product takes the fp8 tile, and the descale joins the scale qd * sm_scale,
// which fmha-fold-descales turns into sigma (times log2 e).
// CHECK: %[[Q:.*]] = fmha.load_rows {{.*}} -> vector<128x128xbf16>
// CHECK: %[[S0:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: %[[Q8:.*]], %[[DS:.*]] = fmha.quantize_tile %[[Q]] : vector<128x128xbf16> -> vector<128x128xf8E4M3FNUZ>
// CHECK: %[[SCALE:.*]] = arith.mulf %[[S0]], %[[DS]] : f32
// CHECK: scf.for
// CHECK: fmha.tile_mma %[[Q8]], %{{.*}} {transpose_rhs} : vector<128x128xf8E4M3FNUZ>, vector<128x128xf8E4M3FNUZ>
// CHECK: vector.broadcast %[[SCALE]]
// FOLD: %[[Q8:.*]], %[[DS:.*]] = fmha.quantize_tile
// FOLD: %[[SCALE:.*]] = arith.mulf %{{.*}}, %[[DS]] : f32
// FOLD: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// FOLD: arith.mulf %[[SCALE]], %[[LOG2E]] : f32
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
