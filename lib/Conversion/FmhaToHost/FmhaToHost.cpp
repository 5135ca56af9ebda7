//===- FmhaToHost.cpp - convert-fmha-to-host --------------------------------===//
//
// Tile ops to loops the CPU runs. Row copies are unrolled (tiles are small on
// the host config) so every vector index is static; the matrix products run
// as loops over stack buffers inside an alloca scope, so the KV loop does not
// grow the stack.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_CONVERTFMHATOHOST
#include "fmha/Conversion/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

Value cIdx(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}

/// A zero of any float vector type. fp8 zeros come from an f32 truncation
/// (the fp8 expansion turns it into integer ops): the CPU lowering has no fp8
/// constants.
Value zeroOf(ImplicitLocOpBuilder &b, Type t) {
  auto vt = dyn_cast<VectorType>(t);
  Type elem = vt ? vt.getElementType() : t;
  if (isa<IntegerType>(elem))
    return arith::ConstantOp::create(b, b.getZeroAttr(t));
  Type f32t = vt ? Type(vt.clone(b.getF32Type())) : Type(b.getF32Type());
  Value z = arith::ConstantOp::create(b, b.getZeroAttr(f32t));
  return elem.isF32() ? z : Value(arith::TruncFOp::create(b, t, z));
}

Value widenToF32(ImplicitLocOpBuilder &b, Value v) {
  auto t = cast<VectorType>(v.getType());
  if (t.getElementType().isF32())
    return v;
  return arith::ExtFOp::create(b, t.clone(b.getF32Type()), v);
}

/// `if (cond) then() else zero`, one result.
Value guarded(ImplicitLocOpBuilder &b, Value cond, Type t,
              function_ref<Value(ImplicitLocOpBuilder &)> then) {
  auto ifOp = scf::IfOp::create(b, TypeRange{t}, cond, /*withElse=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, then(b));
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, zeroOf(b, t));
  }
  return ifOp.getResult(0);
}

Value lessThan(ImplicitLocOpBuilder &b, Value x, Value y) {
  return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
}

/// Builds a vector<R x ...> from R guarded row values (static positions).
template <typename RowFn>
Value assembleRows(ImplicitLocOpBuilder &b, VectorType t, RowFn rowAt) {
  Value acc = zeroOf(b, t);
  for (int64_t r = 0; r < t.getDimSize(0); ++r)
    acc = vector::InsertOp::create(b, rowAt(r), acc, ArrayRef<int64_t>{r});
  return acc;
}

Type rowType(VectorType t) {
  if (t.getRank() == 1)
    return t.getElementType();
  return VectorType::get(t.getShape().drop_front(), t.getElementType());
}

struct LowerLoadRows : OpRewritePattern<LoadRowsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadRowsOp op, PatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    VectorType t = op.getResult().getType();
    Type rowT = rowType(t);
    Value c0 = cIdx(b, 0);
    Value res = assembleRows(b, t, [&](int64_t r) {
      Value rIdx = cIdx(b, r);
      return guarded(b, lessThan(b, rIdx, op.getNumRows()), rowT,
                     [&](ImplicitLocOpBuilder &ib) -> Value {
                       Value row = arith::AddIOp::create(ib, op.getRow0(), rIdx);
                       if (t.getRank() == 1)
                         return memref::LoadOp::create(
                             ib, op.getSource(), ValueRange{row, op.getHead()});
                       return vector::LoadOp::create(
                           ib, cast<VectorType>(rowT), op.getSource(),
                           ValueRange{row, op.getHead(), c0});
                     });
    });
    rw.replaceOp(op, res);
    return success();
  }
};

struct LowerStoreRows : OpRewritePattern<StoreRowsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreRowsOp op, PatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    VectorType t = op.getValue().getType();
    Value c0 = cIdx(b, 0);
    for (int64_t r = 0; r < t.getDimSize(0); ++r) {
      Value rIdx = cIdx(b, r);
      auto ifOp = scf::IfOp::create(b, lessThan(b, rIdx, op.getNumRows()),
                                    /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      Value row = arith::AddIOp::create(b, op.getRow0(), rIdx);
      Value v = vector::ExtractOp::create(b, op.getValue(), ArrayRef<int64_t>{r});
      if (t.getRank() == 1)
        memref::StoreOp::create(b, v, op.getDest(), ValueRange{row, op.getHead()});
      else
        vector::StoreOp::create(b, v, op.getDest(),
                                ValueRange{row, op.getHead(), c0});
    }
    rw.eraseOp(op);
    return success();
  }
};

/// Token j of a tile: logical key t0 + j, valid below the sequence length.
struct Token {
  Value key, valid;
};
Token token(ImplicitLocOpBuilder &b, Value t0, int64_t j, Value seqLen) {
  Value key = arith::AddIOp::create(b, t0, cIdx(b, j));
  return {key, lessThan(b, key, seqLen)};
}

struct LowerPageIds : OpRewritePattern<PageIdsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PageIdsOp op, PatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value pageSize = cIdx(b, op.getPageSize());
    auto idAt = [&](Token tok) {
      Value id = guarded(b, tok.valid, b.getI32Type(), [&](ImplicitLocOpBuilder &ib) -> Value {
        Value slot = arith::DivUIOp::create(ib, tok.key, pageSize);
        return memref::LoadOp::create(ib, op.getPages(), ValueRange{slot});
      });
      // -1 marks a token past the end (the guard's zero is a valid id).
      Value minus1 = arith::ConstantIntOp::create(b, b.getI32Type(), -1);
      return Value(arith::SelectOp::create(b, tok.valid, id, minus1));
    };
    Value res;
    if (auto vt = dyn_cast<VectorType>(op.getIds().getType()))
      res = assembleRows(b, vt, [&](int64_t j) {
        return idAt(token(b, op.getTileStart(), j, op.getSeqLen()));
      });
    else
      res = idAt(token(b, op.getTileStart(), 0, op.getSeqLen()));
    rw.replaceOp(op, res);
    return success();
  }
};

/// The page id of token j: element j of a per-token vector, or the uniform id.
Value idOf(ImplicitLocOpBuilder &b, Value ids, int64_t j) {
  if (isa<VectorType>(ids.getType()))
    return vector::ExtractOp::create(b, ids, ArrayRef<int64_t>{j});
  return ids;
}

Value asIndex(ImplicitLocOpBuilder &b, Value i32) {
  return arith::IndexCastOp::create(b, b.getIndexType(), i32);
}

struct LowerGatherKV : OpRewritePattern<GatherKVOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherKVOp op, PatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    VectorType t = op.getTile().getType();
    auto rowT = cast<VectorType>(rowType(t));
    auto cache = cast<MemRefType>(op.getCache().getType());
    bool nhd = op.getKvLayout() == KVLayout::NHD;
    Value pageSize = cIdx(b, cache.getDimSize(nhd ? 1 : 2));
    Value c0 = cIdx(b, 0);
    Value res = assembleRows(b, t, [&](int64_t j) {
      Token tok = token(b, op.getTileStart(), j, op.getSeqLen());
      return guarded(b, tok.valid, rowT, [&](ImplicitLocOpBuilder &ib) -> Value {
        Value page = asIndex(ib, idOf(ib, op.getIds(), j));
        Value slot = arith::RemUIOp::create(ib, tok.key, pageSize);
        SmallVector<Value> ix = nhd ? SmallVector<Value>{page, slot, op.getHead(), c0}
                                    : SmallVector<Value>{page, op.getHead(), slot, c0};
        return vector::LoadOp::create(ib, rowT, op.getCache(), ix);
      });
    });
    rw.replaceOp(op, res);
    return success();
  }
};

struct LowerGatherDescale : OpRewritePattern<GatherDescaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherDescaleOp op, PatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    auto at = [&](int64_t j) {
      Value id = idOf(b, op.getIds(), j);
      Value valid = arith::CmpIOp::create(
          b, arith::CmpIPredicate::sge, id,
          arith::ConstantIntOp::create(b, b.getI32Type(), 0));
      return guarded(b, valid, b.getF32Type(), [&](ImplicitLocOpBuilder &ib) -> Value {
        return memref::LoadOp::create(ib, op.getDescale(),
                                      ValueRange{asIndex(ib, id), op.getHead()});
      });
    };
    Value res;
    if (auto vt = dyn_cast<VectorType>(op.getResult().getType()))
      res = assembleRows(b, vt, at);
    else
      res = at(0);
    rw.replaceOp(op, res);
    return success();
  }
};

/// Writes a vector to a stack buffer of its shape. Buffers are allocated once
/// at the function's entry, so the KV loop does not grow the stack.
Value spill(ImplicitLocOpBuilder &b, Value v, Operation *user) {
  auto t = cast<VectorType>(v.getType());
  auto fn = user->getParentOfType<FunctionOpInterface>();
  Value buf;
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&fn.getFunctionBody().front());
    buf = memref::AllocaOp::create(
        b, MemRefType::get(t.getShape(), t.getElementType()));
  }
  SmallVector<Value> zeros(t.getRank(), cIdx(b, 0));
  SmallVector<bool> inBounds(t.getRank(), true);
  vector::TransferWriteOp::create(b, v, buf, zeros, inBounds);
  return buf;
}

struct LowerTileMma : OpRewritePattern<TileMmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TileMmaOp op, PatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    VectorType accT = op.getAcc().getType();
    int64_t m = accT.getDimSize(0), n = accT.getDimSize(1);
    int64_t k = op.getLhs().getType().getDimSize(1);
    Value a = spill(b, widenToF32(b, op.getLhs()), op);
    Value rhs = spill(b, widenToF32(b, op.getRhs()), op);
    Value c = spill(b, op.getAcc(), op);
    Value scale = op.getKScale() ? spill(b, op.getKScale(), op) : Value();
    Value c0 = cIdx(b, 0), c1 = cIdx(b, 1);
    auto loop = [&](int64_t ub, function_ref<void(Value)> body) {
      auto f = scf::ForOp::create(b, c0, cIdx(b, ub), c1);
      OpBuilder::InsertionGuard lg(b);
      b.setInsertionPointToStart(f.getBody());
      body(f.getInductionVar());
    };
    auto f32 = b.getF32Type();
    if (op.getTransposeRhs()) {
      // c[i, j] += sum_k a[i, k] * s[k] * rhs[j, k]: row dot products.
      auto kT = VectorType::get({k}, f32);
      loop(m, [&](Value i) {
        Value ai = vector::LoadOp::create(b, kT, a, ValueRange{i, c0});
        if (scale)
          ai = arith::MulFOp::create(b, ai,
                                     vector::LoadOp::create(b, kT, scale, ValueRange{c0}));
        loop(n, [&](Value j) {
          Value bj = vector::LoadOp::create(b, kT, rhs, ValueRange{j, c0});
          Value dot = vector::ReductionOp::create(
              b, vector::CombiningKind::ADD, arith::MulFOp::create(b, ai, bj));
          Value cij = memref::LoadOp::create(b, c, ValueRange{i, j});
          memref::StoreOp::create(b, arith::AddFOp::create(b, cij, dot), c,
                                  ValueRange{i, j});
        });
      });
    } else {
      // c[i, :] += (a[i, k] * s[k]) * rhs[k, :]: row AXPYs.
      auto nT = VectorType::get({n}, f32);
      loop(m, [&](Value i) {
        loop(k, [&](Value kk) {
          Value aik = memref::LoadOp::create(b, a, ValueRange{i, kk});
          if (scale)
            aik = arith::MulFOp::create(b, aik,
                                        memref::LoadOp::create(b, scale, ValueRange{kk}));
          Value row = vector::LoadOp::create(b, nT, rhs, ValueRange{kk, c0});
          Value ci = vector::LoadOp::create(b, nT, c, ValueRange{i, c0});
          Value upd = vector::FMAOp::create(
              b, vector::BroadcastOp::create(b, nT, aik), row, ci);
          vector::StoreOp::create(b, upd, c, ValueRange{i, c0});
        });
      });
    }
    Value pad = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
    Value res = vector::TransferReadOp::create(
        b, accT, c, ValueRange{c0, c0}, pad, ArrayRef<bool>{true, true});
    rw.replaceOp(op, res);
    return success();
  }
};

/// fmha.quantize_tile in f32 vector ops, as its description states them.
struct LowerQuantizeTile : OpRewritePattern<QuantizeTileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeTileOp op, PatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    VectorType outT = op.getResult().getType();
    auto f32T = outT.clone(b.getF32Type());
    Value x = arith::ExtFOp::create(b, f32T, op.getTile());
    Value ax = arith::MaximumFOp::create(b, x, arith::NegFOp::create(b, x));
    Value amax = vector::MultiDimReductionOp::create(
        b, ax, arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f)),
        ArrayRef<bool>{true, true}, vector::CombiningKind::MAXNUMF);
    amax = arith::MaxNumFOp::create(
        b, amax, arith::ConstantOp::create(b, b.getF32FloatAttr(std::ldexp(1.0f, -100))));
    double largest = llvm::APFloat::getLargest(
                         cast<FloatType>(outT.getElementType()).getFloatSemantics())
                         .convertToDouble();
    Value m = arith::ConstantOp::create(b, b.getF32FloatAttr(static_cast<float>(largest)));
    Value inv = arith::DivFOp::create(b, m, amax);
    Value descale = arith::DivFOp::create(b, amax, m);
    Value y = arith::MulFOp::create(b, x, vector::BroadcastOp::create(b, f32T, inv));
    rw.replaceOp(op, {arith::TruncFOp::create(b, outT, y).getResult(), descale});
    return success();
  }
};

/// fmha.mma_wait: on the host a product is done when computed.
struct LowerMmaWait : OpRewritePattern<MmaWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MmaWaitOp op, PatternRewriter &rw) const override {
    rw.replaceOp(op, op.getProduct());
    return success();
  }
};

struct ConvertFmhaToHostPass
    : public fmha::impl::ConvertFmhaToHostBase<ConvertFmhaToHostPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFmhaToHostPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult left = getOperation()->walk([](Operation *op) {
      if (isa<LoadRowsOp, StoreRowsOp, PageIdsOp, GatherKVOp, GatherDescaleOp,
              TileMmaOp, QuantizeTileOp, MmaWaitOp>(op)) {
        op->emitOpError("was not lowered to host code");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::fmha::populateFmhaToHostPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLoadRows, LowerStoreRows, LowerPageIds, LowerGatherKV,
               LowerGatherDescale, LowerTileMma, LowerQuantizeTile, LowerMmaWait>(
      patterns.getContext());
}
