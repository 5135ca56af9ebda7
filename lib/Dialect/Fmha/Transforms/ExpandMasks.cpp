//===- ExpandMasks.cpp - fmha-expand-masks -----------------------------------===//
//
// fmha.mask_tile as vector compares and one select (docs/SPEC.md section 3):
// what fmha-tile wrote inline before the mask became an op.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <limits>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAEXPANDMASKS
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The i1 tile "key visible to the query" of one mask_tile.
Value visible(ImplicitLocOpBuilder &b, MaskTileOp op) {
  VectorType t = op.getResult().getType();
  int64_t bm = t.getDimSize(0), bn = t.getDimSize(1);
  Type idx = b.getIndexType();
  auto rowsT = VectorType::get({bm}, idx), colsT = VectorType::get({bn}, idx);
  auto tileT = VectorType::get({bm, bn}, idx);
  auto tileI1 = VectorType::get({bm, bn}, b.getI1Type());
  auto splat = [&](Type ty, Value s) -> Value {
    return vector::BroadcastOp::create(b, ty, s);
  };
  auto cIdx = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, v); };
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, p, x, y);
  };
  Value rows = arith::AddIOp::create(b, vector::StepOp::create(b, rowsT),
                                     splat(rowsT, op.getQPos()));
  Value cols = arith::AddIOp::create(b, vector::StepOp::create(b, colsT),
                                     splat(colsT, op.getKeyStart()));
  // Row r's query position along each row of the tile, key j along each column.
  Value col = vector::ShapeCastOp::create(b, VectorType::get({bm, 1}, idx), rows);
  Value a = vector::BroadcastOp::create(b, tileT, col);
  Value j = vector::BroadcastOp::create(b, tileT, cols);
  Value vis = cmp(arith::CmpIPredicate::slt, j, splat(tileT, op.getSeqLen()));
  MaskAttr mask = op.getMask();
  if (mask.isCausal())
    vis = arith::AndIOp::create(b, vis, cmp(arith::CmpIPredicate::sle, j, a));
  if (!op.getWindow().empty()) {
    // Run-time bounds: key j is cut by a bound only when the bound is >= 0.
    Value left = op.getWindow()[0], right = op.getWindow()[1];
    auto bound = [&](Value w, arith::CmpIPredicate p, bool add) -> Value {
      Value unbounded = splat(tileI1, cmp(arith::CmpIPredicate::slt, w, cIdx(0)));
      Value edge = add ? arith::AddIOp::create(b, a, splat(tileT, w)).getResult()
                       : arith::SubIOp::create(b, a, splat(tileT, w)).getResult();
      return arith::OrIOp::create(b, unbounded, cmp(p, j, edge));
    };
    vis = arith::AndIOp::create(b, vis, bound(right, arith::CmpIPredicate::sle, true));
    vis = arith::AndIOp::create(b, vis, bound(left, arith::CmpIPredicate::sge, false));
  } else if (mask.isWindow()) {
    if (mask.getRight() >= 0)
      vis = arith::AndIOp::create(
          b, vis,
          cmp(arith::CmpIPredicate::sle, j,
              arith::AddIOp::create(b, a, splat(tileT, cIdx(mask.getRight())))));
    if (mask.getLeft() >= 0)
      vis = arith::AndIOp::create(
          b, vis,
          cmp(arith::CmpIPredicate::sge, j,
              arith::SubIOp::create(b, a, splat(tileT, cIdx(mask.getLeft())))));
  }
  return vis;
}

struct FmhaExpandMasksPass
    : public fmha::impl::FmhaExpandMasksBase<FmhaExpandMasksPass> {
  void runOnOperation() override {
    SmallVector<MaskTileOp> masks;
    getOperation()->walk([&](MaskTileOp m) { masks.push_back(m); });
    for (MaskTileOp m : masks) {
      ImplicitLocOpBuilder b(m.getLoc(), m);
      VectorType t = m.getResult().getType();
      Value negInf = vector::BroadcastOp::create(
          b, t,
          arith::ConstantOp::create(
              b, b.getF32FloatAttr(-std::numeric_limits<float>::infinity())));
      Value r = arith::SelectOp::create(b, visible(b, m), m.getScores(), negInf);
      m.getResult().replaceAllUsesWith(r);
      m.erase();
    }
  }
};

} // namespace
