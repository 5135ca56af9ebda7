//===- ExpandFp8Arith.cpp - fp8 extf/truncf as integer bit operations ----===//
//------===//
//
// The conversions are written once for any pair of binary float layouts
// (sign, exponent, mantissa, bias, and how the format spends its top codes),
// on the integer image of the value. Every op is an elementwise arith op, so
// a scalar and a vector of any shape take the same path.
//
//===----------------------------------------------------------------------===//

#include "fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <optional>

namespace mlir::fmha {
#define GEN_PASS_DEF_EXPANDFP8ARITHPASS
#include "fmha/Transforms/Passes.h.inc"
} // namespace mlir::fmha

using namespace mlir;

namespace {

/// What a format does with its top exponent code and its sign bit.
enum class NonFinite {
  IEEE, ///< top exponent is inf (mantissa 0) or NaN: f8E5M2 and f16..f64.
  FN,   ///< no inf; only exponent and mantissa all ones is NaN: f8E4M3FN.
  FNUZ, ///< no inf, no -0; the negative-zero code is the only NaN.
};

struct FloatLayout {
  unsigned width;
  unsigned expBits;
  unsigned manBits;
  int bias;
  NonFinite kind;

  uint64_t signBit() const { return uint64_t(1) << (width - 1); }
  uint64_t absMask() const { return signBit() - 1; }
  uint64_t manMask() const { return (uint64_t(1) << manBits) - 1; }
  uint64_t expMask() const { return (uint64_t(1) << expBits) - 1; }
  /// Magnitude bits of +inf (IEEE), also the first NaN-or-inf magnitude.
  uint64_t infBits() const { return expMask() << manBits; }
  uint64_t quietBit() const { return uint64_t(1) << (manBits - 1); }
  uint64_t maxFinite() const {
    switch (kind) {
    case NonFinite::IEEE:
      return infBits() - 1;
    case NonFinite::FN:
      return absMask() - 1;
    case NonFinite::FNUZ:
      return absMask();
    }
    llvm_unreachable("unknown NonFinite");
  }
};

constexpr FloatLayout kF16{16, 5, 10, 15, NonFinite::IEEE};
constexpr FloatLayout kBF16{16, 8, 7, 127, NonFinite::IEEE};
constexpr FloatLayout kF32{32, 8, 23, 127, NonFinite::IEEE};
constexpr FloatLayout kF64{64, 11, 52, 1023, NonFinite::IEEE};

std::optional<FloatLayout> getFp8Layout(Type t) {
  return llvm::TypeSwitch<Type, std::optional<FloatLayout>>(t)
      .Case<Float8E4M3FNType>([](auto) {
        return FloatLayout{8, 4, 3, 7, NonFinite::FN};
      })
      .Case<Float8E4M3FNUZType>([](auto) {
        return FloatLayout{8, 4, 3, 8, NonFinite::FNUZ};
      })
      .Case<Float8E5M2Type>([](auto) {
        return FloatLayout{8, 5, 2, 15, NonFinite::IEEE};
      })
      .Case<Float8E5M2FNUZType>([](auto) {
        return FloatLayout{8, 5, 2, 16, NonFinite::FNUZ};
      })
      .Default([](Type) { return std::nullopt; });
}

std::optional<FloatLayout> getWideLayout(Type t) {
  if (t.isF16())
    return kF16;
  if (t.isBF16())
    return kBF16;
  if (t.isF32())
    return kF32;
  if (t.isF64())
    return kF64;
  return std::nullopt;
}

/// Builds elementwise integer arith ops whose operands and results have the
/// shape of the op being expanded (a scalar or a vector).
class BitBuilder {
public:
  BitBuilder(ImplicitLocOpBuilder &b, Type shapeOf) : b(b), shapeOf(shapeOf) {}

  Type like(Type elementType) const {
    if (auto vt = dyn_cast<VectorType>(shapeOf))
      return VectorType::get(vt.getShape(), elementType, vt.getScalableDims());
    return elementType;
  }
  Type intTy(unsigned width) const { return like(b.getIntegerType(width)); }

  static unsigned widthOf(Value v) {
    return getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth();
  }

  Value cst(unsigned width, int64_t v) {
    IntegerType et = b.getIntegerType(width);
    APInt value(width, static_cast<uint64_t>(v), /*isSigned=*/v < 0);
    Type t = intTy(width);
    if (auto vt = dyn_cast<VectorType>(t))
      return arith::ConstantOp::create(b, vt,
                                       DenseElementsAttr::get(vt, value));
    return arith::ConstantOp::create(b, t, IntegerAttr::get(et, value));
  }
  Value cstLike(Value x, int64_t v) { return cst(widthOf(x), v); }

  Value bitcast(Value x, Type elementType) {
    return arith::BitcastOp::create(b, like(elementType), x);
  }
  Value zext(Value x, unsigned width) {
    if (widthOf(x) == width)
      return x;
    return arith::ExtUIOp::create(b, intTy(width), x);
  }
  Value trunc(Value x, unsigned width) {
    if (widthOf(x) == width)
      return x;
    return arith::TruncIOp::create(b, intTy(width), x);
  }
  Value zextOrTrunc(Value x, unsigned width) {
    return widthOf(x) < width ? zext(x, width) : trunc(x, width);
  }
  Value andi(Value x, int64_t m) {
    return arith::AndIOp::create(b, x, cstLike(x, m));
  }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, x, y); }
  Value ori(Value x, int64_t m) { return ori(x, cstLike(x, m)); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value add(Value x, int64_t c) { return add(x, cstLike(x, c)); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value shl(Value x, Value n) { return arith::ShLIOp::create(b, x, n); }
  Value shl(Value x, unsigned n) { return n == 0 ? x : shl(x, cstLike(x, n)); }
  Value lshr(Value x, Value n) { return arith::ShRUIOp::create(b, x, n); }
  Value lshr(Value x, unsigned n) {
    return n == 0 ? x : lshr(x, cstLike(x, n));
  }
  Value umin(Value x, int64_t c) {
    return arith::MinUIOp::create(b, x, cstLike(x, c));
  }
  Value umax(Value x, int64_t c) {
    return arith::MaxUIOp::create(b, x, cstLike(x, c));
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value cmp(arith::CmpIPredicate p, Value x, int64_t c) {
    return cmp(p, x, cstLike(x, c));
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value select(Value c, int64_t x, Value y) {
    return select(c, cstLike(y, x), y);
  }
  Value select(Value c, Value x, int64_t y) {
    return select(c, x, cstLike(x, y));
  }

  /// x >> n rounded to nearest, ties to even; n >= 1. The caller guarantees
  /// that x + 2^(n-1) does not wrap.
  Value shiftRightRne(Value x, Value n, Value nMinusOne) {
    Value halfMinusOne = add(shl(cstLike(x, 1), nMinusOne), -1);
    Value lsb = andi(lshr(x, n), 1);
    return lshr(add(add(x, halfMinusOne), lsb), n);
  }

  ImplicitLocOpBuilder &b;

private:
  Type shapeOf;
};

using Pred = arith::CmpIPredicate;

/// The bits of `x` (a `src` value, as an integer of src.width) rounded to
/// `dst` (narrower mantissa), as an integer of dst.width: ties to even,
/// finite overflow and (unless `keepInf` and dst has inf) inf saturate to
/// +-max, NaN becomes dst's canonical quiet NaN.
Value emitRoundToLayout(BitBuilder &e, Value x, const FloatLayout &src,
                        const FloatLayout &dst, bool keepInf) {
  assert(src.kind == NonFinite::IEEE && dst.manBits < src.manBits);
  // The subnormal-range formula below is right for magnitudes up to twice
  // dst's smallest normal, so dst's smallest normal must be at least half of
  // src's (true for every pair handled here).
  assert(src.bias + 1 - dst.bias >= 0 && "dst min normal far below src's");
  const unsigned w = src.width;
  Value sign = e.lshr(x, w - 1);
  Value abs = e.andi(x, src.absMask());
  Value srcInf = e.cst(w, src.infBits());
  Value isNaN = e.cmp(Pred::ugt, abs, srcInf);
  Value isInf = e.cmp(Pred::eq, abs, srcInf);

  // Normal range of dst: move the exponent to dst's bias in place, then drop
  // the extra mantissa bits; a carry out of the mantissa bumps the exponent,
  // which is the right encoding, up to (and past) the largest finite value.
  const unsigned dropped = src.manBits - dst.manBits;
  Value rebased = e.sub(abs, e.cst(w, int64_t(src.bias - dst.bias) *
                                          (int64_t(1) << src.manBits)));
  Value cDropped = e.cst(w, dropped);
  Value normal = e.shiftRightRne(rebased, cDropped, e.cst(w, dropped - 1));

  // Below dst's smallest normal (or in src's subnormal range): the code is
  // the magnitude counted in units of dst's smallest subnormal, rounded. That
  // count is also the right code up to 2 * dst's smallest normal.
  const int64_t firstNormalExp = std::max(src.bias + 1 - dst.bias, 1);
  Value inSubRange =
      e.cmp(Pred::ult, abs, e.cst(w, firstNormalExp << src.manBits));
  Value exp = e.lshr(abs, src.manBits);
  Value srcSubnormal = e.cmp(Pred::eq, exp, 0);
  Value significand =
      e.ori(e.andi(abs, src.manMask()),
            e.select(srcSubnormal, 0, e.cst(w, int64_t(1) << src.manBits)));
  Value expEff = e.select(srcSubnormal, 1, exp);
  // magnitude = significand * 2^(expEff - bias_s - man_s), one unit =
  // 2^(1 - bias_d - man_d): shift right by k - expEff. Clamp the shift to
  // [1, man_s + 2]; beyond man_s + 1 everything rounds to 0 anyway, and the
  // clamp keeps lanes that take the normal path free of poison shifts.
  const int64_t k = src.bias + src.manBits + 1 - dst.bias - dst.manBits;
  Value expClamped = e.umax(e.umin(expEff, k - 1),
                            std::max<int64_t>(k - int64_t(src.manBits) - 2, 1));
  Value shift = e.sub(e.cst(w, k), expClamped);
  Value sub = e.shiftRightRne(significand, shift, e.add(shift, -1));

  Value mag = e.select(inSubRange, sub, normal);
  mag = e.umin(mag, dst.maxFinite());
  int64_t infMag =
      dst.kind == NonFinite::IEEE && keepInf ? dst.infBits() : dst.maxFinite();
  mag = e.select(isInf, infMag, mag);
  int64_t nanMag = 0; // FNUZ: handled below.
  if (dst.kind == NonFinite::IEEE)
    nanMag = dst.infBits() | dst.quietBit();
  else if (dst.kind == NonFinite::FN)
    nanMag = dst.absMask();
  mag = e.trunc(e.select(isNaN, nanMag, mag), dst.width);

  Value signBit = e.shl(e.trunc(sign, dst.width), dst.width - 1);
  if (dst.kind != NonFinite::FNUZ)
    return e.ori(mag, signBit);
  // No negative zero: a zero magnitude keeps the sign bit clear, and the
  // negative-zero code is the NaN.
  Value zero = e.cmp(Pred::eq, mag, 0);
  Value signed_ = e.ori(mag, e.select(zero, 0, signBit));
  return e.select(isNaN, int64_t(dst.signBit()), signed_);
}

/// The bits of fp8 `code` (i8) decoded exactly into `dst`, as an integer of
/// dst.width.
Value emitDecodeFp8(BitBuilder &e, Value code, const FloatLayout &src,
                    const FloatLayout &dst) {
  // First the f32 image: every finite fp8 value is zero or an f32 normal.
  Value c = e.zext(code, 32);
  Value exp = e.andi(e.lshr(c, src.manBits), src.expMask());
  Value man = e.andi(c, src.manMask());
  Value normal = e.ori(e.shl(e.add(exp, kF32.bias - src.bias), kF32.manBits),
                       e.shl(man, kF32.manBits - src.manBits));
  // A subnormal is man * 2^(1 - bias - man_bits); uitofp(man) is exact
  // (man < 8) and already normalized, so only its exponent field moves.
  Value manF32 =
      e.bitcast(arith::UIToFPOp::create(e.b, e.like(e.b.getF32Type()), man),
                e.b.getI32Type());
  Value subnormal = e.add(manF32, int64_t(1 - src.bias - int(src.manBits)) *
                                      (int64_t(1) << kF32.manBits));
  subnormal = e.select(e.cmp(Pred::eq, man, 0), 0, subnormal);
  Value mag32 = e.select(e.cmp(Pred::eq, exp, 0), subnormal, normal);
  Value sign32 = e.shl(e.andi(c, 0x80), 24);
  Value f32 = e.ori(mag32, sign32);

  Value bits;
  if (dst.width == 32) {
    bits = f32;
  } else if (dst.width == 64) {
    // f32 normal -> f64 normal: rebias the exponent, widen the mantissa.
    Value abs64 = e.zext(e.andi(f32, kF32.absMask()), 64);
    Value widened = e.add(e.shl(abs64, kF64.manBits - kF32.manBits),
                          int64_t(kF64.bias - kF32.bias) << kF64.manBits);
    widened = e.select(e.cmp(Pred::eq, abs64, 0), 0, widened);
    bits = e.ori(widened, e.shl(e.zext(e.lshr(f32, 31), 64), 63));
  } else {
    // f16 / bf16 hold every fp8 value: the rounding is exact here.
    bits = emitRoundToLayout(e, f32, kF32, dst, /*keepInf=*/true);
  }

  // NaN and inf codes, as APFloat converts them: quiet, sign and payload
  // kept; the FNUZ NaN has no sign.
  const unsigned w = dst.width;
  Value absCode = e.andi(c, 0x7F);
  Value signDst = e.shl(e.zextOrTrunc(e.lshr(c, 7), w), w - 1);
  Value nanBits, isNaN;
  switch (src.kind) {
  case NonFinite::FNUZ:
    isNaN = e.cmp(Pred::eq, c, 0x80);
    nanBits = e.cst(w, dst.infBits() | dst.quietBit());
    break;
  case NonFinite::FN:
  case NonFinite::IEEE: {
    isNaN = src.kind == NonFinite::FN
                ? e.cmp(Pred::eq, absCode, 0x7F)
                : e.cmp(Pred::ugt, absCode, src.infBits());
    Value payload = e.shl(e.zextOrTrunc(man, w), dst.manBits - src.manBits);
    nanBits = e.ori(e.ori(payload, dst.infBits() | dst.quietBit()), signDst);
    break;
  }
  }
  if (src.kind == NonFinite::IEEE) {
    Value isInf = e.cmp(Pred::eq, absCode, src.infBits());
    bits = e.select(isInf, e.ori(signDst, dst.infBits()), bits);
  }
  return e.select(isNaN, nanBits, bits);
}

bool isScalarOrVector(Type t) {
  return !isa<ShapedType>(t) || isa<VectorType>(t);
}

struct ExpandFp8ExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type inType = op.getIn().getType();
    std::optional<FloatLayout> src = getFp8Layout(getElementTypeOrSelf(inType));
    if (!src)
      return rewriter.notifyMatchFailure(op,
                                         "source is not a handled fp8 type");
    Type outElement = getElementTypeOrSelf(op.getType());
    std::optional<FloatLayout> dst = getWideLayout(outElement);
    if (!dst)
      return rewriter.notifyMatchFailure(op, "result is not f16/bf16/f32/f64");
    if (!isScalarOrVector(inType))
      return rewriter.notifyMatchFailure(op, "not a scalar or a vector");

    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    BitBuilder e(b, inType);
    Value code = e.bitcast(op.getIn(), b.getI8Type());
    Value bits = emitDecodeFp8(e, code, *src, *dst);
    rewriter.replaceOp(op, e.bitcast(bits, outElement));
    return success();
  }
};

struct ExpandFp8TruncF : OpRewritePattern<arith::TruncFOp> {
  ExpandFp8TruncF(MLIRContext *ctx, bool saturateInf)
      : OpRewritePattern(ctx), saturateInf(saturateInf) {}

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type outElement = getElementTypeOrSelf(op.getType());
    std::optional<FloatLayout> dst = getFp8Layout(outElement);
    if (!dst)
      return rewriter.notifyMatchFailure(op,
                                         "result is not a handled fp8 type");
    Type inType = op.getIn().getType();
    Type inElement = getElementTypeOrSelf(inType);
    std::optional<FloatLayout> src = getWideLayout(inElement);
    if (!src)
      return rewriter.notifyMatchFailure(op, "source is not f16/bf16/f32/f64");
    if (!isScalarOrVector(inType))
      return rewriter.notifyMatchFailure(op, "not a scalar or a vector");
    std::optional<arith::RoundingMode> mode = op.getRoundingmode();
    if (mode && *mode != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op,
                                         "only to_nearest_even is expanded");

    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    BitBuilder e(b, inType);
    Value bits = e.bitcast(op.getIn(), b.getIntegerType(src->width));
    Value code = emitRoundToLayout(e, bits, *src, *dst, !saturateInf);
    rewriter.replaceOp(op, e.bitcast(code, outElement));
    return success();
  }

  bool saturateInf;
};

struct ExpandFp8ArithPass
    : fmha::impl::ExpandFp8ArithPassBase<ExpandFp8ArithPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    fmha::populateExpandFp8ArithPatterns(patterns, saturateInf);
    // An expansion, not a cleanup: leave the region structure as it is.
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace

void mlir::fmha::populateExpandFp8ArithPatterns(RewritePatternSet &patterns,
                                                bool saturateInf) {
  patterns.add<ExpandFp8ExtF>(patterns.getContext());
  patterns.add<ExpandFp8TruncF>(patterns.getContext(), saturateInf);
}
