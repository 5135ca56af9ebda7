//===- FmhaToGPU.cpp - convert-fmha-to-gpu (part 1: outlining) --------------===//
//
// The grid of the tiled form becomes a kernel: one workgroup per (q tile,
// query head, sequence), block ids for the grid's induction variables. The
// tile ops inside are left for the later parts of the conversion, which give
// them lanes, registers and shared memory through the chip's TargetInfo.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/FmhaToGPU.h"
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "fmha/Support/Chips.h"
#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

#include <limits>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_CONVERTFMHATOGPU
#include "fmha/Conversion/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

FailureOr<gpu::GPUFuncOp>
mlir::fmha::outlineGrid(RewriterBase &rw, scf::ForallOp grid,
                        gpu::GPUModuleOp kernels, StringRef kernelName,
                        int64_t threads) {
  if (grid.getRank() != 3 || !grid.getOutputs().empty())
    return grid.emitOpError("fmha grid must be a 3-d scf.forall without outputs"),
           failure();
  Location loc = grid.getLoc();

  // What the body captures: constants are cloned in, the rest are arguments.
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(grid.getRegion(), captured);
  SmallVector<Value> args;
  SmallVector<Operation *> clones;
  for (Value v : captured) {
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>())
      clones.push_back(def);
    else
      args.push_back(v);
  }
  // A stable ABI: the function's own arguments first, in their order (the
  // op's operand order), then values computed on the host.
  auto rank = [](Value v) -> int64_t {
    auto ba = dyn_cast<BlockArgument>(v);
    return ba && ba.getOwner()->isEntryBlock() ? ba.getArgNumber()
                                               : std::numeric_limits<int64_t>::max();
  };
  llvm::stable_sort(args, [&](Value a, Value b) { return rank(a) < rank(b); });

  // The kernel.
  rw.setInsertionPointToEnd(kernels.getBody());
  auto fnType = rw.getFunctionType(ValueRange(args).getTypes(), {});
  auto kernel = gpu::GPUFuncOp::create(rw, loc, kernelName, fnType);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), rw.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      rw.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  Block &entry = kernel.getBody().front();
  rw.setInsertionPointToStart(&entry);
  IRMapping map;
  for (auto [v, arg] : llvm::zip(args, entry.getArguments()))
    map.map(v, arg);
  for (Operation *c : clones)
    rw.clone(*c, map);
  gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                           gpu::Dimension::z};
  for (auto [iv, dim] : llvm::zip(grid.getInductionVars(), dims))
    map.map(iv, gpu::BlockIdOp::create(rw, loc, dim));
  for (Operation &op : grid.getBody()->without_terminator())
    rw.clone(op, map);
  gpu::ReturnOp::create(rw, loc);

  // The launch replaces the grid.
  rw.setInsertionPoint(grid);
  SmallVector<Value> blocks;
  for (OpFoldResult ub : grid.getMixedUpperBound())
    blocks.push_back(getValueOrCreateConstantIndexOp(rw, loc, ub));
  Value one = arith::ConstantIndexOp::create(rw, loc, 1);
  Value nThreads = arith::ConstantIndexOp::create(rw, loc, threads);
  gpu::LaunchFuncOp::create(rw, loc, kernel,
                            gpu::KernelDim3{blocks[0], blocks[1], blocks[2]},
                            gpu::KernelDim3{nThreads, one, one},
                            /*dynamicSharedMemorySize=*/Value(), args);
  rw.eraseOp(grid);
  return kernel;
}

void mlir::fmha::flattenLaunchOperands(RewriterBase &rw,
                                       gpu::LaunchFuncOp launch) {
  OpBuilder::InsertionGuard g(rw);
  rw.setInsertionPoint(launch);
  Location loc = launch.getLoc();
  auto ptrT = LLVM::LLVMPointerType::get(rw.getContext(), 1);
  SmallVector<Value> flat;
  for (Value v : launch.getKernelOperands()) {
    auto mt = dyn_cast<MemRefType>(v.getType());
    if (!mt) {
      flat.push_back(v);
      continue;
    }
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(rw, loc, v);
    Value i64 = arith::IndexCastOp::create(rw, loc, rw.getI64Type(), base);
    flat.push_back(LLVM::IntToPtrOp::create(rw, loc, ptrT, i64));
    auto asI64 = [&](Value x) {
      return arith::IndexCastOp::create(rw, loc, rw.getI64Type(), x).getResult();
    };
    for (int64_t d = 0; d < mt.getRank(); ++d)
      if (mt.isDynamicDim(d))
        flat.push_back(asI64(memref::DimOp::create(rw, loc, v, d)));
    if (!mt.getLayout().isIdentity()) {
      int64_t off;
      SmallVector<int64_t> strides;
      (void)mt.getStridesAndOffset(strides, off);
      auto meta = memref::ExtractStridedMetadataOp::create(rw, loc, v);
      if (ShapedType::isDynamic(off))
        flat.push_back(asI64(meta.getOffset()));
      for (int64_t d = 0; d < mt.getRank(); ++d)
        if (ShapedType::isDynamic(strides[d]))
          flat.push_back(asI64(meta.getStrides()[d]));
    }
  }
  rw.modifyOpInPlace(launch,
                     [&] { launch.getKernelOperandsMutable().assign(flat); });
}

namespace {

struct ConvertFmhaToGPUPass
    : public fmha::impl::ConvertFmhaToGPUBase<ConvertFmhaToGPUPass> {
  using Base::Base;
  /// What outlining and the tile lowering need of a grid, checked while the
  /// grid is still in place: its config is for this chip and wave size and,
  /// when the tiles are lowered, the chip has an MMA for its k_step that takes
  /// its K/V cache type (the GPU lowering's MMAs take fp8 caches only).
  LogicalResult checkGrid(scf::ForallOp grid, const TargetInfo &target) {
    auto cfg = dyn_cast<ConfigAttr>(grid->getAttr(kGridConfigAttr));
    if (!cfg || cfg.getChip() != chip)
      return grid.emitOpError()
             << "was tiled for chip '" << (cfg ? cfg.getChip() : StringRef("?"))
             << "' but convert-fmha-to-gpu targets '" << chip << "'";
    if (grid.getRank() != 3 || !grid.getOutputs().empty())
      return grid.emitOpError(
          "fmha grid must be a 3-d scf.forall without outputs");
    if (cfg.getWaveSize() != target.waveSize())
      return grid.emitOpError() << "config wave_size " << cfg.getWaveSize()
                                << " differs from " << chip << "'s "
                                << target.waveSize();
    if (!lowerTiles)
      return success();
    Type kvElem;
    grid.walk([&](GatherKVOp g) {
      kvElem = g.getTile().getType().getElementType();
    });
    if (!kvElem)
      return grid.emitOpError("convert-fmha-to-gpu: grid has no KV gather");
    auto prefix = "convert-fmha-to-gpu (" + chip + "): ";
    bool fp8 = isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
                   Float8E5M2FNUZType>(kvElem);
    if (!fp8)
      return grid.emitOpError(prefix)
             << "the GPU lowering takes fp8 K/V caches only, not " << kvElem;
    std::unique_ptr<TargetInfo> tileTarget =
        createTargetInfo(chip, cfg.getKStep());
    if (!tileTarget)
      return grid.emitOpError(prefix)
             << "no MMA with k_step " << cfg.getKStep();
    if (!tileTarget->mmaAtom(kvElem))
      return grid.emitOpError(prefix)
             << "the chip's MMA does not take " << kvElem;
    // Every K / V tile is staged in its own LDS (shared memory) buffer of
    // the tile's bytes (LowerTiles.cpp, lowerGatherKV).
    int64_t ldsBytes = 0;
    grid.walk([&](GatherKVOp g) {
      VectorType t = g.getTile().getType();
      ldsBytes += t.getNumElements() * t.getElementTypeBitWidth() / 8;
    });
    if (ldsBytes > tileTarget->sharedMemoryBytesPerBlock())
      return grid.emitOpError(prefix)
             << "the K and V tiles need " << ldsBytes
             << " bytes of workgroup memory (block_n " << cfg.getBlockN()
             << " x (D + Dv) fp8 values), more than the "
             << tileTarget->sharedMemoryBytesPerBlock() << " one workgroup may have";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::unique_ptr<TargetInfo> target = createTargetInfo(chip);
    if (!target) {
      module.emitError() << "convert-fmha-to-gpu: unknown chip '" << chip
                         << "'; expected " << expectedChipsText(kGPUChips);
      return signalPassFailure();
    }
    SmallVector<scf::ForallOp> grids;
    module.walk([&](scf::ForallOp f) {
      if (f->hasAttr(kGridConfigAttr))
        grids.push_back(f);
    });
    if (grids.empty())
      return;

    // Every grid is checked before anything is rewritten: outlining erases
    // the grid, so a diagnostic on it afterwards would print a dead op, and a
    // failed pass should leave the module as it found it.
    for (scf::ForallOp grid : grids)
      if (failed(checkGrid(grid, *target)))
        return signalPassFailure();

    IRRewriter rw(&getContext());
    rw.setInsertionPointToEnd(module.getBody());
    auto kernels = dyn_cast_or_null<gpu::GPUModuleOp>(
        SymbolTable::lookupSymbolIn(module, kKernelModuleName));
    if (!kernels) {
      kernels = gpu::GPUModuleOp::create(
          rw, module.getLoc(), kKernelModuleName,
          rw.getArrayAttr({target->gpuModuleTarget(&getContext())}));
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    rw.getUnitAttr());
    SymbolTable symbols(kernels);
    for (scf::ForallOp grid : grids) {
      auto cfg = cast<ConfigAttr>(grid->getAttr(kGridConfigAttr));
      auto fn = grid->getParentOfType<FunctionOpInterface>();
      std::string name = (fn ? fn.getName() : StringRef("fmha")).str() + "_kernel";
      int64_t threads = cfg.getWarps() * cfg.getWaveSize();
      Operation *next = grid->getNextNode();
      FailureOr<gpu::GPUFuncOp> kernel = outlineGrid(rw, grid, kernels, name, threads);
      if (failed(kernel))
        return signalPassFailure();
      symbols.insert(*kernel); // unique name when one function has two grids
      (*kernel)->setAttr(kGridConfigAttr, cfg); // tile sizes for launchers
      if (!lowerTiles)
        continue;
      std::unique_ptr<TargetInfo> tileTarget =
          createTargetInfo(chip, cfg.getKStep()); // checkGrid: not null
      tileTarget->setKernelAttrs(*kernel, threads, /*minWavesPerSimd=*/2);
      if (failed(lowerKernelTiles(*kernel, *tileTarget, cfg)))
        return signalPassFailure();
      auto launch = dyn_cast_or_null<gpu::LaunchFuncOp>(
          next ? next->getPrevNode() : nullptr);
      if (!launch)
        return signalPassFailure();
      flattenLaunchOperands(rw, launch);
    }
  }
};

} // namespace
