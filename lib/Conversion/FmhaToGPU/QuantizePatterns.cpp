//===- QuantizePatterns.cpp - a 16-bit Q tile to fp8 on lanes -------------===//
//
// fmha.quantize_tile of a Q tile held in MMA operand registers (16-bit
// elements, loaded by fmha.load_rows in the operand layout of the fp8 MMA):
//
// 1. amax: each lane's largest |x| (in-lane max chain), the wave's by
//    shuffleXor steps over every lane bit, the workgroup's through one f32
//    per wave in LDS (lane 0 of each wave writes its wave's, a barrier, every
//    lane reads all and takes the max): the descale is one scalar for the
//    tile, the same on every lane.
// 2. amax' = max(amax, 2^-100), inv = M / amax', descale = amax' / M (two
//    IEEE divisions, once per workgroup).
// 3. each element x * inv packed to fp8 four at a time (packFp8x4, round to
//    nearest even), the operand registers of the fp8 MMA in the same layout.
//
// The op runs once per workgroup before the KV loop; its cost is D / lanes
// multiplies and converts per lane plus log2(wave) shuffles and a barrier.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/LanePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fmha;

namespace {

struct QuantizeTilePattern : LanePattern<QuantizeTileOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(QuantizeTileOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    const TargetInfo &ti = lc.ti;
    Location loc = b.getLoc();
    Type fp8 = op.getResult().getType().getElementType();
    LaneValues in = lc.unpack(op.getTile(), a.getTile());
    Value lds = lc.lds.lookup(op);
    if (!lds)
      return rw.notifyMatchFailure(op, "no LDS slot for the workgroup max");

    // The lane's elements in f32, and their largest magnitude.
    SmallVector<SmallVector<Value>> elems;
    Value amax = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
    for (Value part : in.parts) {
      auto t = cast<VectorType>(part.getType());
      Value wide = arith::ExtFOp::create(b, t.clone(b.getF32Type()), part);
      SmallVector<Value> &e = elems.emplace_back();
      for (int64_t i = 0; i < t.getNumElements(); ++i) {
        Value x = vector::ExtractOp::create(b, wide, i);
        e.push_back(x);
        Value ax = arith::MaximumFOp::create(b, x, arith::NegFOp::create(b, x));
        amax = ti.maxF(b, loc, amax, ax);
      }
    }
    for (int64_t mask = 1; mask < lc.layout.wave; mask *= 2)
      amax = ti.maxF(b, loc, amax, ti.shuffleXor(b, loc, amax, mask));
    // One f32 per wave: lane 0 writes, all read after the barrier.
    Value isLane0 = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lc.laneV,
                                          laneConstI32(b, 0));
    auto ifOp = scf::IfOp::create(b, isLane0, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      memref::StoreOp::create(b, amax, lds, ValueRange{laneToIndex(b, lc.waveV)});
    }
    ti.barrier(b, loc);
    int64_t warps = lc.cfg.getWarps();
    Value all = vector::LoadOp::create(
        b, VectorType::get({warps}, b.getF32Type()), lds,
        ValueRange{arith::ConstantIndexOp::create(b, 0)});
    for (int64_t w = 0; w < warps; ++w)
      amax = ti.maxF(b, loc, amax, vector::ExtractOp::create(b, all, w));

    amax = ti.maxF(b, loc, amax,
                   arith::ConstantOp::create(b, b.getF32FloatAttr(std::ldexp(1.0f, -100))));
    double largest = llvm::APFloat::getLargest(cast<FloatType>(fp8).getFloatSemantics())
                         .convertToDouble();
    Value m = arith::ConstantOp::create(b, b.getF32FloatAttr(static_cast<float>(largest)));
    // Correctly rounded (SPEC section 4: q8 = fp8(q (M / amax)), RNE): the
    // kernel-wide approximate reciprocal (TargetInfo::fastReciprocal) would
    // move M / amax by an ulp and with it every product that lands on an
    // fp8 rounding tie (a bf16 q has 8 significant bits, so ties occur).
    auto exactDiv = [&](Value x, Value y) {
      auto d = arith::DivFOp::create(b, x, y);
      d->setAttr(kIeeeDivisionAttr, b.getUnitAttr());
      return d.getResult();
    };
    Value inv = exactDiv(m, amax);
    Value descale = exactDiv(amax, m);

    LaneValues out;
    for (SmallVector<Value> &e : elems) {
      SmallVector<Value> vals, words;
      for (Value x : e)
        vals.push_back(arith::MulFOp::create(b, x, inv));
      int64_t n = static_cast<int64_t>(vals.size());
      for (int64_t w = 0; w < n / 4; ++w)
        words.push_back(ti.packFp8x4(b, loc, ArrayRef<Value>(vals).slice(4 * w, 4), fp8));
      Value wv = vector::FromElementsOp::create(
          b, VectorType::get({n / 4}, b.getI32Type()), words);
      Value bytes = vector::BitCastOp::create(b, VectorType::get({n}, b.getI8Type()), wv);
      out.parts.push_back(arith::BitcastOp::create(b, VectorType::get({n}, fp8), bytes));
    }
    SmallVector<Value> q8 = lc.pack(lc.forms.get(op.getResult()), out);
    rw.replaceOpWithMultiple(op, {ValueRange(q8), ValueRange{descale}});
    return success();
  }
};

} // namespace

void mlir::fmha::populateLaneQuantizePatterns(const TypeConverter &tc,
                                              RewritePatternSet &patterns,
                                              const TargetInfo &,
                                              const LaneContext &lc,
                                              PatternBenefit benefit) {
  patterns.add<QuantizeTilePattern>(tc, patterns.getContext(), lc, benefit);
}
