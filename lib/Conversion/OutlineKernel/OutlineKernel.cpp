//===- OutlineKernel.cpp - fmha-outline-kernel ----------------------------===//
//
// The grid of the tiled form becomes a kernel: one workgroup per (q tile,
// query head, sequence), block ids for the grid's induction variables, the
// flat ABI, and a record of where each kernel argument comes from
// (KernelAbi.h). The tile ops inside are left for convert-fmha-to-gpu, which
// gives them lanes, registers and shared memory through the chip's
// TargetInfo.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/OutlineKernel/OutlineKernel.h"
#include "fmha/Support/Chips.h"
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include <limits>
#include <map>
#include <numeric>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_OUTLINEKERNEL
#include "fmha/Conversion/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The waves per SIMD a kernel asks its register allocator for (AMDGPU's
/// waves_per_eu): 2, so that one wave's MFMAs hide another's loads, unless
/// the S and O accumulators alone, block_m (block_n + Dv) f32 values over the
/// workgroup, take more than half of a lane's 256 registers at 2 waves: then
/// 1 (D 256 on gfx950 spilled 85 VGPRs at 2 waves; gfx942's allocator
/// already gave it one wave).
int64_t minWavesPerSimd(gpu::GPUFuncOp kernel, ConfigAttr cfg, int64_t threads) {
  int64_t dv = 0;
  kernel.walk([&](TileMmaOp m) {
    if (!m.getTransposeRhs())
      dv = std::max(dv, m.getResult().getType().getDimSize(1));
  });
  return accumulatorsPerLane(cfg, dv, threads) > 128 ? 1 : 2;
}

/// What a grid's body uses from above: constants (cloned into the kernel) and
/// the values that become kernel arguments, in ABI order.
struct Captures {
  SmallVector<Value> args;
  SmallVector<Operation *> clones;
};

Captures capturesOf(scf::ForallOp grid) {
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(grid.getRegion(), captured);
  Captures c;
  // Cloned in, operands first: constants, and index arithmetic (add, sub) on
  // constants and sizes (memref.dim) of memrefs the body uses anyway (CSE
  // makes the grid point's batch, qo_indptr's size - 1, the function's).
  SetVector<Operation *> clones;
  std::function<bool(Value)> cloneable = [&](Value v) -> bool {
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (def->hasTrait<OpTrait::ConstantLike>()) {
      clones.insert(def);
      return true;
    }
    if (!isa<memref::DimOp, arith::AddIOp, arith::SubIOp>(def))
      return false;
    for (Value o : def->getOperands())
      if (isa<MemRefType>(o.getType()) ? !captured.contains(o) : !cloneable(o))
        return false;
    clones.insert(def);
    return true;
  };
  for (Value v : captured)
    if (isa<MemRefType>(v.getType()) || !cloneable(v))
      c.args.push_back(v);
  c.clones.assign(clones.begin(), clones.end());
  // A stable ABI: the function's own arguments first, in their order (the
  // op's operand order), then values computed on the host.
  auto rank = [](Value v) -> int64_t {
    auto ba = dyn_cast<BlockArgument>(v);
    return ba && ba.getOwner()->isEntryBlock() ? ba.getArgNumber()
                                               : std::numeric_limits<int64_t>::max();
  };
  llvm::stable_sort(c.args, [&](Value a, Value b) { return rank(a) < rank(b); });
  return c;
}

/// The enclosing function of `v` when `v` is one of its arguments.
FunctionOpInterface functionOfArg(Value v) {
  auto ba = dyn_cast<BlockArgument>(v);
  if (!ba || !ba.getOwner()->isEntryBlock())
    return nullptr;
  return dyn_cast<FunctionOpInterface>(ba.getOwner()->getParentOp());
}

/// The rules outlining itself has: the grid's shape, and memrefs the flat
/// ABI can describe.
LogicalResult checkOutlinable(scf::ForallOp grid, const Captures &c) {
  if (grid.getRank() != 3 || !grid.getOutputs().empty())
    return grid.emitOpError("fmha grid must be a 3-d scf.forall without outputs");
  for (Value v : c.args) {
    auto mt = dyn_cast<MemRefType>(v.getType());
    int64_t off;
    SmallVector<int64_t> strides;
    if (mt && failed(mt.getStridesAndOffset(strides, off)))
      return grid.emitOpError("fmha-outline-kernel: kernel memrefs must be "
                              "strided, not ")
             << mt;
  }
  return success();
}

/// The flat ABI of the captured values: the kernel's argument types and the
/// record of each (KernelAbi.h). checkOutlinable holds.
void flatAbi(MLIRContext *ctx, ArrayRef<Value> args, SmallVector<Type> &abi,
             SmallVector<KernelAbiArg> &record) {
  auto ptrT = LLVM::LLVMPointerType::get(ctx, 1);
  auto i64 = IntegerType::get(ctx, 64);
  int64_t hostValues = 0;
  for (Value v : args) {
    KernelAbiArg from;
    if (FunctionOpInterface fn = functionOfArg(v)) {
      from.operand = cast<BlockArgument>(v).getArgNumber();
      auto name = fn.getArgAttrOfType<StringAttr>(from.operand, kOperandNameAttr);
      from.name = name ? name.getValue().str()
                       : "arg" + std::to_string(from.operand);
    } else {
      from.name = "host" + std::to_string(hostValues++);
    }
    auto part = [&](AbiPart p, int64_t dim = -1) {
      KernelAbiArg a = from;
      a.part = p;
      a.dim = dim;
      record.push_back(a);
    };
    auto mt = dyn_cast<MemRefType>(v.getType());
    if (!mt) {
      abi.push_back(v.getType());
      part(AbiPart::Value);
      continue;
    }
    int64_t off;
    SmallVector<int64_t> strides;
    (void)mt.getStridesAndOffset(strides, off);
    // ptr, dynamic sizes, then (strided layouts) dynamic offset and strides.
    abi.push_back(ptrT);
    part(AbiPart::Pointer);
    for (auto [d, size] : llvm::enumerate(mt.getShape()))
      if (ShapedType::isDynamic(size)) {
        abi.push_back(i64);
        part(AbiPart::Size, d);
      }
    if (!mt.getLayout().isIdentity()) {
      if (ShapedType::isDynamic(off)) {
        abi.push_back(i64);
        part(AbiPart::Offset);
      }
      for (auto [d, st] : llvm::enumerate(strides))
        if (ShapedType::isDynamic(st)) {
          abi.push_back(i64);
          part(AbiPart::Stride, d);
        }
    }
  }
}

/// At the top of the kernel's entry block: each memref of `args` rebuilt from
/// its flat arguments (an LLVM descriptor struct, cast to a memref in address
/// space 1, fp8 elements as i8, then cast to the memref's own type for the
/// tile ops); scalars map to their argument.
void rebuildArgs(gpu::GPUFuncOp kernel, ArrayRef<Value> args, IRMapping &map) {
  Block *entry = &kernel.getBody().front();
  ImplicitLocOpBuilder b(kernel.getLoc(), kernel.getContext());
  b.setInsertionPointToStart(entry);
  auto ptrT = LLVM::LLVMPointerType::get(b.getContext(), 1);
  unsigned at = 0;
  for (Value a : args) {
    auto mt = dyn_cast<MemRefType>(a.getType());
    if (!mt) {
      map.map(a, entry->getArgument(at++));
      continue;
    }
    Value ptr = entry->getArgument(at++);
    Type elem = mt.getElementType();
    if (isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() == 8)
      elem = b.getI8Type();
    auto gm = MemRefType::get(mt.getShape(), elem, mt.getLayout(),
                              b.getI64IntegerAttr(1));
    int64_t rank = mt.getRank();
    auto i64 = b.getI64Type();
    auto arr = LLVM::LLVMArrayType::get(i64, rank);
    auto descT = LLVM::LLVMStructType::getLiteral(
        b.getContext(), {ptrT, ptrT, i64, arr, arr});
    auto cst = [&](int64_t v) {
      return LLVM::ConstantOp::create(b, i64, b.getI64IntegerAttr(v)).getResult();
    };
    SmallVector<Value> sizes;
    for (int64_t d : mt.getShape())
      sizes.push_back(ShapedType::isDynamic(d) ? Value(entry->getArgument(at++))
                                               : cst(d));
    int64_t staticOff;
    SmallVector<int64_t> staticStrides;
    (void)mt.getStridesAndOffset(staticStrides, staticOff);
    Value offset = cst(0);
    SmallVector<Value> strideVals(rank);
    if (mt.getLayout().isIdentity()) {
      Value stride = cst(1);
      for (int64_t d = rank - 1; d >= 0; --d) {
        strideVals[d] = stride;
        if (d)
          stride = LLVM::MulOp::create(b, stride, sizes[d]);
      }
    } else {
      offset = ShapedType::isDynamic(staticOff) ? Value(entry->getArgument(at++))
                                                : cst(staticOff);
      for (int64_t d = 0; d < rank; ++d)
        strideVals[d] = ShapedType::isDynamic(staticStrides[d])
                            ? Value(entry->getArgument(at++))
                            : cst(staticStrides[d]);
    }
    Value desc = LLVM::PoisonOp::create(b, descT);
    desc = LLVM::InsertValueOp::create(b, desc, ptr, ArrayRef<int64_t>{0});
    desc = LLVM::InsertValueOp::create(b, desc, ptr, ArrayRef<int64_t>{1});
    desc = LLVM::InsertValueOp::create(b, desc, offset, ArrayRef<int64_t>{2});
    for (int64_t d = 0; d < rank; ++d) {
      desc = LLVM::InsertValueOp::create(b, desc, sizes[d], ArrayRef<int64_t>{3, d});
      desc = LLVM::InsertValueOp::create(b, desc, strideVals[d], ArrayRef<int64_t>{4, d});
    }
    Value global =
        UnrealizedConversionCastOp::create(b, TypeRange{gm}, desc).getResult(0);
    // The tile ops keep the memref type they had until the lane lowering
    // rewrites them on `global`, which drops this cast.
    map.map(a, UnrealizedConversionCastOp::create(b, TypeRange{mt}, global)
                   .getResult(0));
  }
}

} // namespace

FailureOr<gpu::GPUFuncOp>
mlir::fmha::outlineGrid(RewriterBase &rw, scf::ForallOp grid,
                        gpu::GPUModuleOp kernels, StringRef kernelName,
                        int64_t threads) {
  Captures c = capturesOf(grid);
  if (failed(checkOutlinable(grid, c)))
    return failure();
  Location loc = grid.getLoc();
  MLIRContext *ctx = rw.getContext();
  SmallVector<Type> abi;
  SmallVector<KernelAbiArg> record;
  flatAbi(ctx, c.args, abi, record);

  // The kernel, inserted into `kernels` under a name unique there.
  OpBuilder::InsertionGuard g(rw);
  rw.clearInsertionPoint();
  auto kernel = gpu::GPUFuncOp::create(rw, loc, kernelName,
                                       rw.getFunctionType(abi, {}));
  SymbolTable(kernels).insert(kernel);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), rw.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      rw.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  kernel->setAttr(kKernelAbiAttr, kernelAbiAttr(ctx, record));
  IRMapping map;
  rebuildArgs(kernel, c.args, map);
  Block &entry = kernel.getBody().front();
  rw.setInsertionPointToEnd(&entry);
  for (Operation *op : c.clones)
    rw.clone(*op, map);
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
  auto launch = gpu::LaunchFuncOp::create(
      rw, loc, kernel, gpu::KernelDim3{blocks[0], blocks[1], blocks[2]},
      gpu::KernelDim3{nThreads, one, one},
      /*dynamicSharedMemorySize=*/Value(), c.args);
  rw.eraseOp(grid);
  flattenLaunchOperands(rw, launch);
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

/// sm_90a with `tma`: whether every fmha.stage_kv of `grid` can copy by TMA,
/// and if so each marked with kTmaAttr (without `arg`). The rules: the
/// producer of warp roles whose V tiles fmha.stage_transpose rewrites (its
/// threads wait for the boxes on an mbarrier before the transpose); a
/// rank-4 cache of 8- or 16-bit elements, a function argument, innermost
/// stride 1; rows of a swizzle width's multiple (TargetInfo::ldsSwizzleBytes,
/// the layout the tiles have and TMA writes); gcd(page size, tile rows) a
/// multiple of 8 (a box of that many rows never crosses a page and keeps
/// the 8-row swizzle phase) and at least `minBoxRows`, or `stagedMinBoxRows`
/// where the producer also stages the descales (fmha.stage_descale) (the
/// map itself is encoded from the launcher's tensor: its strides may be
/// dynamic).
bool planTma(scf::ForallOp grid, const TargetInfo &ti, int64_t minBoxRows,
             int64_t stagedMinBoxRows) {
  bool transposes = false, stagesDescales = false;
  SmallVector<StageKVOp> stages;
  grid.getBody()->walk([&](Operation *op) {
    transposes |= isa<StageTransposeOp>(op);
    stagesDescales |= isa<StageDescaleOp>(op);
    if (auto s = dyn_cast<StageKVOp>(op))
      stages.push_back(s);
  });
  if (!transposes || stages.empty())
    return false;
  if (stagesDescales)
    minBoxRows = stagedMinBoxRows;
  SmallVector<std::pair<StageKVOp, NamedAttrList>> plan;
  for (StageKVOp s : stages) {
    if (!s->getParentOfType<WarpRolesOp>())
      return false;
    auto arg = dyn_cast<BlockArgument>(s.getCache());
    auto mt = dyn_cast<MemRefType>(s.getCache().getType());
    if (!arg || !arg.getOwner()->isEntryBlock() || !mt || mt.getRank() != 4)
      return false;
    int64_t bits = mt.getElementTypeBitWidth();
    SmallVector<int64_t> strides;
    int64_t off;
    if ((bits != 8 && bits != 16) || failed(mt.getStridesAndOffset(strides, off)) ||
        strides[3] != 1)
      return false;
    int64_t eb = bits / 8, d = mt.getDimSize(3);
    bool nhd = s.getKvLayout() == KVLayout::NHD;
    int64_t page = mt.getDimSize(nhd ? 1 : 2);
    int64_t rows = cast<VectorType>(s.getTileType()).getDimSize(0);
    if (ShapedType::isDynamic(d) || ShapedType::isDynamic(page))
      return false;
    int64_t w = ti.ldsSwizzleBytes(d * eb);
    int64_t g = std::gcd(page, rows);
    if (!w || g % 8 || g < minBoxRows || g > 256)
      return false;
    Builder b(s.getContext());
    NamedAttrList attrs;
    attrs.append("operand", b.getI64IntegerAttr(arg.getArgNumber()));
    attrs.append("box_rows", b.getI64IntegerAttr(g));
    attrs.append("box_cols", b.getI64IntegerAttr(w / eb));
    plan.push_back({s, attrs});
  }
  for (auto &[s, attrs] : plan)
    s->setAttr(kTmaAttr, attrs.getDictionary(s.getContext()));
  return true;
}

/// The kernel's tensor-map arguments for its fmha.stage_kv ops marked by
/// planTma: one `!llvm.ptr` a cache (in operand order) appended to the
/// kernel and its record, `arg` set on the ops; the launch passes a null
/// pointer (the host function only runs in the lane emulator, which builds
/// its own map from the record: fmha-lanes-to-host).
void addTensorMaps(RewriterBase &rw, gpu::GPUFuncOp kernel,
                   ArrayRef<gpu::LaunchFuncOp> launches) {
  std::map<int64_t, SmallVector<StageKVOp>> byOperand;
  kernel.walk([&](StageKVOp s) {
    if (auto t = s->getAttrOfType<DictionaryAttr>(kTmaAttr))
      byOperand[t.getAs<IntegerAttr>("operand").getInt()].push_back(s);
  });
  if (byOperand.empty())
    return;
  MLIRContext *ctx = rw.getContext();
  FailureOr<SmallVector<KernelAbiArg>> record = readKernelAbi(kernel);
  assert(succeeded(record) && "outlineGrid wrote the record");
  auto ptrT = LLVM::LLVMPointerType::get(ctx);
  int64_t maps = 0;
  for (auto &[operand, ops] : byOperand) {
    StageKVOp s = ops.front();
    auto mt = cast<MemRefType>(s.getCache().getType());
    auto t = s->getAttrOfType<DictionaryAttr>(kTmaAttr);
    KernelAbiArg a;
    a.operand = operand;
    for (const KernelAbiArg &r : *record)
      if (r.operand == operand)
        a.name = r.name;
    a.part = AbiPart::TensorMap;
    bool nhd = s.getKvLayout() == KVLayout::NHD;
    a.tmapDims = nhd ? std::vector<int64_t>{3, 1, 2, 0} : std::vector<int64_t>{3, 2, 1, 0};
    a.tmapBox = {t.getAs<IntegerAttr>("box_cols").getInt(),
                 t.getAs<IntegerAttr>("box_rows").getInt(), 1, 1};
    a.elementBytes = mt.getElementTypeBitWidth() / 8;
    a.swizzle = a.tmapBox[0] * a.elementBytes;
    int64_t off;
    SmallVector<int64_t> strides;
    (void)mt.getStridesAndOffset(strides, off);
    for (int64_t v : strides)
      a.strides.push_back(ShapedType::isDynamic(v) ? -1 : v);
    for (int64_t v : mt.getShape())
      a.shape.push_back(ShapedType::isDynamic(v) ? -1 : v);
    unsigned at = kernel.getNumArguments();
    // (fmha-grid-constant-tensormaps makes it a by-value parameter.)
    (void)kernel.insertArgument(at, ptrT, DictionaryAttr(), kernel.getLoc());
    record->push_back(a);
    for (StageKVOp op : ops) {
      NamedAttrList attrs(op->getAttrOfType<DictionaryAttr>(kTmaAttr));
      attrs.set("arg", rw.getI64IntegerAttr(at));
      op->setAttr(kTmaAttr, attrs.getDictionary(ctx));
    }
    ++maps;
  }
  kernel->setAttr(kKernelAbiAttr, kernelAbiAttr(ctx, *record));
  OpBuilder::InsertionGuard g(rw);
  for (gpu::LaunchFuncOp launch : launches) {
    rw.setInsertionPoint(launch);
    SmallVector<Value> operands(launch.getKernelOperands());
    for (int64_t i = 0; i < maps; ++i)
      operands.push_back(LLVM::ZeroOp::create(rw, launch.getLoc(), ptrT));
    rw.modifyOpInPlace(launch, [&] { launch.getKernelOperandsMutable().assign(operands); });
  }
}

struct OutlineKernelPass
    : public fmha::impl::OutlineKernelBase<OutlineKernelPass> {
  using Base::Base;

  /// What outlining needs of a grid, checked while the grid is still in
  /// place: its config is for this chip and wave size, and checkOutlinable.
  LogicalResult checkGrid(scf::ForallOp grid, const TargetInfo &target) {
    auto cfg = dyn_cast<ConfigAttr>(grid->getAttr(kGridConfigAttr));
    if (!cfg || cfg.getChip() != chip)
      return grid.emitOpError()
             << "was tiled for chip '" << (cfg ? cfg.getChip() : StringRef("?"))
             << "' but fmha-outline-kernel targets '" << chip << "'";
    if (failed(checkOutlinable(grid, capturesOf(grid))))
      return failure();
    if (cfg.getWaveSize() != target.waveSize())
      return grid.emitOpError() << "config wave_size " << cfg.getWaveSize()
                                << " differs from " << chip << "'s "
                                << target.waveSize();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::unique_ptr<TargetInfo> target = createTargetInfo(chip);
    if (!target) {
      module.emitError() << "fmha-outline-kernel: unknown chip '" << chip
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
    for (scf::ForallOp grid : grids) {
      auto cfg = cast<ConfigAttr>(grid->getAttr(kGridConfigAttr));
      auto fn = grid->getParentOfType<FunctionOpInterface>();
      std::string name = (fn ? fn.getName() : StringRef("fmha")).str() + "_kernel";
      int64_t threads = cfg.getWarps() * cfg.getWaveSize();
      // fmha-warp-specialize: a producer warpgroup and `consumers` consumer
      // ones, each of the config's warps; a grid point takes `consumers`
      // query heads.
      int64_t headsPerWorkgroup = 1;
      grid.getBody()->walk([&](WarpRolesOp r) {
        threads = r.getWarps() * cfg.getWaveSize() * (1 + r.getConsumers());
        headsPerWorkgroup = r.getConsumers();
      });
      if (tma)
        planTma(grid, *target, tmaMinBoxRows, tmaStagedMinBoxRows);
      FailureOr<gpu::GPUFuncOp> kernel =
          outlineGrid(rw, grid, kernels, name, threads);
      if (failed(kernel))
        return signalPassFailure();
      if (tma) {
        SmallVector<gpu::LaunchFuncOp> launches;
        module.walk([&](gpu::LaunchFuncOp l) {
          if (l.getKernelName() == kernel->getName())
            launches.push_back(l);
        });
        addTensorMaps(rw, *kernel, launches);
      }
      (*kernel)->setAttr(kGridConfigAttr, cfg); // tile sizes for launchers
      if (headsPerWorkgroup > 1)
        (*kernel)->setAttr(kHeadsPerWorkgroupAttr,
                           rw.getI64IntegerAttr(headsPerWorkgroup));
      target->setKernelAttrs(*kernel, threads, minWavesPerSimd(*kernel, cfg, threads));
    }
  }
};

} // namespace
