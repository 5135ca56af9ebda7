// The MMA patterns on sm_90a (MmaPatterns.cpp, TargetInfo::warpgroupMma):
// each product is chains of warpgroup MMAs over the whole tile, both of
// S = Q K^T's operands and P V's B read by the MMA from swizzled staged
// tiles (Q, K, V^T), P from registers, for the three V-descale routes. The
// kernels are mma.mlir's.
//
// RUN: sed -f %S/Inputs/sm_90a.sed %s | fmha-opt --convert-fmha-to-gpu=chip=sm_90a -o %t.mlir
// RUN: FileCheck %s < %t.mlir
//
// BlockN 128: one wgmma per k step: QK 128 / 32 = 4 steps in each half of
// the 128 keys (m64n64k32, TargetInfo::scoreInHalves), 8 per kernel, 24 in
// all; PV 128 / 32 = 4 steps (m64n128k32, N = 128 = D), 4 per kernel, 12.
// A piece holds at most warpgroupMmaPromoteSteps = 2 steps for Q K^T and
// warpgroupMmaPvPromoteSteps = 4 for an fp8 P V. QK: 3 groups per kernel
// (the first half's 2 pieces; the second half's first piece, in flight
// while the first half is waited for with wait_group 1; its second piece,
// issued after that wait), one wait_group 0; PV under one fence, commit
// and wait: scalar 1, page_groups 4 (one-step groups: 32-key pages, each
// group waited for before its fma into o), scaled_p 1. Fences and commits
// 9 + 6 = 15, wait_group 0 9, wait_group 1 3.
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3" %t.mlir | FileCheck %s --check-prefix=N24
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" %t.mlir | FileCheck %s --check-prefix=N12
// RUN: grep -c '"wgmma.fence.sync.aligned;"' %t.mlir | FileCheck %s --check-prefix=N15
// RUN: grep -c "nvvm.wgmma.commit.group.sync.aligned" %t.mlir | FileCheck %s --check-prefix=N15
// RUN: grep -c "wgmma.wait_group.sync.aligned 0" %t.mlir | FileCheck %s --check-prefix=N9
// RUN: grep -c "wgmma.wait_group.sync.aligned 1" %t.mlir | FileCheck %s --check-prefix=N3
// RUN: not grep -q "mma.sync" %t.mlir
// N24: {{^}}24{{$}}
// N12: {{^}}12{{$}}
// N15: {{^}}15{{$}}
// N9: {{^}}9{{$}}
// N3: {{^}}3{{$}}
//
// The staged tiles (Q, K, V^T) are 1024-aligned (the descriptors' swizzle
// phase); the stores go to swizzled 16-byte chunks (chunk ^ row % 8) and
// are fenced for the async proxy before the barrier; each step's B (and
// for Q K^T its A) is a descriptor of a tile's shared address (128B
// swizzle: mode 1 in bits 62-63, SBO 1024 B = 64 << 32, LBO 1:
// 0x4000004000010000). The first step of a chain from zero has scale-d = 0
// and no accumulator inputs; the next ones take them tied ($0.. in, the
// inputs numbered after the 64 outputs). The wgmma, fence and wait are
// side-effecting asm; the fence and the wait return the registers they
// are tied to.
// CHECK-LABEL: gpu.func @scalar_route
// CHECK-SAME: {llvm.align = 1024 : i64}
// CHECK-SAME: {llvm.align = 1024 : i64}
// CHECK-SAME: {llvm.align = 1024 : i64}
// CHECK: arith.xori
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;"
// CHECK: arith.constant 4611686293305360384 : i64
// S = Q K^T, both operands staged (SS): descriptors $32 (Q) and $33 (K),
// the first key half (m64n64: 32 accumulators).
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {$0, $1,
// CHECK-SAME: $31}, $32, $33, p, 1, 1;\0A}", "=f,
// CHECK-SAME: =f,l,l"
// CHECK: setp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {$0,
// CHECK-SAME: $31}, $64, $65, p, 1, 1;
// The half's second piece (steps 2 and 3, from zero into registers of its
// own) is issued before the commit; then the second half's first piece,
// committed as a group of its own.
// CHECK-NOT: wgmma.wait_group
// CHECK: setp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {$0,
// CHECK-SAME: $31}, $32, $33, p, 1, 1;
// CHECK-NOT: wgmma.wait_group
// CHECK: setp.ne.b32 p, 1, 0;
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.wait_group
// CHECK: wgmma.fence.sync.aligned;
// Its K descriptor starts 64 keys of 128 bytes (8192) into the K tile.
// CHECK: %[[K64:.*]] = arith.addi %{{.*}}, %c8192_i64 : i64
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: arith.shrui %[[K64]]
// CHECK: setp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {$0,
// CHECK: setp.ne.b32 p, 1, 0;
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// The first half waited for (its 64 accumulators pass through the wait;
// one group, the second half's first piece, still in flight) and summed.
// CHECK-NOT: wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", "=f,
// CHECK-SAME: ,63"
// CHECK: arith.addf {{.*}} : vector<32xf32>
// Then the second half's second piece, and a wait for both of its pieces.
// CHECK: wgmma.fence.sync.aligned;
// CHECK: setp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {$0,
// CHECK: setp.ne.b32 p, 1, 0;
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,
// CHECK-SAME: ,63"
// CHECK: arith.addf {{.*}} : vector<32xf32>
// P V: P packed to fp8 in registers (RS), V^T staged.
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: setp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {$0,
// CHECK-SAME: $63}, {$64, $65, $66, $67}, $68, p, 1, 1;
// CHECK-SAME: =f,r,r,r,r,l"
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @page_groups_route
// A page's steps from zero, added to o times its vd.
// CHECK: wgmma.mma_async
// CHECK: vector.fma
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @scaled_p_route
// CHECK: arith.divf
// CHECK: wgmma.mma_async
// CHECK: vector.fma
// CHECK: gpu.return
// CHECK-NOT: fmha.tile_mma

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
