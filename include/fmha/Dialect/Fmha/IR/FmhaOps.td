//===- FmhaOps.td - fmha operations ------------------------*- tablegen -*-===//
#ifndef FMHA_DIALECT_FMHA_IR_FMHAOPS_TD
#define FMHA_DIALECT_FMHA_IR_FMHAOPS_TD

include "fmha/Dialect/Fmha/IR/FmhaAttributes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Fmha_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fmha_Dialect, mnemonic, traits>;

def Fmha_BatchPrefillOp : Fmha_Op<"batch_prefill", [AttrSizedOperandSegments]> {
  let summary = "paged batch-prefill attention with FP8 quantization";
  let description = [{
    Every sequence b of the batch attends with its query rows
    qo_indptr[b] .. qo_indptr[b+1] over its whole context in a paged KV cache.
    The contract (shapes, masks, descales, lse) is docs/SPEC.md; in short:

    | operand | shape | element types |
    |---|---|---|
    | q | [total_q, Hq, D] | bf16, f16, f8E4M3FN, f8E4M3FNUZ |
    | k, v | nhd: [N_pages, P, Hkv, D]; hnd: [N_pages, Hkv, P, D] (v: Dv) | bf16, f16, f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ |
    | qo_indptr | [B+1] | i32 |
    | csr: kv_indptr, kv_page_indices, kv_last_page_len | [B+1], [nnz], [B] | i32 |
    | block_table: block_table, kv_seqlen | [B, max_pages], [B] | i32 |
    | q_descale | one element (per_tensor, kv_blockscale) | f32 |
    | k_descale, v_descale | one element (per_tensor); [N_pages, Hkv] (kv_blockscale) | f32 |
    | out | [total_q, Hq, Dv] | bf16, f16, f32 |
    | lse (optional) | [total_q, Hq], natural log | f32 |

    Heads, head dims and the page size are static; batch, token and page
    counts may be dynamic. Descale strides are free (aiter interleaves K and V
    descales), every other operand has a contiguous innermost dimension.

    Example, the default request (FP8 e4m3 Q/K/V, per-page scales, page size
    1024, Hq/Hkv 32/8, D 128, causal, CSR page table, bf16 out):

    ```mlir
    fmha.batch_prefill
        q(%q : memref<?x32x128xf8E4M3FNUZ>)
        k(%k : memref<?x1024x8x128xf8E4M3FNUZ>)
        v(%v : memref<?x1024x8x128xf8E4M3FNUZ>)
        qo_indptr(%qo : memref<?xi32>)
        kv_indptr(%kvp : memref<?xi32>)
        kv_page_indices(%ids : memref<?xi32>)
        kv_last_page_len(%last : memref<?xi32>)
        q_descale(%qd : memref<1xf32>)
        k_descale(%kd : memref<?x8xf32>)
        v_descale(%vd : memref<?x8xf32>)
        out(%o : memref<?x32x128xbf16>)
        {quant = #fmha.quant<kv_blockscale>, mask = #fmha.mask<causal>,
         page_table = #fmha.page_table<csr>, kv_layout = #fmha.kv_layout<nhd>,
         page_size = 1024 : i64}
    ```
  }];

  let arguments = (ins
    Arg<AnyMemRef, "queries", [MemRead]>:$q,
    Arg<AnyMemRef, "paged key cache", [MemRead]>:$k_cache,
    Arg<AnyMemRef, "paged value cache", [MemRead]>:$v_cache,
    Arg<AnyMemRef, "query row offsets per sequence", [MemRead]>:$qo_indptr,
    Arg<Optional<AnyMemRef>, "", [MemRead]>:$kv_indptr,
    Arg<Optional<AnyMemRef>, "", [MemRead]>:$kv_page_indices,
    Arg<Optional<AnyMemRef>, "", [MemRead]>:$kv_last_page_len,
    Arg<Optional<AnyMemRef>, "", [MemRead]>:$block_table,
    Arg<Optional<AnyMemRef>, "", [MemRead]>:$kv_seqlen,
    Arg<Optional<AnyMemRef>, "", [MemRead]>:$q_descale,
    Arg<Optional<AnyMemRef>, "", [MemRead]>:$k_descale,
    Arg<Optional<AnyMemRef>, "", [MemRead]>:$v_descale,
    Arg<AnyMemRef, "attention output", [MemWrite]>:$out,
    Arg<Optional<AnyMemRef>, "log-sum-exp per row and head", [MemWrite]>:$lse,
    Fmha_QuantModeAttr:$quant,
    Fmha_MaskAttr:$mask,
    Fmha_PageTableFormAttr:$page_table,
    Fmha_KVLayoutAttr:$kv_layout,
    I64Attr:$page_size,
    OptionalAttr<F32Attr>:$sm_scale,
    OptionalAttr<F32Attr>:$soft_cap,
    OptionalAttr<AnyAttr>:$config
  );

  let assemblyFormat = [{
    `q` `(` $q `:` type($q) `)`
    `k` `(` $k_cache `:` type($k_cache) `)`
    `v` `(` $v_cache `:` type($v_cache) `)`
    `qo_indptr` `(` $qo_indptr `:` type($qo_indptr) `)`
    (`kv_indptr` `(` $kv_indptr^ `:` type($kv_indptr) `)`)?
    (`kv_page_indices` `(` $kv_page_indices^ `:` type($kv_page_indices) `)`)?
    (`kv_last_page_len` `(` $kv_last_page_len^ `:` type($kv_last_page_len) `)`)?
    (`block_table` `(` $block_table^ `:` type($block_table) `)`)?
    (`kv_seqlen` `(` $kv_seqlen^ `:` type($kv_seqlen) `)`)?
    (`q_descale` `(` $q_descale^ `:` type($q_descale) `)`)?
    (`k_descale` `(` $k_descale^ `:` type($k_descale) `)`)?
    (`v_descale` `(` $v_descale^ `:` type($v_descale) `)`)?
    `out` `(` $out `:` type($out) `)`
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    attr-dict
  }];

  let hasVerifier = 1;

  let extraClassDeclaration = [{
    /// Heads and head dims, read off the operand types (static by the verifier).
    int64_t getNumQHeads();
    int64_t getNumKVHeads();
    int64_t getHeadDim();
    int64_t getHeadDimV();
    /// sm_scale, or its default 1/sqrt(D) when absent.
    double getSmScaleOrDefault();
    /// The soft cap, 0 when absent (no cap).
    double getSoftCapOrZero();
  }];
}

#endif // FMHA_DIALECT_FMHA_IR_FMHAOPS_TD
