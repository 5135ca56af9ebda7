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
    | runtime_scalars (optional) | [4]: sm_scale as f32 bits, window left, window right, soft cap as f32 bits (0: none) | i32 |
    | out | [total_q, Hq, Dv] | bf16, f16, f32 |
    | lse (optional) | [total_q, Hq], natural log | f32 |

    Heads, head dims and the page size are static; batch, token and page
    counts may be dynamic. With `runtime_scalars` the softmax scale and a
    window's bounds are read at run time (one kernel for every layer of a
    model): the op then has no `sm_scale` attribute and a window mask is
    written `#fmha.mask<window, left = -1, right = -1>`; with
    `runtime_soft_cap` the soft cap's value is read from it too (the op has
    no `soft_cap` attribute; whether there is a cap stays compile-time). Descale strides are free (aiter interleaves K and V
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
    Arg<Optional<AnyMemRef>, "sm_scale (f32 bits), window left, window right, soft cap (f32 bits)",
        [MemRead]>:$runtime_scalars,
    Arg<AnyMemRef, "attention output", [MemWrite]>:$out,
    Arg<Optional<AnyMemRef>, "log-sum-exp per row and head", [MemWrite]>:$lse,
    Fmha_QuantModeAttr:$quant,
    Fmha_MaskAttr:$mask,
    Fmha_PageTableFormAttr:$page_table,
    Fmha_KVLayoutAttr:$kv_layout,
    I64Attr:$page_size,
    OptionalAttr<F32Attr>:$sm_scale,
    OptionalAttr<F32Attr>:$soft_cap,
    OptionalAttr<Fmha_ConfigAttr>:$config,
    UnitAttr:$runtime_soft_cap
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
    (`runtime_scalars` `(` $runtime_scalars^ `:` type($runtime_scalars) `)`)?
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


//===----------------------------------------------------------------------===//
// Tile-level ops: the tiled form that fmha-tile writes. Tiles are vectors;
// target lowerings (host, AMDGPU, NVIDIA) give them threads and registers.
//===----------------------------------------------------------------------===//

def Fmha_LoadRowsOp : Fmha_Op<"load_rows", [MemoryEffects<[MemRead]>]> {
  let summary = "loads up to R rows of one head, zero beyond num_rows";
  let description = [{
    Row r of the result is `source[row0 + r, head, ...]` for r < num_rows and
    zero otherwise; rows at or past num_rows are never read. The source is
    [rows, heads, D] (result vector<R x D>) or [rows, heads] (vector<R>).

    ```mlir
    %q = fmha.load_rows %qbuf[%row0, %h] rows(%n)
        : memref<?x32x128xf8E4M3FNUZ> -> vector<16x128xf8E4M3FNUZ>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, Index:$row0, Index:$head,
                       Index:$num_rows);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let assemblyFormat = [{
    $source `[` $row0 `,` $head `]` `rows` `(` $num_rows `)` attr-dict
    `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_StoreRowsOp : Fmha_Op<"store_rows", [MemoryEffects<[MemWrite]>]> {
  let summary = "stores the first num_rows rows of a tile to one head";
  let description = [{
    The inverse of `fmha.load_rows`: row r of `value` goes to
    `dest[row0 + r, head, ...]` for r < num_rows; nothing else is written.
  }];
  let arguments = (ins AnyVectorOfNonZeroRank:$value, AnyMemRef:$dest,
                       Index:$row0, Index:$head, Index:$num_rows);
  let assemblyFormat = [{
    $value `,` $dest `[` $row0 `,` $head `]` `rows` `(` $num_rows `)` attr-dict
    `:` type($value) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Fmha_PageIdsOp : Fmha_Op<"page_ids", [MemoryEffects<[MemRead]>]> {
  let summary = "physical page ids of the tokens of one KV tile";
  let description = [{
    `pages` is the sequence's own page list (its row of the block table, or
    its slice of kv_page_indices). Token j of the tile is logical key
    `tile_start + j`; its page id is `pages[(tile_start + j) / page_size]`
    when `tile_start + j < seq_len` and -1 otherwise. No entry past the
    sequence's last page is read.

    With an i32 result the tile lies in one page (page_size % BlockN == 0 and
    tile_start a multiple of BlockN): one id, wave-uniform. Inside a KV loop
    (`fmha.kv_loop`) that id, for a tile at or past seq_len (the last
    iteration's prefetch, which nothing gathers from), may be any page of
    the sequence instead of -1: the lane lowering reads the last page's,
    pages[min(tile_start / page_size, (seq_len - 1) / page_size)], so the
    value needs no select after its load.

    ```mlir
    %ids = fmha.page_ids %pages[%t0] len(%sk) {page_size = 16 : i64}
        : memref<?xi32, strided<[1], offset: ?>> -> vector<64xi32>
    %id = fmha.page_ids %pages[%t0] len(%sk) {page_size = 1024 : i64}
        : memref<?xi32, strided<[1], offset: ?>> -> i32
    ```
  }];
  let arguments = (ins AnyMemRef:$pages, Index:$tile_start, Index:$seq_len,
                       I64Attr:$page_size);
  let results = (outs AnyTypeOf<[I32, VectorOfRankAndType<[1], [I32]>]>:$ids);
  let assemblyFormat = [{
    $pages `[` $tile_start `]` `len` `(` $seq_len `)` attr-dict
    `:` type($pages) `->` type($ids)
  }];
  let hasVerifier = 1;
}

def Fmha_GatherKVOp : Fmha_Op<"gather_kv", [MemoryEffects<[MemRead]>]> {
  let summary = "gathers one KV tile of one KV head from the paged cache";
  let description = [{
    Row j of the result is the cache row of logical key `tile_start + j`:
    `cache[ids[j], (tile_start + j) % P, head, :]` (nhd) or
    `cache[ids[j], head, (tile_start + j) % P, :]` (hnd), and zero for
    tokens at or past `seq_len` (never read). `ids` is the result of
    `fmha.page_ids` (per token, or one uniform id). `in_bounds` states that
    every token of the tile is before `seq_len` (fmha-peel-masked-tiles sets
    it on the full tiles): a target then needs no zero-fill.
  }];
  let arguments = (ins AnyMemRef:$cache, AnyTypeOf<[I32, VectorOfRankAndType<[1], [I32]>]>:$ids,
                       Index:$head, Index:$tile_start, Index:$seq_len,
                       Fmha_KVLayoutAttr:$kv_layout, UnitAttr:$in_bounds);
  let results = (outs VectorOfRank<[2]>:$tile);
  let assemblyFormat = [{
    $cache `[` $ids `]` `head` `(` $head `)` `tile` `(` $tile_start `,` $seq_len `)`
    attr-dict `:` type($cache) `,` type($ids) `->` type($tile)
  }];
  let hasVerifier = 1;
}

def Fmha_StageKVOp : Fmha_Op<"stage_kv", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "starts bringing one KV tile into stage `slot` of a ring";
  let description = [{
    The asynchronous half of `fmha.gather_kv` (same cache, ids, head, tile
    start and length, layout; `in_bounds` is required: no zero-fill):
    starts copying the tile of type `tile_type` ([BlockN, D] of the cache's
    element type) into stage `slot` (0 <= slot < `stages`) of ring `ring`,
    when `enabled` is true. Whether enabled or not it ends one group of
    copies, so that `fmha.staged_kv`'s `pending` count is the same in every
    iteration. Written by fmha-pipeline-kv-stages; lowered only by
    convert-fmha-to-gpu on chips with asynchronous copies (sm_90a), never
    on the host.
  }];
  let arguments = (ins AnyMemRef:$cache, AnyTypeOf<[I32, VectorOfRankAndType<[1], [I32]>]>:$ids,
                       Index:$head, Index:$tile_start, Index:$seq_len,
                       Index:$slot, I1:$enabled,
                       Fmha_KVLayoutAttr:$kv_layout, UnitAttr:$in_bounds,
                       I64Attr:$ring, I64Attr:$stages, TypeAttr:$tile_type);
  let assemblyFormat = [{
    $cache `[` $ids `]` `head` `(` $head `)` `tile` `(` $tile_start `,` $seq_len `)`
    `slot` `(` $slot `)` `if` `(` $enabled `)`
    attr-dict `:` type($cache) `,` type($ids)
  }];
  let hasVerifier = 1;
}

def Fmha_StagedKVOp : Fmha_Op<"staged_kv", [MemoryEffects<[MemRead]>]> {
  let summary = "the KV tile in stage `slot` of a ring, once its copies landed";
  let description = [{
    Waits until at most `pending` groups of copies (`fmha.stage_kv`) that
    were started after this stage's are still in flight, then yields the
    tile the stage holds: the value `fmha.gather_kv` gives for the same
    arguments. `ring`, `stages` and the result type must be those of the
    `fmha.stage_kv` ops of the ring. With `by_barrier` (consumer warps of
    `fmha.warp_roles`, which start no copies) the wait is an
    `fmha.stage_wait` before it and `pending` must be 0. A ring that
    `fmha.stage_transpose` fills holds V tiles already transposed: the
    read is the stage itself.
  }];
  let arguments = (ins Index:$slot, I64Attr:$ring, I64Attr:$stages,
                       I64Attr:$pending, UnitAttr:$by_barrier);
  let extraClassDeclaration = [{
    /// The op that fills the ring (`fmha.stage_kv` or, for a ring of
    /// transposed V tiles, `fmha.stage_transpose`), or null.
    Operation *getFiller();
  }];
  let results = (outs VectorOfRank<[2]>:$tile);
  let assemblyFormat = [{
    `slot` `(` $slot `)` attr-dict `:` type($tile)
  }];
  let hasVerifier = 1;
}

def Fmha_GatherDescaleOp : Fmha_Op<"gather_descale", [MemoryEffects<[MemRead]>]> {
  let summary = "the per-(page, KV head) descales of the tokens of one tile";
  let description = [{
    Element j is `descale[ids[j], head]`; where ids[j] is -1 (a token past
    the sequence's end, or the tile after the last one) it is unspecified and
    must not be used: the host lowering gives 0, the GPU lowering row 0's
    descale without a select (docs/ABI.md). In a KV loop the GPU lowering's
    uniform id of the tile after the last one is the last page's
    (fmha.page_ids), so there it reads that page's descale, equally unused.
    With a uniform i32 id the result is one f32.
  }];
  let arguments = (ins AnyMemRef:$descale,
                       AnyTypeOf<[I32, VectorOfRankAndType<[1], [I32]>]>:$ids,
                       Index:$head);
  let results = (outs AnyTypeOf<[F32, VectorOfRankAndType<[1], [F32]>]>:$result);
  let assemblyFormat = [{
    $descale `[` $ids `]` `head` `(` $head `)` attr-dict
    `:` type($descale) `,` type($ids) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_TileMmaOp : Fmha_Op<"tile_mma", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "tile matrix product with fp32 accumulation: acc + lhs x rhs";
  let description = [{
    `lhs` is M x K and `rhs` is K x N, or N x K with `transpose_rhs`
    (Q x K^T). Inputs stay in their storage precision (fp8 or 16-bit): the
    product is what the MMA unit computes, accumulated in f32. The optional
    `k_scale` (length K) scales each term of the contraction:
    result[i, j] = acc[i, j] + sum_k lhs[i, k] * k_scale[k] * rhs[k, j]. It
    carries vd per V row when a KV tile spans pages; a target applies it
    where its MMA allows (V rows in shared memory, or one MMA per page).
  }];
  let arguments = (ins VectorOfRank<[2]>:$lhs, VectorOfRank<[2]>:$rhs,
                       VectorOfRankAndType<[2], [F32]>:$acc,
                       Optional<VectorOfRankAndType<[1], [F32]>>:$k_scale,
                       UnitAttr:$transpose_rhs);
  let results = (outs VectorOfRankAndType<[2], [F32]>:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc (`k_scale` `(` $k_scale^ `:` type($k_scale) `)`)?
    attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_MmaWaitOp : Fmha_Op<"mma_wait", [Pure, AllTypesMatch<["product", "result"]>]> {
  let summary = "the value of a tile_mma started earlier, once it has finished";
  let description = [{
    `product` is the result of an `fmha.tile_mma` whose only users are
    `fmha.mma_wait` ops; the result is that product's value. The pair states
    a schedule, not a computation: the product is started where the
    `fmha.tile_mma` stands and waited for here, so the ops between them run
    while a target with asynchronous matrix units (sm_90a's wgmma) computes
    it. Elsewhere it is the identity. fmha-overlap-score-mma, fmha-ping-pong
    (for S) and fmha-overlap-softmax (for S and P V) write it.

    ```mlir
    %s0 = fmha.tile_mma %q, %k, %zero {transpose_rhs} : ...
    %v = fmha.staged_kv slot(%slot) {pending = 2 : i64, ring = 1 : i64, stages = 2 : i64} : vector<128x128xf8E4M3FN>
    %s = fmha.mma_wait %s0 : vector<64x128xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[2], [F32]>:$product);
  let results = (outs VectorOfRankAndType<[2], [F32]>:$result);
  let assemblyFormat = [{
    $product attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_QuantizeTileOp : Fmha_Op<"quantize_tile", [Pure]> {
  let summary = "a 16-bit tile to fp8 with one descale for the whole tile";
  let description = [{
    The on-the-fly quantization of a 16-bit Q tile for an fp8 MMA (SPEC
    section 4): with amax = max(max |x| over the tile, 2^-100) and M the
    largest finite value of the result type,

      descale = amax / M,  result = fp8(x * (M / amax))

    in f32, two IEEE divisions, the cast rounding to nearest even and
    saturating (|x * (M / amax)| <= M up to one rounding). Zero rows (those a
    `fmha.load_rows` did not read) do not change amax; an all-zero tile gives
    zeros and a tiny descale. x = result * descale to within the fp8 type's
    rounding.

    ```mlir
    %q8, %qs = fmha.quantize_tile %q : vector<128x128xbf16> -> vector<128x128xf8E4M3FNUZ>
    ```
  }];
  let arguments = (ins VectorOfRank<[2]>:$tile);
  let results = (outs VectorOfRank<[2]>:$result, F32:$descale);
  let assemblyFormat = [{
    $tile attr-dict `:` type($tile) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_MaskTileOp : Fmha_Op<"mask_tile", [Pure, AllTypesMatch<["scores", "result"]>]> {
  let summary = "the mask of SPEC section 3 on one tile of scores: -inf where a key is hidden";
  let description = [{
    Element (r, j) of the result is `scores[r, j]` when key `key_start + j`
    is visible to the query at absolute position `q_pos + r` (bottom-right
    aligned: `q_pos` is row 0's query index plus Sk - Sq) and -inf when it
    is not: keys at or past `seq_len` are hidden, and `mask` hides keys
    after the query (causal) or outside the window. With two `window`
    operands (left, right; run-time bounds, -1 = unbounded) they replace
    the window attribute's constant bounds.

    The mask is an op of its own so that `fmha-peel-masked-tiles` can tell
    from its operands which KV tiles it leaves unchanged (the full tiles)
    and split them into a loop without it; `fmha-expand-masks` then writes
    the remaining ones as compares and a select.

    ```mlir
    %m = fmha.mask_tile %s rows(%qpos) keys(%t0) len(%sk)
        {mask = #fmha.mask<causal>} : vector<128x128xf32>
    %w = fmha.mask_tile %s rows(%qpos) keys(%t0) len(%sk) window(%l, %r)
        {mask = #fmha.mask<window, left = -1, right = -1>} : vector<128x128xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[2], [F32]>:$scores, Index:$q_pos,
                       Index:$key_start, Index:$seq_len,
                       Variadic<Index>:$window, Fmha_MaskAttr:$mask);
  let results = (outs VectorOfRankAndType<[2], [F32]>:$result);
  let assemblyFormat = [{
    $scores `rows` `(` $q_pos `)` `keys` `(` $key_start `)` `len` `(` $seq_len `)`
    (`window` `(` $window^ `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_WarpRolesOp : Fmha_Op<"warp_roles", [SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "a workgroup split into a producer warpgroup and consumer warpgroups";
  let description = [{
    Warp specialization (written by fmha-warp-specialize): the workgroup
    runs `producer` in its first `warps` warps (warpgroup 0) and `consumer`
    in each of `consumers` groups of `warps` warps after it, the consumer
    region's index argument being the group's number (0 .. consumers - 1).
    The roles share the rings of `fmha.stage_kv` and hand each stage over
    with `fmha.stage_free` / `fmha.stage_filled` (producer) and
    `fmha.stage_wait` / `fmha.stage_release` (consumers): every consumer
    reads every filled stage. `producer_regs` / `consumer_regs` are the
    registers per thread each role asks for (0: the target's choice).

    ```mlir
    fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
      ...
    } consumer(%c) {
      ...
    }
    ```
  }];
  let arguments = (ins I64Attr:$consumers, I64Attr:$warps,
                       I64Attr:$producer_regs, I64Attr:$consumer_regs);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The consumer region's group number.
    BlockArgument getConsumerIndex() { return getConsumer().front().getArgument(0); }
  }];
}

def Fmha_StageTransposeOp : Fmha_Op<"stage_transpose", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "producer: a staged V tile rewritten transposed into another ring";
  let description = [{
    Waits until at most `pending` of this thread's groups of copies are in
    flight and every thread of the role did the same, then writes stage
    `slot` of ring `ring` with the V tile (of type `tile_type`) that stage
    `slot` of ring `from` holds, in the transposed layout the target's
    P x V product reads. The consumers' `fmha.staged_kv` of ring `ring`
    then read the stage as it is. Written by fmha-warp-specialize so that
    the producer warpgroup, not each consumer, transposes V. `fill` is the
    stage's fill number (0, 1, ...) being transposed: where its copies
    signal an mbarrier (TMA), the wait is for that fill's phase.
  }];
  let arguments = (ins Index:$slot, Index:$fill, I64Attr:$from, I64Attr:$ring,
                       I64Attr:$stages, I64Attr:$pending, TypeAttr:$tile_type);
  let assemblyFormat = [{
    `slot` `(` $slot `)` `fill` `(` $fill `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Fmha_StageDescaleOp : Fmha_Op<"stage_descale", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "producer: a KV tile's per-key descales written into a ring stage";
  let description = [{
    When `enabled`: writes element j of `fmha.gather_descale %descale[%ids]
    head(%head)` (per-token `ids` of a tile of BlockN keys, every one the
    sequence's: a full tile) into stage `slot` of descale ring `ring` (BlockN
    f32 a stage), with the role's threads sharing the keys. The stage's
    `fmha.stage_filled` (after these writes in program order) makes them
    the consumers', which read them with `fmha.staged_descale`. Written by
    fmha-warp-specialize (`stage-descales`), beside the tile's
    `fmha.stage_kv` ops: the seed's prefetch of page ids and descales, in
    the producer, a tile ahead of the consumers. `form` is what the ring
    holds a key: the descale d (`value`, the default), `log2` (log2 d) or
    `reciprocal` (1 / d), computed by the producer with the chip's own
    instructions, the ones the consumers' `math.log2` and `1.0 / d` lower
    to (exp2_bias's per-page terms off the consumers' MUFU).
  }];
  let arguments = (ins AnyMemRef:$descale, VectorOfRankAndType<[1], [I32]>:$ids,
                       Index:$head, Index:$slot, I1:$enabled,
                       I64Attr:$ring, I64Attr:$stages,
                       DefaultValuedAttr<Fmha_DescaleFormAttr, "DescaleForm::Value">:$form);
  let assemblyFormat = [{
    $descale `[` $ids `]` `head` `(` $head `)` `slot` `(` $slot `)` `if` `(` $enabled `)`
    attr-dict `:` type($descale) `,` type($ids)
  }];
  let hasVerifier = 1;
}

def Fmha_StagedDescaleOp : Fmha_Op<"staged_descale", [MemoryEffects<[MemRead]>]> {
  let summary = "consumer: the per-key descales a stage of a descale ring holds";
  let description = [{
    The value `fmha.gather_descale` gives for the tile whose descales
    `fmha.stage_descale` wrote into stage `slot` of ring `ring`; after the
    `fmha.stage_wait` of that fill. `page_size` is the keys' page size:
    the keys of one page share their descale.
  }];
  let arguments = (ins Index:$slot, I64Attr:$ring, I64Attr:$stages, I64Attr:$page_size);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    `slot` `(` $slot `)` attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Fmha_StageFreeOp : Fmha_Op<"stage_free", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "producer: wait until every consumer released a stage's previous fill";
  let description = [{
    Before fill number `fill` (0, 1, ...) of stage `slot` of a `stages`-stage
    ring, when `enabled`: waits until every consumer ran `fmha.stage_release`
    on fill `fill - 1` of the slot (nothing to wait for on fill 0).
  }];
  let arguments = (ins Index:$slot, Index:$fill, I1:$enabled, I64Attr:$stages);
  let assemblyFormat = [{
    `slot` `(` $slot `)` `fill` `(` $fill `)` `if` `(` $enabled `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Fmha_StageFilledOp : Fmha_Op<"stage_filled", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "producer: the copies started into a stage complete its fill";
  let description = [{
    When `enabled`: once this thread's copies started before (`fmha.stage_kv`)
    have landed, the thread's part of the stage's current fill is done; the
    fill is complete when every producer thread's is. With `written` the
    thread's part is done now: its copies were waited for and its own
    stores (`fmha.stage_transpose`) are made visible to the consumers'
    matrix products.
  }];
  let arguments = (ins Index:$slot, I1:$enabled, I64Attr:$stages, UnitAttr:$written);
  let assemblyFormat = [{
    `slot` `(` $slot `)` `if` `(` $enabled `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Fmha_StageWaitOp : Fmha_Op<"stage_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "consumer: wait until fill `fill` of a stage is complete";
  let description = [{
    The `fmha.staged_kv {by_barrier}` reads of stage `slot` that follow see
    fill number `fill` of it (`fmha.stage_filled` by every producer thread).
  }];
  let arguments = (ins Index:$slot, Index:$fill, I64Attr:$stages);
  let assemblyFormat = [{
    `slot` `(` $slot `)` `fill` `(` $fill `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Fmha_StageReleaseOp : Fmha_Op<"stage_release", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "consumer: this consumer is done with a stage's current fill";
  let description = [{
    Every read of stage `slot` before it (its K as an MMA operand, its V
    transposed out) is finished; the producer may refill the stage once
    every consumer released it.
  }];
  let arguments = (ins Index:$slot, I64Attr:$stages);
  let assemblyFormat = [{
    `slot` `(` $slot `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Fmha_TurnTakeOp : Fmha_Op<"turn_take", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "consumer: wait for this consumer's turn";
  let description = [{
    Ping-pong between the consumers of an `fmha.warp_roles` (written by
    fmha-ping-pong): the consumers take turns in the order 0, 1, ...,
    n - 1, 0, ...; when `enabled`, consumer `consumer` (the region's
    index argument) waits here until the consumer before it (consumer
    n - 1 before consumer 0) passed the turn with `fmha.turn_pass`. What
    lies between a take and the next pass (the issue of a matrix product)
    runs in that order, so the consumers' products alternate on the
    tensor cores while the other consumer computes its softmax. Every
    consumer must take and pass the same number of times: the turn ops
    stand in loops whose trip counts do not depend on the consumer.
  }];
  let arguments = (ins Index:$consumer, I1:$enabled);
  let assemblyFormat = [{
    `consumer` `(` $consumer `)` `if` `(` $enabled `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Fmha_TurnPassOp : Fmha_Op<"turn_pass", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "consumer: hand the turn to the next consumer";
  let description = [{
    When `enabled`, consumer `consumer` hands the turn to consumer
    `consumer + 1` (mod n) without waiting (`fmha.turn_take`). The last
    consumer's pass before its first take gives consumer 0 the first turn;
    consumer 0's take after its last pass takes the last consumer's last
    pass, so no pass is left pending when the workgroup ends.
  }];
  let arguments = (ins Index:$consumer, I1:$enabled);
  let assemblyFormat = [{
    `consumer` `(` $consumer `)` `if` `(` $enabled `)` attr-dict
  }];
  let hasVerifier = 1;
}

#endif // FMHA_DIALECT_FMHA_IR_FMHAOPS_TD
