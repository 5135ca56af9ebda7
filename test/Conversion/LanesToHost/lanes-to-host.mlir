// fmha-lanes-to-host: every wave/workgroup op and vendor numeric becomes a
// call of the lane runtime; the kernel a host function with the flat ABI,
// its entry `<kernel>_lanes`, the launch a runtime call.
// RUN: fmha-opt %s --split-input-file --fmha-lanes-to-host | FileCheck %s

// CHECK-NOT: gpu.module
// CHECK-DAG: func.func private @fmha_lane_launch((!llvm.ptr) -> (), i64, i64, i64, i64, i64, i64, !llvm.ptr, i64)
// CHECK-DAG: func.func private @fmha_lane_mma(i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-DAG: func.func private @fmha_lane_shared(i32, i64) -> !llvm.ptr
// CHECK-LABEL: func.func @host
// CHECK: %[[ARGS:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK: %[[FN:.*]] = constant @k_lanes : (!llvm.ptr) -> ()
// CHECK: %[[W:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: call @fmha_lane_launch(%[[FN]], {{.*}}, %[[ARGS]], %[[W]])
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: func.func @k(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64)
// CHECK: %[[LDS:.*]] = call @fmha_lane_shared(%c0_i32, %{{.*}}) : (i32, i64) -> !llvm.ptr
// CHECK: builtin.unrealized_conversion_cast %{{.*}} to memref<4096xi8>
// CHECK: call @fmha_lane_id(%c0_i32{{.*}}) : (i32) -> i64
// CHECK: call @fmha_lane_id(%c3_i32{{.*}}) : (i32) -> i64
// CHECK: llvm.store %{{.*}} {alignment = 64 : i64} : vector<8xi8>, !llvm.ptr
// CHECK: call @fmha_lane_mma(%c0_i32{{.*}}, %c5_i32{{.*}}
// CHECK: llvm.load %{{.*}} {alignment = 64 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NOT: amdgpu.sched_barrier
// CHECK: call @fmha_lane_shuffle(%c1_i32{{.*}}, %c0_i32{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i32, i32) -> i64
// CHECK: call @fmha_lane_readfirstlane(%c2_i32{{.*}}
// gfx942 packs FNUZ (format 1).
// CHECK: call @fmha_lane_cvt_pk_fp8(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i32{{.*}}, %c1_i32{{.*}})
// CHECK: call @fmha_lane_exp2(
// CHECK: call @fmha_lane_log2(
// CHECK: call @fmha_lane_barrier(%c3_i32{{.*}}) : (i32) -> ()
// CHECK: return
// CHECK-LABEL: func.func @k_lanes(%{{.*}}: !llvm.ptr)
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: call @k(
module attributes {gpu.container_module} {
  func.func @host(%p: !llvm.ptr<1>, %n: i64) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%p : !llvm.ptr<1>, %n : i64)
    return
  }
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k(%p: !llvm.ptr<1>, %n: i64) workgroup(%lds : memref<4096xi8, #gpu.address_space<workgroup>>) kernel {
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %a8 = arith.constant dense<0.5> : vector<8xf8E4M3FNUZ>
      %acc = arith.constant dense<0.0> : vector<16xf32>
      %d = amdgpu.mfma 32x32x16 %a8 * %a8 + %acc blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
      amdgpu.sched_barrier allow = <mfma_wmma>
      %x = vector.extract %d[0] : f32 from vector<16xf32>
      %c32 = arith.constant 32 : i32
      %c64 = arith.constant 64 : i32
      %s, %valid = gpu.shuffle xor %x, %c32, %c64 : f32
      %r = rocdl.readfirstlane %s : f32
      %old = llvm.mlir.poison : i32
      %w = rocdl.cvt.pk.fp8.f32 %r, %x -> %old[true] : i32
      %e = rocdl.exp2 %r f32 -> f32
      %l = rocdl.log %e f32 -> f32
      %i = arith.index_cast %t : index to i32
      %wi = arith.addi %w, %i : i32
      %v = vector.broadcast %wi : i32 to vector<4xi32>
      %vb = vector.bitcast %v : vector<4xi32> to vector<16xi8>
      %c0 = arith.constant 0 : index
      vector.store %vb, %lds[%c0] : memref<4096xi8, #gpu.address_space<workgroup>>, vector<16xi8>
      gpu.barrier
      gpu.return
    }
  }
}

// -----

// sm_90: inline PTX mma.sync (e4m3 x e4m3 = kind 2*16 + 0 + 0), ex2, lg2,
// cvt.rn.satfinite.e4m3x2 (a to the upper byte); wave 32.
// CHECK-LABEL: func.func @host
// CHECK: %[[W:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK: call @fmha_lane_launch({{.*}}, %[[W]])
// CHECK-LABEL: func.func @k
// CHECK-COUNT-4: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: call @fmha_lane_mma(%c0_i32{{.*}}, %c32_i32{{.*}}
// CHECK-COUNT-4: llvm.insertvalue
// CHECK: call @fmha_lane_exp2(
// CHECK: call @fmha_lane_log2(
// CHECK: %[[C:.*]] = call @fmha_lane_cvt_fp8x2(%{{.*}}, %{{.*}}, %c0_i32{{.*}}) : (f32, f32, i32) -> i32
// CHECK: arith.trunci %[[C]] : i32 to i16
// CHECK-NOT: llvm.inline_asm
module attributes {gpu.container_module} {
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args()
    return
  }
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @k() kernel {
      %a = arith.constant 1 : i32
      %f = arith.constant 1.0 : f32
      %m = llvm.inline_asm has_side_effects asm_dialect = att "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};", "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f" %a, %a, %a, %a, %a, %a, %f, %f, %f, %f : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %d0 = llvm.extractvalue %m[0] : !llvm.struct<(f32, f32, f32, f32)>
      %e = llvm.inline_asm asm_dialect = att "ex2.approx.ftz.f32 $0, $1;", "=f,f" %d0 : (f32) -> f32
      %l = llvm.inline_asm asm_dialect = att "lg2.approx.ftz.f32 $0, $1;", "=f,f" %e : (f32) -> f32
      %h = llvm.inline_asm asm_dialect = att "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;", "=h,f,f" %l, %e : (f32, f32) -> i16
      gpu.return
    }
  }
}

// -----

// sm_90a: the warpgroup MMA (TargetInfo::warpgroupMmaChain's asm). The tied
// fence and waits (`wait_group N`, N = 0 and 1 here) pass their operands
// through (the runtime's wgmma is synchronous), the commit and the async-proxy fence vanish, each wgmma step
// is one call: kind 3*16 + 0 + 0 = 48, N, scale-d, A's words in a slot (RS)
// or null and a descriptor (SS), B's descriptor, the accumulator slots.
// CHECK-DAG: func.func private @fmha_lane_wgmma(i32, i32, i32, i32, !llvm.ptr, i64, i64, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: func.func @k()
// CHECK-NOT: nvvm.
// CHECK: llvm.insertvalue
// CHECK-COUNT-4: llvm.store %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: call @fmha_lane_wgmma(%{{.*}}, %c48_i32{{.*}}, %c8_i32{{.*}}, %c0_i32{{.*}}, %{{.*}}, %c0_i64{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-COUNT-4: llvm.store %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @fmha_lane_wgmma(%{{.*}}, %c48_i32{{.*}}, %c8_i32{{.*}}, %c1_i32{{.*}}, %[[NULL]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: llvm.inline_asm
// CHECK-NOT: nvvm.
// CHECK: return
module attributes {gpu.container_module} {
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args()
    return
  }
  gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx84">] {
    gpu.func @k() kernel {
      %a = arith.constant 1 : i32
      %f = arith.constant 1.0 : f32
      %d = arith.constant 4611686293305360384 : i64
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      %t = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.fence.sync.aligned;", "=r,=f,0,1" %a, %f : (i32, f32) -> !llvm.struct<(i32, f32)>
      %a1 = llvm.extractvalue %t[0] : !llvm.struct<(i32, f32)>
      %rs = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {$0, $1, $2, $3}, {$4, $5, $6, $7}, $8, p, 1, 1;\0A}", "=f,=f,=f,=f,r,r,r,r,l" %a1, %a1, %a1, %a1, %d : (i32, i32, i32, i32, i64) -> !llvm.struct<(f32, f32, f32, f32)>
      %c0 = llvm.extractvalue %rs[0] : !llvm.struct<(f32, f32, f32, f32)>
      %ss = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {$0, $1, $2, $3}, $8, $9, p, 1, 1;\0A}", "=f,=f,=f,=f,0,1,2,3,l,l" %c0, %c0, %c0, %c0, %d, %d : (f32, f32, f32, f32, i64, i64) -> !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.commit.group.sync.aligned
      %s0 = llvm.extractvalue %ss[0] : !llvm.struct<(f32, f32, f32, f32)>
      %w1 = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 1;", "=f,0" %s0 : (f32) -> !llvm.struct<(f32)>
      %s1 = llvm.extractvalue %w1[0] : !llvm.struct<(f32)>
      %w = llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "=f,0" %s1 : (f32) -> !llvm.struct<(f32)>
      gpu.return
    }
  }
}
