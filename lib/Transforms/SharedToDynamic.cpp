//===- SharedToDynamic.cpp - workgroup globals in one dynamic block -------===//
//
// fmha-shared-to-dynamic: CUDA's static shared memory stops at 48 KiB; the
// sm_90a kernels' staged tiles (a ring of K / V stages) need more. The pass
// rewrites the address-space-3 globals convert-gpu-to-nvvm made of the
// workgroup attributions into offsets of one external (dynamic) array. The
// layout rule is `sharedLayout`, shared with the manifest's byte count.
//
//===----------------------------------------------------------------------===//
#include "fmha/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::fmha {
#define GEN_PASS_DEF_SHAREDTODYNAMICPASS
#include "fmha/Transforms/Passes.h.inc"
} // namespace mlir::fmha

using namespace mlir;

llvm::SmallVector<int64_t>
mlir::fmha::sharedLayout(llvm::ArrayRef<std::pair<int64_t, int64_t>> sizeAndAlign,
                         int64_t &total) {
  llvm::SmallVector<int64_t> offsets;
  int64_t at = 0;
  for (auto [bytes, align] : sizeAndAlign) {
    at = llvm::alignTo(at, align > 0 ? align : 16);
    offsets.push_back(at);
    at += bytes;
  }
  total = at;
  return offsets;
}

namespace {

constexpr unsigned kShared = 3;

struct SharedToDynamicPass
    : public fmha::impl::SharedToDynamicPassBase<SharedToDynamicPass> {
  using SharedToDynamicPassBase::SharedToDynamicPassBase;
  void runOnOperation() override {
    Operation *root = getOperation();
    if (root->getNumRegions() != 1 || !root->getRegion(0).hasOneBlock())
      return;
    Block &body = root->getRegion(0).front();
    SmallVector<LLVM::GlobalOp> globals;
    for (auto g : body.getOps<LLVM::GlobalOp>())
      if (g.getAddrSpace() == kShared && g.getSymName() != fmha::kDynamicSharedSymbol)
        globals.push_back(g);
    if (globals.empty())
      return;
    SmallVector<std::pair<int64_t, int64_t>> sizes;
    int64_t maxAlign = 16;
    for (LLVM::GlobalOp g : globals) {
      auto arr = dyn_cast<LLVM::LLVMArrayType>(g.getGlobalType());
      if (!arr || g.getValueOrNull() || !g.getInitializerRegion().empty()) {
        g.emitOpError("fmha-shared-to-dynamic: a workgroup global must be an "
                      "array without an initializer");
        return signalPassFailure();
      }
      int64_t elemBytes = 1;
      if (auto it = dyn_cast<IntegerType>(arr.getElementType()))
        elemBytes = llvm::divideCeil(it.getWidth(), 8);
      else if (auto ft = dyn_cast<FloatType>(arr.getElementType()))
        elemBytes = llvm::divideCeil(ft.getWidth(), 8);
      else {
        g.emitOpError("fmha-shared-to-dynamic: a workgroup global must be an "
                      "array of integers or floats");
        return signalPassFailure();
      }
      int64_t align = g.getAlignment().value_or(0);
      sizes.push_back({int64_t(arr.getNumElements()) * elemBytes, align});
      maxAlign = std::max<int64_t>(maxAlign, align);
    }
    int64_t total = 0;
    SmallVector<int64_t> offsets = fmha::sharedLayout(sizes, total);
    if (total <= minBytes)
      return;

    MLIRContext *ctx = root->getContext();
    OpBuilder b(ctx);
    b.setInsertionPoint(globals.front());
    auto i8 = IntegerType::get(ctx, 8);
    auto dyn = LLVM::GlobalOp::create(
        b, globals.front().getLoc(), LLVM::LLVMArrayType::get(i8, 0),
        /*isConstant=*/false, LLVM::Linkage::External, fmha::kDynamicSharedSymbol,
        /*value=*/Attribute(), /*alignment=*/maxAlign, kShared);
    llvm::DenseMap<StringAttr, int64_t> offsetOf;
    for (auto [g, off] : llvm::zip(globals, offsets))
      offsetOf[g.getSymNameAttr()] = off;
    SmallVector<LLVM::AddressOfOp> uses;
    root->walk([&](LLVM::AddressOfOp a) {
      if (offsetOf.count(a.getGlobalNameAttr().getAttr()))
        uses.push_back(a);
    });
    for (LLVM::AddressOfOp a : uses) {
      b.setInsertionPoint(a);
      Value base = LLVM::AddressOfOp::create(b, a.getLoc(), a.getType(),
                                            dyn.getSymName());
      int64_t off = offsetOf[a.getGlobalNameAttr().getAttr()];
      Value p = base;
      if (off)
        p = LLVM::GEPOp::create(b, a.getLoc(), a.getType(), i8, base,
                                ArrayRef<LLVM::GEPArg>{int32_t(off)},
                                LLVM::GEPNoWrapFlags::inbounds);
      a.replaceAllUsesWith(p);
      a.erase();
    }
    for (LLVM::GlobalOp g : globals)
      g.erase();
  }
};

} // namespace
