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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <map>
#include <set>

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
      out.parts = lc.colsOf(b, src, in);
    } else { // a row broadcast [BM x 1] -> [BM x N]
      Value v = lc.rowsToAcc(b, in.parts);
      out.parts.assign(f->atoms, v);
    }
    replace(rw, lc, op, out);
    return success();
  }
};

/// Whether lane vector `k` is a vector.from_elements of loaded scalars (the
/// gathered descales: one scalar a page group, wave-uniform on tiles of
/// whole pages).
bool loadedScalars(Value k) {
  auto fe = k.getDefiningOp<vector::FromElementsOp>();
  return fe && llvm::all_of(fe.getElements(), [](Value e) {
           return e.getDefiningOp<memref::LoadOp>() != nullptr;
         });
}

/// Whether lane vector `k` holds non-negative coefficients by docs/SPEC.md:
/// loaded descales (loadedScalars), or each of them times one scalar
/// defined above the vector's region (the exp2 argument's kd * c, which the
/// lowering of (S * kd) * c below builds as vector.from_elements of
/// mulf(extract(kd), c)). The precondition it relies on: the only such
/// product the lowering forms is that one, whose c is the softmax's sigma
/// = sm_scale log2(e) qd, computed before the KV loop and > 0 because
/// sm_scale (the host checker refuses another) and the descales are.
bool nonNegativeCoefficients(Value k) {
  if (loadedScalars(k))
    return true;
  auto fe = k.getDefiningOp<vector::FromElementsOp>();
  if (!fe)
    return false;
  Value scalar;
  for (Value e : fe.getElements()) {
    auto mul = e.getDefiningOp<arith::MulFOp>();
    if (!mul)
      return false;
    auto ex = mul.getLhs().getDefiningOp<vector::ExtractOp>();
    if (!ex || !loadedScalars(ex.getSource()) || isa<VectorType>(mul.getRhs().getType()) ||
        (scalar && mul.getRhs() != scalar))
      return false;
    scalar = mul.getRhs();
  }
  return scalar && scalar.getParentRegion()->isProperAncestor(fe->getParentRegion());
}

/// A lane part of S' = S * kd with kd per key as the gathered descales give
/// it: `arith.mulf %x, %k` with %k loadedScalars. Returns x, the descale
/// vector and its scalars, or nothing.
struct DescaledPart {
  Value x, k;
  SmallVector<Value> ks;
};
std::optional<DescaledPart> descaledPart(Value part) {
  auto mul = part.getDefiningOp<arith::MulFOp>();
  if (!mul || !isa<VectorType>(part.getType()))
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    Value k = mul->getOperand(1 - side);
    if (!loadedScalars(k))
      continue;
    return DescaledPart{mul->getOperand(side), k,
                        SmallVector<Value>(k.getDefiningOp<vector::FromElementsOp>().getElements())};
  }
  return std::nullopt;
}

/// What element `r` of lane vector `v` is computed from, down to scalars
/// (loads, block arguments, values from outside): through elementwise ops,
/// vector.from_elements, scalar broadcasts, splat constants and the pure
/// scalar ops on extracted elements, as opaque pointers: the scalars, and
/// the ops (name and attributes) and the splat constants on the way, so two elements
/// with equal leaves are equal (the same ops on the same scalars). False
/// when an element depends on anything else (an MMA's result, a loaded
/// vector, a loop-carried vector): `v` is then no per-key coefficient.
using Leaves = SmallVector<const void *>;
bool scalarLeaves(Value s, Leaves &out, int depth);
bool elementLeaves(Value v, int64_t r, Leaves &out, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16)
    return false;
  if (auto fe = dyn_cast<vector::FromElementsOp>(def))
    return scalarLeaves(fe.getElements()[r], out, depth + 1);
  if (auto bc = dyn_cast<vector::BroadcastOp>(def))
    return !isa<VectorType>(bc.getSourceType()) && scalarLeaves(bc.getSource(), out, depth + 1);
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    out.push_back(c.getValue().getAsOpaquePointer());
    return isa<SplatElementsAttr>(c.getValue());
  }
  if (!def->hasTrait<OpTrait::Elementwise>() || !isPure(def) || def->getNumResults() != 1)
    return false;
  out.push_back(def->getName().getAsOpaquePointer());
  out.push_back(def->getAttrDictionary().getAsOpaquePointer());
  for (Value o : def->getOperands())
    if (!(isa<VectorType>(o.getType()) ? elementLeaves(o, r, out, depth + 1)
                                        : scalarLeaves(o, out, depth + 1)))
      return false;
  return true;
}
bool scalarLeaves(Value s, Leaves &out, int depth) {
  if (depth > 16)
    return false;
  Operation *def = s.getDefiningOp();
  if (auto ex = def ? dyn_cast<vector::ExtractOp>(def) : vector::ExtractOp()) {
    auto pos = ex.getStaticPosition();
    if (pos.size() != 1 || ShapedType::isDynamic(pos[0]) ||
        cast<VectorType>(ex.getSource().getType()).getRank() != 1)
      return false;
    return elementLeaves(ex.getSource(), pos[0], out, depth + 1);
  }
  // An op as a function of its operands: its name, attributes and their
  // leaves.
  auto opLeaves = [&]() {
    out.push_back(def->getName().getAsOpaquePointer());
    out.push_back(def->getAttrDictionary().getAsOpaquePointer());
    return llvm::all_of(def->getOperands(),
                        [&](Value o) { return scalarLeaves(o, out, depth + 1); });
  };
  // A pure scalar op on extracted elements (log2 of a descale, a product
  // with a scalar): its operands' leaves; anything else is a leaf itself.
  if (def && isPure(def) && def->getNumResults() == 1 && def->getNumOperands() > 0 &&
      llvm::any_of(def->getOperands(),
                   [](Value o) { return o.getDefiningOp<vector::ExtractOp>(); }))
    return opLeaves();
  // A value of an inline asm's struct result (NVVM's wgmma chains, waited
  // for or not): an MMA's accumulator, no coefficient.
  if (auto ev = def ? dyn_cast<LLVM::ExtractValueOp>(def) : LLVM::ExtractValueOp();
      ev && ev.getContainer().getDefiningOp<LLVM::InlineAsmOp>())
    return false;
  // The chip's one-instruction forms as inline asm without side effects
  // (NVVM's ex2.approx, lg2.approx): not speculatable, so not pure, but a
  // function of their operands all the same. Their operands' leaves: an
  // exp2 of a score is then no coefficient (it depends on the MMA), and
  // lg2 of a descale is one.
  if (auto asmOp = def ? dyn_cast<LLVM::InlineAsmOp>(def) : LLVM::InlineAsmOp();
      asmOp && !asmOp.getHasSideEffects() && asmOp->getNumResults() == 1 &&
      asmOp->getNumOperands() > 0)
    return opLeaves();
  out.push_back(s.getAsOpaquePointer());
  return true;
}

/// Per register of lane vector `v` (accPerLane elements), a key that is
/// equal for equal elements (elementLeaves), or nothing when `v` is no
/// per-key coefficient.
std::optional<SmallVector<Leaves>> coefficientKeys(Value v) {
  auto t = dyn_cast<VectorType>(v.getType());
  if (!t || t.getRank() != 1)
    return std::nullopt;
  SmallVector<Leaves> keys(t.getDimSize(0));
  for (int64_t r = 0; r < t.getDimSize(0); ++r)
    if (!elementLeaves(v, r, keys[r]))
      return std::nullopt;
  return keys;
}

/// `part` as x * k (`arith.mulf`, either operand order) with k a per-key
/// coefficient (coefficientKeys) and x not one: (x, k), or nothing.
std::optional<std::pair<Value, Value>> coefficientProduct(Value part) {
  auto mul = part.getDefiningOp<arith::MulFOp>();
  if (!mul || !isa<VectorType>(part.getType()))
    return std::nullopt;
  for (int side = 0; side < 2; ++side)
    if (coefficientKeys(mul->getOperand(1 - side)) && !coefficientKeys(mul->getOperand(side)))
      return std::make_pair(mul->getOperand(side), mul->getOperand(1 - side));
  return std::nullopt;
}

/// A lane part x * k + c with k and c per-key coefficients: fmha-fold-vd-
/// exp2's y = S * (kd c) + log2(vd) (since 2026-12-06, eleventh session;
/// before, S' = S * kd + log2(vd) / c, then its product with the scalar c),
/// and its difference with the row max. Element r's coefficients are
/// (k[r], c[r]); `c` is null for x * k alone (descaledPart).
struct AffinePart {
  Value x, k, c;
};
std::optional<AffinePart> affinePart(Value part) {
  if (std::optional<DescaledPart> d = descaledPart(part))
    return AffinePart{d->x, d->k, Value()};
  auto add = part.getDefiningOp<arith::AddFOp>();
  if (!add || !isa<VectorType>(part.getType()))
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    Value c = add->getOperand(1 - side);
    if (auto xk = coefficientProduct(add->getOperand(side)); xk && coefficientKeys(c))
      return AffinePart{xk->first, xk->second, c};
  }
  return std::nullopt;
}

/// Register r's group key of affine part `a`: its k and c leaves.
std::vector<const void *> affineKey(const AffinePart &a, int64_t r) {
  Leaves leaves;
  elementLeaves(a.k, r, leaves);
  size_t nk = leaves.size();
  if (a.c)
    elementLeaves(a.c, r, leaves);
  std::vector<const void *> key{reinterpret_cast<const void *>(nk)};
  key.insert(key.end(), leaves.begin(), leaves.end());
  return key;
}

/// Whether the registers of affine parts `parts` share coefficients (at
/// most half as many distinct keys as registers): only then does taking a
/// part apart pay (a row max of k * max(x) + c a group; an exp2 argument
/// x * k + (c - m) with one sum a group). Where every register has its own
/// (the spread form's broadcasts: page 1 and pages off the tiles'
/// boundaries on AMDGPU) the groups are single registers, and taking apart
/// kept x, k and c live across the row max for the exp2 argument (a tile
/// each: 182 VGPR spills at page 1 on gfx942) where y = x * k + c, computed
/// once for both, keeps one tile.
bool coefficientsShared(ArrayRef<Value> parts) {
  int64_t regs = 0;
  std::set<std::vector<const void *>> keys;
  for (Value p : parts) {
    std::optional<AffinePart> a = affinePart(p);
    if (!a)
      return false;
    for (int64_t r = 0; r < cast<VectorType>(p.getType()).getDimSize(0); ++r, ++regs)
      keys.insert(affineKey(*a, r));
  }
  return 2 * static_cast<int64_t>(keys.size()) <= regs;
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
    auto build = [&](ArrayRef<Value> ops, std::optional<int64_t> n) -> Value {
      // maxnum is the chip's NaN-ignoring max (TargetInfo::maxF: on AMDGPU
      // with nnan, so no quieting of its operands; docs/SPEC.md, NaN).
      if (isa<arith::MaxNumFOp>(op) && ops.size() == 2)
        return lc.ti.maxF(b, b.getLoc(), ops[0], ops[1]);
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
        // select(m, t, f) of an atom, group by group where the target asks
        // (maskSelectsPerFence): each group's compares, its selects, a fence.
        auto select = [&](int64_t j, Value t, Value f) -> Value {
          int64_t n = cast<VectorType>(t.getType()).getDimSize(0);
          int64_t g = lc.ti.maskSelectsPerFence();
          if (g <= 0 || g >= n || n % g) {
            Value r = arith::SelectOp::create(b, lc.maskOfAtom(b, c, j), t, f);
            lc.ti.schedulingFence(b, b.getLoc());
            return r;
          }
          auto part = [&](Value v, int64_t off) {
            return isa<VectorType>(v.getType()) ? LaneContext::sliceElements(b, v, off, g) : v;
          };
          Value r = f;
          for (int64_t off = 0; off < n; off += g) {
            Value sel = arith::SelectOp::create(b, lc.maskOfAtom(b, c, j, off, g),
                                                part(t, off), part(f, off));
            r = LaneContext::replaceElements(b, r, sel, off);
            lc.ti.schedulingFence(b, b.getLoc());
          }
          return r;
        };
        for (size_t j = 0; j < tv.size(); ++j) {
          std::optional<DescaledPart> d;
          if (keepDescaled)
            d = descaledPart(tv[j]);
          if (d) {
            // contract, as the full tile's S * kd (build): an add after it
            // (exp2_bias's product with c and + log2(vd)) fuses alike in
            // both loops.
            Value x = select(j, d->x, fv[j]);
            out.parts.push_back(
                arith::MulFOp::create(b, x, d->k, arith::FastMathFlags::contract));
          } else {
            out.parts.push_back(select(j, tv[j], fv[j]));
          }
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
      // (x * k + b) * c with k, b per-key coefficients (affinePart: the
      // form fmha-fold-vd-exp2 wrote until 2026-12-06, S * kd + log2(vd) /
      // c; still taken): x * (k * c) + b * c, one product a distinct
      // coefficient, so the exp2 argument stays one fma an element once the
      // row max is subtracted (below).
      if (isa<arith::MulFOp>(op) && op->getNumOperands() == 2) {
        int si = !parts[0].empty() && affinePart(parts[0].front()) ? 0 : 1;
        Value other = op->getOperand(1 - si);
        bool scalar = !isVector2D(other) || LaneForms::isSplat(other);
        if (scalar && !parts[si].empty() &&
            llvm::all_of(parts[si], [](Value p) { return affinePart(p).has_value(); })) {
          Value c = isVector2D(other) ? lc.splatScalar(b, other, remap) : operands[1 - si][0];
          // S * kd alone keeps plain products (as the routes without a
          // bias always had); with a bias they may fuse.
          bool biased = llvm::any_of(parts[si], [](Value p) { return bool(affinePart(p)->c); });
          auto contract = biased ? arith::FastMathFlags::contract : arith::FastMathFlags::none;
          // One product a distinct coefficient, k's and b's apart.
          std::map<std::vector<const void *>, Value> scaled[2];
          auto times = [&](Value coef, int64_t r, int which) {
            Leaves leaves;
            elementLeaves(coef, r, leaves);
            std::vector<const void *> key(leaves.begin(), leaves.end());
            Value &v = scaled[which][key];
            if (!v)
              v = arith::MulFOp::create(b, vector::ExtractOp::create(b, coef, r), c,
                                        contract);
            return v;
          };
          for (Value p : parts[si]) {
            AffinePart a = *affinePart(p);
            auto vt = cast<VectorType>(a.x.getType());
            SmallVector<Value> kc, bc;
            for (int64_t r = 0; r < vt.getDimSize(0); ++r) {
              kc.push_back(times(a.k, r, 0));
              if (a.c)
                bc.push_back(times(a.c, r, 1));
            }
            Value kcv = vector::FromElementsOp::create(b, vt, kc);
            Value prod = build(si == 0 ? SmallVector<Value>{a.x, kcv}
                                       : SmallVector<Value>{kcv, a.x},
                               acc);
            if (a.c)
              prod = arith::AddFOp::create(b, prod, vector::FromElementsOp::create(b, vt, bc),
                                           arith::FastMathFlags::contract);
            out.parts.push_back(prod);
          }
          replace(rw, lc, op, out);
          return success();
        }
      }
      // (x * k + b) +/- r with r a per-key or per-row coefficient (the
      // bias log2(vd), the row max): x * k + (b +/- r), the sum taken once
      // a distinct (b, r), so the exp2 argument S * (kd c) + (log2(vd) - m
      // c + shift) is one fma an element (per-element it took two).
      if (isa<arith::AddFOp, arith::SubFOp>(op) && op->getNumOperands() == 2 &&
          !parts[0].empty() && !parts[1].empty()) {
        bool sub = isa<arith::SubFOp>(op);
        int ai = affinePart(parts[0].front()) ? 0 : (sub ? -1 : 1);
        if (ai >= 0 &&
            llvm::all_of(parts[ai], [](Value p) { return affinePart(p).has_value(); }) &&
            llvm::all_of(parts[1 - ai], [](Value p) { return coefficientKeys(p).has_value(); }) &&
            coefficientsShared(parts[ai])) {
          for (size_t j = 0; j < parts[ai].size(); ++j) {
            AffinePart a = *affinePart(parts[ai][j]);
            Value rv = parts[1 - ai][j];
            auto vt = cast<VectorType>(a.x.getType());
            std::map<std::vector<const void *>, Value> sums;
            SmallVector<Value> bs;
            for (int64_t r = 0; r < vt.getDimSize(0); ++r) {
              std::vector<const void *> key = affineKey(AffinePart{a.x, rv, a.c}, r);
              Value &v = sums[key];
              if (!v) {
                Value rr = vector::ExtractOp::create(b, rv, r);
                if (!a.c)
                  v = sub ? Value(arith::NegFOp::create(b, rr)) : rr;
                else if (sub)
                  v = arith::SubFOp::create(b, vector::ExtractOp::create(b, a.c, r), rr);
                else
                  v = arith::AddFOp::create(b, vector::ExtractOp::create(b, a.c, r), rr);
              }
              bs.push_back(v);
            }
            Value prod = arith::MulFOp::create(b, a.x, a.k, arith::FastMathFlags::contract);
            out.parts.push_back(arith::AddFOp::create(
                b, prod, vector::FromElementsOp::create(b, vt, bs),
                arith::FastMathFlags::contract));
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
    if (f->spread) {
      // The lane's share of the columns: the spread operands' vectors, a
      // splat's scalar broadcast.
      auto st = VectorType::get({lc.forms.spreadSlots(
                                    cast<VectorType>(res.getType()).getDimSize(0))},
                                f->elem);
      SmallVector<Value> ops;
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        Value o = op->getOperand(i);
        if (!isVector1D(o)) {
          ops.push_back(operands[i][0]);
          continue;
        }
        const ValueForm *of = lc.forms.lookup(o);
        if (of && of->spread) {
          ops.push_back(in(i).spread);
          continue;
        }
        Value sc = lc.splatScalar(b, o, remap);
        ops.push_back(vector::BroadcastOp::create(
            b, VectorType::get(st.getShape(), sc.getType()), sc));
      }
      out.spread = build(ops, st.getDimSize(0));
    }
    if (f->col && !f->spread) {
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
    // The same for S * k + b with b per key too (affinePart: exp2_bias's
    // y = S * (kd c) + log2(vd)): k * max(S) + b a group (one fma),
    // where the per-element S' took an fma an element before its max.
    // Only where k is loaded descales (amax / M >= 0, docs/SPEC.md), or
    // descales times sigma (> 0; nonNegativeCoefficients): k * max(x) is
    // max(k * x) for k >= 0 only (k = 0: both 0 for finite x).
    bool grouped = isMax && !src.parts.empty() && llvm::all_of(src.parts, [](Value p) {
                     std::optional<AffinePart> a = affinePart(p);
                     return a && nonNegativeCoefficients(a->k);
                   }) && coefficientsShared(src.parts);
    // A sum of P * w with w per key (exp2_bias's row sum of P / vd): each
    // group's P summed as 2-vectors, times its w once, where every pair
    // took a product. Groups of an even size only (pairs stay in a group).
    bool sumGrouped = !isMax && !src.parts.empty() &&
                      llvm::all_of(src.parts, [&](Value p) { return coefficientProduct(p).has_value(); });
    LaneValues out;
    for (int64_t s = 0; s < lc.layout.slots(); ++s) {
      SmallVector<Value> xs;
      // Registers of one coefficient group (its key): the values, and the
      // part and register its coefficients are read from.
      struct Group {
        SmallVector<Value> xs;
        Value k, c;
        int64_t r = 0;
      };
      std::vector<std::vector<const void *>> order;
      std::map<std::vector<const void *>, Group> groups;
      for (Value part : src.parts) {
        std::optional<AffinePart> d;
        std::optional<std::pair<Value, Value>> w;
        if (grouped)
          d = affinePart(part);
        if (sumGrouped)
          w = coefficientProduct(part);
        for (int64_t r = 0; r < lc.layout.accPerLane(); ++r) {
          if (lc.layout.slotOfReg[r] != s)
            continue;
          if (!d && !w) {
            xs.push_back(vector::ExtractOp::create(b, part, r));
            continue;
          }
          AffinePart a = d ? *d : AffinePart{w->first, w->second, Value()};
          std::vector<const void *> key = affineKey(a, r);
          auto [it, fresh] = groups.try_emplace(key);
          if (fresh) {
            order.push_back(key);
            it->second.k = a.k;
            it->second.c = a.c;
            it->second.r = r;
          }
          it->second.xs.push_back(vector::ExtractOp::create(b, a.x, r));
        }
      }
      bool evenGroups = llvm::all_of(order, [&](const std::vector<const void *> &k) {
        return groups[k].xs.size() % 2 == 0;
      });
      if (sumGrouped && !evenGroups) {
        // Ungrouped after all: every register's product.
        for (Value part : src.parts)
          for (int64_t r = 0; r < lc.layout.accPerLane(); ++r)
            if (lc.layout.slotOfReg[r] == s)
              xs.push_back(vector::ExtractOp::create(b, part, r));
        order.clear();
      }
      auto v2 = VectorType::get({2}, b.getF32Type());
      SmallVector<Value> weightedPairs;
      for (const std::vector<const void *> &key : order) {
        Group &g = groups[key];
        Value k = vector::ExtractOp::create(b, g.k, g.r);
        if (isMax) {
          Value m = arith::MulFOp::create(b, k, reduceTree(g.xs, combine, 3),
                                          g.c ? arith::FastMathFlags::contract
                                              : arith::FastMathFlags::none);
          if (g.c)
            m = arith::AddFOp::create(b, m, vector::ExtractOp::create(b, g.c, g.r),
                                      arith::FastMathFlags::contract);
          xs.push_back(m);
          continue;
        }
        SmallVector<Value> pairs;
        for (size_t i = 0; i < g.xs.size(); i += 2)
          pairs.push_back(vector::FromElementsOp::create(b, v2, ValueRange{g.xs[i], g.xs[i + 1]}));
        Value sum = reduceTree(pairs, combine, 2);
        weightedPairs.push_back(
            arith::MulFOp::create(b, sum, vector::BroadcastOp::create(b, v2, k)));
      }
      if (!weightedPairs.empty()) {
        Value sum = reduceTree(weightedPairs, combine, 2);
        xs = {vector::ExtractOp::create(b, sum, 0), vector::ExtractOp::create(b, sum, 1)};
      }
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
  // Elements that are one scalar (a page's descale in each of its keys'
  // registers) take one instruction: fn of a vector.from_elements' element
  // is made once per distinct scalar. The chip's form may be inline asm
  // (NVVM's lg2.approx), which neither LLVM's passes before instruction
  // selection nor the coefficient keys (elementLeaves) see as one value.
  DenseMap<Value, Value> once;
  auto perElem = [&](Value vec) {
    auto t = cast<VectorType>(vec.getType());
    auto fe = vec.getDefiningOp<vector::FromElementsOp>();
    SmallVector<Value> e;
    for (int64_t i = 0; i < t.getNumElements(); ++i) {
      if (!fe) {
        e.push_back(one(vector::ExtractOp::create(b, vec, i)));
        continue;
      }
      Value s = fe.getElements()[i];
      auto [it, fresh] = once.try_emplace(s);
      if (fresh)
        it->second = one(vector::ExtractOp::create(b, vec, i));
      e.push_back(it->second);
    }
    return Value(vector::FromElementsOp::create(b, t, e));
  };
  LaneValues in = lc.unpack(op.getOperand(), operand), out;
  for (Value p : in.parts)
    out.parts.push_back(perElem(p));
  for (Value s : in.row)
    out.row.push_back(one(s));
  if (in.spread)
    out.spread = perElem(in.spread);
  else
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
