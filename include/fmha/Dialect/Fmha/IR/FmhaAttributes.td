//===- FmhaAttributes.td - fmha enums and attributes -------*- tablegen -*-===//
#ifndef FMHA_DIALECT_FMHA_IR_FMHAATTRIBUTES_TD
#define FMHA_DIALECT_FMHA_IR_FMHAATTRIBUTES_TD

include "fmha/Dialect/Fmha/IR/FmhaDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Fmha_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::mlir::fmha";
  let genSpecializedAttr = 0;
}

// Quantization modes. New modes (per_head, per_token_head) are new cases here
// plus a descale-shape rule in the verifier.
def Fmha_QuantMode : Fmha_I32Enum<"QuantMode", "quantization mode of q/k/v", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"PerTensor", 1, "per_tensor">,
  I32EnumAttrCase<"KVBlockScale", 2, "kv_blockscale">
]>;
def Fmha_QuantModeAttr : EnumAttr<Fmha_Dialect, Fmha_QuantMode, "quant"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "how q/k/v are quantized: none, per_tensor, kv_blockscale "
                "(one k and one v descale per physical page and KV head)";
}

// What a descale ring holds a key (fmha.stage_descale): the descale, or
// the function of it its consumers take (exp2_bias's log2(vd) and 1 / vd),
// computed by the producer a tile ahead instead of by every consumer lane.
def Fmha_DescaleForm : Fmha_I32Enum<"DescaleForm", "what a staged descale holds", [
  I32EnumAttrCase<"Value", 0, "value">,
  I32EnumAttrCase<"Log2", 1, "log2">,
  I32EnumAttrCase<"Reciprocal", 2, "reciprocal">
]>;
def Fmha_DescaleFormAttr : EnumAttr<Fmha_Dialect, Fmha_DescaleForm, "descale_form"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "value: the descale d; log2: log2(d); reciprocal: 1 / d";
}

def Fmha_PageTableForm : Fmha_I32Enum<"PageTableForm", "page-table form", [
  I32EnumAttrCase<"CSR", 0, "csr">,
  I32EnumAttrCase<"BlockTable", 1, "block_table">
]>;
def Fmha_PageTableFormAttr
    : EnumAttr<Fmha_Dialect, Fmha_PageTableForm, "page_table"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "csr: kv_indptr/kv_page_indices/kv_last_page_len "
                "(FlashInfer, SGLang); block_table: block_table/kv_seqlen (vLLM)";
}

def Fmha_KVLayout : Fmha_I32Enum<"KVLayout", "KV cache layout", [
  I32EnumAttrCase<"NHD", 0, "nhd">,
  I32EnumAttrCase<"HND", 1, "hnd">
]>;
def Fmha_KVLayoutAttr : EnumAttr<Fmha_Dialect, Fmha_KVLayout, "kv_layout"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "nhd: [N_pages, P, Hkv, D]; hnd: [N_pages, Hkv, P, D]";
}

def Fmha_MaskKind : Fmha_I32Enum<"MaskKind", "attention mask kind", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Causal", 1, "causal">,
  I32EnumAttrCase<"Window", 2, "window">
]>;

def Fmha_MaskAttr : AttrDef<Fmha_Dialect, "Mask"> {
  let mnemonic = "mask";
  let summary = "attention mask: none, causal, or a sliding window";
  let description = [{
    Query i of a sequence sits at absolute position i + Sk - Sq (bottom-right
    alignment). `causal` shows key j iff j <= i + Sk - Sq. `window` shows key j
    iff i + Sk - Sq - left <= j <= i + Sk - Sq + right; -1 means unbounded.

    ```mlir
    #fmha.mask<none>
    #fmha.mask<causal>
    #fmha.mask<window, left = 128, right = 0>
    ```
  }];
  let parameters = (ins "MaskKind":$kind, "int64_t":$left, "int64_t":$right);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isNone() const { return getKind() == MaskKind::None; }
    bool isCausal() const { return getKind() == MaskKind::Causal; }
    bool isWindow() const { return getKind() == MaskKind::Window; }
  }];
}


// The decisions fmha-select-config takes once from the page size, the tile
// and the MMA (docs/REGIMES.md section 2); every later pass, the manifest and
// the emulating reference read them from #fmha.config.
def Fmha_PageRegime : Fmha_I32Enum<"PageRegime", "how KV tiles lie on pages", [
  I32EnumAttrCase<"Unset", 0, "unset">,
  I32EnumAttrCase<"OnePage", 1, "one_page">,
  I32EnumAttrCase<"WholePages", 2, "whole_pages">,
  I32EnumAttrCase<"Unaligned", 3, "unaligned">
]>;
def Fmha_VdRoute : Fmha_I32Enum<"VdRoute", "how V descales reach P x V", [
  I32EnumAttrCase<"Unset", 0, "unset">,
  I32EnumAttrCase<"Scalar", 1, "scalar">,
  I32EnumAttrCase<"PageGroups", 2, "page_groups">,
  I32EnumAttrCase<"ScaledP", 3, "scaled_p">,
  I32EnumAttrCase<"PerKey", 4, "per_key">,
  I32EnumAttrCase<"Exp2Bias", 5, "exp2_bias">
]>;
def Fmha_QScale : Fmha_I32Enum<"QScale", "how Q reaches the Q K^T product", [
  I32EnumAttrCase<"AsStored", 0, "as_stored">,
  I32EnumAttrCase<"PerTile", 1, "per_tile">
]>;
def Fmha_PageRegimeParam : EnumParameter<Fmha_PageRegime> {
  let defaultValue = "::mlir::fmha::PageRegime::Unset";
}
def Fmha_VdRouteParam : EnumParameter<Fmha_VdRoute> {
  let defaultValue = "::mlir::fmha::VdRoute::Unset";
}
def Fmha_QScaleParam : EnumParameter<Fmha_QScale> {
  let defaultValue = "::mlir::fmha::QScale::AsStored";
}

def Fmha_ConfigAttr : AttrDef<Fmha_Dialect, "Config"> {
  let mnemonic = "config";
  let summary = "tile configuration of one kernel for one target";
  let description = [{
    Written by `fmha-select-config{chip=...}` (or by hand, for tuning) and read
    by the tiling pass and the target lowerings.

    | field | meaning |
    |---|---|
    | chip | target: gfx942, gfx950, sm_90, host |
    | block_m | query rows per workgroup tile (BlockM) |
    | block_n | KV tokens per KV-loop iteration (BlockN) |
    | k_step | head-dim step of the Q.K^T product (the MMA K) |
    | warps | waves (AMD) or warps (NVIDIA) per workgroup |
    | wave_size | lanes per wave/warp |
    | mma_m, mma_n | the MMA atom's M and N |
    | p_type | element type P is cast to before P.V |
    | shift | SHIFT of the exp2 trick: 2^SHIFT stays below p_type's max |
    | page_regime | one_page (P % block_n == 0: a tile lies in one page, one page id per tile), whole_pages (block_n % P == 0: a tile is whole pages, per-key ids, tiles on page boundaries), unaligned (neither) |
    | vd_route | scalar (one V descale per tile, or per tensor, or none); per-key V descales on a GPU: page_groups (the MMA steps of one page accumulate apart, scaled once by the page's vd) or scaled_p (p scaled by vd_j / r before the fp8 cast) or exp2_bias (log2(vd_j) added to the exp2 argument, one P V chain, the row sum divided by vd: docs/FOLDS.md; only when a config states it); on the host: per_key (each key's cast p times its vd) |
    | pv_group | k steps per page group (page_groups only, else 0) |
    | q_scale | as_stored (Q enters the product as it is stored; left out when printed) or per_tile (a 16-bit Q with an fp8 cache on a GPU: each Q tile quantized to the cache's fp8 type with one descale, `fmha.quantize_tile`, folded into sigma) |

    page_regime, vd_route, pv_group and q_scale are decisions: `fmha-select-config` takes them when a
    config leaves them out (a tuner may give only the tile sizes) and checks
    them when it states them; later passes, the manifest and the emulating
    reference read them and derive nothing again.

    ```mlir
    #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16,
                 warps = 4, wave_size = 64, mma_m = 32, mma_n = 32,
                 p_type = f8E4M3FNUZ, shift = 7>
    ```
  }];
  let parameters = (ins
    StringRefParameter<"target chip">:$chip,
    "int64_t":$block_m,
    "int64_t":$block_n,
    "int64_t":$k_step,
    "int64_t":$warps,
    "int64_t":$wave_size,
    "int64_t":$mma_m,
    "int64_t":$mma_n,
    "Type":$p_type,
    "int64_t":$shift,
    Fmha_PageRegimeParam:$page_regime,
    Fmha_VdRouteParam:$vd_route,
    DefaultValuedParameter<"int64_t", "0">:$pv_group,
    Fmha_QScaleParam:$q_scale
  );
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // FMHA_DIALECT_FMHA_IR_FMHAATTRIBUTES_TD
