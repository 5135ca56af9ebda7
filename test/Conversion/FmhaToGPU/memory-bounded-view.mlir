// fmha.gather_kv of a tile in one page (a uniform page id) on a chip with
// bounded views (TargetInfo::boundedView): on AMDGPU the tile's rows from its
// first key are one subview (page id, slot start % P, head), cast to a raw
// buffer (amdgpu.fat_raw_buffer_cast, offset into the base) whose valid
// bytes end at the sequence's last key: max(min(len, start + P - slot) -
// start, 0) rows of the cache's row stride (128 bytes here; not a clamp of
// len - start by two constants, which LLVM makes v_med3_i32 on AMDGPU, a
// VGPR in the descriptor and a waterfall loop around each load), and every
// row of the view for an in_bounds tile. The chunks are loaded from it at (row, column) with no
// compare and select. sm_90 has none: per-lane page addresses and a select.
//
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | FileCheck %s --check-prefixes=CHECK,SM90
//
// CHECK-LABEL: gpu.func @bounded
// AMD: %[[ID:.*]] = rocdl.readfirstlane
// AMD: %[[SLOT:.*]] = arith.remui %[[START:.*]], %c1024_i32{{.*}} : i32
// AMD: %[[ROWS:.*]] = arith.subi %c1024_i32{{.*}}, %[[SLOT]] : i32
// AMD: %[[END:.*]] = arith.addi %[[START]], %[[ROWS]] : i32
// AMD: %[[MIN:.*]] = arith.minsi %[[LEN:.*]], %[[END]] : i32
// AMD: %[[LEFT:.*]] = arith.subi %[[MIN]], %[[START]] : i32
// AMD: %[[VALID:.*]] = arith.maxsi %[[LEFT]], %c0_i32{{.*}} : i32
// AMD: %[[V64:.*]] = arith.extui %[[VALID]] : i32 to i64
// AMD: %[[BYTES:.*]] = arith.muli %[[V64]], %c128_i64 : i64
// AMD: %[[VIEW:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, 0] [1, %{{.*}}, 1, 128] [1, 1, 1, 1] : memref<?x1024x1x128xi8, 1> to memref<1x?x1x128xi8, strided<[131072, 128, 128, 1], offset: ?>, 1>
// AMD: %[[BUF:.*]] = amdgpu.fat_raw_buffer_cast %[[VIEW]] validBytes(%[[BYTES]]) resetOffset
// AMD-SAME: to memref<1x?x1x128xi8, strided<[131072, 128, 128, 1]>, #amdgpu.address_space<fat_raw_buffer>>
// AMD: %[[CHUNK:.*]] = vector.load %[[BUF]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x?x1x128xi8, strided<[131072, 128, 128, 1]>, #amdgpu.address_space<fat_raw_buffer>>, vector<16xi8>
// AMD-NOT: arith.select
// AMD: vector.store %[[CHUNK]]
// SM90: gpu.shuffle idx
// SM90: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x1024x1x128xi8, 1>, vector<16xi8>
// SM90-NEXT: arith.select
//
// The in_bounds tile: the view's every row is valid, no min / max.
// CHECK-LABEL: gpu.func @in_bounds
// AMD: %[[SLOT2:.*]] = arith.remui %{{.*}}, %c1024_i32{{.*}} : i32
// AMD: %[[ROWS2:.*]] = arith.subi %c1024_i32{{.*}}, %[[SLOT2]] : i32
// AMD: %[[R64:.*]] = arith.extui %[[ROWS2]] : i32 to i64
// AMD: %[[BYTES2:.*]] = arith.muli %[[R64]], %c128_i64 : i64
// AMD: amdgpu.fat_raw_buffer_cast %{{.*}} validBytes(%[[BYTES2]]) resetOffset
// SM90 selects on a constant true (folded later).
// SM90: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x1024x1x128xi8, 1>, vector<16xi8>
// SM90-NEXT: arith.select %true
//
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | FileCheck %s --check-prefix=NOBUF
// NOBUF-NOT: amdgpu.fat_raw_buffer_cast

module attributes {gpu.container_module} {
gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @bounded(%qm: memref<?x1x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>, %pages: memref<?xi32>,
                    %start: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %id = fmha.page_ids %pages[%start] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%start, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %q = fmha.load_rows %qm[%c0, %c0] rows(%len) : memref<?x1x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %zero = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q, %k_t, %zero {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    gpu.return
  }
  gpu.func @in_bounds(%qm: memref<?x1x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>, %pages: memref<?xi32>,
                      %start: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %id = fmha.page_ids %pages[%start] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%start, %len) {kv_layout = #fmha.kv_layout<nhd>, in_bounds} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %q = fmha.load_rows %qm[%c0, %c0] rows(%len) : memref<?x1x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %zero = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q, %k_t, %zero {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    gpu.return
  }
}
}
