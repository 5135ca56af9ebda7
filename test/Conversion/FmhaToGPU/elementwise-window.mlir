// A window mask in the elementwise patterns (ElementwisePatterns.cpp,
// LaneContext::maskOfAtom) on each chip: the key bounds j < len and
// j <= row are upper bounds on the symbolic column, j >= row - 16 a lower
// one; with both, each atom's column constants c are checked by one
// unsigned compare, c - lb <u max(ub - lb + 1, 0) with lb clamped at 0,
// instead of two signed compares and their and (a lane mask each: the
// gfx942 / gfx950 window kernels spilled 22 SGPRs). The numbers:
// test/Integration/LaneMatrix/window-range-mask.test.
//
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 | FileCheck %s --check-prefixes=CHECK,AMD
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | FileCheck %s --check-prefixes=CHECK,SM90
//
// CHECK-LABEL: gpu.func @window
// The two upper bounds joined (minsi), then the clamp of the lower one.
// On AMD each element apart (TargetInfo::maskSelectsPerFence 1: its
// bounds, compare and select, then a fence), on sm_90 an atom of 4.
// CHECK: arith.minsi %{{.*}} : vector<{{16|4}}xi32>
// SM90: arith.constant dense<[0, 1, 0, 1]> : vector<4xi32>
// CHECK: %[[LB:.*]] = arith.maxsi %{{.*}}, %{{.*}} : vector<{{1|4}}xi32>
// CHECK: %[[SPAN:.*]] = arith.subi %[[UB:.*]], %[[LB]] : vector<{{1|4}}xi32>
// CHECK: %[[N:.*]] = arith.addi %[[SPAN]], %{{.*}} : vector<{{1|4}}xi32>
// CHECK: %[[COUNT:.*]] = arith.maxsi %[[N]], %{{.*}} : vector<{{1|4}}xi32>
// CHECK: %[[D:.*]] = arith.subi %[[C:.*]], %[[LB]] : vector<{{1|4}}xi32>
// CHECK: %[[VIS:.*]] = arith.cmpi ult, %[[D]], %[[COUNT]] : vector<{{1|4}}xi32>
// SM90-NEXT: arith.select %[[VIS]], %{{.*}} : vector<4xi1>, vector<4xf32>
// AMD: arith.select %[[VIS]], %{{.*}} : vector<1xi1>, vector<1xf32>
// AMD-NEXT: vector.shuffle
// AMD-NEXT: amdgpu.sched_barrier allow = <mfma_wmma>
// CHECK: scf.yield
// No signed compare of the columns is left (the loop's compare is the
// index one of scf.for, lowered later).
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefix=NEG
// NEG-NOT: arith.cmpi {{sge|sle|slt|sgt}}, {{.*}} : vector<16xi32>

module attributes {gpu.container_module} {
gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @window(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                    %pages: memref<?xi32>, %o: memref<?x2x128xf32>,
                    %lse: memref<?x2xf32>, %row0: index, %rows: index,
                    %len: index, %tiles: index) kernel
      attributes {fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: @THREADS@, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cbn = arith.constant @BN@ : index
    %ninf = arith.constant dense<0xFF800000> : vector<@BM@xf32>
    %zrow = arith.constant dense<0.0> : vector<@BM@xf32>
    %zacc = arith.constant dense<0.0> : vector<@BM@x128xf32>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %ninf2 = arith.constant dense<0xFF800000> : vector<@BM@x@BN@xf32>
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %r:3 = scf.for %t = %c0 to %tiles step %c1 iter_args(%m = %ninf, %l = %zrow, %acc = %zacc) -> (vector<@BM@xf32>, vector<@BM@xf32>, vector<@BM@x128xf32>) {
      %t0 = arith.muli %t, %cbn : index
      %id = fmha.page_ids %pages[%t0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
      %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%t0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
      %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
      // A window (16, 0): key j < len, j <= row0 + i and j >= row0 + i - 16.
      %step = vector.step : vector<@BM@xindex>
      %rb = vector.broadcast %row0 : index to vector<@BM@xindex>
      %qi = arith.addi %step, %rb : vector<@BM@xindex>
      %tb = vector.broadcast %t0 : index to vector<@BM@xindex>
      %kj = arith.addi %step, %tb : vector<@BM@xindex>
      %qc = vector.shape_cast %qi : vector<@BM@xindex> to vector<@BM@x1xindex>
      %q2 = vector.broadcast %qc : vector<@BM@x1xindex> to vector<@BM@x@BN@xindex>
      %k2 = vector.broadcast %kj : vector<@BM@xindex> to vector<@BM@x@BN@xindex>
      %lenb = vector.broadcast %len : index to vector<@BM@x@BN@xindex>
      %in = arith.cmpi slt, %k2, %lenb : vector<@BM@x@BN@xindex>
      %vis = arith.cmpi sle, %k2, %q2 : vector<@BM@x@BN@xindex>
      %c16 = arith.constant dense<16> : vector<@BM@x@BN@xindex>
      %lo = arith.subi %q2, %c16 : vector<@BM@x@BN@xindex>
      %after = arith.cmpi sge, %k2, %lo : vector<@BM@x@BN@xindex>
      %upper = arith.andi %in, %vis : vector<@BM@x@BN@xi1>
      %mask = arith.andi %upper, %after : vector<@BM@x@BN@xi1>
      %sm = arith.select %mask, %s, %ninf2 : vector<@BM@x@BN@xi1>, vector<@BM@x@BN@xf32>
      %mx = vector.multi_reduction <maximumf>, %sm, %ninf [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>
      %mn = arith.maximumf %m, %mx : vector<@BM@xf32>
      %mc = vector.shape_cast %mn : vector<@BM@xf32> to vector<@BM@x1xf32>
      %mb = vector.broadcast %mc : vector<@BM@x1xf32> to vector<@BM@x@BN@xf32>
      %d = arith.subf %sm, %mb : vector<@BM@x@BN@xf32>
      %p = math.exp2 %d : vector<@BM@x@BN@xf32>
      %da = arith.subf %m, %mn : vector<@BM@xf32>
      %alpha = math.exp2 %da : vector<@BM@xf32>
      %ps = vector.multi_reduction <add>, %p, %zrow [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>
      %la = arith.mulf %alpha, %l : vector<@BM@xf32>
      %ln = arith.addf %la, %ps : vector<@BM@xf32>
      %ac = vector.shape_cast %alpha : vector<@BM@xf32> to vector<@BM@x1xf32>
      %ab = vector.broadcast %ac : vector<@BM@x1xf32> to vector<@BM@x128xf32>
      %an = arith.mulf %ab, %acc : vector<@BM@x128xf32>
      scf.yield %mn, %ln, %an : vector<@BM@xf32>, vector<@BM@xf32>, vector<@BM@x128xf32>
    } {fmha.kv_loop}
    fmha.store_rows %r#2, %o[%row0, %c0] rows(%rows) : vector<@BM@x128xf32>, memref<?x2x128xf32>
    %lg = math.log %r#1 : vector<@BM@xf32>
    %lse_v = arith.addf %r#0, %lg : vector<@BM@xf32>
    fmha.store_rows %lse_v, %lse[%row0, %c0] rows(%rows) : vector<@BM@xf32>, memref<?x2xf32>
    gpu.return
  }
}
}
