// RUN: fmha-opt %s --fmha-select-config=chip=host --fmha-tile | FileCheck %s
// RUN: fmha-opt %s --fmha-select-config=chip=host --fmha-tile --fmha-fold-descales | FileCheck %s --check-prefix=FOLD
// A run-time soft cap (runtime_soft_cap): fmha-tile reads the cap from
// runtime_scalars[3] (f32 bits) and 1 / cap once per workgroup, and caps the
// scores with tanh(s * (1 / cap)) * cap; fmha-fold-descales folds the cap
// into sigma = cap * log2(e) and 1 / cap into the one multiply before tanh,
// as it does a compile-time cap's constants (fold-descales.mlir).
// CHECK: %[[CB:.*]] = memref.load %[[RS:.*]][%c3] : memref<4xi32>
// CHECK: %[[CAP:.*]] = arith.bitcast %[[CB]] : i32 to f32
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[CAP]] : f32
// CHECK: scf.for
// CHECK-DAG: %[[VINV:.*]] = vector.broadcast %[[INV]] : f32 to vector<16x32xf32>
// CHECK-DAG: %[[X:.*]] = arith.mulf %{{.*}}, %[[VINV]] : vector<16x32xf32>
// CHECK: %[[T:.*]] = math.tanh %[[X]] : vector<16x32xf32>
// CHECK: %[[VCAP:.*]] = vector.broadcast %[[CAP]] : f32 to vector<16x32xf32>
// CHECK: arith.mulf %[[T]], %[[VCAP]] : vector<16x32xf32>
// FOLD: %[[CB:.*]] = memref.load %{{.*}}[%c3] : memref<4xi32>
// FOLD: %[[CAP:.*]] = arith.bitcast %[[CB]] : i32 to f32
// FOLD: %[[INV:.*]] = arith.divf %{{.*}}, %[[CAP]] : f32
// FOLD: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// FOLD: %[[SIGMA:.*]] = arith.mulf %[[CAP]], %[[LOG2E]] : f32
// FOLD: %[[PRE:.*]] = arith.mulf %{{.*}}, %[[INV]] : f32
// The cap multiply after tanh is gone (sigma holds it): the mask takes t.
// FOLD: scf.for
// FOLD: %[[T:.*]] = math.tanh
// FOLD-NOT: arith.mulf %[[T]]
// FOLD: fmha.mask_tile %[[T]]
// FOLD: math.exp2
func.func @runtime_soft_cap(
    %q: memref<?x8x128xf8E4M3FN>, %k: memref<?x1024x2x128xf8E4M3FN>,
    %v: memref<?x1024x2x128xf8E4M3FN>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %rs: memref<4xi32>,
    %o: memref<?x8x128xbf16>) {
  fmha.batch_prefill q(%q : memref<?x8x128xf8E4M3FN>)
      k(%k : memref<?x1024x2x128xf8E4M3FN>) v(%v : memref<?x1024x2x128xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) runtime_scalars(%rs : memref<4xi32>)
      out(%o : memref<?x8x128xbf16>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1024 : i64, runtime_soft_cap}
  return
}
