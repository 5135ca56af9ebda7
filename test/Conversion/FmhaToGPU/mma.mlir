// The MMA patterns (MmaPatterns.cpp) on each chip: S = Q K^T from Q's
// operand registers and K in LDS, P packed to fp8 straight from the score
// accumulators, O += P V with V^T in LDS, for each V-descale route the
// config states: scalar (one accumulator chain), page_groups (each page's
// steps into a zero accumulator, then o += vd * chain) and scaled_p (p *
// vd_j / r before the cast, r the row's largest vd across lanes, o += r *
// chain). Hand-written kernels, one per route; page_groups on 32-key pages
// (gfx950: 64, its k step).
//
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 -o %t.gfx942.mlir
// RUN: FileCheck %s --check-prefixes=CHECK,AMD,SHUF < %t.gfx942.mlir
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 -o %t.gfx950.mlir
// RUN: FileCheck %s --check-prefixes=CHECK,AMD,GFX950 < %t.gfx950.mlir
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 -o %t.sm_90.mlir
// RUN: FileCheck %s --check-prefixes=CHECK,SM90,SHUF < %t.sm_90.mlir
// sm_90a (the warpgroup MMA): mma-wgmma.mlir, the same kernels.
//
// MMAs per kernel: QK (block_n / atom n) x (128 / k) and PV (128 / atom n) x
// (block_n / k), three kernels: gfx942 (4 x 8 + 4 x 8) x 3 = 192 of 32x32x16;
// gfx950 (4 x 2 + 4 x 2) x 3 = 48 of 32x32x64; sm_90 (8 x 4 + 16 x 2) x 3 =
// 192 of m16n8k32.
// RUN: grep -c "amdgpu.mfma 32x32x16" %t.gfx942.mlir | FileCheck %s --check-prefix=N192
// RUN: grep -c "amdgpu.mfma 32x32x64" %t.gfx950.mlir | FileCheck %s --check-prefix=N48
// RUN: grep -c "mma.sync.aligned.m16n8k32" %t.sm_90.mlir | FileCheck %s --check-prefix=N192
// N192: 192
// N48: 48
// gfx950's V operand: 4 transpose loads (8 bytes each) per PV MFMA of
// 32x32x64, from V staged row-major (TargetInfo::transposeLoadsV): 4 x 8 x
// 3 = 96; the other chips read V^T with plain loads.
// RUN: grep -c "amdgpu.transpose_load" %t.gfx950.mlir | FileCheck %s --check-prefix=N96
// RUN: not grep -q "amdgpu.transpose_load" %t.gfx942.mlir
// RUN: not grep -q "amdgpu.transpose_load" %t.sm_90.mlir
// N96: 96
//
// CHECK-LABEL: gpu.func @scalar_route
// CHECK: gpu.barrier
// AMD: amdgpu.mfma
// SM90: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// P: packed by the chip's convert, no LDS round trip.
// AMD: rocdl.exp2
// AMD: rocdl.cvt.pk.fp8.f32
// SM90: ex2.approx.ftz.f32
// SM90: cvt.rn.satfinite.e4m3x2.f32
// CHECK-NOT: vector.fma
// CHECK: gpu.return
//
// CHECK-LABEL: gpu.func @page_groups_route
// A page's steps start from zero and are added to o times its vd.
// CHECK: arith.constant dense<0.000000e+00> : vector<{{16|4}}xf32>
// CHECK: vector.fma
// CHECK-NOT: arith.divf
// CHECK: gpu.return
//
// CHECK-LABEL: gpu.func @scaled_p_route
// r: the row's largest vd, finished across lanes (gfx950: by the halves'
// swap, TargetInfo::combineXor); 1 / r where r > 0.
// SHUF: gpu.shuffle xor
// GFX950: rocdl.permlane32.swap
// CHECK: arith.divf
// CHECK: arith.mulf
// AMD: rocdl.cvt.pk.fp8.f32
// SM90: cvt.rn.satfinite.e4m3x2.f32
// CHECK: vector.fma
// CHECK: gpu.return
// No tile op and no fp8 tile cast is left (the whole output):
// RUN: FileCheck %s --check-prefix=NEG < %t.gfx942.mlir
// RUN: FileCheck %s --check-prefix=NEG < %t.sm_90.mlir
// NEG-NOT: fmha.tile_mma
// NEG-NOT: arith.truncf

module attributes {gpu.container_module} {
gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @scalar_route(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                   %v: memref<?x1024x1x128x@FP8@>, %pages: memref<?xi32>,
                   %vds: memref<?x1xf32>, %o: memref<?x2x128xf32>,
                   %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %v_t = fmha.gather_kv %v[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %out = fmha.tile_mma %p8, %v_t, %zo : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>
    fmha.store_rows %out, %o[%row0, %c0] rows(%rows) : vector<@BM@x128xf32>, memref<?x2x128xf32>
    gpu.return
  }
  gpu.func @page_groups_route(%q: memref<?x2x128x@FP8@>, %k: memref<?x@PGPAGE@x1x128x@FP8@>,
                   %v: memref<?x@PGPAGE@x1x128x@FP8@>, %pages: memref<?xi32>,
                   %vds: memref<?x1xf32>, %o: memref<?x2x128xf32>,
                   %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = whole_pages, vd_route = page_groups, pv_group = 1>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = @PGPAGE@ : i64} : memref<?xi32> -> vector<@BN@xi32>
    %k_t = fmha.gather_kv %k[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x@PGPAGE@x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %v_t = fmha.gather_kv %v[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x@PGPAGE@x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %vd = fmha.gather_descale %vds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
    %out = fmha.tile_mma %p8, %v_t, %zo k_scale(%vd : vector<@BN@xf32>) : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>
    fmha.store_rows %out, %o[%row0, %c0] rows(%rows) : vector<@BM@x128xf32>, memref<?x2x128xf32>
    gpu.return
  }
  gpu.func @scaled_p_route(%q: memref<?x2x128x@FP8@>, %k: memref<?x8x1x128x@FP8@>,
                   %v: memref<?x8x1x128x@FP8@>, %pages: memref<?xi32>,
                   %vds: memref<?x1xf32>, %o: memref<?x2x128xf32>,
                   %row0: index, %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = whole_pages, vd_route = scaled_p>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 8 : i64} : memref<?xi32> -> vector<@BN@xi32>
    %k_t = fmha.gather_kv %k[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x8x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %v_t = fmha.gather_kv %v[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x8x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %vd = fmha.gather_descale %vds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
    %out = fmha.tile_mma %p8, %v_t, %zo k_scale(%vd : vector<@BN@xf32>) : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>
    fmha.store_rows %out, %o[%row0, %c0] rows(%rows) : vector<@BM@x128xf32>, memref<?x2x128xf32>
    gpu.return
  }
}
}
