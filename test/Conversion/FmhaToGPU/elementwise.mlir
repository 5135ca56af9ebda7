// The elementwise patterns (ElementwisePatterns.cpp) on each chip, in a KV
// loop as fmha-tile writes it: splat constants, the causal mask as bounds on
// symbolic columns (column constants against one scalar per atom, two bounds
// joined), masked selects per atom, row reductions finished across lanes by
// the chip's xor shuffles, exp2 / log, a row broadcast, and the loop
// carrying m, l (row form) and o (accumulator parts) through upstream's
// structural scf conversion.
//
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,AMD,GFX942
// RUN: sed -f %S/Inputs/gfx950.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx950 | FileCheck %s --check-prefixes=CHECK,AMD,GFX950
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | FileCheck %s --check-prefixes=CHECK,SM90
//
// CHECK-LABEL: gpu.func @softmax
// The loop carries one f32 per row slot for m and l and one vector per
// accumulator atom for o (on AMD 1 slot, o 128 / 32 = 4 atoms of 16; sm_90
// 2 slots, 128 / 8 = 16 atoms of 4).
// AMD: scf.for {{.*}} -> (f32, f32, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// SM90: scf.for {{.*}} -> (f32, f32, f32, f32, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// The mask: both bounds (j < len, j <= row) are upper bounds on the column,
// joined by minsi into one, so per atom one compare of the column constants.
// CHECK: arith.minsi %{{.*}} : vector<{{16|4}}xi32>
// On AMD an element at a time (TargetInfo::maskSelectsPerFence 1): its
// column constant (0, 1, 2, 3, 8, ... of the atom's 16), its compare, its
// select into the atom, then a fence, so that each lane mask is consumed
// before the next is made.
// AMD: arith.constant dense<0> : vector<1xi32>
// AMD-NEXT: vector.shuffle %[[B:.*]], %[[B]] [0] : vector<16xi32>, vector<16xi32>
// AMD-NEXT: arith.cmpi sle, %{{.*}}, %{{.*}} : vector<1xi32>
// AMD: arith.select %{{.*}} : vector<1xi1>, vector<1xf32>
// AMD-NEXT: vector.shuffle %{{.*}}, %{{.*}} [16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<16xf32>, vector<1xf32>
// AMD-NEXT: amdgpu.sched_barrier allow = <mfma_wmma>
// AMD: arith.constant dense<1> : vector<1xi32>
// AMD-NEXT: vector.shuffle %[[B]], %[[B]] [1]
// AMD: amdgpu.sched_barrier allow = <mfma_wmma>
// AMD: arith.constant dense<8> : vector<1xi32>
// AMD-NEXT: vector.shuffle %[[B]], %[[B]] [4]
// AMD: arith.constant dense<27> : vector<1xi32>
// AMD-NEXT: vector.shuffle %[[B]], %[[B]] [15]
// AMD: arith.select %{{.*}} : vector<1xi1>, vector<1xf32>
// AMD-NEXT: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16] : vector<16xf32>, vector<1xf32>
// AMD-NEXT: amdgpu.sched_barrier allow = <mfma_wmma>
// SM90: arith.constant dense<[0, 1, 0, 1]> : vector<4xi32>
// SM90: arith.cmpi sle, %{{.*}}, %{{.*}} : vector<4xi32>
// SM90-NEXT: arith.select %{{.*}} : vector<4xi1>, vector<4xf32>
// The row max: atoms, then the lane's registers, then across lanes.
// AMD: arith.maxnumf
// GFX942: gpu.shuffle  xor %{{.*}}, %c32_i32
// gfx950: a copy swapped with itself across the halves, the two combined.
// GFX950: %[[SW:.*]] = rocdl.permlane32.swap %[[W:.*]], %[[W]], false, false
// GFX950: %[[H0:.*]] = llvm.extractvalue %[[SW]][0]
// GFX950: %[[H1:.*]] = llvm.extractvalue %[[SW]][1]
// GFX950: arith.maxnumf %{{.*}}, %{{.*}}
// SM90: llvm.intr.maxnum
// SM90: gpu.shuffle  xor %{{.*}}, %c1_i32
// SM90: gpu.shuffle  xor %{{.*}}, %c2_i32
// AMD: rocdl.exp2
// SM90: ex2.approx.ftz.f32
// CHECK: scf.yield
// lse = m + ln l: log2 by the chip's instruction, times ln 2.
// CHECK: arith.constant 0.693147182 : f32
// AMD-NEXT: rocdl.log
// SM90-NEXT: lg2.approx.ftz.f32
// CHECK: gpu.return
// Nothing whole-tile is left (the whole output):
// RUN: sed -f %S/Inputs/gfx942.sed %s | fmha-opt --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s --check-prefix=NEG
// RUN: sed -f %S/Inputs/sm_90.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90 | FileCheck %s --check-prefix=NEG
// NEG-NOT: vector.multi_reduction
// NEG-NOT: math.exp2
// NEG-NOT: vector.step
// NEG-NOT: vector.shape_cast

module attributes {gpu.container_module} {
gpu.module @fmha_kernels [@TARGET@] {
  gpu.func @softmax(%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
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
      // Causal: key j < len and j <= row0 + i.
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
      %mask = arith.andi %in, %vis : vector<@BM@x@BN@xi1>
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
