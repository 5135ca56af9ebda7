//===- LowerTiles.cpp - convert-fmha-to-gpu parts 2-5: lanes and registers ===//
//
// Rewrites the body of an outlined kernel from whole-tile vectors to the code
// of one lane (GPU_LOWERING.md sections 2-3):
//
// - Every 2-d f32/i1/index tile [BM x N] lives in MMA accumulator layout: wave
//   w owns BM/warps query rows, and per lane one vector<accPerLane> per MMA
//   atom along N. Where an element sits comes from TargetInfo::accElem, split
//   into a lane part and a register part (both checked to be exact).
// - 1-d tiles come in two forms, made eagerly where their producers allow:
//   "row" (one scalar per query row the lane holds) and "col" (the column
//   value at every accumulator element). Reductions over dim 1 give rows;
//   vector.broadcast to 2-d takes columns, shape_cast to [BM x 1] takes rows.
// - Q is loaded once into MMA operand registers; K and V tiles go through
//   LDS (workgroup attributions): K row-major, V transposed at the chip's
//   pvKeyPosition so P feeds the PV product from the score accumulators with
//   no data movement.
// - Lane-dependent indices are linear in the lane's bits (a small linear
//   layout); every such function is fitted at compile time and checked on
//   every lane before it is emitted.
//
// The kernel comes with its flat ABI from fmha-outline-kernel: one
// `!llvm.ptr<1>` per memref and one i64 per dynamic size, the memrefs rebuilt
// at the top of the entry block (fp8 as i8, global space), left as they are.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/FmhaToGPU.h"
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace mlir::fmha;

namespace {

//===----------------------------------------------------------------------===//
// Linear functions of a lane (or key) index
//===----------------------------------------------------------------------===//

/// f(x) = c0 + sum over bits i of x of coef[i] (x in [0, 2^coef.size())).
struct BitLinear {
  int64_t c0 = 0;
  SmallVector<int64_t, 8> coef;
};

std::optional<BitLinear> fitBits(int64_t n, function_ref<int64_t(int64_t)> f) {
  BitLinear r;
  r.c0 = f(0);
  for (int64_t bit = 1; bit < n; bit <<= 1)
    r.coef.push_back(f(bit) - r.c0);
  for (int64_t x = 0; x < n; ++x) {
    int64_t y = r.c0;
    for (size_t i = 0; i < r.coef.size(); ++i)
      if ((x >> i) & 1)
        y += r.coef[i];
    if (y != f(x))
      return std::nullopt;
  }
  return r;
}

Value cI32(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIntOp::create(b, b.getI32Type(), v);
}
Value toIdx(ImplicitLocOpBuilder &b, Value v) {
  return v.getType().isIndex() ? v
                               : arith::IndexCastOp::create(b, b.getIndexType(), v);
}
Value toI32(ImplicitLocOpBuilder &b, Value v) {
  return v.getType().isInteger(32)
             ? v
             : arith::IndexCastOp::create(b, b.getI32Type(), v);
}

Value emitBits(ImplicitLocOpBuilder &b, const BitLinear &f, Value x) {
  Value acc = cI32(b, f.c0);
  for (size_t i = 0; i < f.coef.size(); ++i) {
    if (!f.coef[i])
      continue;
    Value bit = arith::AndIOp::create(
        b, arith::ShRUIOp::create(b, x, cI32(b, i)), cI32(b, 1));
    acc = arith::AddIOp::create(b, acc,
                                arith::MulIOp::create(b, bit, cI32(b, f.coef[i])));
  }
  return acc;
}

//===----------------------------------------------------------------------===//
// Distributed values
//===----------------------------------------------------------------------===//

struct KVStage {
  Value lds;       // memref<R*C x i8, 3>
  bool transposed; // V^T [Dv][BN] at pvKeyPosition; else K [BN][D]
  int64_t rows, cols;
};

/// A 2-d tile in accumulator layout, or a special operand.
struct Tile2D {
  enum Kind { Acc, RowBcast, QOperand, KV, P, AffineIdx, Mask } kind = Acc;
  SmallVector<Value> parts; // Acc/P: per atom vectors; RowBcast: per slot;
                            // QOperand: per k step operand; AffineIdx: the
                            // base b of element (j, v) = b + j*atomN + nReg[v]
  Type fp8;                 // P: the fp8 type
  KVStage kv;
};

struct Lowering {
  Lowering(gpu::GPUFuncOp kernel, const TargetInfo &ti, ConfigAttr cfg)
      : kernel(kernel), ti(ti), cfg(cfg),
        b(kernel.getLoc(), kernel.getContext()) {}

  gpu::GPUFuncOp kernel;
  const TargetInfo &ti;
  ConfigAttr cfg;
  ImplicitLocOpBuilder b;
  MmaAtom atom{};
  bool transposed = false;
  int64_t rowsPerWave = 0, atomN = 0, wave = 0;

  // Accumulator element (lane, reg) = query qLane(l) + qReg[v], column
  // nLane(l) + nReg[v] inside an atom.
  BitLinear qLane, nLane;
  SmallVector<int64_t> qReg, nReg, slotOfReg, slotQ;

  // Per-lane values computed once.
  Value laneV, tidV, waveRow0, qLaneV, nLaneV;

  IRMapping map;                               // scalars, memrefs
  DenseMap<Value, Tile2D> tiles;               // 2-d values
  DenseMap<Value, SmallVector<Value>> rows;    // 1-d, row form
  DenseMap<Value, SmallVector<Value>> cols;    // 1-d, col form
  DenseMap<Value, Operation *> perTokenIds;    // vector page_ids -> op
  // Column index vectors kept symbolic: element (j, v) = base + j*atomN +
  // nReg[v]. A compare against them becomes constants vs one scalar, so no
  // per-element index registers live across the KV loop.
  DenseMap<Value, Value> affCol;               // 1-d index vector -> base
  DenseMap<Value, Value> splat;                // vector -> its uniform scalar
  /// A mask over symbolic columns as bounds on the column constants C of
  /// each atom: lb <= C <= ub (either may be absent). Two bounds joined by
  /// andi give one compare pair instead of two compares and an and.
  struct Bounds {
    SmallVector<Value> lb, ub; // per atom vector<accPerLane x i32>
  };
  DenseMap<Value, Bounds> bounds;
  bool ldsWritten = false, ldsRead = false;
  SmallVector<std::pair<int64_t, Value>> ldsBuffers;
  std::string error;

  InFlightDiagnostic fail(Operation *op, const Twine &msg) {
    return op->emitOpError("convert-fmha-to-gpu (" + ti.chip() + "): " + msg);
  }

  int64_t accPerLane() const { return atom.accPerLane; }
  int64_t slots() const { return static_cast<int64_t>(slotQ.size()); }

  Type laneElemType(Type t) {
    if (t.isIndex())
      return b.getI32Type();
    return t;
  }
  VectorType accVecType(Type elem) {
    return VectorType::get({accPerLane()}, laneElemType(elem));
  }

  LogicalResult setUpLayout(Operation *at, Type kvElem) {
    std::optional<MmaAtom> a = ti.mmaAtom(kvElem);
    if (!a)
      return fail(at, "the chip's MMA does not take ") << kvElem;
    atom = *a;
    transposed = ti.transposedScores();
    wave = ti.waveSize();
    rowsPerWave = cfg.getBlockM() / cfg.getWarps();
    int64_t atomQ = transposed ? atom.n : atom.m;
    atomN = transposed ? atom.m : atom.n;
    if (rowsPerWave != atomQ)
      return fail(at, "block_m / warps = ")
             << rowsPerWave << " must equal the MMA's query extent " << atomQ;
    auto qOf = [&](int64_t l, int64_t v) {
      AccElem e = ti.accElem(l, v);
      return transposed ? e.col : e.row;
    };
    auto nOf = [&](int64_t l, int64_t v) {
      AccElem e = ti.accElem(l, v);
      return transposed ? e.row : e.col;
    };
    for (int64_t v = 0; v < accPerLane(); ++v) {
      qReg.push_back(qOf(0, v));
      nReg.push_back(nOf(0, v));
    }
    auto fq = fitBits(wave, [&](int64_t l) { return qOf(l, 0) - qReg[0]; });
    auto fn = fitBits(wave, [&](int64_t l) { return nOf(l, 0) - nReg[0]; });
    if (!fq || !fn)
      return fail(at, "accumulator layout is not linear in the lane bits");
    qLane = *fq;
    nLane = *fn;
    for (int64_t l = 0; l < wave; ++l)
      for (int64_t v = 0; v < accPerLane(); ++v)
        if (qOf(l, v) != qReg[v] + qOf(l, 0) - qReg[0] ||
            nOf(l, v) != nReg[v] + nOf(l, 0) - nReg[0])
          return fail(at, "accumulator layout does not split into lane and "
                          "register parts");
    for (int64_t v = 0; v < accPerLane(); ++v) {
      auto it = llvm::find(slotQ, qReg[v]);
      if (it == slotQ.end()) {
        slotOfReg.push_back(slotQ.size());
        slotQ.push_back(qReg[v]);
      } else {
        slotOfReg.push_back(it - slotQ.begin());
      }
    }
    return success();
  }

  //===--- per-lane index helpers -----------------------------------------===//

  /// Query row (in the q tile) of row slot s, i32.
  Value queryOfSlot(int64_t s) {
    return arith::AddIOp::create(b, waveRow0,
                                 arith::AddIOp::create(b, qLaneV, cI32(b, slotQ[s])));
  }
  /// Column of (atom j, reg v), i32.
  Value colOf(int64_t j, int64_t v) {
    return arith::AddIOp::create(b, nLaneV, cI32(b, j * atomN + nReg[v]));
  }
  /// vector<accPerLane x T> whose element v is the row slot value of v.
  Value rowsToAcc(ArrayRef<Value> slotVals) {
    VectorType t = VectorType::get({accPerLane()}, slotVals[0].getType());
    if (slotVals.size() == 1)
      return vector::BroadcastOp::create(b, t, slotVals[0]);
    SmallVector<Value> e;
    for (int64_t v = 0; v < accPerLane(); ++v)
      e.push_back(slotVals[slotOfReg[v]]);
    return vector::FromElementsOp::create(b, t, e);
  }

  /// The constant column offsets of atom j.
  Value colConst(int64_t j) {
    SmallVector<int32_t> c;
    for (int64_t v = 0; v < accPerLane(); ++v)
      c.push_back(static_cast<int32_t>(j * atomN + nReg[v]));
    VectorType t = VectorType::get({accPerLane()}, b.getI32Type());
    return arith::ConstantOp::create(b, t, b.getI32VectorAttr(c));
  }
  Value materializeAffine(Value base, int64_t j) {
    VectorType t = VectorType::get({accPerLane()}, b.getI32Type());
    return arith::AddIOp::create(b, colConst(j),
                                 vector::BroadcastOp::create(b, t, base));
  }
  /// The mask lb <= C <= ub of atom j.
  Value maskOfAtom(const Bounds &bd, int64_t j) {
    Value c = colConst(j), m;
    if (!bd.lb.empty())
      m = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, c, bd.lb[j]);
    if (!bd.ub.empty()) {
      Value u = arith::CmpIOp::create(b, arith::CmpIPredicate::sle, c, bd.ub[j]);
      m = m ? Value(arith::AndIOp::create(b, m, u)) : u;
    }
    return m;
  }
  bool hasCol(Value v) { return cols.count(v) || affCol.count(v); }
  SmallVector<Value> colsOf(Value v) {
    if (cols.count(v))
      return cols[v];
    int64_t n = cast<VectorType>(v.getType()).getDimSize(0) / atomN;
    SmallVector<Value> out;
    for (int64_t j = 0; j < n; ++j)
      out.push_back(materializeAffine(affCol[v], j));
    return out;
  }
  /// Accumulator-layout parts of a 2-d value (materializes symbolic ones).
  SmallVector<Value> accParts(Value v) {
    Tile2D &t = tiles[v];
    if (t.kind == Tile2D::Mask) {
      const Bounds &bd = bounds[v];
      SmallVector<Value> out;
      for (size_t j = 0; j < std::max(bd.lb.size(), bd.ub.size()); ++j)
        out.push_back(maskOfAtom(bd, j));
      return out;
    }
    if (t.kind != Tile2D::AffineIdx)
      return t.parts;
    int64_t n = cast<VectorType>(v.getType()).getDimSize(1) / atomN;
    SmallVector<Value> out;
    for (int64_t j = 0; j < n; ++j)
      out.push_back(materializeAffine(t.parts[0], j));
    return out;
  }

  //===--- fragment loads: runs of contiguous bytes -----------------------===//

  struct Run {
    int64_t e0, len;
    BitLinear row, col;
  };

  /// Splits a lane's operand elements into runs of one row and consecutive
  /// columns, the same on every lane, with linear row/col starts.
  FailureOr<SmallVector<Run>>
  fragmentRuns(Operation *at, int64_t perLane,
               std::function<FragElem(int64_t, int64_t)> frag) {
    SmallVector<Run> runs;
    for (int64_t e = 0; e < perLane;) {
      int64_t len = 1;
      while (e + len < perLane) {
        bool ok = true;
        for (int64_t l = 0; l < wave && ok; ++l) {
          FragElem s = frag(l, e), n = frag(l, e + len);
          ok = n.row == s.row && n.col == s.col + len;
        }
        if (!ok)
          break;
        ++len;
      }
      auto r = fitBits(wave, [&](int64_t l) { return frag(l, e).row; });
      auto c = fitBits(wave, [&](int64_t l) { return frag(l, e).col; });
      if (!r || !c)
        return fail(at, "operand layout is not linear in the lane bits"),
               failure();
      runs.push_back({e, len, *r, *c});
      e += len;
    }
    for (const Run &r : runs)
      if (r.len != runs[0].len || (runs.size() & (runs.size() - 1)))
        return fail(at, "operand runs of unequal length"), failure();
    return runs;
  }

  /// Concatenates equal vectors pairwise.
  Value concat(SmallVector<Value> parts) {
    while (parts.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i < parts.size(); i += 2) {
        int64_t n = cast<VectorType>(parts[i].getType()).getNumElements();
        SmallVector<int64_t> mask;
        for (int64_t k = 0; k < 2 * n; ++k)
          mask.push_back(k);
        next.push_back(vector::ShuffleOp::create(b, parts[i], parts[i + 1], mask));
      }
      parts = std::move(next);
    }
    return parts[0];
  }

  /// Loads one operand: for every run, `load(row, col, len)` gives
  /// vector<len x i8>; the result is bitcast to vector<perLane x fp8>.
  Value loadOperand(ArrayRef<Run> runs, Type fp8,
                    function_ref<Value(Value, Value, int64_t)> load) {
    SmallVector<Value> parts;
    for (const Run &r : runs)
      parts.push_back(load(emitBits(b, r.row, laneV), emitBits(b, r.col, laneV), r.len));
    Value bytes = concat(parts);
    auto t = cast<VectorType>(bytes.getType());
    return arith::BitcastOp::create(b, t.clone(fp8), bytes);
  }

  /// All nK k steps of one MMA operand at once. The contraction index of step
  /// kk, lane slot k is (k / L) * nK * L + kk * L + k % L for runs of length
  /// L: a permutation of [0, nK * K) that both operands of the product use
  /// (free by property P1), which makes each run's bytes over all steps one
  /// contiguous segment (one wide load instead of nK narrow ones).
  FailureOr<SmallVector<Value>>
  loadOperandAllSteps(Operation *at, ArrayRef<Run> runs, int64_t nK, Type fp8,
                      function_ref<Value(Value, Value, int64_t)> load) {
    int64_t len = runs[0].len;
    SmallVector<Value> segs;
    for (const Run &r : runs) {
      BitLinear col = r.col;
      if (col.c0 % len)
        return fail(at, "operand run start not aligned"), failure();
      col.c0 *= nK;
      for (int64_t &c : col.coef) {
        if (c % len)
          return fail(at, "operand run start not aligned"), failure();
        c *= nK;
      }
      segs.push_back(load(emitBits(b, r.row, laneV), emitBits(b, col, laneV), nK * len));
    }
    SmallVector<Value> steps;
    for (int64_t kk = 0; kk < nK; ++kk) {
      SmallVector<Value> pieces;
      SmallVector<int64_t> mask;
      for (int64_t i = 0; i < len; ++i)
        mask.push_back(kk * len + i);
      for (Value seg : segs)
        pieces.push_back(vector::ShuffleOp::create(b, seg, seg, mask));
      Value bytes = concat(pieces);
      steps.push_back(arith::BitcastOp::create(
          b, cast<VectorType>(bytes.getType()).clone(fp8), bytes));
    }
    return steps;
  }

  //===--- the walk -------------------------------------------------------===//

  LogicalResult lowerBlock(Block &from);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerFor(scf::ForOp op);
  LogicalResult lowerIf(scf::IfOp op);
  LogicalResult lowerElementwise(Operation *op);
  LogicalResult lowerConstant(arith::ConstantOp op);
  LogicalResult lowerBroadcast(vector::BroadcastOp op);
  LogicalResult lowerReduction(vector::MultiDimReductionOp op);
  LogicalResult lowerExp2(math::Exp2Op op);
  LogicalResult lowerLoadRows(LoadRowsOp op);
  LogicalResult lowerStoreRows(StoreRowsOp op);
  LogicalResult lowerPageIds(PageIdsOp op);
  LogicalResult lowerGatherDescale(GatherDescaleOp op);
  LogicalResult lowerGatherKV(GatherKVOp op);
  LogicalResult lowerTileMma(TileMmaOp op);
  LogicalResult run();

  Value scalar(Value v) { return map.lookupOrDefault(v); }
  Value fence();
  Value uniformIdOrRecompute(Value ids);
  Value pageIdOfKey(PageIdsOp ids, Value key, Value valid);
  int64_t pageSizeOf(Value kscale);
};

/// Whether v is provably a multiple of p (a constant, or a product with one).
bool isMultipleOf(Value v, int64_t p) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c % p == 0;
  if (auto mul = v.getDefiningOp<arith::MulIOp>())
    return isMultipleOf(mul.getLhs(), p) || isMultipleOf(mul.getRhs(), p);
  return false;
}

/// x pred y == y swapped(pred) x.
arith::CmpIPredicate swapped(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::slt: return P::sgt;
  case P::sgt: return P::slt;
  case P::sle: return P::sge;
  case P::sge: return P::sle;
  case P::ult: return P::ugt;
  case P::ugt: return P::ult;
  case P::ule: return P::uge;
  case P::uge: return P::ule;
  default: return p;
  }
}

bool is1D(Value v) {
  auto t = dyn_cast<VectorType>(v.getType());
  return t && t.getRank() == 1;
}
bool is2D(Value v) {
  auto t = dyn_cast<VectorType>(v.getType());
  return t && t.getRank() == 2;
}

Value Lowering::fence() {
  if (ldsWritten) {
    ti.barrier(b, b.getLoc());
    ldsWritten = false;
  }
  ldsRead = true;
  return Value();
}

LogicalResult Lowering::lowerBlock(Block &from) {
  for (Operation &op : from.without_terminator())
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

LogicalResult Lowering::lowerElementwise(Operation *op) {
  b.setLoc(op->getLoc());
  auto build = [&](ArrayRef<Value> operands, Type resElem,
                   std::optional<int64_t> n) {
    OperationState st(op->getLoc(), op->getName());
    st.addOperands(operands);
    Type t = laneElemType(resElem);
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
  Value res = op->getResult(0);
  Type resElem = cast<VectorType>(res.getType()).getElementType();
  auto isAff2 = [&](Value v) {
    return is2D(v) && tiles.count(v) && tiles[v].kind == Tile2D::AffineIdx;
  };
  if (is2D(res)) {
    // Symbolic column indices: base + s stays symbolic; a compare becomes
    // constants against (other - base).
    if (auto add = dyn_cast<arith::AddIOp>(op)) {
      for (int i = 0; i < 2; ++i)
        if (isAff2(add->getOperand(i)) && splat.count(add->getOperand(1 - i))) {
          Value base = arith::AddIOp::create(b, tiles[add->getOperand(i)].parts[0],
                                             splat[add->getOperand(1 - i)]);
          tiles[res] = Tile2D{Tile2D::AffineIdx, {base}, {}, {}};
          return success();
        }
    }
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      Value l = cmp.getLhs(), r = cmp.getRhs();
      arith::CmpIPredicate pred = cmp.getPredicate();
      if (!isAff2(l) && isAff2(r)) {
        std::swap(l, r);
        pred = swapped(pred);
      }
      using P = arith::CmpIPredicate;
      if (isAff2(l) && !isAff2(r) && tiles.count(r) &&
          llvm::is_contained({P::slt, P::sle, P::sgt, P::sge}, pred)) {
        Value base = tiles[l].parts[0];
        VectorType t = VectorType::get({accPerLane()}, b.getI32Type());
        SmallVector<Value> rp = accParts(r);
        Bounds bd;
        for (size_t j = 0; j < rp.size(); ++j) {
          Value rel = splat.count(r)
                          ? Value(vector::BroadcastOp::create(
                                b, t, arith::SubIOp::create(b, splat[r], base)))
                          : Value(arith::SubIOp::create(
                                b, rp[j], vector::BroadcastOp::create(b, t, base)));
          Value one = vector::BroadcastOp::create(b, t, cI32(b, 1));
          if (pred == P::slt)
            bd.ub.push_back(arith::SubIOp::create(b, rel, one));
          else if (pred == P::sle)
            bd.ub.push_back(rel);
          else if (pred == P::sgt)
            bd.lb.push_back(arith::AddIOp::create(b, rel, one));
          else
            bd.lb.push_back(rel);
        }
        tiles[res] = Tile2D{Tile2D::Mask, {}, {}, {}};
        bounds[res] = bd;
        return success();
      }
    }
    if (auto andOp = dyn_cast<arith::AndIOp>(op)) {
      Value x = andOp.getLhs(), y = andOp.getRhs();
      if (bounds.count(x) && bounds.count(y)) {
        Bounds bx = bounds[x], by = bounds[y], bd;
        auto join = [&](ArrayRef<Value> u, ArrayRef<Value> v, bool lower) {
          SmallVector<Value> o;
          if (u.empty() || v.empty())
            return SmallVector<Value>(u.empty() ? v : u);
          for (size_t j = 0; j < u.size(); ++j)
            o.push_back(lower ? Value(arith::MaxSIOp::create(b, u[j], v[j]))
                              : Value(arith::MinSIOp::create(b, u[j], v[j])));
          return o;
        };
        bd.lb = join(bx.lb, by.lb, true);
        bd.ub = join(bx.ub, by.ub, false);
        tiles[res] = Tile2D{Tile2D::Mask, {}, {}, {}};
        bounds[res] = bd;
        return success();
      }
    }
    // A select on a mask: each atom's compares right before its selects,
    // with a scheduling fence between atoms, so masks (SGPR pairs on
    // AMDGPU) do not pile up.
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      Value c = sel.getCondition();
      if (is2D(c) && tiles.count(c) && tiles[c].kind == Tile2D::Mask &&
          tiles.count(sel.getTrueValue()) && tiles.count(sel.getFalseValue())) {
        SmallVector<Value> tv = accParts(sel.getTrueValue()),
                           fv = accParts(sel.getFalseValue());
        Tile2D out;
        for (size_t j = 0; j < tv.size(); ++j) {
          Value m = maskOfAtom(bounds[c], j);
          out.parts.push_back(arith::SelectOp::create(b, m, tv[j], fv[j]));
          ti.schedulingFence(b, b.getLoc());
        }
        tiles[res] = out;
        return success();
      }
    }
    Tile2D out;
    SmallVector<SmallVector<Value>> operandParts;
    int64_t atoms = -1;
    for (Value o : op->getOperands()) {
      if (!is2D(o)) {
        operandParts.push_back({});
        continue;
      }
      auto it = tiles.find(o);
      if (it == tiles.end() ||
          (it->second.kind != Tile2D::Acc && it->second.kind != Tile2D::AffineIdx &&
           it->second.kind != Tile2D::Mask))
        return fail(op, "operand is not an accumulator-layout tile");
      operandParts.push_back(accParts(o));
      atoms = operandParts.back().size();
    }
    for (int64_t j = 0; j < atoms; ++j) {
      SmallVector<Value> ops;
      for (auto [i, o] : llvm::enumerate(op->getOperands()))
        ops.push_back(is2D(o) ? operandParts[i][j] : scalar(o));
      out.parts.push_back(build(ops, resElem, accPerLane()));
    }
    tiles[res] = out;
    return success();
  }
  if (auto add = dyn_cast<arith::AddIOp>(op)) {
    for (int i = 0; i < 2; ++i)
      if (affCol.count(add->getOperand(i)) && splat.count(add->getOperand(1 - i)))
        affCol[res] = arith::AddIOp::create(b, affCol[add->getOperand(i)],
                                            splat[add->getOperand(1 - i)]);
  }
  // 1-d: every form all vector operands have.
  bool allRow = true, allCol = !affCol.count(res);
  size_t atoms = 0;
  for (Value o : op->getOperands()) {
    if (!is1D(o))
      continue;
    allRow &= rows.count(o) > 0;
    allCol &= hasCol(o);
    atoms = cast<VectorType>(o.getType()).getDimSize(0) / atomN;
  }
  if (allRow) {
    SmallVector<Value> out;
    for (int64_t s = 0; s < slots(); ++s) {
      SmallVector<Value> ops;
      for (Value o : op->getOperands())
        ops.push_back(is1D(o) ? rows[o][s] : scalar(o));
      out.push_back(build(ops, resElem, std::nullopt));
    }
    rows[res] = out;
  }
  if (allCol) {
    SmallVector<SmallVector<Value>> operandCols;
    for (Value o : op->getOperands())
      operandCols.push_back(is1D(o) ? colsOf(o) : SmallVector<Value>{});
    SmallVector<Value> out;
    for (size_t j = 0; j < atoms; ++j) {
      SmallVector<Value> ops;
      for (auto [i, o] : llvm::enumerate(op->getOperands()))
        ops.push_back(is1D(o) ? operandCols[i][j] : scalar(o));
      out.push_back(build(ops, resElem, accPerLane()));
    }
    cols[res] = out;
  }
  if (!allRow && !allCol && !affCol.count(res))
    return fail(op, "mixes row and column vectors");
  return success();
}

LogicalResult Lowering::lowerConstant(arith::ConstantOp op) {
  auto t = cast<VectorType>(op.getType());
  auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
  if (!dense)
    return fail(op, "only splat vector constants are supported");
  Attribute v = dense.getSplatValue<Attribute>();
  Type elem = laneElemType(t.getElementType());
  if (t.getElementType().isIndex())
    v = b.getI32IntegerAttr(cast<IntegerAttr>(v).getInt());
  Value s = arith::ConstantOp::create(b, cast<TypedAttr>(v));
  (void)elem;
  splat[op] = s;
  VectorType vt = accVecType(t.getElementType());
  Value vec = vector::BroadcastOp::create(b, vt, s);
  if (t.getRank() == 2) {
    tiles[op] = Tile2D{Tile2D::Acc,
                       SmallVector<Value>(t.getDimSize(1) / atomN, vec), {}, {}};
    return success();
  }
  rows[op] = SmallVector<Value>(slots(), s);
  cols[op] = SmallVector<Value>(t.getDimSize(0) / atomN, vec);
  return success();
}

LogicalResult Lowering::lowerBroadcast(vector::BroadcastOp op) {
  Value src = op.getSource();
  VectorType t = op.getResultVectorType();
  if (!isa<VectorType>(src.getType())) {
    Value s = scalar(src);
    if (s.getType().isIndex())
      s = toI32(b, s);
    Value vec = vector::BroadcastOp::create(b, accVecType(t.getElementType()), s);
    int64_t n = t.getShape().back() / atomN;
    splat[op] = s;
    if (t.getRank() == 2) {
      tiles[op] = Tile2D{Tile2D::Acc, SmallVector<Value>(n, vec), {}, {}};
    } else {
      rows[op] = SmallVector<Value>(slots(), s);
      cols[op] = SmallVector<Value>(n, vec);
    }
    return success();
  }
  if (is1D(src) && t.getRank() == 2 && affCol.count(src) && !cols.count(src)) {
    tiles[op] = Tile2D{Tile2D::AffineIdx, {affCol[src]}, {}, {}};
    return success();
  }
  if (is1D(src) && t.getRank() == 2) {
    if (!cols.count(src))
      return fail(op, "broadcast of a vector that has no column form");
    tiles[op] = Tile2D{Tile2D::Acc, cols[src], {}, {}};
    return success();
  }
  if (is2D(src) && tiles.count(src) && tiles[src].kind == Tile2D::RowBcast) {
    Tile2D out;
    Value v = rowsToAcc(tiles[src].parts);
    out.parts.assign(t.getDimSize(1) / atomN, v);
    tiles[op] = out;
    return success();
  }
  return fail(op, "unsupported broadcast");
}

LogicalResult Lowering::lowerReduction(vector::MultiDimReductionOp op) {
  if (op.getReductionDims().size() != 1 || op.getReductionDims()[0] != 1 ||
      !tiles.count(op.getSource()) || !rows.count(op.getAcc()))
    return fail(op, "only row reductions (dim 1) of accumulator tiles");
  const Tile2D &src = tiles[op.getSource()];
  auto combine = [&](Value x, Value y) -> Value {
    switch (op.getKind()) {
    case vector::CombiningKind::MAXIMUMF:
      // maxnum: no NaN-propagation code (v_cmp_o + v_cndmask per element);
      // scores are NaN only for NaN inputs.
      return ti.maxF(b, b.getLoc(), x, y);
    case vector::CombiningKind::MAXNUMF:
      return ti.maxF(b, b.getLoc(), x, y);
    case vector::CombiningKind::ADD:
      return arith::AddFOp::create(b, x, y);
    default:
      return Value();
    }
  };
  // Atoms first (vector ops), then the registers of each slot, then lanes.
  Value v = src.parts[0];
  for (size_t j = 1; j < src.parts.size(); ++j)
    v = combine(v, src.parts[j]);
  if (!v)
    return fail(op, "unsupported reduction kind");
  SmallVector<Value> out;
  for (int64_t s = 0; s < slots(); ++s) {
    SmallVector<Value> xs;
    for (int64_t r = 0; r < accPerLane(); ++r)
      if (slotOfReg[r] == s)
        xs.push_back(vector::ExtractOp::create(b, v, r));
    while (xs.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i + 1 < xs.size(); i += 2)
        next.push_back(combine(xs[i], xs[i + 1]));
      if (xs.size() % 2)
        next.push_back(xs.back());
      xs = std::move(next);
    }
    Value x = xs[0];
    for (int64_t mask : ti.rowReduceXorMasks())
      x = combine(x, ti.shuffleXor(b, b.getLoc(), x, mask));
    out.push_back(combine(x, rows[op.getAcc()][s]));
  }
  rows[op] = out;
  return success();
}

LogicalResult Lowering::lowerExp2(math::Exp2Op op) {
  auto perElem = [&](Value vec) {
    auto t = cast<VectorType>(vec.getType());
    SmallVector<Value> e;
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      e.push_back(ti.exp2(b, b.getLoc(), vector::ExtractOp::create(b, vec, i)));
    return Value(vector::FromElementsOp::create(b, t, e));
  };
  Value x = op.getOperand();
  if (is2D(x)) {
    Tile2D out;
    for (Value p : tiles[x].parts)
      out.parts.push_back(perElem(p));
    tiles[op] = out;
    return success();
  }
  if (rows.count(x)) {
    SmallVector<Value> out;
    for (Value s : rows[x])
      out.push_back(ti.exp2(b, b.getLoc(), s));
    rows[op] = out;
  }
  if (cols.count(x)) {
    SmallVector<Value> out;
    for (Value p : cols[x])
      out.push_back(perElem(p));
    cols[op] = out;
  }
  return success();
}

LogicalResult Lowering::lowerLoadRows(LoadRowsOp op) {
  VectorType t = op.getResult().getType();
  if (t.getRank() != 2)
    return fail(op, "only 2-d row loads");
  Type elem = t.getElementType();
  if (elem != atom.aElem)
    return fail(op, "Q of type ")
           << elem << " must have the KV cache's fp8 type " << atom.aElem
           << " (16-bit Q is not lowered to the GPU yet)";
  int64_t perLane = transposed ? atom.bPerLane : atom.aPerLane;
  auto frag = [&](int64_t l, int64_t e) -> FragElem {
    if (transposed) {
      FragElem f = ti.bFragElem(l, e);
      return {f.col, f.row}; // (query, k)
    }
    return ti.aFragElem(l, e); // (query, k)
  };
  auto runs = fragmentRuns(op, perLane, frag);
  if (failed(runs))
    return failure();
  Value src = scalar(op.getSource());
  Value row0 = scalar(op.getRow0()), head = scalar(op.getHead());
  Value nRows = toI32(b, scalar(op.getNumRows()));
  Value last = arith::SubIOp::create(b, nRows, cI32(b, 1));
  Tile2D out;
  out.kind = Tile2D::QOperand;
  auto steps = loadOperandAllSteps(
      op, *runs, t.getDimSize(1) / atom.k, elem, [&](Value r, Value c, int64_t len) {
        Value q = arith::AddIOp::create(b, waveRow0, r);
        Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, q, nRows);
        Value qc = arith::MinSIOp::create(b, q, last);
        Value row = arith::AddIOp::create(b, row0, toIdx(b, qc));
        VectorType vt = VectorType::get({len}, b.getI8Type());
        Value v = vector::LoadOp::create(b, vt, src, ValueRange{row, head, toIdx(b, c)});
        Value zero = arith::ConstantOp::create(b, vt, b.getZeroAttr(vt));
        return Value(arith::SelectOp::create(b, valid, v, zero));
      });
  if (failed(steps))
    return failure();
  out.parts = *steps;
  tiles[op] = out;
  return success();
}

LogicalResult Lowering::lowerStoreRows(StoreRowsOp op) {
  Value val = op.getValue();
  Value dest = scalar(op.getDest());
  Value row0 = scalar(op.getRow0()), head = scalar(op.getHead());
  Value nRows = toI32(b, scalar(op.getNumRows()));
  if (is1D(val)) { // lse: one lane per row writes
    if (!rows.count(val))
      return fail(op, "1-d store of a vector without row form");
    Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, nLaneV, cI32(b, 0));
    for (int64_t s = 0; s < slots(); ++s) {
      Value q = queryOfSlot(s);
      Value ok = arith::AndIOp::create(
          b, first, arith::CmpIOp::create(b, arith::CmpIPredicate::slt, q, nRows));
      auto ifOp = scf::IfOp::create(b, ok, /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      memref::StoreOp::create(b, rows[val][s], dest,
                              ValueRange{arith::AddIOp::create(b, row0, toIdx(b, q)), head});
    }
    return success();
  }
  if (!tiles.count(val) || tiles[val].kind != Tile2D::Acc)
    return fail(op, "stores only accumulator-layout tiles");
  // Runs of consecutive columns in one row slot: one vector store each.
  SmallVector<std::pair<int64_t, int64_t>> runs; // (first reg, len)
  for (int64_t v = 0; v < accPerLane();) {
    int64_t len = 1;
    while (v + len < accPerLane() && slotOfReg[v + len] == slotOfReg[v] &&
           nReg[v + len] == nReg[v] + len)
      ++len;
    runs.push_back({v, len});
    v += len;
  }
  Type elem = cast<VectorType>(val.getType()).getElementType();
  for (int64_t s = 0; s < slots(); ++s) {
    Value q = queryOfSlot(s);
    Value ok = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, q, nRows);
    auto ifOp = scf::IfOp::create(b, ok, /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value row = arith::AddIOp::create(b, row0, toIdx(b, q));
    for (size_t j = 0; j < tiles[val].parts.size(); ++j) {
      Value part = tiles[val].parts[j];
      for (auto [v0, len] : runs) {
        if (slotOfReg[v0] != s)
          continue;
        SmallVector<int64_t> mask;
        for (int64_t i = 0; i < len; ++i)
          mask.push_back(v0 + i);
        Value piece = vector::ShuffleOp::create(b, part, part, mask);
        Value col = toIdx(b, colOf(j, v0));
        (void)elem;
        vector::StoreOp::create(b, piece, dest, ValueRange{row, head, col});
      }
    }
  }
  return success();
}

Value Lowering::pageIdOfKey(PageIdsOp ids, Value key, Value valid) {
  // pages[valid ? key / P : 0]; slot 0 exists whenever a tile is processed.
  Value pages = scalar(ids.getPages());
  Value slot = arith::DivUIOp::create(b, key, cI32(b, ids.getPageSize()));
  slot = arith::SelectOp::create(b, valid, slot, cI32(b, 0));
  return memref::LoadOp::create(b, pages, ValueRange{toIdx(b, slot)});
}

LogicalResult Lowering::lowerPageIds(PageIdsOp op) {
  if (isa<VectorType>(op.getIds().getType())) {
    perTokenIds[op] = op; // recomputed per key where used
    return success();
  }
  // Uniform: pages[start / P] when start < len, else -1 (never dereferenced).
  Value start = toI32(b, scalar(op.getTileStart()));
  Value len = toI32(b, scalar(op.getSeqLen()));
  Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, start, len);
  auto loop = op->getParentOfType<scf::ForOp>();
  if (loop && loop->hasAttr(kKVLoopAttr)) {
    // In the KV loop a tile is being processed, so the sequence owns slot 0:
    // the next tile's id reads a valid slot either way (no branch).
    Value id = pageIdOfKey(op, start, valid);
    map.map(op.getIds(),
            arith::SelectOp::create(b, valid, id, cI32(b, -1)).getResult());
    return success();
  }
  // The prologue of the prefetch: Sk may be 0, and the sequence then owns
  // no page-table entry (with CSR, kv_indptr[b] may be kv_page_indices'
  // end). Read only when the tile exists (a wave-uniform branch).
  auto guarded = scf::IfOp::create(b, TypeRange{b.getI32Type()}, valid,
                                   /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&guarded.getThenRegion().front());
    scf::YieldOp::create(b, pageIdOfKey(op, start, valid));
    b.setInsertionPointToStart(&guarded.getElseRegion().front());
    scf::YieldOp::create(b, cI32(b, -1));
  }
  map.map(op.getIds(), guarded.getResult(0));
  return success();
}

LogicalResult Lowering::lowerGatherDescale(GatherDescaleOp op) {
  Value ds = scalar(op.getDescale()), head = scalar(op.getHead());
  auto load = [&](Value id) {
    Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, id, cI32(b, 0));
    Value safe = arith::SelectOp::create(b, valid, id, cI32(b, 0));
    Value v = memref::LoadOp::create(b, ds, ValueRange{toIdx(b, safe), head});
    Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
    return Value(arith::SelectOp::create(b, valid, v, zero));
  };
  if (!isa<VectorType>(op.getResult().getType())) {
    map.map(op.getResult(), load(scalar(op.getIds())));
    return success();
  }
  auto ids = op.getIds().getDefiningOp<PageIdsOp>();
  if (!ids || !perTokenIds.count(ids))
    return fail(op, "per-key descales need their page_ids in the same tile "
                    "(run fmha-prefetch-page-ids with per-token=false)");
  Value start = toI32(b, scalar(ids.getTileStart()));
  Value len = toI32(b, scalar(ids.getSeqLen()));
  int64_t n = cast<VectorType>(op.getResult().getType()).getDimSize(0);
  int64_t p = ids.getPageSize();
  // Elements whose keys lie in one page on every lane (a tile start that is
  // a multiple of the page size) share one id and one descale load, taken
  // at the group's smallest key: if that key is past the end, all are.
  bool aligned = isMultipleOf(ids.getTileStart(), p);
  int64_t elems = (n / atomN) * accPerLane();
  SmallVector<int64_t> repOf(elems);
  std::map<std::vector<int64_t>, int64_t> groupRep; // pages per lane -> rep
  for (int64_t elem = 0; elem < elems; ++elem) {
    repOf[elem] = elem;
    if (!aligned)
      continue;
    int64_t j = elem / accPerLane(), v = elem % accPerLane();
    int64_t off = j * atomN + nReg[v];
    std::vector<int64_t> pages;
    for (int64_t l = 0; l < wave; ++l) {
      int64_t lanePart = nLane.c0;
      for (size_t i = 0; i < nLane.coef.size(); ++i)
        if ((l >> i) & 1)
          lanePart += nLane.coef[i];
      pages.push_back((lanePart + off) / p);
    }
    auto [it, inserted] = groupRep.try_emplace(pages, elem);
    int64_t r = it->second;
    if (!inserted && off < (r / accPerLane()) * atomN + nReg[r % accPerLane()])
      it->second = elem;
  }
  if (aligned)
    for (int64_t elem = 0; elem < elems; ++elem) {
      int64_t j = elem / accPerLane(), v = elem % accPerLane();
      std::vector<int64_t> pages;
      for (int64_t l = 0; l < wave; ++l) {
        int64_t lanePart = nLane.c0;
        for (size_t i = 0; i < nLane.coef.size(); ++i)
          if ((l >> i) & 1)
            lanePart += nLane.coef[i];
        pages.push_back((lanePart + j * atomN + nReg[v]) / p);
      }
      repOf[elem] = groupRep[pages];
    }
  DenseMap<int64_t, Value> loaded; // representative element -> descale
  SmallVector<Value> out;
  for (int64_t j = 0; j < n / atomN; ++j) {
    SmallVector<Value> e;
    for (int64_t v = 0; v < accPerLane(); ++v) {
      int64_t rep = repOf[j * accPerLane() + v];
      if (!loaded.count(rep)) {
        // A key past the end takes the descale of the sequence's last key:
        // every key of a partly filled last page then has its page's
        // descale. The PV product's page groups scale a whole MMA step by
        // the descale one lane holds (lowerTileMma), and that lane's key may
        // be past the end while the step holds valid keys of other lanes;
        // a zero there dropped the step's whole contribution to the lane's
        // output (docs/REGIMES.md, "page group with a partly filled last
        // page"). Past-the-end keys are masked, so their own descale never
        // matters. A tile is only processed when len >= 1.
        int64_t rj = rep / accPerLane(), rv = rep % accPerLane();
        Value key = arith::AddIOp::create(b, start, colOf(rj, rv));
        key = arith::MinSIOp::create(
            b, key, arith::SubIOp::create(b, len, cI32(b, 1)));
        Value always = arith::ConstantIntOp::create(b, b.getI1Type(), 1);
        loaded[rep] = load(pageIdOfKey(ids, key, always));
      }
      e.push_back(loaded[rep]);
    }
    out.push_back(vector::FromElementsOp::create(
        b, VectorType::get({accPerLane()}, b.getF32Type()), e));
  }
  cols[op] = out;
  return success();
}

LogicalResult Lowering::lowerGatherKV(GatherKVOp op) {
  // Role from the users: K (tile_mma rhs with transpose_rhs) or V.
  bool isK = false, isV = false;
  for (Operation *u : op->getUsers()) {
    auto mma = dyn_cast<TileMmaOp>(u);
    if (!mma || mma.getRhs() != op.getTile())
      return fail(op, "KV tiles may only feed tile_mma as its right operand");
    (mma.getTransposeRhs() ? isK : isV) = true;
  }
  if (isK == isV)
    return fail(op, "a KV tile must be used as exactly one of K and V");
  VectorType t = op.getTile().getType();
  int64_t bn = t.getDimSize(0), d = t.getDimSize(1);
  if (t.getElementType() != atom.aElem)
    return fail(op, "cache type ") << t.getElementType()
                                   << " differs from the MMA's " << atom.aElem;
  int64_t threads = cfg.getWarps() * wave;
  int64_t chunk = 16, perRow = d / chunk;
  if (d % chunk || (bn * perRow) % threads || (bn & (bn - 1)))
    return fail(op, "tile ") << bn << "x" << d << " does not split into 16-byte "
                             << "chunks over " << threads << " threads";
  // LDS buffer.
  auto ldsT = MemRefType::get({bn * d}, b.getI8Type(), AffineMap(),
                              gpu::AddressSpaceAttr::get(
                                  b.getContext(), gpu::AddressSpace::Workgroup));
  Value lds = kernel.addWorkgroupAttribution(ldsT, op.getLoc());
  ldsBuffers.push_back({bn * d, lds});
  if (ldsRead) { // earlier readers of any buffer must be done
    ti.barrier(b, b.getLoc());
    ldsRead = false;
  }
  Value cache = scalar(op.getCache()), head = scalar(op.getHead());
  auto cacheT = cast<MemRefType>(op.getCache().getType());
  bool nhd = op.getKvLayout() == KVLayout::NHD;
  int64_t pageSize = cacheT.getDimSize(nhd ? 1 : 2);
  Value start = toI32(b, scalar(op.getTileStart()));
  Value len = toI32(b, scalar(op.getSeqLen()));
  Value uniformId;
  PageIdsOp tokenIds;
  if (isa<VectorType>(op.getIds().getType())) {
    tokenIds = op.getIds().getDefiningOp<PageIdsOp>();
    if (!tokenIds)
      return fail(op, "per-token page ids must come from fmha.page_ids of the "
                      "same tile (run fmha-prefetch-page-ids with per-token=false)");
  } else {
    // Wave-uniform page id: an SGPR on AMDGPU.
    uniformId = ti.broadcastFirstLane(b, b.getLoc(), scalar(op.getIds()));
  }
  std::optional<BitLinear> pos;
  if (isV) {
    pos = fitBits(bn, [&](int64_t key) { return ti.pvKeyPosition(key); });
    if (!pos)
      return fail(op, "pvKeyPosition is not linear in the key bits");
  }
  VectorType vt = VectorType::get({chunk}, b.getI8Type());
  Value zero = arith::ConstantOp::create(b, vt, b.getZeroAttr(vt));
  // One 16-byte row chunk of key r0 + k (zero past the sequence).
  auto loadChunk = [&](Value r, Value c16) {
    Value key = arith::AddIOp::create(b, start, r);
    Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, key, len);
    Value id = uniformId ? uniformId : pageIdOfKey(tokenIds, key, valid);
    // 64-bit page base: the memref's index arithmetic is i64.
    Value slot = arith::RemUIOp::create(b, key, cI32(b, pageSize));
    SmallVector<Value> ix = nhd ? SmallVector<Value>{toIdx(b, id), toIdx(b, slot), head,
                                                     toIdx(b, c16)}
                                : SmallVector<Value>{toIdx(b, id), head, toIdx(b, slot),
                                                     toIdx(b, c16)};
    Value v = vector::LoadOp::create(b, vt, cache, ix);
    return Value(arith::SelectOp::create(b, valid, v, zero));
  };
  // V: runs of R keys that pvKeyPosition keeps adjacent are transposed in
  // registers and written as R-byte words (R = 4 on AMDGPU, 2 on sm_90).
  int64_t keysPer = 1;
  if (isV)
    for (int64_t r = 2; r <= 4; r *= 2) {
      bool ok = bn % r == 0;
      for (int64_t k = 0; k < bn && ok; k += r)
        for (int64_t i = 0; i < r && ok; ++i)
          ok = ti.pvKeyPosition(k + i) == ti.pvKeyPosition(k) + i;
      if (ok && (bn / r) * perRow % threads == 0)
        keysPer = r;
    }
  int64_t groups = (bn / keysPer) * perRow;
  for (int64_t i = 0; i < groups / threads; ++i) {
    Value g = arith::AddIOp::create(b, tidV, cI32(b, i * threads));
    Value r0 = arith::MulIOp::create(b, arith::DivUIOp::create(b, g, cI32(b, perRow)),
                                     cI32(b, keysPer));
    Value c16 = arith::MulIOp::create(
        b, arith::RemUIOp::create(b, g, cI32(b, perRow)), cI32(b, chunk));
    if (isK) {
      Value v = loadChunk(r0, c16);
      Value at = arith::AddIOp::create(b, arith::MulIOp::create(b, r0, cI32(b, d)), c16);
      vector::StoreOp::create(b, v, lds, ValueRange{toIdx(b, at)});
      continue;
    }
    SmallVector<Value> rowsK;
    for (int64_t k = 0; k < keysPer; ++k)
      rowsK.push_back(loadChunk(arith::AddIOp::create(b, r0, cI32(b, k)), c16));
    Value all = concat(rowsK);
    Value p = emitBits(b, *pos, r0);
    for (int64_t e = 0; e < chunk; ++e) {
      SmallVector<int64_t> mask;
      for (int64_t k = 0; k < keysPer; ++k)
        mask.push_back(k * chunk + e);
      Value word = vector::ShuffleOp::create(b, all, all, mask);
      Value dd = arith::AddIOp::create(b, c16, cI32(b, e));
      Value at = arith::AddIOp::create(b, arith::MulIOp::create(b, dd, cI32(b, bn)), p);
      vector::StoreOp::create(b, word, lds, ValueRange{toIdx(b, at)});
    }
  }
  ldsWritten = true;
  Tile2D out;
  out.kind = Tile2D::KV;
  out.kv = {lds, isV, isV ? d : bn, isV ? bn : d};
  tiles[op] = out;
  return success();
}

int64_t Lowering::pageSizeOf(Value kscale) {
  // The page size when every tile starts on a page boundary, else 0.
  auto gd = kscale.getDefiningOp<GatherDescaleOp>();
  if (!gd)
    return 0;
  auto ids = gd.getIds().getDefiningOp<PageIdsOp>();
  if (!ids || !isMultipleOf(ids.getTileStart(), ids.getPageSize()))
    return 0;
  return ids.getPageSize();
}

LogicalResult Lowering::lowerTileMma(TileMmaOp op) {
  if (!tiles.count(op.getLhs()) || !tiles.count(op.getRhs()) ||
      !tiles.count(op.getAcc()))
    return fail(op, "operands were not lowered");
  const Tile2D &lhs = tiles[op.getLhs()], &rhs = tiles[op.getRhs()];
  Tile2D acc = tiles[op.getAcc()];
  if (rhs.kind != Tile2D::KV || acc.kind != Tile2D::Acc)
    return fail(op, "expects a staged KV tile and an accumulator");
  fence();
  Value lds = rhs.kv.lds;
  int64_t ldsCols = rhs.kv.cols;
  auto ldsLoad = [&](Value r, Value c, int64_t len) {
    Value at = arith::AddIOp::create(b, arith::MulIOp::create(b, r, cI32(b, ldsCols)), c);
    return Value(vector::LoadOp::create(b, VectorType::get({len}, b.getI8Type()), lds,
                                        ValueRange{toIdx(b, at)}));
  };
  // Operand of the KV side: (row in LDS, contiguous column).
  auto kvFrag = [&](int64_t l, int64_t e) -> FragElem {
    if (transposed) {
      FragElem f = ti.aFragElem(l, e); // (m = key|d, k)
      return {f.row, f.col};
    }
    FragElem f = ti.bFragElem(l, e); // (k, n = key|d)
    return {f.col, f.row};
  };
  int64_t kvPerLane = transposed ? atom.aPerLane : atom.bPerLane;
  auto kvRuns = fragmentRuns(op, kvPerLane, kvFrag);
  if (failed(kvRuns))
    return failure();
  auto mma = [&](Value kvOp, Value other, Value c) {
    return transposed ? ti.mma(b, b.getLoc(), kvOp, other, c)
                      : ti.mma(b, b.getLoc(), other, kvOp, c);
  };
  Tile2D out = acc;
  if (op.getTransposeRhs()) { // S = Q K^T
    if (lhs.kind != Tile2D::QOperand || rhs.kv.transposed)
      return fail(op, "Q K^T expects Q operand registers and a K tile");
    for (size_t j = 0; j < out.parts.size(); ++j) {
      auto kOps = loadOperandAllSteps(
          op, *kvRuns, lhs.parts.size(), atom.aElem, [&](Value r, Value c, int64_t len) {
            return ldsLoad(arith::AddIOp::create(b, r, cI32(b, j * atomN)), c, len);
          });
      if (failed(kOps))
        return failure();
      for (size_t kk = 0; kk < lhs.parts.size(); ++kk)
        out.parts[j] = mma((*kOps)[kk], lhs.parts[kk], out.parts[j]);
    }
    tiles[op] = out;
    return success();
  }
  // O += P V, P from the score accumulators (pvKeyPosition), V^T from LDS.
  if (lhs.kind != Tile2D::P || !rhs.kv.transposed)
    return fail(op, "P V expects fp8 P from scores and a V tile");
  int64_t bn = rhs.kv.cols, steps = bn / atom.k;
  int64_t pPerLane = transposed ? atom.bPerLane : atom.aPerLane;
  SmallVector<int64_t> posInv(bn);
  for (int64_t key = 0; key < bn; ++key)
    posInv[ti.pvKeyPosition(key)] = key;
  // For step c and element e: the (atom, reg) of the lane's own scores.
  auto pElem = [&](int64_t c, int64_t e) -> std::optional<std::pair<int64_t, int64_t>> {
    std::optional<std::pair<int64_t, int64_t>> res;
    for (int64_t l = 0; l < wave; ++l) {
      FragElem f = transposed ? ti.bFragElem(l, e) : ti.aFragElem(l, e);
      int64_t kq = transposed ? f.row : f.col, q = transposed ? f.col : f.row;
      int64_t key = posInv[c * atom.k + kq];
      std::optional<std::pair<int64_t, int64_t>> found;
      for (int64_t v = 0; v < accPerLane() && !found; ++v) {
        AccElem a = ti.accElem(l, v);
        int64_t aq = transposed ? a.col : a.row, an = transposed ? a.row : a.col;
        if (aq == q && (key - an) % atomN == 0 && key - an >= 0)
          found = std::make_pair((key - an) / atomN, v);
      }
      if (!found || (res && *res != *found))
        return std::nullopt;
      res = found;
    }
    return res;
  };
  // Per-key V descales (pages smaller than the tile). Exact route: steps
  // that lie in one page accumulate apart and are scaled once (page size a
  // multiple of the MMA's K, tiles on page boundaries). Otherwise p is
  // scaled by vd_j / r before the fp8 cast, r = the tile's largest vd for
  // the row (so the scaled p stays in fp8's range), and r scales the sum.
  int64_t group = steps;
  SmallVector<Value> kscale;
  Value rowScale, rowScaleInv;
  VectorType accT = VectorType::get({accPerLane()}, b.getF32Type());
  if (op.getKScale()) {
    if (!hasCol(op.getKScale()))
      return fail(op, "k_scale has no column form");
    kscale = colsOf(op.getKScale());
    int64_t p = pageSizeOf(op.getKScale());
    if (p > 0 && p % atom.k == 0 && steps % std::min(steps, p / atom.k) == 0) {
      group = std::min(steps, p / atom.k);
    } else {
      group = 0;
      Value mx = kscale[0];
      for (size_t j = 1; j < kscale.size(); ++j)
        mx = ti.maxF(b, b.getLoc(), mx, kscale[j]);
      Value r = vector::ExtractOp::create(b, mx, 0);
      for (int64_t v = 1; v < accPerLane(); ++v)
        r = ti.maxF(b, b.getLoc(), r, vector::ExtractOp::create(b, mx, v));
      for (int64_t mask : ti.rowReduceXorMasks())
        r = ti.maxF(b, b.getLoc(), r, ti.shuffleXor(b, b.getLoc(), r, mask));
      Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
      Value one = arith::ConstantOp::create(b, b.getF32FloatAttr(1.0f));
      Value pos = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, r, zero);
      rowScale = r;
      kernel->setAttr(kPVVdRouteAttr, b.getStringAttr("scaled_p"));
      rowScaleInv = arith::SelectOp::create(
          b, pos, arith::DivFOp::create(b, one, r), zero);
    }
  }
  SmallVector<Value> pOps;
  for (int64_t c = 0; c < steps; ++c) {
    SmallVector<Value> vals;
    for (int64_t e = 0; e < pPerLane; ++e) {
      auto je = pElem(c, e);
      if (!je)
        return fail(op, "P is not in the lanes the PV product needs it in "
                        "(pvKeyPosition does not match the layouts)");
      Value pv = vector::ExtractOp::create(b, lhs.parts[je->first], je->second);
      if (rowScaleInv) {
        Value sj = vector::ExtractOp::create(b, kscale[je->first], je->second);
        pv = arith::MulFOp::create(b, pv, arith::MulFOp::create(b, sj, rowScaleInv));
      }
      vals.push_back(pv);
    }
    SmallVector<Value> words;
    for (int64_t w = 0; w < pPerLane / 4; ++w)
      words.push_back(ti.packFp8x4(b, b.getLoc(),
                                   ArrayRef<Value>(vals).slice(4 * w, 4), lhs.fp8));
    Value wv = vector::FromElementsOp::create(
        b, VectorType::get({pPerLane / 4}, b.getI32Type()), words);
    Value bytes = vector::BitCastOp::create(
        b, VectorType::get({pPerLane}, b.getI8Type()), wv);
    pOps.push_back(arith::BitcastOp::create(
        b, VectorType::get({pPerLane}, lhs.fp8), bytes));
  }
  if (group == 0) { // the scaled-p route: one chain, then o += r * chain
    for (size_t bd = 0; bd < out.parts.size(); ++bd) {
      Value c0 = arith::ConstantOp::create(b, accT, b.getZeroAttr(accT));
      for (int64_t c = 0; c < steps; ++c) {
        Value vOp = loadOperand(*kvRuns, atom.aElem, [&](Value r, Value col, int64_t len) {
          return ldsLoad(arith::AddIOp::create(b, r, cI32(b, bd * atomN)),
                         arith::AddIOp::create(b, col, cI32(b, c * atom.k)), len);
        });
        c0 = mma(vOp, pOps[c], c0);
      }
      Value sv = vector::BroadcastOp::create(b, accT, rowScale);
      out.parts[bd] = vector::FMAOp::create(b, c0, sv, out.parts[bd]);
    }
    tiles[op] = out;
    return success();
  }
  Value zeroAcc = arith::ConstantOp::create(b, accT, b.getZeroAttr(accT));
  for (size_t bd = 0; bd < out.parts.size(); ++bd) {
    for (int64_t g0 = 0; g0 < steps; g0 += group) {
      Value c0 = kscale.empty() ? out.parts[bd] : zeroAcc;
      for (int64_t c = g0; c < g0 + group; ++c) {
        Value vOp = loadOperand(*kvRuns, atom.aElem, [&](Value r, Value col, int64_t len) {
          return ldsLoad(arith::AddIOp::create(b, r, cI32(b, bd * atomN)),
                         arith::AddIOp::create(b, col, cI32(b, c * atom.k)), len);
        });
        c0 = mma(vOp, pOps[c], c0);
      }
      if (kscale.empty()) {
        out.parts[bd] = c0;
        continue;
      }
      auto je = pElem(g0, 0);
      Value s = vector::ExtractOp::create(b, kscale[je->first], je->second);
      Value sv = vector::BroadcastOp::create(b, accT, s);
      out.parts[bd] = vector::FMAOp::create(b, c0, sv, out.parts[bd]);
    }
  }
  tiles[op] = out;
  return success();
}

LogicalResult Lowering::lowerIf(scf::IfOp op) {
  if (op.getNumResults() || isa<VectorType>(op.getCondition().getType()))
    return fail(op, "only uniform scf.if without results");
  auto newIf = scf::IfOp::create(b, scalar(op.getCondition()),
                                 /*withElse=*/!op.getElseRegion().empty());
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&newIf.getThenRegion().front());
  if (failed(lowerBlock(op.getThenRegion().front())))
    return failure();
  if (!op.getElseRegion().empty()) {
    b.setInsertionPointToStart(&newIf.getElseRegion().front());
    if (failed(lowerBlock(op.getElseRegion().front())))
      return failure();
  }
  return success();
}

LogicalResult Lowering::lowerFor(scf::ForOp op) {
  // Flatten the carried values: scalars, rows (per slot), tiles (per atom).
  enum K { Scalar, Row, Acc };
  SmallVector<std::pair<K, int64_t>> shape;
  SmallVector<Value> inits;
  for (Value init : op.getInitArgs()) {
    if (!isa<VectorType>(init.getType())) {
      shape.push_back({Scalar, 1});
      inits.push_back(scalar(init));
    } else if (is1D(init)) {
      if (!rows.count(init))
        return fail(op, "carried 1-d vector has no row form");
      shape.push_back({Row, slots()});
      llvm::append_range(inits, rows[init]);
    } else {
      if (!tiles.count(init) || tiles[init].kind != Tile2D::Acc)
        return fail(op, "carried tile is not in accumulator layout");
      shape.push_back({Acc, (int64_t)tiles[init].parts.size()});
      llvm::append_range(inits, tiles[init].parts);
    }
  }
  auto newFor = scf::ForOp::create(b, scalar(op.getLowerBound()),
                                   scalar(op.getUpperBound()), scalar(op.getStep()),
                                   inits);
  newFor->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  auto bind = [&](ValueRange olds, ValueRange news) {
    size_t at = 0;
    for (auto [i, old] : llvm::enumerate(olds)) {
      auto [k, n] = shape[i];
      ValueRange part = news.slice(at, n);
      at += n;
      if (k == Scalar)
        map.map(old, part[0]);
      else if (k == Row)
        rows[old] = SmallVector<Value>(part);
      else
        tiles[old] = Tile2D{Tile2D::Acc, SmallVector<Value>(part), {}, {}};
    }
  };
  map.map(op.getInductionVar(), newFor.getInductionVar());
  bind(op.getRegionIterArgs(), newFor.getRegionIterArgs());
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(newFor.getBody());
    if (failed(lowerBlock(*op.getBody())))
      return failure();
    // LDS reads of this iteration must finish before the next one writes.
    auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
    SmallVector<Value> outs;
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      auto k = shape[i].first;
      if (k == Scalar) {
        outs.push_back(scalar(v));
      } else if (k == Row) {
        if (!rows.count(v))
          return fail(op, "yielded 1-d vector has no row form");
        llvm::append_range(outs, rows[v]);
      } else {
        if (!tiles.count(v) || tiles[v].kind != Tile2D::Acc)
          return fail(op, "yielded tile is not in accumulator layout");
        llvm::append_range(outs, tiles[v].parts);
      }
    }
    if (ldsRead) { // this iteration's LDS reads before the next one's writes
      ti.barrier(b, b.getLoc());
      ldsRead = false;
    }
    // Drop the builder's implicit yield (if any) and write ours.
    Block *body = newFor.getBody();
    if (!body->empty())
      if (auto y = dyn_cast<scf::YieldOp>(&body->back()))
        y.erase();
    b.setInsertionPointToEnd(newFor.getBody());
    scf::YieldOp::create(b, outs);
  }
  bind(op.getResults(), newFor.getResults());
  return success();
}

LogicalResult Lowering::lowerOp(Operation *op) {
  b.setLoc(op->getLoc());
  bool vec = llvm::any_of(op->getOperandTypes(), llvm::IsaPred<VectorType>) ||
             llvm::any_of(op->getResultTypes(), llvm::IsaPred<VectorType>);
  if (auto f = dyn_cast<scf::ForOp>(op))
    return lowerFor(f);
  if (auto i = dyn_cast<scf::IfOp>(op))
    return lowerIf(i);
  if (auto x = dyn_cast<LoadRowsOp>(op))
    return lowerLoadRows(x);
  if (auto x = dyn_cast<StoreRowsOp>(op))
    return lowerStoreRows(x);
  if (auto x = dyn_cast<PageIdsOp>(op))
    return lowerPageIds(x);
  if (auto x = dyn_cast<GatherDescaleOp>(op))
    return lowerGatherDescale(x);
  if (auto x = dyn_cast<GatherKVOp>(op))
    return lowerGatherKV(x);
  if (auto x = dyn_cast<TileMmaOp>(op))
    return lowerTileMma(x);
  if (auto sv = dyn_cast<memref::SubViewOp>(op)) {
    auto mapped = [&](OperandRange r) {
      SmallVector<Value> v;
      for (Value x : r)
        v.push_back(scalar(x));
      return v;
    };
    Value src = scalar(sv.getSource());
    auto resT = memref::SubViewOp::inferRankReducedResultType(
        sv.getType().getShape(), cast<MemRefType>(src.getType()),
        sv.getStaticOffsets(), sv.getStaticSizes(), sv.getStaticStrides());
    auto n = memref::SubViewOp::create(
        b, resT, src,
        getMixedValues(sv.getStaticOffsets(), mapped(sv.getOffsets()), b),
        getMixedValues(sv.getStaticSizes(), mapped(sv.getSizes()), b),
        getMixedValues(sv.getStaticStrides(), mapped(sv.getStrides()), b));
    map.map(sv.getResult(), n.getResult());
    return success();
  }
  if (!vec) {
    b.clone(*op, map);
    return success();
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return lowerConstant(c);
  if (auto x = dyn_cast<vector::BroadcastOp>(op))
    return lowerBroadcast(x);
  if (auto x = dyn_cast<vector::MultiDimReductionOp>(op))
    return lowerReduction(x);
  if (auto x = dyn_cast<math::Exp2Op>(op))
    return lowerExp2(x);
  if (auto x = dyn_cast<math::LogOp>(op)) { // lse: ln x = log2(x) * ln 2
    if (!rows.count(x.getOperand()))
      return fail(op, "only row vectors take a log");
    Value ln2 = arith::ConstantOp::create(b, b.getF32FloatAttr(0.6931471805599453f));
    SmallVector<Value> out;
    for (Value v : rows[x.getOperand()])
      out.push_back(arith::MulFOp::create(b, ti.log2(b, b.getLoc(), v), ln2));
    rows[x] = out;
    return success();
  }
  if (auto x = dyn_cast<vector::StepOp>(op)) {
    int64_t n = x.getResult().getType().getDimSize(0);
    (void)n;
    SmallVector<Value> r;
    for (int64_t s = 0; s < slots(); ++s)
      r.push_back(queryOfSlot(s));
    rows[x] = r;
    affCol[x] = nLaneV;
    return success();
  }
  if (auto x = dyn_cast<vector::ShapeCastOp>(op)) {
    VectorType t = x.getResultVectorType();
    if (t.getRank() == 2 && t.getDimSize(1) == 1 && rows.count(x.getSource())) {
      tiles[x] = Tile2D{Tile2D::RowBcast, rows[x.getSource()], {}, {}};
      return success();
    }
    return fail(op, "unsupported shape_cast");
  }
  if (auto x = dyn_cast<arith::TruncFOp>(op)) {
    Type elem = getElementTypeOrSelf(x.getType());
    if (isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() == 8 && is2D(x.getIn())) {
      bool onlyMma = llvm::all_of(x->getUsers(), [&](Operation *u) {
        auto m = dyn_cast<TileMmaOp>(u);
        return m && m.getLhs() == x.getResult();
      });
      if (!onlyMma)
        return fail(op, "fp8 tiles may only feed the P V product");
      Tile2D p = tiles[x.getIn()];
      p.kind = Tile2D::P;
      p.fp8 = elem;
      tiles[x] = p;
      return success();
    }
  }
  if (op->getNumResults() == 1 && op->hasTrait<OpTrait::Elementwise>() &&
      (op->getDialect()->getNamespace() == "arith"))
    return lowerElementwise(op);
  return fail(op, "is not supported on vectors by the GPU lowering");
}

LogicalResult Lowering::run() {
  // The cache type fixes the MMA atom.
  Type kvElem;
  kernel.walk([&](GatherKVOp g) {
    kvElem = g.getTile().getType().getElementType();
  });
  if (!kvElem)
    return kernel.emitOpError("convert-fmha-to-gpu: kernel has no KV gather"),
           failure();
  if (failed(setUpLayout(kernel, kvElem)))
    return failure();

  // New entry block with the kernel's arguments (the flat ABI of
  // fmha-outline-kernel). The prologue that rebuilds the memrefs from them,
  // LLVM ops and unrealized casts at the top of the old entry block, moves
  // over as it is; the body after it is lowered.
  Block &old = kernel.getBody().front();
  Block *entry = new Block();
  kernel.getBody().push_front(entry);
  for (BlockArgument a : old.getArguments())
    a.replaceAllUsesWith(entry->addArgument(a.getType(), a.getLoc()));
  auto prologueEnd = llvm::find_if(old, [](Operation &op) {
    return !isa_and_nonnull<LLVM::LLVMDialect>(op.getDialect()) &&
           !isa<UnrealizedConversionCastOp>(op);
  });
  entry->getOperations().splice(entry->end(), old.getOperations(), old.begin(),
                                prologueEnd);
  // The casts from each rebuilt memref (address space 1, fp8 as i8) to the
  // type the tile ops use: the lowered code uses the rebuilt memref.
  SmallVector<Operation *> bridges;
  for (Operation &op : *entry)
    if (auto c = dyn_cast<UnrealizedConversionCastOp>(op);
        c && c->getNumOperands() == 1 &&
        isa<MemRefType>(c->getOperand(0).getType())) {
      map.map(c->getResult(0), c->getOperand(0));
      bridges.push_back(c);
    }
  b.setInsertionPointToEnd(entry);
  b.setLoc(kernel.getLoc());
  // Lane, wave and the per-lane layout values.
  tidV = toI32(b, gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  laneV = arith::RemUIOp::create(b, tidV, cI32(b, wave));
  Value w = ti.broadcastFirstLane(
      b, b.getLoc(), arith::DivUIOp::create(b, tidV, cI32(b, wave)));
  waveRow0 = arith::MulIOp::create(b, w, cI32(b, rowsPerWave));
  qLaneV = emitBits(b, qLane, laneV);
  nLaneV = emitBits(b, nLane, laneV);

  if (failed(lowerBlock(old)))
    return failure();
  gpu::ReturnOp::create(b);
  old.dropAllDefinedValueUses();
  old.erase();
  for (Operation *op : bridges)
    op->erase();
  return success();
}

} // namespace

LogicalResult mlir::fmha::lowerKernelTiles(gpu::GPUFuncOp kernel,
                                           const TargetInfo &ti,
                                           ConfigAttr cfg) {
  Lowering l(kernel, ti, cfg);
  return l.run();
}
