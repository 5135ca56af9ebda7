//===- ElementwisePatterns.cpp - splats, arith, reductions on lanes -------===//
//
// Tiles in accumulator layout compute part by part (one vector per atom);
// 1-d vectors in row form per row slot and in column form per atom. Column
// indices stay symbolic (b + column): a compare against them becomes the
// column constants against one scalar bound, and two bounds joined by andi
// one compare pair, so no per-element index registers live across the KV
// loop. Row reductions take a row's registers in every atom as one tree
// (three values a node for the max, pairs as 2-vectors for the sum), then
// reduce across lanes with the chip's xor shuffles.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/LanePatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {

bool isKind(const LaneContext &lc, Value v, FormKind k) {
  const ValueForm *f = lc.forms.lookup(v);
  return f && f->kind == k;
}

void replace(ConversionPatternRewriter &rw, const LaneContext &lc, Operation *op,
             const LaneValues &v) {
  rw.replaceOpWithMultiple(
      op, {lc.pack(lc.forms.get(op->getResult(0)), v)});
}

struct ConstantPattern : LanePattern<arith::ConstantOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    const ValueForm *f = lc.forms.lookup(op);
    if (!f)
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value s = lc.splatScalar(b, op, [](Value v) { return v; });
    LaneValues out;
    VectorType vt = VectorType::get({lc.layout.accPerLane()}, s.getType());
    if (f->kind == FormKind::Acc) {
      out.parts.assign(f->atoms, vector::BroadcastOp::create(b, vt, s));
    } else {
      if (f->row)
        out.row.assign(lc.layout.slots(), s);
      if (f->col)
        out.col.assign(f->atoms, vector::BroadcastOp::create(b, vt, s));
    }
    replace(rw, lc, op, out);
    return success();
  }
};

struct BroadcastPattern : LanePattern<vector::BroadcastOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(vector::BroadcastOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    const ValueForm *f = lc.forms.lookup(op);
    if (!f)
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value src = op.getSource();
    LaneValues out;
    if (!isa<VectorType>(src.getType())) {
      Value s = a.getSource()[0];
      if (s.getType().isIndex())
        s = laneToI32(b, s);
      VectorType vt = VectorType::get({lc.layout.accPerLane()}, s.getType());
      if (f->kind == FormKind::Acc) {
        out.parts.assign(f->atoms, vector::BroadcastOp::create(b, vt, s));
      } else {
        Value vec = vector::BroadcastOp::create(b, vt, s);
        if (f->row)
          out.row.assign(lc.layout.slots(), s);
        if (f->col)
          out.col.assign(f->atoms, vec);
      }
      replace(rw, lc, op, out);
      return success();
    }
    LaneValues in = lc.unpack(src, a.getSource());
    if (f->kind == FormKind::Affine) {
      out.aff = in.aff;
    } else if (isVector1D(src)) {
      out.parts = in.col;
    } else { // a row broadcast [BM x 1] -> [BM x N]
      Value v = lc.rowsToAcc(b, in.parts);
      out.parts.assign(f->atoms, v);
    }
    replace(rw, lc, op, out);
    return success();
  }
};

/// A lane part of S' = S * kd with kd per key as the gathered descales give
/// it: `arith.mulf %x, %k` with %k a `vector.from_elements` of loaded f32
/// scalars (one scalar a page group, wave-uniform on tiles of whole pages).
/// Returns x, the descale vector and its scalars, or nothing.
struct DescaledPart {
  Value x, k;
  SmallVector<Value> ks;
};
std::optional<DescaledPart> descaledPart(Value part) {
  auto mul = part.getDefiningOp<arith::MulFOp>();
  if (!mul || !isa<VectorType>(part.getType()))
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    auto k = mul->getOperand(1 - side).getDefiningOp<vector::FromElementsOp>();
    if (!k || !llvm::all_of(k.getElements(), [](Value e) {
          return e.getDefiningOp<memref::LoadOp>() != nullptr;
        }))
      continue;
    return DescaledPart{mul->getOperand(side), k, SmallVector<Value>(k.getElements())};
  }
  return std::nullopt;
}

/// Every arith elementwise op with a lane form.
struct ElementwisePattern : public ConversionPattern {
  ElementwisePattern(const TypeConverter &tc, MLIRContext *ctx,
                     const LaneContext &lc, PatternBenefit benefit)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), benefit, ctx), lc(lc) {}
  const LaneContext &lc;

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                                ConversionPatternRewriter &rw) const override {
    if (op->getNumResults() != 1 || !op->hasTrait<OpTrait::Elementwise>() ||
        op->getDialect()->getNamespace() != "arith")
      return failure();
    const ValueForm *f = lc.forms.lookup(op->getResult(0));
    if (!f || f->kind == FormKind::P)
      return failure();
    ImplicitLocOpBuilder b(op->getLoc(), rw);
    auto remap = [&](Value v) { return rw.getRemappedValue(v); };
    auto in = [&](unsigned i) { return lc.unpack(op->getOperand(i), operands[i]); };
    auto build = [&](ArrayRef<Value> ops, std::optional<int64_t> n) {
      OperationState st(op->getLoc(), op->getName());
      st.addOperands(ops);
      Type t = f->elem;
      st.addTypes(n ? Type(VectorType::get({*n}, t)) : t);
      st.addAttributes(op->getAttrs());
      Operation *created = b.create(st);
      // Let LLVM fuse the score scaling into FMAs (v_pk_fma_f32).
      if (auto fm = dyn_cast<arith::ArithFastMathInterface>(created)) {
        arith::FastMathFlagsAttr old = fm.getFastMathFlagsAttr();
        auto flags = old ? old.getValue() : arith::FastMathFlags::none;
        created->setAttr(fm.getFastMathAttrName(),
                         arith::FastMathFlagsAttr::get(
                             b.getContext(), flags | arith::FastMathFlags::contract));
      }
      return created->getResult(0);
    };
    int64_t acc = lc.layout.accPerLane();
    VectorType i32v = VectorType::get({acc}, b.getI32Type());
    LaneValues out;
    Value res = op->getResult(0);
    if (isVector2D(res)) {
      if (f->kind == FormKind::Affine) { // base + splat stays symbolic
        int i = isKind(lc, op->getOperand(0), FormKind::Affine) ? 0 : 1;
        out.aff = arith::AddIOp::create(
            b, in(i).aff, lc.splatScalar(b, op->getOperand(1 - i), remap));
        replace(rw, lc, op, out);
        return success();
      }
      if (f->kind == FormKind::Mask && isa<arith::CmpIOp>(op)) {
        auto cmp = cast<arith::CmpIOp>(op);
        using P = arith::CmpIPredicate;
        P pred = cmp.getPredicate();
        unsigned li = 0, ri = 1;
        if (!isKind(lc, cmp.getLhs(), FormKind::Affine)) {
          std::swap(li, ri);
          pred = pred == P::slt ? P::sgt : pred == P::sgt ? P::slt
               : pred == P::sle ? P::sge : pred == P::sge ? P::sle : pred;
        }
        Value r = op->getOperand(ri);
        Value base = in(li).aff;
        bool splatR = LaneForms::isSplat(r);
        Value rs = splatR ? lc.splatScalar(b, r, remap) : Value();
        SmallVector<Value> rp = splatR ? SmallVector<Value>(f->atoms, Value())
                                       : lc.accParts(b, r, in(ri));
        for (size_t j = 0; j < rp.size(); ++j) {
          Value rel = splatR ? Value(vector::BroadcastOp::create(
                                   b, i32v, arith::SubIOp::create(b, rs, base)))
                             : Value(arith::SubIOp::create(
                                   b, rp[j], vector::BroadcastOp::create(b, i32v, base)));
          Value one = vector::BroadcastOp::create(b, i32v, laneConstI32(b, 1));
          if (pred == P::slt)
            out.ub.push_back(arith::SubIOp::create(b, rel, one));
          else if (pred == P::sle)
            out.ub.push_back(rel);
          else if (pred == P::sgt)
            out.lb.push_back(arith::AddIOp::create(b, rel, one));
          else
            out.lb.push_back(rel);
        }
        replace(rw, lc, op, out);
        return success();
      }
      if (f->kind == FormKind::Mask) { // andi of two masks: joined bounds
        LaneValues x = in(0), y = in(1);
        auto join = [&](ArrayRef<Value> u, ArrayRef<Value> v, bool lower) {
          if (u.empty() || v.empty())
            return SmallVector<Value>(u.empty() ? v : u);
          SmallVector<Value> o;
          for (size_t j = 0; j < u.size(); ++j)
            o.push_back(lower ? Value(arith::MaxSIOp::create(b, u[j], v[j]))
                              : Value(arith::MinSIOp::create(b, u[j], v[j])));
          return o;
        };
        out.lb = join(x.lb, y.lb, true);
        out.ub = join(x.ub, y.ub, false);
        replace(rw, lc, op, out);
        return success();
      }
      if (auto sel = dyn_cast<arith::SelectOp>(op);
          sel && isKind(lc, sel.getCondition(), FormKind::Mask)) {
        // Each atom's compares right before its selects, with a scheduling
        // fence between atoms, so masks (SGPR pairs on AMDGPU) do not pile up.
        LaneValues c = in(0);
        SmallVector<Value> tv = lc.accParts(b, sel.getTrueValue(), in(1)),
                           fv = lc.accParts(b, sel.getFalseValue(), in(2));
        // select(m, S * kd, -inf) as select(m, S, -inf) * kd (kd > 0), so
        // that a masked tile keeps the form the row max and the exp2
        // argument take apart (descaledPart) and rounds as a full tile does.
        APFloat fill(0.0f);
        bool keepDescaled = matchPattern(sel.getFalseValue(), m_ConstantFloat(&fill)) &&
                            fill.isInfinity() && fill.isNegative();
        for (size_t j = 0; j < tv.size(); ++j) {
          Value m = lc.maskOfAtom(b, c, j);
          std::optional<DescaledPart> d;
          if (keepDescaled)
            d = descaledPart(tv[j]);
          if (d) {
            // contract, as the full tile's S * kd (build): an add after it
            // (exp2_bias's + log2(vd) / c) fuses alike in both loops.
            Value x = arith::SelectOp::create(b, m, d->x, fv[j]);
            out.parts.push_back(
                arith::MulFOp::create(b, x, d->k, arith::FastMathFlags::contract));
          } else {
            out.parts.push_back(arith::SelectOp::create(b, m, tv[j], fv[j]));
          }
          lc.ti.schedulingFence(b, b.getLoc());
        }
        replace(rw, lc, op, out);
        return success();
      }
      SmallVector<SmallVector<Value>> parts;
      int64_t atoms = -1;
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        if (!isVector2D(op->getOperand(i))) {
          parts.push_back({});
          continue;
        }
        parts.push_back(lc.accParts(b, op->getOperand(i), in(i)));
        atoms = parts.back().size();
      }
      // (S * kd) * c with kd a per-key descale (descaledPart) and c a
      // scalar: S * (kd * c), one multiply a distinct descale, so S * kd is
      // left to the row max, which takes it apart too (ReductionPattern):
      // at page 64 the 32 v_pk_mul_f32 of S * kd go.
      if (isa<arith::MulFOp>(op) && op->getNumOperands() == 2) {
        int si = !parts[0].empty() && descaledPart(parts[0].front()) ? 0 : 1;
        Value other = op->getOperand(1 - si);
        bool scalar = !isVector2D(other) || LaneForms::isSplat(other);
        if (scalar && !parts[si].empty() &&
            llvm::all_of(parts[si], [](Value p) { return descaledPart(p).has_value(); })) {
          Value c = isVector2D(other) ? lc.splatScalar(b, other, remap) : operands[1 - si][0];
          DenseMap<Value, Value> scaled;
          for (Value p : parts[si]) {
            auto [x, k, ks] = *descaledPart(p);
            SmallVector<Value> kc;
            for (Value k : ks) {
              Value &v = scaled[k];
              if (!v)
                v = arith::MulFOp::create(b, k, c);
              kc.push_back(v);
            }
            Value kcv = vector::FromElementsOp::create(b, cast<VectorType>(x.getType()), kc);
            out.parts.push_back(build(si == 0 ? SmallVector<Value>{x, kcv}
                                              : SmallVector<Value>{kcv, x},
                                      acc));
          }
          replace(rw, lc, op, out);
          return success();
        }
      }
      for (int64_t j = 0; j < atoms; ++j) {
        SmallVector<Value> ops;
        for (unsigned i = 0; i < op->getNumOperands(); ++i)
          ops.push_back(isVector2D(op->getOperand(i)) ? parts[i][j] : operands[i][0]);
        out.parts.push_back(build(ops, acc));
      }
      replace(rw, lc, op, out);
      return success();
    }
    // 1-d: the forms LaneForms gave the result.
    if (f->aff) {
      int i = lc.forms.lookup(op->getOperand(0)) &&
                      lc.forms.get(op->getOperand(0)).aff
                  ? 0
                  : 1;
      out.aff = arith::AddIOp::create(
          b, in(i).aff, lc.splatScalar(b, op->getOperand(1 - i), remap));
    }
    if (f->row)
      for (int64_t s = 0; s < lc.layout.slots(); ++s) {
        SmallVector<Value> ops;
        for (unsigned i = 0; i < op->getNumOperands(); ++i)
          ops.push_back(isVector1D(op->getOperand(i)) ? in(i).row[s] : operands[i][0]);
        out.row.push_back(build(ops, std::nullopt));
      }
    if (f->col) {
      SmallVector<SmallVector<Value>> cols;
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        cols.push_back(isVector1D(op->getOperand(i))
                           ? lc.colsOf(b, op->getOperand(i), in(i))
                           : SmallVector<Value>{});
      for (int64_t j = 0; j < f->atoms; ++j) {
        SmallVector<Value> ops;
        for (unsigned i = 0; i < op->getNumOperands(); ++i)
          ops.push_back(isVector1D(op->getOperand(i)) ? cols[i][j] : operands[i][0]);
        out.col.push_back(build(ops, acc));
      }
    }
    replace(rw, lc, op, out);
    return success();
  }
};

/// One value from `xs` by `combine`, `arity` values a node (3 for a max:
/// max(max(a, b), c) is v_max3_f32 on AMDGPU).
Value reduceTree(SmallVector<Value> xs, function_ref<Value(Value, Value)> combine,
                 size_t arity) {
  while (xs.size() > 1) {
    SmallVector<Value> next;
    size_t i = 0;
    for (; i + arity <= xs.size(); i += arity) {
      Value x = combine(xs[i], xs[i + 1]);
      next.push_back(arity == 3 ? combine(x, xs[i + 2]) : x);
    }
    if (xs.size() - i == 2)
      next.push_back(combine(xs[i], xs[i + 1]));
    else if (xs.size() - i == 1)
      next.push_back(xs[i]);
    xs = std::move(next);
  }
  return xs[0];
}

struct ReductionPattern : LanePattern<vector::MultiDimReductionOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    LaneValues src = lc.unpack(op.getSource(), a.getSource());
    LaneValues accIn = lc.unpack(op.getAcc(), a.getAcc());
    auto combine = [&](Value x, Value y) -> Value {
      switch (op.getKind()) {
      case vector::CombiningKind::MAXIMUMF: // maxnum: no NaN-propagation code
      case vector::CombiningKind::MAXNUMF:  // (scores are NaN only for NaN inputs)
        return lc.ti.maxF(b, b.getLoc(), x, y);
      default:
        return arith::AddFOp::create(b, x, y);
      }
    };
    // All of a slot's registers in every atom as one tree, then across lanes
    // with the chip's xor shuffles. A max tree takes three values a node
    // (max(max(a, b), c): v_max3_f32 on AMDGPU), so 64 values take 32 ops
    // where reducing the atoms as vectors first took 44; a sum adds pairs of
    // lanes' registers as 2-vectors (v_pk_add_f32 where the chip has it).
    bool isMax = op.getKind() != vector::CombiningKind::ADD;
    // The max of S' = S * kd with kd per key (descaledPart): descales are
    // > 0 and rounding is monotonic, so the max of a group of registers
    // with one descale k is k * (the max of their S), exactly: a product a
    // group instead of one a register.
    bool grouped = isMax && !src.parts.empty() &&
                   llvm::all_of(src.parts, [](Value p) { return descaledPart(p).has_value(); });
    LaneValues out;
    for (int64_t s = 0; s < lc.layout.slots(); ++s) {
      SmallVector<Value> xs;
      SmallVector<Value> keys;                       // distinct descales, in order
      DenseMap<Value, SmallVector<Value>> byKey;     // descale -> its S values
      for (Value part : src.parts) {
        std::optional<DescaledPart> d;
        if (grouped)
          d = descaledPart(part);
        for (int64_t r = 0; r < lc.layout.accPerLane(); ++r) {
          if (lc.layout.slotOfReg[r] != s)
            continue;
          if (!d) {
            xs.push_back(vector::ExtractOp::create(b, part, r));
            continue;
          }
          Value k = d->ks[r];
          if (!byKey.count(k))
            keys.push_back(k);
          byKey[k].push_back(vector::ExtractOp::create(b, d->x, r));
        }
      }
      for (Value k : keys)
        xs.push_back(arith::MulFOp::create(b, k, reduceTree(byKey[k], combine, 3)));
      if (!isMax && xs.size() % 2 == 0 && xs.size() > 2) {
        auto v2 = VectorType::get({2}, xs[0].getType());
        SmallVector<Value> pairs;
        for (size_t i = 0; i < xs.size(); i += 2)
          pairs.push_back(vector::FromElementsOp::create(b, v2, ValueRange{xs[i], xs[i + 1]}));
        while (pairs.size() > 1) {
          SmallVector<Value> next;
          for (size_t i = 0; i + 1 < pairs.size(); i += 2)
            next.push_back(combine(pairs[i], pairs[i + 1]));
          if (pairs.size() % 2)
            next.push_back(pairs.back());
          pairs = std::move(next);
        }
        xs = {vector::ExtractOp::create(b, pairs[0], 0),
              vector::ExtractOp::create(b, pairs[0], 1)};
      }
      Value x = reduceTree(xs, combine, isMax ? 3 : 2);
      for (int64_t mask : lc.ti.rowReduceXorMasks())
        x = lc.ti.combineXor(b, b.getLoc(), x, mask, combine);
      out.row.push_back(combine(x, accIn.row[s]));
    }
    replace(rw, lc, op, out);
    return success();
  }
};

/// A unary math op on every value of its operand (tile parts, row and
/// column vectors) by `fn`, the chip's one-instruction form.
template <typename OpT>
LogicalResult perValue(OpT op, ValueRange operand, const LaneContext &lc,
                       ConversionPatternRewriter &rw,
                       Value (TargetInfo::*fn)(OpBuilder &, Location, Value) const) {
  ImplicitLocOpBuilder b(op.getLoc(), rw);
  auto one = [&](Value x) { return (lc.ti.*fn)(b, b.getLoc(), x); };
  auto perElem = [&](Value vec) {
    auto t = cast<VectorType>(vec.getType());
    SmallVector<Value> e;
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      e.push_back(one(vector::ExtractOp::create(b, vec, i)));
    return Value(vector::FromElementsOp::create(b, t, e));
  };
  LaneValues in = lc.unpack(op.getOperand(), operand), out;
  for (Value p : in.parts)
    out.parts.push_back(perElem(p));
  for (Value s : in.row)
    out.row.push_back(one(s));
  for (Value p : in.col)
    out.col.push_back(perElem(p));
  replace(rw, lc, op, out);
  return success();
}

struct Exp2Pattern : LanePattern<math::Exp2Op> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    return perValue(op, a.getOperand(), lc, rw, &TargetInfo::exp2);
  }
};

/// log2 of a row or column vector, per value (fmha-fold-vd-exp2: the vd
/// of each key's page).
struct Log2Pattern : LanePattern<math::Log2Op> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(math::Log2Op op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    return perValue(op, a.getOperand(), lc, rw, &TargetInfo::log2);
  }
};

/// lse: ln x = log2(x) * ln 2, per row slot.
struct LogPattern : LanePattern<math::LogOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(math::LogOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value ln2 = arith::ConstantOp::create(b, b.getF32FloatAttr(0.6931471805599453f));
    LaneValues in = lc.unpack(op.getOperand(), a.getOperand()), out;
    for (Value v : in.row)
      out.row.push_back(arith::MulFOp::create(b, lc.ti.log2(b, b.getLoc(), v), ln2));
    replace(rw, lc, op, out);
    return success();
  }
};

/// The query index of every row slot, and the column symbolically.
struct StepPattern : LanePattern<vector::StepOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(vector::StepOp op, OneToNOpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    LaneValues out;
    for (int64_t s = 0; s < lc.layout.slots(); ++s)
      out.row.push_back(lc.queryOfSlot(b, s));
    out.aff = lc.nLaneV;
    replace(rw, lc, op, out);
    return success();
  }
};

/// [BM] -> [BM x 1]: the row form becomes a row broadcast.
struct ShapeCastPattern : LanePattern<vector::ShapeCastOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(vector::ShapeCastOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    LaneValues out;
    out.parts = lc.unpack(op.getSource(), a.getSource()).row;
    replace(rw, lc, op, out);
    return success();
  }
};

} // namespace

void mlir::fmha::populateLaneElementwisePatterns(const TypeConverter &tc,
                                                 RewritePatternSet &patterns,
                                                 const TargetInfo &,
                                                 const LaneContext &lc,
                                                 PatternBenefit benefit) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConstantPattern, BroadcastPattern, ReductionPattern, Exp2Pattern, Log2Pattern,
               LogPattern, StepPattern, ShapeCastPattern>(tc, ctx, lc, benefit);
  patterns.add<ElementwisePattern>(tc, ctx, lc, benefit);
}
