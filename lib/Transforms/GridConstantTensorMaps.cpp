//===- GridConstantTensorMaps.cpp - tensor maps as grid constants ---------===//
//
// fmha-grid-constant-tensormaps: a TMA kernel's tensor maps reach it by value
// (`.param .align 64 .b8 [128]`, __grid_constant__), as CUDA's own kernels
// take them; the kernel's argument record (fmha.abi) names them, and they
// get the LLVM attributes the NVPTX back end reads.
//
//===----------------------------------------------------------------------===//
#include "fmha/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::fmha {
#define GEN_PASS_DEF_GRIDCONSTANTTENSORMAPSPASS
#include "fmha/Transforms/Passes.h.inc"
} // namespace mlir::fmha

using namespace mlir;

namespace {

struct GridConstantTensorMapsPass
    : public fmha::impl::GridConstantTensorMapsPassBase<GridConstantTensorMapsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto map = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128);
    WalkResult r = getOperation()->walk([&](LLVM::LLVMFuncOp f) {
      // The kernel's argument record (fmha.abi, KernelAbi.h), which
      // convert-gpu-to-nvvm keeps (it drops unknown argument attributes).
      auto record = f->getAttrOfType<ArrayAttr>("fmha.abi");
      if (!record)
        return WalkResult::advance();
      for (auto [i, entry] : llvm::enumerate(record)) {
        auto d = dyn_cast<DictionaryAttr>(entry);
        auto part = d ? d.getAs<StringAttr>("part") : StringAttr();
        if (!part || part.getValue() != "tensormap")
          continue;
        if (i >= f.getNumArguments() || !isa<LLVM::LLVMPointerType>(f.getArgumentTypes()[i])) {
          f.emitOpError("fmha-grid-constant-tensormaps: fmha.abi entry ")
              << i << " is a tensormap but argument " << i << " is not an !llvm.ptr";
          return WalkResult::interrupt();
        }
        f.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(map));
        f.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
        f.setArgAttr(i, "nvvm.grid_constant", b.getUnitAttr());
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
