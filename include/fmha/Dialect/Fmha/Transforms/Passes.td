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
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"host\"",
           "Target: gfx942, gfx950, sm_90, or host">
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
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect"
  ];
}

#endif // FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD
