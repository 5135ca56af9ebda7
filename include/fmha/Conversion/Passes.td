//===- Passes.td - fmha conversion passes ------------------*- tablegen -*-===//
#ifndef FMHA_CONVERSION_PASSES_TD
#define FMHA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFmhaToHost : Pass<"convert-fmha-to-host"> {
  let summary = "Lower the tile-level fmha ops to loops for the CPU";
  let description = [{
    Rewrites the tiled form's tile ops into upstream scf/vector/memref/arith
    ops that the CPU pipeline (fmha-to-host-pipeline) lowers to LLVM:

    - `fmha.load_rows`, `fmha.gather_kv`: one guarded `vector.load` per row
      (rows past the valid count are zero and never read), assembled with
      static `vector.insert`s.
    - `fmha.page_ids`, `fmha.gather_descale`: guarded scalar loads.
    - `fmha.store_rows`: one guarded `vector.store` (or scalar store) per row.
    - `fmha.tile_mma`: operands widened to f32 and written to stack buffers
      allocated once at the function entry; loops of row dot products (Q x K^T) or row
      AXPYs (P x V) accumulate in f32.

    Before:
    ```mlir
    %s = fmha.tile_mma %q, %k, %acc {transpose_rhs}
        : vector<16x128xf8E4M3FNUZ>, vector<32x128xf8E4M3FNUZ> -> vector<16x32xf32>
    ```
    After (sketch):
    ```mlir
    %a = memref.alloca() : memref<16x128xf32>   // at the function entry
    ...
    vector.transfer_write %qf32, %a[...]        // extf(q)
    scf.for %i ... { scf.for %j ... { vector.reduction <add> ... } }
    %s = vector.transfer_read %c[...] : memref<16x32xf32>, vector<16x32xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

#endif // FMHA_CONVERSION_PASSES_TD
