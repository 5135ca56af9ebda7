//===- LaneContext.cpp - what every lane-lowering pattern reads -----------===//
#include "fmha/Conversion/FmhaToGPU/LaneContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fmha;

Value mlir::fmha::laneConstI32(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIntOp::create(b, b.getI32Type(), v);
}
Value mlir::fmha::laneToIndex(ImplicitLocOpBuilder &b, Value v) {
  return v.getType().isIndex() ? v
                               : arith::IndexCastOp::create(b, b.getIndexType(), v);
}
Value mlir::fmha::laneToI32(ImplicitLocOpBuilder &b, Value v) {
  return v.getType().isInteger(32)
             ? v
             : arith::IndexCastOp::create(b, b.getI32Type(), v);
}

Value mlir::fmha::laneEmitBits(ImplicitLocOpBuilder &b, const BitLinear &f,
                               Value x) {
  Value acc = laneConstI32(b, f.c0);
  for (size_t i = 0; i < f.coef.size(); ++i) {
    if (!f.coef[i])
      continue;
    Value bit = arith::AndIOp::create(
        b, arith::ShRUIOp::create(b, x, laneConstI32(b, i)), laneConstI32(b, 1));
    acc = arith::AddIOp::create(
        b, acc, arith::MulIOp::create(b, bit, laneConstI32(b, f.coef[i])));
  }
  return acc;
}

Value mlir::fmha::laneConcat(ImplicitLocOpBuilder &b, SmallVector<Value> parts) {
  while (parts.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i < parts.size(); i += 2) {
      if (i + 1 == parts.size()) { // an odd count: the last one waits a round
        next.push_back(parts[i]);
        break;
      }
      int64_t n = cast<VectorType>(parts[i].getType()).getNumElements() +
                  cast<VectorType>(parts[i + 1].getType()).getNumElements();
      SmallVector<int64_t> mask;
      for (int64_t k = 0; k < n; ++k)
        mask.push_back(k);
      next.push_back(vector::ShuffleOp::create(b, parts[i], parts[i + 1], mask));
    }
    parts = std::move(next);
  }
  return parts[0];
}

LaneValues LaneContext::unpack(Value orig, ValueRange converted) const {
  LaneValues v;
  const ValueForm *f = forms.lookup(orig);
  if (!f)
    return v;
  size_t at = 0;
  auto take = [&](int64_t n) {
    SmallVector<Value> out(converted.begin() + at, converted.begin() + at + n);
    at += n;
    return out;
  };
  switch (f->kind) {
  case FormKind::Acc:
  case FormKind::P:
  case FormKind::QOperand:
    v.parts = take(f->atoms);
    break;
  case FormKind::RowBcast:
    v.parts = take(layout.slots());
    break;
  case FormKind::KV:
    v.lds = converted[0];
    break;
  case FormKind::Affine:
    v.aff = converted[0];
    break;
  case FormKind::Mask:
    if (f->lb)
      v.lb = take(f->atoms);
    if (f->ub)
      v.ub = take(f->atoms);
    break;
  case FormKind::Vec:
    if (f->row)
      v.row = take(layout.slots());
    if (f->col)
      v.col = take(f->atoms);
    if (f->aff)
      v.aff = take(1)[0];
    if (f->spread)
      v.spread = take(1)[0];
    break;
  case FormKind::TokenIds:
    break;
  }
  return v;
}

SmallVector<Value> LaneContext::pack(const ValueForm &f,
                                     const LaneValues &v) const {
  SmallVector<Value> out;
  switch (f.kind) {
  case FormKind::Acc:
  case FormKind::P:
  case FormKind::QOperand:
  case FormKind::RowBcast:
    out.append(v.parts);
    break;
  case FormKind::KV:
    out.push_back(v.lds);
    break;
  case FormKind::Affine:
    out.push_back(v.aff);
    break;
  case FormKind::Mask:
    if (f.lb)
      out.append(v.lb);
    if (f.ub)
      out.append(v.ub);
    break;
  case FormKind::Vec:
    if (f.row)
      out.append(v.row);
    if (f.col)
      out.append(v.col);
    if (f.aff)
      out.push_back(v.aff);
    if (f.spread)
      out.push_back(v.spread);
    break;
  case FormKind::TokenIds:
    break;
  }
  return out;
}

Value LaneContext::spreadColumn(ImplicitLocOpBuilder &b, int64_t s) const {
  const SpreadPlan &sp = *forms.spreadPlan();
  // The lane's place in its group, (lane / stride) % g.
  Value place = laneV;
  if (sp.stride > 1)
    place = arith::DivUIOp::create(b, place, laneConstI32(b, sp.stride));
  place = arith::AndIOp::create(b, place, laneConstI32(b, sp.g - 1));
  Value c = arith::AddIOp::create(b, nLaneV, laneConstI32(b, sp.offsetOf(layout, s * sp.g)));
  return arith::AddIOp::create(b, c, laneEmitBits(b, *sp.slotBits(layout, s), place));
}

SmallVector<Value> LaneContext::colsFromSpread(ImplicitLocOpBuilder &b, Value spread,
                                               int64_t atoms) const {
  const SpreadPlan &sp = *forms.spreadPlan();
  int64_t acc = layout.accPerLane();
  auto st = cast<VectorType>(spread.getType());
  SmallVector<Value> cols;
  for (int64_t j = 0; j < atoms; ++j) {
    SmallVector<Value> e;
    // Registers of one column (NVIDIA's rows q and q + 8) share a broadcast.
    DenseMap<int64_t, Value> ofElement;
    for (int64_t r = 0; r < acc; ++r) {
      int64_t el = sp.elementOf(j, r);
      Value &v = ofElement[el];
      if (!v) {
        Value x = vector::ExtractOp::create(b, spread, el / sp.g);
        v = ti.broadcastInGroup(b, b.getLoc(), x, el % sp.g, laneV);
      }
      e.push_back(v);
    }
    cols.push_back(vector::FromElementsOp::create(
        b, VectorType::get({acc}, st.getElementType()), e));
  }
  return cols;
}

Value LaneContext::splatScalar(ImplicitLocOpBuilder &b, Value orig,
                               function_ref<Value(Value)> remap) const {
  if (auto c = orig.getDefiningOp<arith::ConstantOp>()) {
    Attribute v = cast<SplatElementsAttr>(c.getValue()).getSplatValue<Attribute>();
    if (getElementTypeOrSelf(c.getType()).isIndex())
      v = b.getI32IntegerAttr(cast<IntegerAttr>(v).getInt());
    return arith::ConstantOp::create(b, cast<TypedAttr>(v));
  }
  auto bc = orig.getDefiningOp<vector::BroadcastOp>();
  Value s = remap(bc.getSource());
  return s.getType().isIndex() ? laneToI32(b, s) : s;
}

Value LaneContext::queryOfSlot(ImplicitLocOpBuilder &b, int64_t s) const {
  return arith::AddIOp::create(
      b, waveRow0,
      arith::AddIOp::create(b, qLaneV, laneConstI32(b, layout.slotQ[s])));
}

Value LaneContext::colOf(ImplicitLocOpBuilder &b, int64_t j, int64_t v) const {
  return arith::AddIOp::create(
      b, nLaneV, laneConstI32(b, j * layout.atomN + layout.nReg[v]));
}

Value LaneContext::rowsToAcc(ImplicitLocOpBuilder &b,
                             ArrayRef<Value> slotVals) const {
  VectorType t = VectorType::get({layout.accPerLane()}, slotVals[0].getType());
  if (slotVals.size() == 1)
    return vector::BroadcastOp::create(b, t, slotVals[0]);
  SmallVector<Value> e;
  for (int64_t v = 0; v < layout.accPerLane(); ++v)
    e.push_back(slotVals[layout.slotOfReg[v]]);
  return vector::FromElementsOp::create(b, t, e);
}

Value LaneContext::colConst(ImplicitLocOpBuilder &b, int64_t j) const {
  SmallVector<int32_t> c;
  for (int64_t v = 0; v < layout.accPerLane(); ++v)
    c.push_back(static_cast<int32_t>(j * layout.atomN + layout.nReg[v]));
  VectorType t = VectorType::get({layout.accPerLane()}, b.getI32Type());
  return arith::ConstantOp::create(b, t, b.getI32VectorAttr(c));
}

Value LaneContext::materializeAffine(ImplicitLocOpBuilder &b, Value base,
                                     int64_t j) const {
  VectorType t = VectorType::get({layout.accPerLane()}, b.getI32Type());
  return arith::AddIOp::create(b, colConst(b, j),
                               vector::BroadcastOp::create(b, t, base));
}

Value LaneContext::sliceElements(ImplicitLocOpBuilder &b, Value v, int64_t off,
                                 int64_t len) {
  auto vt = cast<VectorType>(v.getType());
  auto t = VectorType::get({len}, vt.getElementType());
  DenseElementsAttr d;
  if (matchPattern(v, m_Constant(&d))) {
    SmallVector<Attribute> e(d.getValues<Attribute>());
    return arith::ConstantOp::create(
        b, t, DenseElementsAttr::get(t, ArrayRef<Attribute>(e).slice(off, len)));
  }
  if (auto bc = v.getDefiningOp<vector::BroadcastOp>();
      bc && !isa<VectorType>(bc.getSource().getType()))
    return vector::BroadcastOp::create(b, t, bc.getSource());
  SmallVector<int64_t> ix;
  for (int64_t i = 0; i < len; ++i)
    ix.push_back(off + i);
  return vector::ShuffleOp::create(b, v, v, ix);
}

Value LaneContext::replaceElements(ImplicitLocOpBuilder &b, Value into, Value part,
                                   int64_t off) {
  int64_t n = cast<VectorType>(into.getType()).getDimSize(0);
  int64_t len = cast<VectorType>(part.getType()).getDimSize(0);
  // Shuffle indices from n on pick part's elements.
  SmallVector<int64_t> ix;
  for (int64_t i = 0; i < n; ++i)
    ix.push_back(i >= off && i < off + len ? n + i - off : i);
  return vector::ShuffleOp::create(b, into, part, ix);
}

Value LaneContext::maskOfAtom(ImplicitLocOpBuilder &b, const LaneValues &m,
                              int64_t j, int64_t off, int64_t len) const {
  // The elements [off, off + len) of an atom's vector (all when len is 0).
  auto slice = [&](Value v) { return len ? sliceElements(b, v, off, len) : v; };
  Value c = slice(colConst(b, j)), r;
  Value lo = m.lb.empty() ? Value() : slice(m.lb[j]);
  Value hi = m.ub.empty() ? Value() : slice(m.ub[j]);
  if (lo && hi) {
    // Both bounds (a window's): lb <= c <= ub as one unsigned compare,
    // c - lb <u max(ub - lb + 1, 0), where c - lb wraps to a huge value
    // below lb. The two signed compares and their and cost a lane mask
    // each per element (64-bit SGPR pairs on AMDGPU: the window kernels
    // spilled 22 SGPRs), and c stays a constant either way (no per-element
    // column register). Columns are >= 0, so lb clamps at 0 first: ub is
    // at most the sequence's end (joined with key < seq_len), and
    // ub - lb + 1 cannot overflow.
    auto t = cast<VectorType>(c.getType());
    auto splat = [&](int64_t v) -> Value {
      return vector::BroadcastOp::create(b, t, laneConstI32(b, v));
    };
    Value lb = arith::MaxSIOp::create(b, lo, splat(0));
    Value count = arith::MaxSIOp::create(
        b, arith::AddIOp::create(b, arith::SubIOp::create(b, hi, lb), splat(1)),
        splat(0));
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                 arith::SubIOp::create(b, c, lb), count);
  }
  if (lo)
    r = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, c, lo);
  if (hi) {
    Value u = arith::CmpIOp::create(b, arith::CmpIPredicate::sle, c, hi);
    r = r ? Value(arith::AndIOp::create(b, r, u)) : u;
  }
  return r;
}

SmallVector<Value> LaneContext::colsOf(ImplicitLocOpBuilder &b, Value orig,
                                       const LaneValues &v) const {
  if (!v.col.empty())
    return v.col;
  int64_t n = cast<VectorType>(orig.getType()).getDimSize(0) / layout.atomN;
  if (v.spread)
    return colsFromSpread(b, v.spread, n);
  SmallVector<Value> out;
  for (int64_t j = 0; j < n; ++j)
    out.push_back(materializeAffine(b, v.aff, j));
  return out;
}

SmallVector<Value> LaneContext::accParts(ImplicitLocOpBuilder &b, Value orig,
                                         const LaneValues &v) const {
  const ValueForm &f = forms.get(orig);
  if (f.kind == FormKind::Mask) {
    SmallVector<Value> out;
    for (size_t j = 0; j < std::max(v.lb.size(), v.ub.size()); ++j)
      out.push_back(maskOfAtom(b, v, j));
    return out;
  }
  if (f.kind != FormKind::Affine)
    return v.parts;
  int64_t n = cast<VectorType>(orig.getType()).getDimSize(1) / layout.atomN;
  SmallVector<Value> out;
  for (int64_t j = 0; j < n; ++j)
    out.push_back(materializeAffine(b, v.aff, j));
  return out;
}

/// `v` as (w, k) with v = w + k, k the sum of the constant addends of the
/// chain of arith.addi that computes v (0 and v itself when none).
static std::pair<Value, int64_t> peelConstant(Value v) {
  int64_t k = 0;
  while (auto add = v.getDefiningOp<arith::AddIOp>()) {
    APInt c;
    if (matchPattern(add.getRhs(), m_ConstantInt(&c))) {
      k += c.getSExtValue();
      v = add.getLhs();
    } else if (matchPattern(add.getLhs(), m_ConstantInt(&c))) {
      k += c.getSExtValue();
      v = add.getRhs();
    } else {
      break;
    }
  }
  return {v, k};
}

Value LaneContext::ldsOffset(ImplicitLocOpBuilder &b, const ValueForm &f,
                             Value row, Value col) const {
  if (f.bankSwizzle) {
    // Chunk-major: 16-byte column chunk c of row r at (c x rows + r) x 16.
    // Constant addends (of rows, and of columns in whole chunks) are
    // added last, so that LLVM folds them into the LDS access's immediate
    // offset (else each k step's chunk took an address register).
    auto [r, rowK] = peelConstant(row);
    auto [cl, colK] = peelConstant(col);
    if (colK % 16) {
      cl = col;
      colK = 0;
    }
    Value c = arith::DivUIOp::create(b, cl, laneConstI32(b, 16));
    Value at = arith::MulIOp::create(
        b, arith::AddIOp::create(b, arith::MulIOp::create(b, c, laneConstI32(b, f.ldsRows)),
                                 r),
        laneConstI32(b, 16));
    at = arith::AddIOp::create(b, at, arith::RemUIOp::create(b, cl, laneConstI32(b, 16)));
    int64_t k = (colK / 16 * f.ldsRows + rowK) * 16;
    return k ? Value(arith::AddIOp::create(b, at, laneConstI32(b, k))) : at;
  }
  int64_t w = ti.ldsSwizzleBytes(f.ldsCols);
  if (!w)
    return arith::AddIOp::create(
        b, arith::MulIOp::create(b, row, laneConstI32(b, f.ldsCols)), col);
  // Column group g = col / W of W-byte rows; chunk c = (col % W) / 16 of
  // row r at c ^ ((r / (128 / W)) % (W / 16)).
  Value g = arith::DivUIOp::create(b, col, laneConstI32(b, w));
  Value in = arith::RemUIOp::create(b, col, laneConstI32(b, w));
  Value phase = arith::RemUIOp::create(
      b, arith::DivUIOp::create(b, row, laneConstI32(b, 128 / w)),
      laneConstI32(b, w / 16));
  Value chunk = arith::XOrIOp::create(
      b, arith::DivUIOp::create(b, in, laneConstI32(b, 16)), phase);
  Value off = arith::MulIOp::create(b, g, laneConstI32(b, f.ldsRows * w));
  off = arith::AddIOp::create(
      b, off, arith::MulIOp::create(b, row, laneConstI32(b, w)));
  off = arith::AddIOp::create(
      b, off, arith::MulIOp::create(b, chunk, laneConstI32(b, 16)));
  return arith::AddIOp::create(
      b, off, arith::RemUIOp::create(b, in, laneConstI32(b, 16)));
}

int64_t LaneContext::ldsTileOffset(const ValueForm &f, int64_t row,
                                   int64_t col) const {
  if (f.bankSwizzle)
    return ((col / 16) * f.ldsRows + row) * 16 + col % 16;
  int64_t w = ti.ldsSwizzleBytes(f.ldsCols);
  if (!w)
    return row * f.ldsCols + col;
  return (col / w) * f.ldsRows * w + row * w + col % w;
}

Value LaneContext::ringStage(ImplicitLocOpBuilder &b, const Ring &ring,
                             Value slot) const {
  Value shift = arith::MulIOp::create(
      b, laneToIndex(b, slot), arith::ConstantIndexOp::create(b, ring.stageBytes));
  auto bufT = cast<MemRefType>(ring.buffer.getType());
  auto stageT = MemRefType::get({ring.stageBytes}, bufT.getElementType(), AffineMap(),
                                bufT.getMemorySpace());
  return memref::ViewOp::create(b, stageT, ring.buffer, shift, ValueRange{});
}

Value LaneContext::ldsAddress(ImplicitLocOpBuilder &b, Value lds) const {
  Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, lds);
  return arith::IndexCastUIOp::create(b, b.getI64Type(), p);
}

Value LaneContext::stageBarrier(ImplicitLocOpBuilder &b, Value slot, bool free) const {
  return barrierAt(b, slot, free ? mbarrierStages : 0);
}

Value LaneContext::landedBarrier(ImplicitLocOpBuilder &b, Value slot) const {
  assert(tma && "landed barriers exist with TMA stages");
  return barrierAt(b, slot, 2 * mbarrierStages);
}

Value LaneContext::barrierAt(ImplicitLocOpBuilder &b, Value slot, int64_t first) const {
  Value base = ldsAddress(b, mbarriers);
  Value i = arith::AddIOp::create(
      b, arith::IndexCastUIOp::create(b, b.getI64Type(), laneToIndex(b, slot)),
      arith::ConstantIntOp::create(b, b.getI64Type(), first));
  Value at = arith::AddIOp::create(
      b, base, arith::MulIOp::create(b, i, arith::ConstantIntOp::create(b, b.getI64Type(), 8)));
  return LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(b.getContext(), 3), at);
}

Value LaneContext::wideAcc(ImplicitLocOpBuilder &b, ArrayRef<Value> parts) const {
  SmallVector<Value> elems;
  for (Value p : parts)
    for (int64_t v = 0; v < layout.accPerLane(); ++v)
      elems.push_back(vector::ExtractOp::create(b, p, v));
  return vector::FromElementsOp::create(
      b, VectorType::get({int64_t(elems.size())}, b.getF32Type()), elems);
}

SmallVector<Value> LaneContext::splitAcc(ImplicitLocOpBuilder &b, Value wide) const {
  int64_t n = cast<VectorType>(wide.getType()).getNumElements();
  SmallVector<Value> parts;
  for (int64_t j = 0; j < n / layout.accPerLane(); ++j) {
    SmallVector<Value> e;
    for (int64_t v = 0; v < layout.accPerLane(); ++v)
      e.push_back(vector::ExtractOp::create(b, wide, j * layout.accPerLane() + v));
    parts.push_back(vector::FromElementsOp::create(
        b, VectorType::get({layout.accPerLane()}, b.getF32Type()), e));
  }
  return parts;
}

/// An operand read as bytes (or already as `elem`) as a vector of `elem`:
/// fp8 one per byte (arith.bitcast), 16-bit one per two (vector.bitcast).
static Value asOperand(ImplicitLocOpBuilder &b, Value v, Type elem) {
  auto t = cast<VectorType>(v.getType());
  if (t.getElementType() == elem)
    return v;
  if (elem.getIntOrFloatBitWidth() == t.getElementTypeBitWidth())
    return arith::BitcastOp::create(b, t.clone(elem), v);
  int64_t bits = t.getNumElements() * t.getElementTypeBitWidth();
  return vector::BitCastOp::create(
      b, VectorType::get({bits / elem.getIntOrFloatBitWidth()}, elem), v);
}

Value LaneContext::loadOperand(ImplicitLocOpBuilder &b,
                               ArrayRef<FragmentRun> runs, Type fp8,
                               function_ref<Value(Value, Value, int64_t)> load) const {
  SmallVector<Value> parts;
  for (const FragmentRun &r : runs)
    parts.push_back(load(laneEmitBits(b, r.row, laneV),
                         laneEmitBits(b, r.col, laneV), r.len));
  return asOperand(b, laneConcat(b, parts), fp8);
}

SmallVector<Value> LaneContext::loadOperandAllSteps(
    ImplicitLocOpBuilder &b, ArrayRef<FragmentRun> runs, int64_t nK, Type fp8,
    function_ref<Value(Value, Value, int64_t)> load) const {
  int64_t len = runs[0].len;
  SmallVector<Value> segs;
  for (const FragmentRun &r : runs) {
    BitLinear col = r.col; // starts aligned to len: LaneForms checked it
    col.c0 *= nK;
    for (int64_t &c : col.coef)
      c *= nK;
    segs.push_back(load(laneEmitBits(b, r.row, laneV),
                        laneEmitBits(b, col, laneV), nK * len));
  }
  SmallVector<Value> steps;
  for (int64_t kk = 0; kk < nK; ++kk) {
    SmallVector<Value> pieces;
    SmallVector<int64_t> mask;
    for (int64_t i = 0; i < len; ++i)
      mask.push_back(kk * len + i);
    for (Value seg : segs)
      pieces.push_back(vector::ShuffleOp::create(b, seg, seg, mask));
    steps.push_back(asOperand(b, laneConcat(b, pieces), fp8));
  }
  return steps;
}
