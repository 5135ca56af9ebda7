//===- FmhaDialect.td - The fmha dialect -------------------*- tablegen -*-===//
#ifndef FMHA_DIALECT_FMHA_IR_FMHADIALECT_TD
#define FMHA_DIALECT_FMHA_IR_FMHADIALECT_TD

include "mlir/IR/DialectBase.td"

def Fmha_Dialect : Dialect {
  let name = "fmha";
  let cppNamespace = "::mlir::fmha";
  let summary = "Paged FP8 attention (batch prefill) stated with typed attributes";
  let description = [{
    The `fmha` dialect states a batch-prefill attention over a paged KV cache:
    the attention itself, the paged layout of the cache (page size, page-table
    form, KV layout) and its quantization (per tensor or per physical page and
    KV head) as typed attributes on one op. Lowering passes expand the op into
    a tiled form and from there into GPU kernels (AMDGPU HSACO, NVIDIA PTX) or
    host code. What the op computes is defined in docs/SPEC.md.
  }];
  let useDefaultAttributePrinterParser = 1;
}

#endif // FMHA_DIALECT_FMHA_IR_FMHADIALECT_TD
