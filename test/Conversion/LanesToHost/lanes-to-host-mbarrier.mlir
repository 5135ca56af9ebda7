// fmha-lanes-to-host on sm_90a's warp-specialization ops: each mbarrier op
// becomes its runtime call with the mbarrier's address as an i64 (the
// workgroup buffer is host memory), named barriers fmha_lane_named_barrier
// (site, id, n, wait), nvvm.barrier without operands the workgroup barrier,
// elect.sync a wave op; the mbarrier-init fence and setmaxregister are
// dropped. Sites count in program order.
// RUN: fmha-opt %s --fmha-lanes-to-host | FileCheck %s --implicit-check-not=nvvm.

// CHECK-DAG: func.func private @fmha_lane_mbarrier_init(i32, i64, i32)
// CHECK-DAG: func.func private @fmha_lane_mbarrier_arrive(i32, i64, i32) -> i64
// CHECK-DAG: func.func private @fmha_lane_mbarrier_wait(i32, i64, i32)
// CHECK-DAG: func.func private @fmha_lane_named_barrier(i32, i32, i32, i32)
// CHECK-DAG: func.func private @fmha_lane_elect(i32) -> i32
// CHECK-LABEL: func.func @k()
// CHECK: %[[LDS:.*]] = call @fmha_lane_shared(%c0_i32{{.*}}, %{{.*}}) : (i32, i64) -> !llvm.ptr
// CHECK: %[[BARS:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<4xi64>
// CHECK: memref.extract_aligned_pointer_as_index %[[BARS]] : memref<4xi64> -> index
// The predicated init: under its predicate.
// CHECK: scf.if %[[P0:.*]] {
// CHECK: %[[A0:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK-NEXT: call @fmha_lane_mbarrier_init(%c0_i32{{.*}}, %[[A0]], %{{.*}}) : (i32, i64, i32) -> ()
// CHECK: scf.if %[[P0]] {
// CHECK: call @fmha_lane_mbarrier_init(%c1_i32{{.*}}, %{{.*}}, %{{.*}}) : (i32, i64, i32) -> ()
// CHECK: call @fmha_lane_barrier(%c2_i32{{.*}}) : (i32) -> ()
// mbarrier.arrive: count 1, its i64 result the runtime's.
// CHECK: %[[A:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i64
// CHECK: %[[TOK:.*]] = call @fmha_lane_mbarrier_arrive(%c3_i32{{.*}}, %[[A]], %c1_i32{{.*}}) : (i32, i64, i32) -> i64
// CHECK: memref.store %[[TOK]], %[[BARS]][%{{.*}}] : memref<4xi64>
// cp.async.mbarrier.arrive: noinc an arrive (1), without noinc none (0).
// CHECK: call @fmha_lane_mbarrier_arrive(%c4_i32{{.*}}, %{{.*}}, %c1_i32{{.*}})
// CHECK: call @fmha_lane_mbarrier_arrive(%c5_i32{{.*}}, %{{.*}}, %c0_i32{{.*}})
// CHECK: call @fmha_lane_mbarrier_wait(%c6_i32{{.*}}, %{{.*}}, %[[PARITY:.*]]) : (i32, i64, i32) -> ()
// bar.sync 1, 256; bar.arrive 1, 256; bar.sync 2 (all threads); nvvm.barrier.
// CHECK: call @fmha_lane_named_barrier(%c7_i32{{.*}}, %[[ID:.*]], %[[N:.*]], %c1_i32{{.*}}) : (i32, i32, i32, i32) -> ()
// CHECK: call @fmha_lane_named_barrier(%c8_i32{{.*}}, %[[ID]], %[[N]], %c0_i32{{.*}})
// CHECK: call @fmha_lane_named_barrier(%c9_i32{{.*}}, %{{.*}}, %c0_i32{{.*}}, %c1_i32{{.*}})
// CHECK: call @fmha_lane_barrier(%c10_i32{{.*}}) : (i32) -> ()
// CHECK: %[[E:.*]] = call @fmha_lane_elect(%c11_i32{{.*}}) : (i32) -> i32
// CHECK: %[[EB:.*]] = arith.cmpi ne, %[[E]], %c0_i32{{.*}} : i32
// CHECK: %[[E64:.*]] = arith.extui %[[EB]] : i1 to i64
// CHECK: memref.store %[[E64]], %[[BARS]]
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx84">] {
    gpu.func @k() workgroup(%bars : memref<4xi64, #gpu.address_space<workgroup>>) kernel {
      %base = memref.extract_aligned_pointer_as_index %bars : memref<4xi64, #gpu.address_space<workgroup>> -> index
      %b64 = arith.index_cast %base : index to i64
      %c8 = arith.constant 8 : i64
      %b64_1 = arith.addi %b64, %c8 : i64
      %full = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
      %empty = llvm.inttoptr %b64_1 : i64 to !llvm.ptr<3>
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %t, %c0 : index
      %c128 = arith.constant 128 : i32
      %c256 = arith.constant 256 : i32
      nvvm.mbarrier.init %full, %c128, predicate = %first : !llvm.ptr<3>, i32, i1
      scf.if %first {
        nvvm.mbarrier.init %empty, %c256 : !llvm.ptr<3>, i32
      }
      nvvm.fence.mbarrier.init
      nvvm.setmaxregister increase 232
      gpu.barrier
      %tok = nvvm.mbarrier.arrive %full : !llvm.ptr<3> -> i64
      %c2 = arith.constant 2 : index
      memref.store %tok, %bars[%c2] : memref<4xi64, #gpu.address_space<workgroup>>
      nvvm.cp.async.mbarrier.arrive %empty {noinc = true} : !llvm.ptr<3>
      nvvm.cp.async.mbarrier.arrive %empty : !llvm.ptr<3>
      %parity = arith.constant 0 : i32
      %ticks = arith.constant 1000000 : i32
      nvvm.mbarrier.try_wait.parity %full, %parity, %ticks : !llvm.ptr<3>, i32, i32
      %id = arith.constant 1 : i32
      nvvm.barrier id = %id number_of_threads = %c256
      nvvm.barrier.arrive id = %id number_of_threads = %c256
      %id2 = arith.constant 2 : i32
      nvvm.barrier id = %id2
      nvvm.barrier
      nvvm.setmaxregister decrease 40
      %e = nvvm.elect.sync -> i1
      %e64 = arith.extui %e : i1 to i64
      %c3 = arith.constant 3 : index
      memref.store %e64, %bars[%c3] : memref<4xi64, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
