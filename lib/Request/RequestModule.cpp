//===- RequestModule.cpp - a kernel request as an fmha module ---------------===//
#include "fmha/Request/RequestModule.h"

#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Support/Chips.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {

Type elementType(MLIRContext *ctx, ref::DType t) {
  switch (t) {
  case ref::DType::F32:
    return Float32Type::get(ctx);
  case ref::DType::BF16:
    return BFloat16Type::get(ctx);
  case ref::DType::F16:
    return Float16Type::get(ctx);
  case ref::DType::F8E4M3FN:
    return Float8E4M3FNType::get(ctx);
  case ref::DType::F8E4M3FNUZ:
    return Float8E4M3FNUZType::get(ctx);
  case ref::DType::F8E5M2:
    return Float8E5M2Type::get(ctx);
  case ref::DType::F8E5M2FNUZ:
    return Float8E5M2FNUZType::get(ctx);
  }
  llvm_unreachable("unknown dtype");
}

bool csr(const ref::Request &r) { return r.table == ref::TableForm::CSR; }
bool quantized(const ref::Request &r) { return r.quant != ref::QuantMode::None; }

} // namespace

std::vector<RequestOperand> mlir::fmha::requestOperands(const ref::Request &req) {
  std::vector<RequestOperand> args = {{"q", 3}, {"k_cache", 4}, {"v_cache", 4},
                                 {"qo_indptr", 1}};
  if (csr(req))
    args.insert(args.end(), {{"kv_indptr", 1}, {"kv_page_indices", 1},
                             {"kv_last_page_len", 1}});
  else
    args.insert(args.end(), {{"block_table", 2}, {"kv_seqlen", 1}});
  if (quantized(req)) {
    int64_t r = req.quant == ref::QuantMode::KVBlockscale ? 2 : 1;
    args.insert(args.end(), {{"q_descale", 1}, {"k_descale", r}, {"v_descale", r}});
  }
  if (req.runtime_scalars)
    args.push_back({"runtime_scalars", 1});
  args.push_back({"out", 3});
  if (req.return_lse)
    args.push_back({"lse", 2});
  return args;
}

OwningOpRef<ModuleOp> mlir::fmha::buildRequestModule(MLIRContext &ctx,
                                                     const ref::Request &req) {
  ctx.loadDialect<FmhaDialect, func::FuncDialect>();
  OpBuilder b(&ctx);
  Location loc = NameLoc::get(b.getStringAttr("request"));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  int64_t dyn = ShapedType::kDynamic;
  int64_t hq = req.num_qo_heads, hkv = req.num_kv_heads, d = req.head_dim,
          dv = req.headDimV(), p = req.page_size;
  bool nhd = req.layout == ref::KVLayout::NHD;
  auto i32 = b.getI32Type();
  auto f32 = b.getF32Type();
  Type kvT = elementType(&ctx, req.kv_dtype);
  auto cacheType = [&](int64_t dim) {
    SmallVector<int64_t, 4> shape = nhd ? SmallVector<int64_t, 4>{dyn, p, hkv, dim}
                                        : SmallVector<int64_t, 4>{dyn, hkv, p, dim};
    if (!req.kv_strided)
      return MemRefType::get(shape, kvT);
    // Page, token / head strides and the offset at run time; d contiguous.
    return MemRefType::get(shape, kvT,
                           StridedLayoutAttr::get(&ctx, dyn, {dyn, dyn, dyn, 1}));
  };
  SmallVector<Type> types;
  for (const RequestOperand &a : requestOperands(req)) {
    StringRef n = a.name;
    if (n == "q")
      types.push_back(MemRefType::get({dyn, hq, d}, elementType(&ctx, req.q_dtype)));
    else if (n == "k_cache")
      types.push_back(cacheType(d));
    else if (n == "v_cache")
      types.push_back(cacheType(dv));
    else if (n == "out")
      types.push_back(MemRefType::get({dyn, hq, dv}, elementType(&ctx, req.out_dtype)));
    else if (n == "lse")
      types.push_back(MemRefType::get({dyn, hq}, f32));
    else if (n == "block_table")
      types.push_back(MemRefType::get({dyn, dyn}, i32));
    else if (n == "runtime_scalars")
      types.push_back(MemRefType::get({4}, i32));
    else if (n == "q_descale" || (a.rank == 1 && n.ends_with("descale")))
      types.push_back(MemRefType::get({1}, f32));
    else if (n.ends_with("descale")) // [N_pages, Hkv], strides explicit
      types.push_back(MemRefType::get(
          {dyn, hkv}, f32, StridedLayoutAttr::get(&ctx, dyn, {dyn, dyn})));
    else
      types.push_back(MemRefType::get({dyn}, i32));
  }
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(b, loc, kKernelName, b.getFunctionType(types, {}));
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  // Each argument names its operand, so the kernel's ABI record
  // (fmha-outline-kernel) takes the names from the IR.
  for (auto [i, a] : llvm::enumerate(requestOperands(req)))
    fn.setArgAttr(i, kOperandNameAttr, b.getStringAttr(a.name));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);

  auto arg = [&, i = 0u](bool present) mutable -> Value {
    return present ? entry->getArgument(i++) : Value();
  };
  bool c = csr(req), qz = quantized(req);
  Value q = arg(true), k = arg(true), v = arg(true), qo = arg(true);
  Value kvIndptr = arg(c), kvIndices = arg(c), kvLast = arg(c);
  Value blockTable = arg(!c), kvSeqlen = arg(!c);
  Value qd = arg(qz), kd = arg(qz), vd = arg(qz);
  Value scalars = arg(req.runtime_scalars);
  Value out = arg(true), lse = arg(req.return_lse);

  MaskKind kind = req.mask.kind == ref::MaskKind::Causal   ? MaskKind::Causal
                  : req.mask.kind == ref::MaskKind::Window ? MaskKind::Window
                                                           : MaskKind::None;
  // With run-time scalars a window's bounds come from the buffer.
  bool window = kind == MaskKind::Window && !req.runtime_scalars;
  auto mask = MaskAttr::get(&ctx, kind, window ? req.mask.left : -1,
                            window ? req.mask.right : -1);
  QuantMode quant = req.quant == ref::QuantMode::None        ? QuantMode::None
                    : req.quant == ref::QuantMode::PerTensor ? QuantMode::PerTensor
                                                             : QuantMode::KVBlockScale;
  auto op = BatchPrefillOp::create(
      b, loc, q, k, v, qo, kvIndptr, kvIndices, kvLast, blockTable, kvSeqlen,
      qd, kd, vd, scalars, out, lse, quant, mask,
      c ? PageTableForm::CSR : PageTableForm::BlockTable,
      nhd ? KVLayout::NHD : KVLayout::HND, p,
      req.sm_scale > 0 && !req.runtime_scalars ? b.getF32FloatAttr(req.sm_scale)
                                               : FloatAttr(),
      req.soft_cap > 0 && !req.runtime_scalars ? b.getF32FloatAttr(req.soft_cap)
                                               : FloatAttr(),
      ConfigAttr(),
      // With run-time scalars a soft cap's value comes from the buffer.
      req.soft_cap > 0 && req.runtime_scalars);
  (void)op;
  func::ReturnOp::create(b, loc);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

int64_t mlir::fmha::wgmmaFp8Promote(const ref::Request &req, ConfigAttr cfg,
                                    bool pv) {
  const ChipInfo *chip = cfg ? lookupChip(cfg.getChip()) : nullptr;
  if (!chip)
    return 0;
  bool fp8 = ref::isFp8(req.kv_dtype) && cfg.getPType().getIntOrFloatBitWidth() == 8 &&
             (ref::isFp8(req.q_dtype) || cfg.getQScale() == QScale::PerTile);
  return chip->fp8WgmmaPromote(fp8, pv);
}
