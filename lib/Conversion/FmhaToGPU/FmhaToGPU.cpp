//===- FmhaToGPU.cpp - convert-fmha-to-gpu: the lane lowering --------------===//
//
// Every kernel fmha-outline-kernel wrote (a `gpu.func` carrying fmha.config
// in @fmha_kernels, with the flat ABI) is checked against what the lane
// lowering takes, then its tile ops become one lane's code (LowerTiles.cpp)
// through the chip's TargetInfo.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/FmhaToGPU.h"
#include "fmha/Conversion/FmhaToGPU/LaneForms.h"
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "fmha/Conversion/OutlineKernel/OutlineKernel.h"
#include "fmha/Support/Chips.h"
#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_CONVERTFMHATOGPU
#include "fmha/Conversion/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The kernel's K/V cache element type (its fmha.gather_kv tiles), or null
/// when it has none.
Type kvElemType(gpu::GPUFuncOp kernel) {
  Type elem;
  kernel.walk([&](GatherKVOp g) { elem = g.getTile().getType().getElementType(); });
  return elem;
}

/// Bytes of that element: 1 for fp8, 2 for bf16 / f16; 1 without one
/// (checkKernel reports it).
int64_t kvElemBytes(gpu::GPUFuncOp kernel) {
  Type elem = kvElemType(kernel);
  return elem ? elem.getIntOrFloatBitWidth() / 8 : 1;
}

struct ConvertFmhaToGPUPass
    : public fmha::impl::ConvertFmhaToGPUBase<ConvertFmhaToGPUPass> {
  using Base::Base;
  /// What the tile lowering needs of a kernel, checked before any kernel is
  /// rewritten: its config is for this chip, and the chip has an MMA for its
  /// k_step that takes its K/V cache type (the GPU lowering's MMAs take fp8
  /// caches only) and the LDS / shared memory for its K and V tiles.
  LogicalResult checkKernel(gpu::GPUFuncOp kernel, ConfigAttr cfg) {
    if (cfg.getChip() != chip)
      return kernel.emitOpError()
             << "was outlined for chip '" << cfg.getChip()
             << "' but convert-fmha-to-gpu targets '" << chip << "'";
    Type kvElem = kvElemType(kernel);
    if (!kvElem)
      return kernel.emitOpError("convert-fmha-to-gpu: kernel has no KV gather");
    auto prefix = "convert-fmha-to-gpu (" + chip + "): ";
    bool fp8 = isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
                   Float8E5M2FNUZType>(kvElem);
    if (!fp8 && !isa<BFloat16Type, Float16Type>(kvElem))
      return kernel.emitOpError(prefix)
             << "the GPU lowering takes fp8, bf16 or f16 K/V caches, not " << kvElem;
    std::unique_ptr<TargetInfo> tileTarget =
        createTargetInfo(chip, cfg.getKStep(), kvElemBytes(kernel));
    if (!tileTarget)
      return kernel.emitOpError(prefix)
             << "no MMA with k_step " << cfg.getKStep();
    if (!tileTarget->mmaAtom(kvElem))
      return kernel.emitOpError(prefix)
             << "the chip's MMA does not take " << kvElem;
    // Every K / V tile is staged in an LDS (shared memory) buffer of the
    // tile's bytes (MemoryPatterns.cpp, GatherKVPattern); the KV loops that
    // fmha-peel-masked-tiles split one loop into run one after the other and
    // share them (LowerTiles.cpp).
    int64_t ldsBytes = stagedKVBytes(kernel);
    if (ldsBytes > tileTarget->sharedMemoryBytesPerBlock())
      return kernel.emitOpError(prefix)
             << "the K and V tiles need " << ldsBytes
             << " bytes of workgroup memory (block_n " << cfg.getBlockN()
             << " x (D + Dv) " << (fp8 ? "fp8" : "16-bit") << " values), more than the "
             << tileTarget->sharedMemoryBytesPerBlock() << " one workgroup may have";
    // The rings of fmha-pipeline-kv-stages come on top, up to what the
    // launcher can allow (dynamic shared memory on NVIDIA). A chip without
    // the asynchronous copies that fill them is refused by LaneForms.
    if (int64_t rings = ringBytes(kernel);
        rings && tileTarget->hasAsyncCopies() &&
        ldsBytes + rings > tileTarget->maxSharedMemoryBytesPerBlock())
      return kernel.emitOpError(prefix)
             << "the K and V tiles and their stage rings need " << ldsBytes + rings
             << " bytes of workgroup memory, more than the "
             << tileTarget->maxSharedMemoryBytesPerBlock() << " one workgroup may have";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!createTargetInfo(chip)) {
      module.emitError() << "convert-fmha-to-gpu: unknown chip '" << chip
                         << "'; expected " << expectedChipsText(kGPUChips);
      return signalPassFailure();
    }
    if (const ChipInfo *info = lookupChip(chip);
        ldsBankSwizzle && (!info || info->vendor != ChipVendor::AMDGPU)) {
      module.emitError() << "convert-fmha-to-gpu: lds-bank-swizzle is an AMDGPU "
                            "LDS layout; chip '"
                         << chip << "' is not an AMDGPU chip";
      return signalPassFailure();
    }
    // A grid left in place was not outlined: the lowering starts from the
    // kernel and its flat ABI.
    WalkResult grids = module.walk([&](scf::ForallOp f) {
      if (!f->hasAttr(kGridConfigAttr))
        return WalkResult::advance();
      f.emitOpError("convert-fmha-to-gpu: the grid is not outlined (run "
                    "fmha-outline-kernel first)");
      return WalkResult::interrupt();
    });
    if (grids.wasInterrupted())
      return signalPassFailure();
    auto kernels = dyn_cast_or_null<gpu::GPUModuleOp>(
        SymbolTable::lookupSymbolIn(module, kKernelModuleName));
    if (!kernels)
      return;
    SmallVector<std::pair<gpu::GPUFuncOp, ConfigAttr>> todo;
    for (auto kernel : kernels.getOps<gpu::GPUFuncOp>()) {
      if (auto cfg = kernel->getAttrOfType<ConfigAttr>(kGridConfigAttr)) {
        todo.push_back({kernel, cfg});
        continue;
      }
      bool tiles = false;
      kernel.walk([&](Operation *op) {
        tiles |= isa<FmhaDialect>(op->getDialect());
      });
      if (tiles) {
        kernel.emitOpError("convert-fmha-to-gpu: kernel has fmha tile ops but "
                           "no fmha.config (fmha-outline-kernel puts it there)");
        return signalPassFailure();
      }
    }

    // Every kernel is checked, to the form of every value, before any is
    // rewritten.
    for (auto [kernel, cfg] : todo) {
      if (failed(checkKernel(kernel, cfg)))
        return signalPassFailure();
      std::unique_ptr<TargetInfo> tileTarget =
          createTargetInfo(chip, cfg.getKStep(), kvElemBytes(kernel));
      if (failed(verifyKernelTiles(kernel, *tileTarget, cfg, ldsBankSwizzle)))
        return signalPassFailure();
    }
    for (auto [kernel, cfg] : todo) {
      std::unique_ptr<TargetInfo> tileTarget =
          createTargetInfo(chip, cfg.getKStep(), kvElemBytes(kernel)); // checkKernel: not null
      if (failed(lowerKernelTiles(kernel, *tileTarget, cfg, ldsBankSwizzle)))
        return signalPassFailure();
    }
  }
};

} // namespace
