// The memory patterns (MemoryPatterns.cpp) on each chip: Q into MMA operand
// registers, per-token page ids recomputed per key, per-key descales one
// load per page group, K staged in LDS in 16-byte chunks, O stored per row
// slot, lse by one lane per row. A hand-written kernel (memref arguments,
// viewed through a cast as the global byte view), page 16 on block_n tiles.
//
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,AMD,GFX942
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 | FileCheck %s --check-prefixes=CHECK,AMD,GFX950
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | FileCheck %s --check-prefixes=CHECK,SM90
//
// CHECK-LABEL: gpu.func @memory
// One LDS buffer for K: block_n x 128 bytes.
// GFX942-SAME: workgroup(%[[K:.*]] : memref<16384xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GFX950-SAME: workgroup(%[[K:.*]] : memref<16384xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// SM90-SAME: workgroup(%[[K:.*]] : memref<8192xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// The memrefs in the global byte view (fp8 as i8, address space 1).
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : memref<?x2x128x{{f8E4M3FN|f8E4M3FNUZ}}> to memref<?x2x128xi8, 1>
// The lane index values at the entry.
// CHECK: gpu.thread_id x
// AMD: rocdl.readfirstlane
// SM90: gpu.shuffle idx
// Q: all k steps of one run in one wide load, rows past the count zeroed;
// aligned to the load's bytes up to 16 (without it NVPTX loads byte by byte).
// GFX942: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x2x128xi8, 1>, vector<64xi8>
// GFX950: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x2x128xi8, 1>, vector<32xi8>
// SM90: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x2x128xi8, 1>, vector<16xi8>
// CHECK: arith.select
// K: per key its page's id (pages[key / 16]) and a 16-byte chunk to LDS.
// On AMDGPU the 8 rows a wave loads in one step lie in one page of 16: the
// wave's page (tile start + 32 i + 8 x wave) is read from the table at the
// tile's first slot plus the wave's page in the tile, clamped to the
// sequence's last page (this tile is not in_bounds; a full tile whose step
// spans two pages selects between the tile's ids instead:
// test/Target/AMDGPU/sgpr-pressure.test), the page's rows from the wave's
// first key as a bounded view (memory-bounded-view.mlir), the lane's row in
// it (lane / 8).
// AMD: %[[S0:.*]] = arith.divui %[[START:.*]], %c16_i32{{.*}} : i32
// AMD-NEXT: %[[OFF:.*]] = arith.subi %[[FIRST:.*]], %[[START]] : i32
// AMD: %[[P:.*]] = arith.divui %[[OFF]], %c16_i32{{.*}} : i32
// AMD-NEXT: %[[SLOT:.*]] = arith.addi %[[S0]], %[[P]] : i32
// AMD: %[[CL:.*]] = arith.minsi %[[SLOT]], %{{.*}} : i32
// AMD-NEXT: %[[CLI:.*]] = arith.index_cast %[[CL]] : i32 to index
// AMD-NEXT: memref.load %{{.*}}[%[[CLI]]] : memref<?xi32, 1>
// AMD-NOT: arith.select
// SM90: arith.divui %{{.*}}, %c16_i32
// SM90: memref.load %{{.*}} : memref<?xi32, 1>
// SM90: vector.load %{{.*}} {alignment = 16 : i64} : memref<?x16x1x128xi8, 1>, vector<16xi8>
// AMD: memref.subview %{{.*}} : memref<?x16x1x128xi8, 1> to memref<1x?x1x128xi8, strided<[2048, 128, 128, 1], offset: ?>, 1>
// AMD-NEXT: amdgpu.fat_raw_buffer_cast
// AMD: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x?x1x128xi8, strided<[2048, 128, 128, 1]>, #amdgpu.address_space<fat_raw_buffer>>, vector<16xi8>
// CHECK: vector.store %{{.*}}, %[[K]][%{{.*}}] {alignment = 16 : i64}
// The product reads LDS after a barrier.
// CHECK: gpu.barrier
// CHECK: vector.load %[[K]]
// Per-key descales: a key past the end clamped to the last key, one load per
// page group of a lane.
// The descale as a flat f32 run from the head's column (a 32-bit element
// offset row * stride0, masked to 30 bits: docs/ABI.md). On AMDGPU
// (scalar loads: TargetInfo::uniformWordRuns) its byte offset
// row * (stride0 << 2), shifted back to elements, which LLVM folds into the
// s_load's SGPR offset.
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [%{{.*}}], strides: [1] : memref<?x1xf32, 1> to memref<?xf32, strided<[1], offset: ?>, 1>
// AMD: %[[S4:.*]] = arith.shli %{{.*}}, %c2_i32{{.*}} : i32
// SM90: arith.minsi
// SM90: %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// SM90: %[[LIN:.*]] = arith.andi %[[ROW]], %c1073741823_i32
// AMD: %[[ROW:.*]] = arith.muli %{{.*}}, %[[S4]] : i32
// AMD: %[[LIN:.*]] = arith.shrui %[[ROW]], %c2_i32{{.*}} : i32
// CHECK: %[[IX:.*]] = arith.index_castui %[[LIN]] : i32 to index
// CHECK: memref.load %[[FLAT]][%[[IX]]] : memref<?xf32, strided<[1], offset: ?>, 1>
// O: guarded per row slot, one vector store per run of columns.
// CHECK: scf.if
// AMD: vector.store %{{.*}} : memref<?x2x128xf32, 1>, vector<4xf32>
// SM90: vector.store %{{.*}} : memref<?x2x64xf32, 1>, vector<2xf32>
// lse: the lane of column 0 of a row writes it.
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK: memref.store %{{.*}} : memref<?x2xf32, 1>
// CHECK: gpu.return
//
// Descale loads per lane: AMD 128 keys in 8 pages of 16, a lane's 16 column
// elements per atom x 4 atoms in 8 page groups; sm_90 64 keys, 4 pages, a
// lane's 2 x 8 atoms in 4 groups.
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | grep -c "memref.load.*memref<?xf32, strided<\[1\], offset: ?>, 1>" | FileCheck %s --check-prefix=LOADS-AMD
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 | grep -c "memref.load.*memref<?xf32, strided<\[1\], offset: ?>, 1>" | FileCheck %s --check-prefix=LOADS-AMD
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | grep -c "memref.load.*memref<?xf32, strided<\[1\], offset: ?>, 1>" | FileCheck %s --check-prefix=LOADS-SM90
// No tile op is left (the whole output):
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | FileCheck %s --check-prefix=NEG
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefix=NEG
// NEG-NOT: fmha.load_rows
// NEG-NOT: fmha.page_ids
// NEG-NOT: fmha.gather
// NEG-NOT: fmha.store_rows
// LOADS-AMD: 8
// LOADS-SM90: 4

module attributes {gpu.container_module} {
gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @memory(%q: memref<?x2x128x@FP8@>, %k: memref<?x16x1x128x@FP8@>,
                   %pages: memref<?xi32>, %kds: memref<?x1xf32>,
                   %o: memref<?x2x@BN@xf32>, %lse: memref<?x2xf32>,
                   %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = whole_pages, vd_route = scaled_p>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>
    %k_t = fmha.gather_kv %k[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %zero = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zero {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %kd = fmha.gather_descale %kds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
    %kd2 = vector.broadcast %kd : vector<@BN@xf32> to vector<@BM@x@BN@xf32>
    %s2 = arith.mulf %s, %kd2 : vector<@BM@x@BN@xf32>
    fmha.store_rows %s2, %o[%row0, %c0] rows(%rows) : vector<@BM@x@BN@xf32>, memref<?x2x@BN@xf32>
    %ninf = arith.constant dense<0xFF800000> : vector<@BM@xf32>
    %m = vector.multi_reduction <maximumf>, %s2, %ninf [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>
    fmha.store_rows %m, %lse[%row0, %c0] rows(%rows) : vector<@BM@xf32>, memref<?x2xf32>
    gpu.return
  }
}
}
