//===- Passes.td - fmha dialect passes ---------------------*- tablegen -*-===//
#ifndef FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD
#define FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FmhaSelectConfig : Pass<"fmha-select-config"> {
  let summary = "Pick tile sizes, waves and the MMA atom for a target";
  let description = [{
    Writes a `#fmha.config` on every `fmha.batch_prefill` for the target
    `chip` (gfx942, gfx950, sm_90, host). A config already on the op is kept
    (that is how a tuner overrides the choice) after checking that it fits the
    op and the chip: BlockM a multiple of mma_m x warps, BlockN a multiple of
    mma_n, D a multiple of the MMA K step, P type and SHIFT matching the
    cache's fp8 family. An impossible config is an error.

    Before:
    ```mlir
    fmha.batch_prefill q(...) k(... f8E4M3FNUZ) ... {quant = ..., page_size = 1024 : i64}
    ```
    After `fmha-select-config{chip=gfx942}`:
    ```mlir
    fmha.batch_prefill q(...) ... {config = #fmha.config<chip = "gfx942",
        block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64,
        mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7>, ...}
    ```

    P type: e4m3 of the cache's fp8 family (f8E4M3FN with SHIFT 8 for OCP
    caches, f8E4M3FNUZ with SHIFT 7 for FNUZ caches; e5m2 caches also use the
    e4m3 P: 3 mantissa bits instead of 2, and both MMA units take mixed
    e4m3 x e5m2 operands); the cache's 16-bit type with SHIFT 0 otherwise.

    K step: the chip's fp8 MMA (16 on gfx942, 64 on gfx950, 32 on sm_90).
    One exception: gfx950 with kv_blockscale and pages smaller than the tile
    that are not a multiple of 64 takes k_step 16 (v_mfma_f32_32x32x16_fp8_fp8)
    where its V descale route is page_groups (with a soft cap, on pages of
    whole K=16 steps that fill the tile: 16, 32), so each MMA's keys lie in
    one page and the per-page V descale scales whole MMA results; on the
    exp2_bias and scaled_p routes vd is in P and k_step stays 64. With
    `vd-route` the stated route decides the same way.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"host\"",
           "Target: gfx942, gfx950, sm_90, or host">,
    Option<"vdRoute", "vd-route", "std::string", /*default=*/"\"\"",
           "The V-descale route to state instead of choosing one: scalar, "
           "page_groups, scaled_p, exp2_bias or per_key (empty or auto: the "
           "pass chooses); checked like a stated config (a route the request "
           "cannot take is an error naming the rule)">,
    Option<"warps", "warps", "int64_t", /*default=*/"0",
           "Waves (warps) of a workgroup, sharing each K/V tile, instead of "
           "the chip's (0: the chip's; block_m follows, the chip's rows a wave "
           "times warps); verified like a stated config (AMDGPU: more waves "
           "than SIMDs only where two waves a SIMD fit)">,
    Option<"blockN", "block-n", "int64_t", /*default=*/"0",
           "KV tokens a KV-loop iteration takes instead of the chip's table "
           "(0: the table's, halved until the K and V tiles fit the "
           "workgroup memory); verified like a stated config (a multiple of "
           "mma_n; the lowering then refuses a tile its lanes cannot stage "
           "or whose K and V tiles pass the workgroup memory)">
  ];
  let dependentDialects = ["::mlir::fmha::FmhaDialect"];
}

def FmhaTile : Pass<"fmha-tile"> {
  let summary = "Expand fmha.batch_prefill into the tiled form";
  let description = [{
    Replaces each configured `fmha.batch_prefill` with its tiled form: an
    `scf.forall` grid over (q tile, query head, sequence) and, per grid point,
    an `scf.for` over KV tiles that carries the running row max `m`, row sum
    `l` and the f32 accumulator `o` (online softmax). A KV iteration looks up
    the tile's physical page ids (`fmha.page_ids`), gathers K and V
    (`fmha.gather_kv`), computes S = Q x K^T (`fmha.tile_mma`), dequantizes
    it (qd, kd per column, sm_scale), applies the soft cap and the mask,
    updates m and l, scales P by 2^SHIFT and casts it to the config's P type,
    and accumulates o = alpha * o + vd * (P x V). The epilogue writes
    O = o / (l * 2^SHIFT) and lse = m + ln(l). Fully masked rows give O = 0,
    lse = -inf. The folds (fmha-fold-descales, fmha-fold-exp2-shift) and the
    prefetch (fmha-prefetch-page-ids) then rewrite this form.

    Before:
    ```mlir
    fmha.batch_prefill q(%q ...) k(%k ...) ... out(%o ...) {config = #fmha.config<...>, ...}
    ```
    After (sketch):
    ```mlir
    scf.forall (%qt, %h, %b) in (%num_q_tiles, 32, %batch) {
      %qtile = fmha.load_rows %q[%row0, %h] rows(%n) : ... -> vector<BMxDxf8>
      %r:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = ..., %l = ..., %o = ...) {
        %ids = fmha.page_ids %pages[%t0] len(%sk) {page_size = P}
        %k = fmha.gather_kv %kc[%ids] head(%g) tile(%t0, %sk)
        %s = fmha.tile_mma %qtile, %k, %zero {transpose_rhs}
        ... mask, softmax update, P cast ...
        %u = fmha.tile_mma %p8, %v, %zero
        scf.yield %m2, %l2, %o2
      }
      fmha.store_rows %out_tile, %out[%row0, %h] rows(%n)
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::fmha::FmhaDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::gpu::GPUDialect"
  ];
}

def FmhaFoldDescales : Pass<"fmha-fold-descales"> {
  let summary = "Fold qd, sm_scale and log2(e) into one sigma; kd per tile";
  let description = [{
    Rewrites the KV loop that fmha-tile wrote (SPEC section 4, "fold at
    entry"): the per-element multiply of S by qd * sm_scale disappears;
    sigma = sm_scale * log2(e) * qd is computed once before the loop and the
    softmax runs in exp2: p = exp2(sigma * s - sigma * m), alpha =
    exp2(sigma * (m_old - m_new)). m is now kept in units of s * kd, and the
    epilogue's lse becomes ln2 * sigma * m + ln(l).

    When a KV tile lies in one page (one kd per tile) and there is no soft
    cap, kd leaves the tile too: the row max is taken on the raw S and scaled
    by kd per row, and the exp2 argument uses sigma_t = sigma * kd, one
    scalar per tile. Pages smaller than the tile keep kd per column. With a
    soft cap c, c * tanh(S * qd * sm_scale * kd / c) (fmha-tile writes
    S * (1 / c)) becomes tanh(S * (qd * sm_scale / c * kd)): one multiply per
    element (kd in the scalar when it is one per tile, per column after it
    otherwise), the multiply by c after tanh goes, and sigma = c * log2(e):
    the softmax and m run on t = tanh(...), and lse = ln2 * sigma * m + ln(l)
    still holds.
    K and V tiles are never dequantized; vd stays on the P x V result (per
    tile) or on V's rows (k_scale of the product). Precondition: descales
    are finite and > 0 (the quantizers floor them at 1e-12 / fp8_max);
    rowmax(s * kd) = kd * rowmax(s) needs kd > 0.

    Before:
    ```mlir
    %s  = fmha.tile_mma %q, %k, %z {transpose_rhs}
    %s1 = arith.mulf %s, %qd_sm_scale        // per element
    %s2 = arith.mulf %s1, %kd                // per element
    ... %p = math.exp (%s2' - m) ...
    ```
    After:
    ```mlir
    %sigma = arith.mulf %qd_sm_scale, %log2e   // once, before the loop
    %s  = fmha.tile_mma %q, %k, %z {transpose_rhs}
    %sigma_t = arith.mulf %sigma, %kd          // once per tile
    %mt = arith.mulf (rowmax %s'), %kd          // per row
    %p = math.exp2 (%s' * %sigma_t - %sigma * m)
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def FmhaFoldExp2Shift : Pass<"fmha-fold-exp2-shift"> {
  let summary = "Put P into fp8 range by a shift of the exp2 argument";
  let description = [{
    The tiled form scales p by 2^SHIFT before casting it to an fp8 P type
    (so P uses the format's range) and divides the output by l * 2^SHIFT.
    This pass removes both multiplies: the shift rides on the per-row
    subtraction that is there anyway,
    p = exp2(sigma * s - (sigma * m - SHIFT)), so p lies in [0, 2^SHIFT];
    l accumulates that p (fp32, before the cast), carrying the same 2^SHIFT
    as o, and the epilogue is O = o / l. lse subtracts the shift:
    ln2 * (sigma * m - SHIFT + log2(l)). SHIFT comes from the P type through
    the config (8 for f8E4M3FN, 7 for f8E4M3FNUZ). A 16-bit P has no scale
    and is left alone. Run after fmha-fold-descales (a natural exp is first
    turned into exp2 when it is not).

    Before:
    ```mlir
    %p  = math.exp2 %x                    // %x = sigma*s - sigma*m
    %ps = arith.mulf %p, %c256            // per element
    %p8 = arith.truncf %ps : ... to vector<..xf8E4M3FN>
    ... O = o / (l * 256)
    ```
    After:
    ```mlir
    %p  = math.exp2 %x'                   // %x' = sigma*s - (sigma*m - 8)
    %p8 = arith.truncf %p : ... to vector<..xf8E4M3FN>
    ... O = o / l
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def FmhaFoldVdRescale : Pass<"fmha-fold-vd-rescale"> {
  let summary = "Accumulate P x V into o through an MMA's C operand";
  let description = [{
    The KV loop's update o = alpha * o + vd * (P x V) needs a second
    accumulator on an MMA unit (vd multiplies only the new product). With one
    vd per tile (per tensor, or kv_blockscale with tiles inside one page) this
    pass keeps o' = o / vd_t instead: o' = P x V + beta * o' with
    beta = alpha * vd_{t-1} / vd_t, one scalar division per tile, so the
    product accumulates into o' directly (the MFMA / mma.sync C operand). The
    vd of the last tile is carried in the loop and multiplies o' once in the
    epilogue. With a vd per V row (pages smaller than the tile: the
    product's `k_scale`), o is kept in units of c_t, the vd of the tile's
    first key (its page's descale, read through a uniform `fmha.page_ids`
    of the tile start), the row scales become vd / c_t (exactly 1 on the
    tile's first page; the product gets `fmha.unit_first_page`, so a
    lowering may accumulate that page's MMA steps into o through the C
    operand with no multiply: the page_groups route), and the product
    accumulates into beta * o' with beta = alpha * c_{t-1} / c_t. Descales
    are > 0 (the quantizers floor them), so the division is safe. A vd already carried in the loop (after fmha-prefetch-page-ids) is
    folded the same way. A KV loop whose update is not this shape (no
    (m, l, o) iter args, o not a 2-d f32 tile, alpha or vd defined after the
    product, ...) is left unchanged.

    Before:
    ```mlir
    %u  = fmha.tile_mma %p8, %v, %zero
    %uv = arith.mulf %u, %vd_splat
    %ao = arith.mulf %alpha_bcast, %o
    %o2 = arith.addf %ao, %uv
    ```
    After:
    ```mlir
    %r    = arith.divf %vd_prev, %vd           // once per tile
    %beta = arith.mulf %alpha, %r_splat         // per row
    %acc  = arith.mulf %beta_bcast, %o
    %o2   = fmha.tile_mma %p8, %v, %acc         // accumulates into o'
    ... after the loop: %o = arith.mulf %o_final, %vd_last_splat
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def FmhaPrefetchPageIds : Pass<"fmha-prefetch-page-ids"> {
  let summary = "Load the page ids and descales of KV tile t+1 in iteration t";
  let description = [{
    In every KV loop of the tiled form (the `scf.for` marked `fmha.kv_loop`),
    the `fmha.page_ids` of the current tile (tile_start = iv * BlockN) and the
    `fmha.gather_descale` ops that read those ids (kd/vd of kv_blockscale) are
    moved one iteration ahead: a prologue before the loop loads tile lo's, the
    top of the body loads tile iv + 1's ids and, after the body's last
    `fmha.gather_kv` (at the end when there is none), the descales of those
    ids, so that the id's load lands while tile t's loads are issued (a
    descale load right after it waited for it at once), and the loop carries them in
    iter_args appended after m, l, o. The gathers and MMAs of tile t then use
    the carried values, so the page-table load of tile t+1 overlaps tile t's
    work (docs/SPEC.md section 5). A uniform (i32) id stays one id per tile;
    per-token ids (vector<BlockN x i32>) stay per token, or stay where they
    are with `per-token=false`.

    No page-table entry past the sequence's last page is read: `page_ids`
    gives -1 and reads nothing for tokens at or past seq_len (the tile after
    the last one included), and the descales of id -1 are never used.
    Loops without the marker are left alone; running the pass again changes
    nothing (no page_ids is computed from the induction variable any more).

    Before:
    ```mlir
    %r:3 = scf.for %t = %lo to %hi step %c1 iter_args(%m = .., %l = .., %o = ..) {
      %t0 = arith.muli %t, %c32 : index
      %id = fmha.page_ids %pages[%t0] len(%sk) {page_size = 1024 : i64} : ... -> i32
      %k = fmha.gather_kv %kc[%id] head(%g) tile(%t0, %sk) ...
      %kd = fmha.gather_descale %kds[%id] head(%g) : ..., i32 -> f32
      ...
      scf.yield %m2, %l2, %o2
    } {fmha.kv_loop}
    ```
    After:
    ```mlir
    %s0 = arith.muli %lo, %c32 : index
    %id0 = fmha.page_ids %pages[%s0] len(%sk) {page_size = 1024 : i64} : ... -> i32
    %kd0 = fmha.gather_descale %kds[%id0] head(%g) : ..., i32 -> f32
    %r:5 = scf.for %t = %lo to %hi step %c1
        iter_args(%m = .., %l = .., %o = .., %id = %id0, %kd = %kd0) {
      %tn = arith.addi %t, %c1 : index
      %sn = arith.muli %tn, %c32 : index
      %idn = fmha.page_ids %pages[%sn] len(%sk) {page_size = 1024 : i64} : ... -> i32
      %t0 = arith.muli %t, %c32 : index
      %k = fmha.gather_kv %kc[%id] head(%g) tile(%t0, %sk) ...
      %kdn = fmha.gather_descale %kds[%idn] head(%g) : ..., i32 -> f32
      ...
      scf.yield %m2, %l2, %o2, %idn, %kdn
    } {fmha.kv_loop}
    ```
  }];
  let options = [
    Option<"perToken", "per-token", "bool", /*default=*/"true",
           "Also prefetch per-token ids (vector<BlockN x i32>) and their "
           "descales. The GPU lowering sets it false: per-token ids are "
           "per-lane loads there, and carrying them would cost registers">
  ];
  let dependentDialects = [
    "::mlir::fmha::FmhaDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect"
  ];
  let statistics = [
    Statistic<"numPrefetched", "num-prefetched",
              "Page-id and descale values carried to the next KV iteration">
  ];
}

def FmhaPeelMaskedTiles : Pass<"fmha-peel-masked-tiles"> {
  let summary = "Split each KV loop so that the tiles its mask leaves unchanged run without it";
  let description = [{
    A KV tile is full when the `fmha.mask_tile` of its iteration hides no
    score: every key lies before seq_len, after no query of the tile
    (causal), and inside every row's window. For a KV loop (`fmha.kv_loop`,
    step 1) whose body holds one `fmha.mask_tile` with key_start = iv * C
    (C > 0) and loop-invariant q_pos, seq_len and window bounds, the full
    tiles are one run of iterations [f_lo, f_hi), computed before the loop
    from those operands and the mask (the conditions are linear in iv). The
    loop is split there: the iterations before f_lo (only with a window's
    left bound), the full ones, then the rest, each loop carrying the
    previous one's results in the same order, so the result is the one the
    unsplit loop computes, bit for bit. The middle loop, marked
    `fmha.full_tiles`, has no mask; every copy keeps `fmha.kv_loop` and the
    other markers. For a causal q tile over a long prefix that leaves the
    diagonal tiles (at most two at BlockM = 2 x BlockN) and the ragged tail
    masked.

    Loops it cannot prove this for (no mask_tile, more than one, a bound
    defined in the loop, another step) are left alone. Run after the folds
    and fmha-prefetch-page-ids: the split is a plain loop split, so what
    those passes carried between iterations carries across the loops too.

    ```mlir
    // before
    %r:3 = scf.for %t = %lo to %hi step %c1 iter_args(...) {
      %t0 = arith.muli %t, %c128 : index
      ...
      %sm = fmha.mask_tile %s rows(%qpos) keys(%t0) len(%sk)
          {mask = #fmha.mask<causal>} : vector<128x128xf32>
      ...
    } {fmha.kv_loop}
    // after
    %f:3 = scf.for %t = %lo to %fhi step %c1 iter_args(...) {
      ...   // %s used directly
    } {fmha.full_tiles, fmha.kv_loop}
    %r:3 = scf.for %t = %fhi to %hi step %c1 iter_args(.. = %f#0, ...) {
      ...   // masked as before
    } {fmha.kv_loop}
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numPeeled", "num-peeled", "KV loops split around their full tiles">
  ];
}

def FmhaPipelineKVStages : Pass<"fmha-pipeline-kv-stages"> {
  let summary = "Stage the next KV tile's K and V into a ring while this tile computes";
  let description = [{
    Software pipelining of the steady-state KV loop (the `fmha.full_tiles`
    loop fmha-peel-masked-tiles writes) on chips with asynchronous copies
    into shared memory (sm_90 and sm_90a: cp.async). Each `fmha.gather_kv` of that loop becomes

    - before the loop, `fmha.stage_kv` of the loop's first tile into stage
      `lb % stages` (enabled when the loop runs at all);
    - in iteration t, before the first `fmha.tile_mma`, `fmha.stage_kv` of
      tile t + 1 into stage `(t + 1) % stages`, enabled when t + 1 < ub;
      where tile t + 1's operands need reads in the loop (per-token page
      ids), right after tile t's S = Q K^T instead, so those reads are in
      flight during the waits and the product;
    - `fmha.staged_kv` of stage `t % stages` in place of the gather, with
      `pending` = the copy groups started after tile t's before the wait
      (those of tile t + 1 where they come first, and the other gathers of
      tile t started after this one).

    Tile t + 1's operands are tile t's computed one iteration ahead: the
    induction variable plus one step, an iteration argument's yielded value
    (the page ids fmha-prefetch-page-ids carries), the other pure ops of the
    loop body cloned on those. A gather whose operands need anything else,
    that is not `in_bounds`, or whose tile is not fp8 (16-bit caches keep
    the synchronous staging) leaves its loop alone. Each ring gets a
    number (`ring`) unique in the function; the lane lowering gives it
    `stages` buffers of one tile. With 2 stages the copies of tile t + 1
    overlap all of tile t's work; the stage written in iteration t was last
    read in iteration t - 1, whose end the lane lowering fences with a
    barrier.

    Before (sketch):
    ```mlir
    scf.for %t = %lo to %hi step %c1 iter_args(.., %id = %id0) {
      %idn = fmha.page_ids %pages[%sn] ...
      %k = fmha.gather_kv %kc[%id] head(%g) tile(%t0, %sk) {in_bounds, ..}
      %s = fmha.tile_mma %q, %k, %z {transpose_rhs} ...
      scf.yield .., %idn
    } {fmha.full_tiles, fmha.kv_loop}
    ```
    After:
    ```mlir
    fmha.stage_kv %kc[%id0] head(%g) tile(%lo0, %sk) slot(%lo_mod) if(%runs) {ring = 0, stages = 2, ..}
    scf.for %t = %lo to %hi step %c1 iter_args(.., %id = %id0) {
      %idn = fmha.page_ids %pages[%sn] ...
      fmha.stage_kv %kc[%idn] head(%g) tile(%t1x, %sk) slot(%next_mod) if(%more) {ring = 0, ..}
      %k = fmha.staged_kv slot(%t_mod) {pending = 1, ring = 0, stages = 2} : vector<128x128xf8E4M3FN>
      %s = fmha.tile_mma %q, %k, %z {transpose_rhs} ...
      scf.yield .., %idn
    } {fmha.full_tiles, fmha.kv_loop, fmha.pipelined}
    ```

    With `single-stage` (AMDGPU, whose loads write straight into LDS, 16
    bytes a lane on gfx950 and 4 on gfx942, and whose waits count loads,
    not groups) each of K and V has a
    ring of one stage, and the loop must gather exactly a K tile (the
    right operand of a `transpose_rhs` product) and then a V tile, from
    caches with a static row stride (the loads read a bounded view of the
    rows) whose pages hold at least an eighth of a tile (each page of a
    tile is a view and a load step's LDS base: at page 8, sixteen pages a
    tile, gfx950 spilled 45 SGPRs):

    - before the loop, `fmha.stage_kv` of the first tile's K;
    - in iteration t, `fmha.staged_kv` of K (pending 0) in place of K's
      gather, right after it `fmha.stage_kv` of tile t's own V; then
      `fmha.staged_kv` of V (pending 0) just before V's first product,
      right after it `fmha.stage_kv` of tile min(t + 1, ub - 1)'s K in
      every iteration (the last one loads its own K again: no branch, and
      its page ids and rows are the sequence's; the lane lowering waits
      for those loads after the loop).

    The lane lowering waits for the wave's loads and meets the workgroup at
    a barrier in each `fmha.staged_kv` of such a ring, so a stage op right
    after it writes a buffer every wave has finished reading: V's loads run
    under S = Q K^T and the softmax, the next K's under P V. V's operands are
    tile t's at that point (pure ops defined later are cloned there).

    With `v-after-scores` as well (gfx942, whose V comes through registers
    and whose V^T the lanes write at V's read), V's `fmha.staged_kv` and
    the next K's `fmha.stage_kv` after it go right after the first product
    of K (S = Q K^T) instead: V's loads run under S, and the barrier after
    the V^T writes comes before the softmax, not between it and P V.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "Buffers per ring (at least 2; ignored with single-stage)">,
    Option<"singleStage", "single-stage", "bool", /*default=*/"false",
           "One stage for each of K and V: V started for this tile after "
           "K's wait, K started for the next tile after V's wait">,
    Option<"vAfterScores", "v-after-scores", "bool", /*default=*/"false",
           "With single-stage: V read (and the next K started) right after "
           "S = Q K^T instead of just before P V">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def FmhaWarpSpecialize : Pass<"fmha-warp-specialize"> {
  let summary = "Split a pipelined kernel into a producer warpgroup and consumer warpgroups";
  let description = [{
    Warp specialization of a grid whose KV loop fmha-pipeline-kv-stages
    pipelined (FA3's structure, HOPPER_NOTES.md section 4): the grid
    point's body becomes an `fmha.warp_roles` op.

    - The grid takes `consumers` query heads per workgroup (its head
      dimension divided by `consumers`): consumer c works on head
      `consumers * h + c` with the body as it was, less its `fmha.stage_kv`
      ops; its `fmha.staged_kv` reads wait by barrier (`by_barrier`): an
      `fmha.stage_wait` of fill (t - lb) / stages before the loop's first
      staged read, an `fmha.stage_release` after the last read of the
      stage (its V transposed out, S = Q K^T on its K finished).
    - The producer runs the same grid point with only what the
      `fmha.stage_kv` ops need (the bounds, the page-table reads, the
      pipelined loop's carried page ids): each tile's stage ops behind an
      `fmha.stage_free` (the consumers released the stage's previous fill)
      and followed by an `fmha.stage_filled`.

    With `transpose-v` the producer also rewrites each V tile transposed
    into a ring of its own (`fmha.stage_transpose`, then
    `fmha.stage_filled {written}`) early in the iteration that consumes
    it, before it waits for a free stage for the next tile; the consumers
    read V^T there as they read K, and release a stage after P V.

    The consumers of one workgroup share every staged K and V tile, so
    their heads must share a KV head: the grid's KV head must be the query
    head divided by a group size that `consumers` divides (GQA), else the
    grid is left alone. Also left alone: grids without a pipelined loop, and
    grids that quantize Q (`fmha.quantize_tile`: its workgroup reduction is
    not per role yet).

    Before (sketch):
    ```mlir
    scf.forall (%qb, %h, %b) in (%n, 32, %nb) {
      ... fmha.stage_kv ... scf.for ... {fmha.pipelined} ...
    }
    ```
    After:
    ```mlir
    scf.forall (%qb, %h2, %b) in (%n, 16, %nb) {
      fmha.warp_roles consumers(2) warps(4) regs(24, 240) producer {
        ... fmha.stage_free, fmha.stage_kv, fmha.stage_filled ...
      } consumer(%c) {
        ... fmha.stage_wait, fmha.staged_kv {by_barrier}, ..., fmha.stage_release ...
      }
    }
    ```
  }];
  let options = [
    Option<"consumers", "consumers", "int64_t", /*default=*/"2",
           "Consumer warpgroups per workgroup (query heads per workgroup)">,
    Option<"producerRegs", "producer-regs", "int64_t", /*default=*/"24",
           "Registers per producer thread (0: the target's choice)">,
    Option<"consumerRegs", "consumer-regs", "int64_t", /*default=*/"240",
           "Registers per consumer thread (0: the target's choice)">,
    Option<"transposeV", "transpose-v", "bool", /*default=*/"false",
           "The producer transposes each V tile into a ring of its own "
           "(fmha.stage_transpose); else each consumer transposes it">,
    Option<"stageDescales", "stage-descales", "bool", /*default=*/"false",
           "With transpose-v: the per-key descales of the staged tiles "
           "(fmha.gather_descale of per-token ids in the pipelined loop) are "
           "read by the producer a tile ahead into rings of their own "
           "(fmha.stage_descale), the consumers reading them there "
           "(fmha.staged_descale) instead of the page table and the "
           "descale tensors">,
    Option<"stageDescalesMaxPage", "stage-descales-max-page", "int64_t", /*default=*/"0",
           "With stage-descales: only tiles of pages of at most this many "
           "keys (0: any)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def FmhaPingPong : Pass<"fmha-ping-pong"> {
  let summary = "Make the consumers of a warp-specialized kernel take turns at S = Q K^T";
  let description = [{
    In every `fmha.warp_roles` of two or more consumers, each consumer
    KV loop's S = Q K^T product (the `fmha.tile_mma {transpose_rhs}` in
    the loop's body) is issued in turn (FA3's ping-pong of warpgroups):
    an `fmha.turn_take` before it, an `fmha.turn_pass` after it (after
    the last product issued after it before S's first use: the P V that
    fmha-overlap-softmax issues with S, so the pipeline runs this pass
    after that one), and the product waited for by an `fmha.mma_wait`
    after the pass (one it already has stays). Consumer c + 1 then issues
    its S after consumer c's, so the two consumers' softmaxes do not start together and their
    products do not meet on the tensor cores. The consumer region starts
    with the last consumer's pass (consumer 0 has the first turn) and ends
    with consumer 0's take of the last pass.

    Left alone: warp roles with one consumer, and consumers whose S
    products do not all stand directly in the bodies of KV loops, or
    whose loops and guards around an S depend on the consumer index (each
    consumer must take its turns the same number of times: every loop
    bound and scf.if condition around each S is checked). Idempotent.

    ```mlir
    // consumer(%c): in each KV loop
    fmha.turn_take consumer(%c) if(%true)
    %s = fmha.tile_mma %q, %k, %zero {transpose_rhs} : ...
    fmha.turn_pass consumer(%c) if(%true)
    %sw = fmha.mma_wait %s : ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def FmhaOverlapSoftmax : Pass<"fmha-overlap-softmax"> {
  let summary = "Run a consumer KV loop's softmax of tile t + 1 while P V of tile t computes";
  let description = [{
    FA3's intra-warpgroup overlap, for targets whose matrix products run
    asynchronously to the lanes (sm_90a's wgmma). In each pipelined KV loop
    (`fmha.pipelined`) of warp-specialized consumers (every
    `fmha.staged_kv` read `by_barrier`, no `fmha.stage_kv` in the loop),
    the body is split into two stages:

    - stage 1: the P V product (the `fmha.tile_mma` without
      `transpose_rhs`), the fp8 cast of its P, its V tile's
      `fmha.staged_kv`, the `fmha.stage_release`, every op that uses their
      results or the loop-carried values they produce (o and its rescale),
      and the broadcasts and shape casts only stage 1 uses;
    - stage 0: the rest (the stage wait, S = Q K^T, the softmax).

    The loop then runs stage 0 of tile t + 1 beside stage 1 of tile t, in
    the order: tile t + 1's wait and S (started), tile t's P V (started),
    S's wait (`fmha.mma_wait`), tile t + 1's softmax, P V's wait, o's
    update and tile t's release. The softmax runs while the tensor cores
    compute P V. A one-trip loop before it runs stage 0 of the first tile
    and a one-trip loop after it stage 1 of the last (each zero trips when
    the loop has none). The values stage 1 reads from stage 0 are carried,
    one tile behind (P in f32, o's row scale, the stage slot, scalars),
    except vectors that only read inputs, the induction variable and
    scalars: P V's per-key V descales (page_groups, scaled_p) and their
    page ids are read again in stage 1, as a column-form vector cannot be
    carried. Every value is unchanged: on the host and in the lane
    emulator the schedule computes what the loop did.

    Left alone: loops whose P V descale would have to be carried, or a
    vector other than f32 (P's fp8 cast is stage 1's), loops with
    ping-pong turns, loops with region ops in the body, loops of a
    step other than 1, rings of fewer than 2 stages, and loops whose
    products are already waited for by `fmha.mma_wait`.

    ```mlir
    // before: scf.for %t: wait(t); s = S(t); p = softmax(s); o = PV(p, o); release(t)
    // after:  wait(lb); s = S(lb); p = softmax(s)                  (one trip)
    //         scf.for %j = lb to ub - 1: wait(j + 1); s0 = S(j + 1); o0 = PV(p, o)
    //             s = mma_wait s0; p' = softmax(s); o = mma_wait o0; release(j)
    //         o = PV(p, o); release(ub - 1)                         (one trip)
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def FmhaHoistTileReads : Pass<"fmha-hoist-tile-reads"> {
  let summary = "Issue a pipelined KV loop's descale reads before its tile waits";
  let description = [{
    In each KV loop fmha-pipeline-kv-stages pipelined (`fmha.pipelined`),
    every `fmha.gather_descale` after the loop's first `fmha.staged_kv` is
    moved above it, with the reads and pure ops it needs from the loop body
    (a per-token `fmha.page_ids`, index arithmetic), when all of them only
    read inputs. The descale reads of tile t (at small pages one per key
    group, each a page-table read and a descale read after it) are then in
    flight while the iteration waits for tile t's copies and runs
    S = Q K^T, instead of starting after it (ncu at page 16: their
    dependent loads were the loop's largest long-scoreboard stall). Nothing
    else moves: the order of every op with a write or a wait is kept, and a
    loop without the attribute is left alone.

    Before (sketch):
    ```mlir
    %ids = fmha.page_ids %pages[%s] ...
    %k = fmha.staged_kv slot(%this) {pending = 3, ..}
    %sc = fmha.tile_mma %q, %k, %z {transpose_rhs}
    %kd = fmha.gather_descale %kds[%ids] head(%g)
    ```
    After:
    ```mlir
    %ids = fmha.page_ids %pages[%s] ...
    %kd = fmha.gather_descale %kds[%ids] head(%g)
    %k = fmha.staged_kv slot(%this) {pending = 3, ..}
    %sc = fmha.tile_mma %q, %k, %z {transpose_rhs}
    ```
  }];
}

def FmhaExpandMasks : Pass<"fmha-expand-masks"> {
  let summary = "Write every fmha.mask_tile as index compares and a select";
  let description = [{
    `fmha.mask_tile` becomes the arithmetic of SPEC section 3 on vectors: the
    query positions `q_pos + step(BlockM)` and key indices
    `key_start + step(BlockN)` broadcast to the tile, one `arith.cmpi` per
    rule (key < seq_len; key <= query for causal; the window's bounds, each
    only when it is >= 0 for run-time bounds), their `arith.andi`, and an
    `arith.select` of the scores against -inf. The targets lower these as
    they lower any elementwise op.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}


def FmhaOverlapScoreMma : Pass<"fmha-overlap-score-mma"> {
  let summary = "Start a pipelined KV loop's S = Q K^T before V's wait and transpose";
  let description = [{
    For targets whose matrix products run asynchronously to the lanes
    (sm_90a's wgmma; added to the pipeline for chips with a warpgroup MMA).
    In each KV loop fmha-pipeline-kv-stages pipelined (`fmha.pipelined`),
    every S = Q K^T (`fmha.tile_mma` with `transpose_rhs`) is followed by an
    `fmha.mma_wait` placed before S's first use, and the V tile's
    `fmha.staged_kv` (whose tile only P V reads) that stood before S moves
    right after it. The V tile's wait and transpose into V^T then run while
    S is computed, where they ran before S started. Values are unchanged: the
    pair is the identity on the host and in the lane emulator. A loop
    without the attribute is left alone, and an S already waited for by an
    `fmha.mma_wait` is not changed again.

    Before (sketch):
    ```mlir
    %k = fmha.staged_kv slot(%this) {pending = 3, ring = 0, ..}
    %v = fmha.staged_kv slot(%this) {pending = 2, ring = 1, ..}
    %s = fmha.tile_mma %q, %k, %z {transpose_rhs}
    %m = vector.multi_reduction <maximumf>, %s, ..
    ```
    After:
    ```mlir
    %k = fmha.staged_kv slot(%this) {pending = 3, ring = 0, ..}
    %s0 = fmha.tile_mma %q, %k, %z {transpose_rhs}
    %v = fmha.staged_kv slot(%this) {pending = 2, ring = 1, ..}
    %s = fmha.mma_wait %s0
    %m = vector.multi_reduction <maximumf>, %s, ..
    ```
  }];
}


def FmhaFoldVdExp2 : Pass<"fmha-fold-vd-exp2"> {
  let summary = "The exp2_bias V-descale route: per-key vd into the exp2 argument";
  let description = [{
    In each KV loop of a grid whose config states `vd_route = exp2_bias`
    (docs/FOLDS.md, "vd in the exp2 argument"), where P x V scales its keys
    by a per-key vd (`k_scale`): with c the scalar the scores S' are
    multiplied by before the exp2, the exp2 argument before the row max is
    subtracted becomes y = S' c + log2(vd) (p = exp2(y - off) = vd
    exp2(S' c - off)), the tile's row max is max(y) * (1 / c) (the max of
    S' + log2(vd) / c, in the scores' units as the running max m; taken on
    y, a page's bias costs no multiply by 1 / c: 2026-12-06, eleventh
    session), the row sum takes p / vd, and P x V loses its `k_scale`: one
    product over the whole tile with no vd after it. m c differs from a
    row's largest y by f32 rounding only (about 3 ulp of |max y|: the row
    max times 1 / c, then times c), so a row's largest P is 2^SHIFT times
    at most 2^(3 * 2^-24 * |max y|): under 1.0002 for |y| below 2^20, far
    inside the cast's headroom (2^SHIFT is 128 of FNUZ e4m3's 240 and 256
    of OCP e4m3's 448). o and l keep their recurrences and the epilogue its o /
    l. Run after fmha-fold-exp2-shift and before
    fmha-fold-vd-rescale (which then finds no per-key vd). A loop of
    another shape, or a grid with another route, is left alone.
  }];
  let dependentDialects = ["::mlir::math::MathDialect", "::mlir::arith::ArithDialect"];
}

def FmhaDropEmptyRowGuard : Pass<"fmha-drop-empty-row-guard"> {
  let summary = "Drop the empty-row guard of the running max in loops of full tiles whose scores are finite";
  let description = [{
    fmha-tile guards the running max of each row: m_safe = select(m_new ==
    -inf, 0, m_new), so that a row with no visible key so far subtracts 0
    and exp never sees -inf - -inf (docs/SPEC.md, the kernel's algorithm).
    In a loop of full tiles (`fmha.full_tiles`: no mask) whose score
    products (`fmha.tile_mma` with `transpose_rhs`) all multiply e4m3
    values (f8E4M3FN or f8E4M3FNUZ, types with no infinity; a 16-bit Q
    quantized per tile is such an operand), every score is finite or NaN:
    a product is at most 448^2 D, and what multiplies it (the softmax scale,
    descales, which docs/SPEC.md states finite and > 0, a soft cap's tanh)
    keeps it finite short of an f32 overflow that needs descale products
    above about 1e30; the exp2_bias route's log2(vd) is finite for vd >
    0. A row's max over a tile of finite scores is finite, so m_new is never
    -inf there, and the select returns m_new: it is replaced by m_new. (A
    row whose scores in the tile are all NaN gives m_new = m; with m = -inf
    the row is NaN either way, as docs/SPEC.md states for NaN scores.)
    Loops with a mask, or with a 16-bit K or e5m2 operand (which hold
    infinities), keep the guard. What it buys: AMDGPU's v_cmp, v_cndmask
    and hazard s_nop a row and tile, NVIDIA's setp and selp.

    ```mlir
    // before (in a full-tile loop of e4m3 scores)
    %m = arith.maxnumf %m_old, %rowmax : vector<128xf32>
    %e = arith.cmpf oeq, %m, %neg_inf : vector<128xf32>
    %safe = arith.select %e, %zero, %m : vector<128xi1>, vector<128xf32>
    // after: %safe's uses take %m
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numDropped", "num-dropped", "empty-row guards dropped">
  ];
}

def FmhaAccumulatePV : Pass<"fmha-accumulate-pv"> {
  let summary = "Accumulate P x V into the rescaled o where nothing scales the product (AMDGPU)";
  let description = [{
    fmha-tile writes each KV loop's output update as o_new = alpha * o +
    P x V with the product from a zero accumulator (docs/SPEC.md's online
    softmax). Where the product has no per-key scale (no `k_scale`) and
    nothing multiplies it (quant none, and the exp2_bias route once
    fmha-fold-vd-exp2 has moved vd into P), the update is one accumulating
    product: o_new = tile_mma(P, V, alpha * o), as fmha-fold-vd-rescale
    writes the scalar and page_groups routes. The sum is the same up to f32
    rounding (alpha * o joins the product's sum first instead of last).
    What it buys on AMDGPU: the MFMA chain accumulates into o in place, so
    no f32 add (or fma) a lane and accumulator register follows it, and
    nothing waits for the chain's last result in the tile (gfx942 page 16:
    the fmas after P x V and their hazard `s_nop`; bench/NOTES.md,
    2026-12-06, eleventh session). A product from a non-zero accumulator,
    with a k_scale, used elsewhere, or an update of another shape is left
    alone. It runs on the AMDGPU pipeline only: sm_90a's warpgroup MMA adds
    its chains to o after the wait either way, and the mma.sync route's
    FP8 accumulation into a rescaled o has not been measured on a device.

    ```mlir
    // before
    %r = arith.mulf %alpha_t, %o : vector<128x128xf32>
    %u = fmha.tile_mma %p, %v, %zero : ...
    %o_new = arith.addf %r, %u : vector<128x128xf32>
    // after
    %r = arith.mulf %alpha_t, %o : vector<128x128xf32>
    %o_new = fmha.tile_mma %p, %v, %r : ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numAccumulated", "num-accumulated", "P x V products accumulated into the rescaled o">
  ];
}

def FmhaSinkRowSum : Pass<"fmha-sink-row-sum"> {
  let summary = "Move the weighted row sum of a KV loop to the end of its body (AMDGPU)";
  let description = [{
    The exp2_bias route's row sum l_new = alpha * l + rowsum(p * w), w = 1 /
    vd a key (docs/FOLDS.md), is used by nothing in its tile but the
    loop's yield. fmha-tile and fmha-fold-vd-exp2 write it before P's cast
    and P x V; this pass moves it, with the pure ops of the body that only
    it uses (the weights 1 / vd and p * w), to just before the yield, in
    their order. The values are the same bit for bit (no op changes, none
    is reassociated). What it buys on AMDGPU: LLVM's scheduler then places
    the sum's reciprocals and adds among P x V's MFMAs rather than before
    the first one, which had waited for them (bench/NOTES.md, 2026-12-06,
    eleventh session). Only a sum of weighted p (a product with a per-key
    vector broadcast to the tile) moves: a plain row sum moved after P x V
    kept p's f32 tile live past its cast and spilled (same note). A loop
    whose yielded l is no such sum, or whose l_new has another user, is
    left alone.

    ```mlir
    // before
    %w = arith.divf %one, %vd : vector<128xf32>
    %wt = vector.broadcast %w : vector<128xf32> to vector<128x128xf32>
    %pw = arith.mulf %p, %wt : vector<128x128xf32>
    %s = vector.multi_reduction <add>, %pw, %zero [1] : ...
    %l_new = arith.addf %al, %s : vector<128xf32>
    %pv = fmha.tile_mma %p8, %v, %acc : ...
    scf.yield %m_new, %l_new, %pv : ...
    // after
    %pv = fmha.tile_mma %p8, %v, %acc : ...
    %w = arith.divf %one, %vd : vector<128xf32>
    ... (%wt, %pw, %s)
    %l_new = arith.addf %al, %s : vector<128xf32>
    scf.yield %m_new, %l_new, %pv : ...
    ```
  }];
  let statistics = [
    Statistic<"numSunk", "num-sunk", "KV loops whose row sum was moved to the end of the body">
  ];
}

def FmhaUnrollKVLoop : Pass<"fmha-unroll-kv-loop"> {
  let summary = "Unroll the loop of full KV tiles by a factor (AMDGPU)";
  let description = [{
    The loop fmha-peel-masked-tiles marked `fmha.full_tiles` (step 1, tiles
    lo to hi) becomes a loop over max(hi - lo, 0) / factor groups, counted
    by an i32 from 0 (a target tests it on one register; upstream's
    loopUnrollByFactor steps the iv to a computed bound, which AMDGPU
    compared with a 64-bit VALU compare), whose body is `factor` copies of
    one tile's (tiles lo + j factor + k, the copies chaining the carried m,
    l, o and prefetched page ids); then the original loop runs the rest, 0
    to factor - 1 tiles, from lo + groups factor. The group loop keeps every
    marker and gets `fmha.unrolled = factor`, the rest `fmha.unrolled = 1`
    (so the pass runs once), and the lane lowering gives the copies' staged
    tiles the first copy's workgroup buffers. What it buys on AMDGPU: the
    loop's carried values need no copy a tile, the loop control is paid
    once a group, and the scheduler overlaps one copy's tail with the next
    one's loads. The result is the same bit for bit (the same tiles in the
    same order). A loop with another step, or none marked, is left alone;
    factor 1 changes nothing.

    factor -1 (the default, and the AMDGPU pipeline's) is the pass's rule:
    2 for a loop that gathers descales (kv_blockscale: its per-tile scalar
    work, page ids, descales and their addresses, is what unrolling
    amortises), else 1 (per_tensor measured 12 % more modelled cycles
    unrolled on gfx942: bench/NOTES.md, 2026-12-06, tenth session).

    ```mlir
    // before
    scf.for %t = %lo to %hi step %c1 iter_args(...) {body(t)} {fmha.full_tiles, fmha.kv_loop}
    // after (factor 2): g = max(hi - lo, 0) / 2
    scf.for %j = %c0_i32 to %g_i32 step %c1_i32 iter_args(...) : i32 {
      body(lo + 2 j); body(lo + 2 j + 1)
    } {fmha.full_tiles, fmha.kv_loop, fmha.unrolled = 2}
    scf.for %t = %lo2g to %hi step %c1 iter_args(...) {body(t)}
        {fmha.full_tiles, fmha.kv_loop, fmha.unrolled = 1}
    ```
  }];
  let options = [
    Option<"factor", "factor", "int64_t", /*default=*/"-1",
           "Tiles a loop iteration runs (at least 1; -1: 2 where the loop "
           "gathers descales, else 1)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numUnrolled", "num-unrolled", "full-tile loops unrolled">
  ];
}

#endif // FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD
