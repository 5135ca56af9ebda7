// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile --fmha-fold-descales --fmha-fold-exp2-shift --canonicalize | FileCheck %s
// RUN: fmha-opt %s --split-input-file --fmha-select-config=chip=host --fmha-tile --fmha-fold-exp2-shift --canonicalize | FileCheck %s --check-prefix=NOFOLD

// e4m3fnuz P: SHIFT 7 is subtracted from the per-row term, p goes from exp2
// straight to the fp8 cast (no multiply of P survives), l sums the shifted p
// and the epilogue divides by l alone; lse subtracts 7 * ln2.
// CHECK-LABEL: func @kv_blockscale_f8fnuz_shift7
// CHECK-DAG: %[[SHIFT:.*]] = arith.constant dense<7.000000e+00> : vector<16xf32>
// CHECK-DAG: %[[SHLN2:.*]] = arith.constant dense<4.85203028> : vector<16xf32>
// CHECK: %[[R:.*]]:3 = scf.for
// CHECK: %[[ROW:.*]] = arith.subf %{{.*}}, %[[SHIFT]] : vector<16xf32>
// CHECK: %[[RC:.*]] = vector.shape_cast %[[ROW]]
// CHECK: %[[RB:.*]] = vector.broadcast %[[RC]]
// CHECK: %[[ARG:.*]] = arith.subf %{{.*}}, %[[RB]] : vector<16x32xf32>
// CHECK: %[[P:.*]] = math.exp2 %[[ARG]] : vector<16x32xf32>
// CHECK: vector.multi_reduction <add>, %[[P]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: %[[P8:.*]] = arith.truncf %[[P]] : vector<16x32xf32> to vector<16x32xf8E4M3FNUZ>
// CHECK-NEXT: fmha.tile_mma %[[P8]]
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[R]]#1 : vector<16xf32>
// CHECK: %[[LOG:.*]] = math.log %[[R]]#1
// CHECK: %[[LOGS:.*]] = arith.subf %[[LOG]], %[[SHLN2]] : vector<16xf32>
// CHECK: arith.addf %{{.*}}, %[[LOGS]]
// NOFOLD-LABEL: func @kv_blockscale_f8fnuz_shift7
// NOFOLD: %[[P:.*]] = math.exp2 %{{.*}} : vector<16x32xf32>
// NOFOLD-NOT: arith.mulf %[[P]]
// NOFOLD: arith.truncf %[[P]] : vector<16x32xf32> to vector<16x32xf8E4M3FNUZ>
func.func @kv_blockscale_f8fnuz_shift7(
    %q: memref<?x8x64xf8E4M3FNUZ>, %k: memref<?x1024x2x64xf8E4M3FNUZ>,
    %v: memref<?x1024x2x64xf8E4M3FNUZ>, %qo: memref<?xi32>, %kvp: memref<?xi32>,
    %ids: memref<?xi32>, %last: memref<?xi32>, %qd: memref<1xf32>,
    %kd: memref<?x2xf32>, %vd: memref<?x2xf32>, %o: memref<?x8x64xbf16>,
    %lse: memref<?x8xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x64xf8E4M3FNUZ>)
      k(%k : memref<?x1024x2x64xf8E4M3FNUZ>) v(%v : memref<?x1024x2x64xf8E4M3FNUZ>)
      qo_indptr(%qo : memref<?xi32>) kv_indptr(%kvp : memref<?xi32>)
      kv_page_indices(%ids : memref<?xi32>) kv_last_page_len(%last : memref<?xi32>)
      q_descale(%qd : memref<1xf32>) k_descale(%kd : memref<?x2xf32>)
      v_descale(%vd : memref<?x2xf32>) out(%o : memref<?x8x64xbf16>)
      lse(%lse : memref<?x8xf32>)
      {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
       page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 1024 : i64}
  return
}

// -----

// e4m3fn P (OCP): SHIFT 8.
// CHECK-LABEL: func @per_tensor_f8ocp_shift8
// CHECK: arith.constant dense<8.000000e+00> : vector<16xf32>
// CHECK: %[[P:.*]] = math.exp2 %{{.*}} : vector<16x32xf32>
// CHECK-NOT: arith.mulf %[[P]]
// CHECK: arith.truncf %[[P]] : vector<16x32xf32> to vector<16x32xf8E4M3FN>
// NOFOLD-LABEL: func @per_tensor_f8ocp_shift8
func.func @per_tensor_f8ocp_shift8(
    %q: memref<?x8x64xf8E4M3FN>, %k: memref<?x16x2x64xf8E4M3FN>,
    %v: memref<?x16x2x64xf8E4M3FN>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %qd: memref<1xf32>, %kd: memref<1xf32>, %vd: memref<1xf32>,
    %o: memref<?x8x64xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x64xf8E4M3FN>)
      k(%k : memref<?x16x2x64xf8E4M3FN>) v(%v : memref<?x16x2x64xf8E4M3FN>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) q_descale(%qd : memref<1xf32>)
      k_descale(%kd : memref<1xf32>) v_descale(%vd : memref<1xf32>)
      out(%o : memref<?x8x64xf32>)
      {quant = #fmha.quant<per_tensor>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}

// -----

// A 16-bit P has no scale: the pass leaves the loop and the epilogue alone.
// CHECK-LABEL: func @negative_bf16_p
// CHECK-NOT: dense<8.000000e+00>
// CHECK-NOT: dense<7.000000e+00>
// CHECK: %[[P:.*]] = math.exp2 %{{.*}} : vector<16x32xf32>
// CHECK: arith.truncf %[[P]] : vector<16x32xf32> to vector<16x32xbf16>
// NOFOLD-LABEL: func @negative_bf16_p
// NOFOLD: math.exp %{{.*}} : vector<16x32xf32>
// NOFOLD-NOT: math.exp2
func.func @negative_bf16_p(
    %q: memref<?x8x64xbf16>, %k: memref<?x16x2x64xbf16>,
    %v: memref<?x16x2x64xbf16>, %qo: memref<?xi32>, %bt: memref<?x?xi32>,
    %sl: memref<?xi32>, %o: memref<?x8x64xf32>) {
  fmha.batch_prefill q(%q : memref<?x8x64xbf16>)
      k(%k : memref<?x16x2x64xbf16>) v(%v : memref<?x16x2x64xbf16>)
      qo_indptr(%qo : memref<?xi32>) block_table(%bt : memref<?x?xi32>)
      kv_seqlen(%sl : memref<?xi32>) out(%o : memref<?x8x64xf32>)
      {quant = #fmha.quant<none>, mask = #fmha.mask<none>,
       page_table = #fmha.page_table<block_table>, kv_layout = #fmha.kv_layout<nhd>,
       page_size = 16 : i64}
  return
}
