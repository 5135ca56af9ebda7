//===- LowerTiles.cpp - convert-fmha-to-gpu: a kernel to one lane's code --===//
//
// The driver of the lane lowering (docs/GPU_LOWERING.md): for one outlined
// kernel,
//
// 1. the lane layout of the chip's MMA for the kernel's K/V type
//    (LaneLayout), and the form of every tile value (LaneForms): every rule
//    the lowering cannot follow is reported here, before anything changes;
// 2. the flat ABI: one `!llvm.ptr<1>` per memref and one i64 per dynamic
//    size (offset, stride) of it, the memrefs rebuilt from descriptors;
// 3. the LDS plan: a workgroup buffer per K / V tile, and a barrier before a
//    tile is written when a product read LDS since, before a product reads
//    when a tile was written since, and at the end of a loop body that read;
// 4. the per-lane index values at the kernel entry;
// 5. the 1:N dialect conversion: LaneTypeConverter, the three pattern
//    families (LanePatterns.h) and upstream's structural scf conversion. The
//    memrefs become the global byte view (fp8 as i8, address space 1).
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/FmhaToGPU.h"
#include "fmha/Conversion/FmhaToGPU/LanePatterns.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// A splat that is a loop init and also used elsewhere gets a copy of its
/// own for the loop, so that its lane form can be the loop's (row form or
/// accumulator parts) whatever its other users need.
void splitLoopSplats(gpu::GPUFuncOp kernel) {
  kernel.walk([&](scf::ForOp loop) {
    for (OpOperand &init : loop.getInitArgsMutable()) {
      Value v = init.get();
      if (!isa<VectorType>(v.getType()) || !LaneForms::isSplat(v) ||
          v.hasOneUse())
        continue;
      OpBuilder b(loop);
      init.set(b.clone(*v.getDefiningOp())->getResult(0));
    }
  });
}

/// Step 3's barriers, in program order.
struct LdsBarriers {
  const TargetInfo &ti;
  bool written = false, read = false;
  void barrierBefore(Operation *op) {
    OpBuilder b(op);
    ti.barrier(b, op->getLoc());
  }
  void visit(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<GatherKVOp>(op)) {
        if (read)
          barrierBefore(&op);
        read = false;
        written = true;
      } else if (isa<TileMmaOp>(op)) {
        if (written)
          barrierBefore(&op);
        written = false;
        read = true;
      } else if (auto f = dyn_cast<scf::ForOp>(op)) {
        visit(*f.getBody());
        if (read) // this iteration's LDS reads before the next one's writes
          barrierBefore(f.getBody()->getTerminator());
        read = false;
      } else if (auto i = dyn_cast<scf::IfOp>(op)) {
        for (Region &r : i->getRegions())
          for (Block &b : r)
            visit(b);
      }
    }
  }
};

/// Step 2: the flat ABI. Each memref argument becomes a global pointer and
/// i64s for its dynamic sizes (then, for strided layouts, its dynamic offset
/// and strides); the memref is rebuilt from an LLVM descriptor.
LogicalResult flattenAbi(gpu::GPUFuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  ImplicitLocOpBuilder b(kernel.getLoc(), ctx);
  Block &old = kernel.getBody().front();
  SmallVector<Type> abi;
  auto ptrT = LLVM::LLVMPointerType::get(ctx, 1);
  for (BlockArgument a : old.getArguments()) {
    auto mt = dyn_cast<MemRefType>(a.getType());
    if (!mt) {
      abi.push_back(a.getType());
      continue;
    }
    int64_t off;
    SmallVector<int64_t> strides;
    if (failed(mt.getStridesAndOffset(strides, off)))
      return kernel.emitOpError("convert-fmha-to-gpu: kernel memrefs must be "
                                "strided, not ")
             << mt;
    abi.push_back(ptrT);
    for (int64_t d : mt.getShape())
      if (ShapedType::isDynamic(d))
        abi.push_back(b.getI64Type());
    if (!mt.getLayout().isIdentity()) {
      if (ShapedType::isDynamic(off))
        abi.push_back(b.getI64Type());
      for (int64_t st : strides)
        if (ShapedType::isDynamic(st))
          abi.push_back(b.getI64Type());
    }
  }
  Block *entry = new Block();
  kernel.getBody().push_front(entry);
  kernel.setFunctionType(FunctionType::get(ctx, abi, {}));
  kernel.removeArgAttrsAttr();
  for (Type t : abi)
    entry->addArgument(t, kernel.getLoc());
  b.setInsertionPointToStart(entry);
  unsigned at = 0;
  for (BlockArgument a : old.getArguments()) {
    auto mt = dyn_cast<MemRefType>(a.getType());
    if (!mt) {
      a.replaceAllUsesWith(entry->getArgument(at++));
      continue;
    }
    Value ptr = entry->getArgument(at++);
    int64_t rank = mt.getRank();
    auto i64 = b.getI64Type();
    auto arr = LLVM::LLVMArrayType::get(i64, rank);
    auto descT = LLVM::LLVMStructType::getLiteral(ctx, {ptrT, ptrT, i64, arr, arr});
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
    // The memref in its own type: the lane conversion gives it the global
    // byte view.
    a.replaceAllUsesWith(
        UnrealizedConversionCastOp::create(b, TypeRange{mt}, desc).getResult(0));
  }
  entry->getOperations().splice(entry->end(), old.getOperations());
  old.erase();
  return success();
}

/// The global view of a kernel memref: fp8 as bytes, address space 1.
std::optional<Type> globalView(MemRefType mt) {
  if (mt.getMemorySpace())
    return std::nullopt;
  Type elem = mt.getElementType();
  if (isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() == 8)
    elem = IntegerType::get(mt.getContext(), 8);
  return MemRefType::get(mt.getShape(), elem, mt.getLayout(),
                         IntegerAttr::get(IntegerType::get(mt.getContext(), 64), 1));
}

/// Any op outside the fmha dialect and scf whose memref types change: the
/// same op on the converted memrefs (loads, stores, subviews, descriptors).
struct MemRefViewPattern : public ConversionPattern {
  MemRefViewPattern(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                                ConversionPatternRewriter &rw) const override {
    if (isa<FmhaDialect, scf::SCFDialect>(op->getDialect()) ||
        op->getNumRegions())
      return failure();
    bool memref = llvm::any_of(op->getOperandTypes(), llvm::IsaPred<MemRefType>) ||
                  llvm::any_of(op->getResultTypes(), llvm::IsaPred<MemRefType>);
    if (!memref)
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    OperationState st(op->getLoc(), op->getName());
    for (ValueRange r : operands)
      st.addOperands(r);
    st.addTypes(types);
    st.addAttributes(op->getAttrs());
    rw.replaceOp(op, rw.create(st)->getResults());
    return success();
  }
};

} // namespace

LogicalResult mlir::fmha::lowerKernelTiles(gpu::GPUFuncOp kernel,
                                           const TargetInfo &ti,
                                           ConfigAttr cfg) {
  // 1. Layout and forms: every error before any rewrite.
  Type kvElem;
  kernel.walk([&](GatherKVOp g) { kvElem = g.getTile().getType().getElementType(); });
  if (!kvElem)
    return kernel.emitOpError("convert-fmha-to-gpu: kernel has no KV gather");
  FailureOr<LaneLayout> layout = LaneLayout::get(ti, cfg, kvElem, kernel);
  if (failed(layout))
    return failure();
  splitLoopSplats(kernel);
  LaneForms forms;
  if (failed(forms.analyze(kernel, *layout, ti, cfg)))
    return failure();

  // 2-4. ABI, LDS plan, per-lane values.
  if (failed(flattenAbi(kernel)))
    return failure();
  LdsBarriers{ti}.visit(kernel.getBody().front());
  LaneContext lc(kernel, ti, cfg, *layout, forms);
  kernel.walk([&](GatherKVOp g) {
    const ValueForm &f = forms.get(g.getTile());
    auto ldsT = MemRefType::get(
        {f.ldsRows * f.ldsCols}, IntegerType::get(kernel.getContext(), 8),
        AffineMap(),
        gpu::AddressSpaceAttr::get(kernel.getContext(), gpu::AddressSpace::Workgroup));
    lc.lds[g] = kernel.addWorkgroupAttribution(ldsT, g.getLoc());
  });
  Block &entry = kernel.getBody().front();
  auto bodyStart = llvm::find_if(entry, [](Operation &op) {
    return !isa<LLVM::LLVMDialect>(op.getDialect()) &&
           !isa<UnrealizedConversionCastOp>(op);
  });
  ImplicitLocOpBuilder b(kernel.getLoc(), kernel.getContext());
  b.setInsertionPoint(&entry, bodyStart);
  lc.tidV = laneToI32(b, gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  lc.laneV = arith::RemUIOp::create(b, lc.tidV, laneConstI32(b, layout->wave));
  Value w = ti.broadcastFirstLane(
      b, b.getLoc(), arith::DivUIOp::create(b, lc.tidV, laneConstI32(b, layout->wave)));
  lc.waveRow0 = arith::MulIOp::create(b, w, laneConstI32(b, layout->rowsPerWave));
  lc.qLaneV = laneEmitBits(b, layout->qLane, lc.laneV);
  lc.nLaneV = laneEmitBits(b, layout->nLane, lc.laneV);

  // 5. The conversion.
  MLIRContext *ctx = kernel.getContext();
  LaneTypeConverter tc(ctx, forms);
  tc.addConversion([](MemRefType mt) { return globalView(mt); });
  ConversionTarget target(*ctx);
  target.addIllegalDialect<FmhaDialect>();
  target.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return tc.isLegal(op); });
  RewritePatternSet patterns(ctx);
  populateLaneMemoryPatterns(tc, patterns, ti, lc);
  populateLaneMmaPatterns(tc, patterns, ti, lc);
  populateLaneElementwisePatterns(tc, patterns, ti, lc);
  patterns.add<MemRefViewPattern>(tc, ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);
  return applyPartialConversion(kernel, target, std::move(patterns));
}
