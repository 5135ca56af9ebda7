// Uniform page ids (a tile in one page) in and out of a KV loop
// (MemoryPatterns PageIdsPattern, GatherDescalePattern). In the loop a tile
// is being processed, so the sequence owns a page: the id is
// pages[min(start / P, (len - 1) / P)], one load with no select on the
// value (a tile at or past len, the last iteration's prefetch, reads the
// last page's id), and a descale gathered at it needs no >= 0 guard. So the
// load's first use is the descale's address, not a select right behind it
// (issue 15 item 3: kv-loop-unrolled_gfx942.test). Outside the loop (the
// prefetch's prologue) Sk may be 0: the read is guarded by a branch and -1
// stands for no page, and its descale keeps the guard.
//
// RUN: fmha-opt %s --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s
//
// CHECK-LABEL: gpu.func @page_ids_loop
// The prologue's id: a guarded read, -1 without a page.
// CHECK: %[[PRO:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK: memref.load %{{.*}} : memref<?xi32, 1>
// CHECK: } else {
// CHECK: scf.yield %c-1_i32 : i32
// Its descale: the id clamped to >= 0 (select) before the load.
// CHECK: arith.cmpi sge, %[[PRO]], %c0_i32
// CHECK: arith.select
// CHECK: memref.load %{{.*}} : memref<?xf32, strided<[1], offset: ?>, 1>
// CHECK: scf.for
// In the loop: the clamped slot, one load, no select.
// CHECK: %[[S:.*]] = arith.divui %{{.*}}, %c1024_i32{{.*}} : i32
// CHECK: %[[LM1:.*]] = arith.subi %{{.*}}, %c1_i32{{.*}} : i32
// CHECK: %[[L:.*]] = arith.divui %[[LM1]], %c1024_i32{{.*}} : i32
// CHECK: %[[SL:.*]] = arith.minsi %[[S]], %[[L]] : i32
// CHECK: %[[IX:.*]] = arith.index_cast{{.*}} %[[SL]]
// CHECK: %[[ID:.*]] = memref.load %{{.*}}[%[[IX]]] : memref<?xi32, 1>
// CHECK-NOT: arith.select
// CHECK-NOT: arith.cmpi
// CHECK: arith.muli %[[ID]]
// CHECK-NOT: arith.select
// CHECK: memref.load %{{.*}} : memref<?xf32, strided<[1], offset: ?>, 1>
// CHECK: scf.yield

module attributes {gpu.container_module} {
gpu.module @fmha_kernels [#rocdl.target<chip = "gfx942">] {
  gpu.func @page_ids_loop(%q: memref<?x2x128xf8E4M3FNUZ>, %k: memref<?x1024x1x128xf8E4M3FNUZ>,
                          %pages: memref<?xi32>, %kds: memref<?x1xf32>,
                          %o: memref<?x2x128xf32>, %row0: index, %rows: index,
                          %len: index, %n: index) kernel
      attributes {fmha.config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128xf8E4M3FNUZ> -> vector<128x128xf8E4M3FNUZ>
    %ids0 = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %kd0 = fmha.gather_descale %kds[%ids0] head(%c0) : memref<?x1xf32>, i32 -> f32
    %zero = arith.constant dense<0.0> : vector<128x128xf32>
    %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %zero, %kd = %kd0) -> (vector<128x128xf32>, f32) {
      %t0 = arith.muli %t, %c128 : index
      %ids = fmha.page_ids %pages[%t0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
      %kdn = fmha.gather_descale %kds[%ids] head(%c0) : memref<?x1xf32>, i32 -> f32
      %k_t = fmha.gather_kv %k[%ids] head(%c0) tile(%t0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128xf8E4M3FNUZ>, i32 -> vector<128x128xf8E4M3FNUZ>
      %s = fmha.tile_mma %q_t, %k_t, %acc {transpose_rhs} : vector<128x128xf8E4M3FNUZ>, vector<128x128xf8E4M3FNUZ> -> vector<128x128xf32>
      %kdb = vector.broadcast %kd : f32 to vector<128x128xf32>
      %s2 = arith.mulf %s, %kdb : vector<128x128xf32>
      scf.yield %s2, %kdn : vector<128x128xf32>, f32
    } {fmha.kv_loop}
    fmha.store_rows %r#0, %o[%row0, %c0] rows(%rows) : vector<128x128xf32>, memref<?x2x128xf32>
    gpu.return
  }
}
}
