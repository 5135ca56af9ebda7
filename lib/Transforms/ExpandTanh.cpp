//===- ExpandTanh.cpp - math.tanh as exp2 and arith --------------------------===//
//
// fmha-expand-tanh: the soft cap's tanh in the ops every GPU lowering has
// (the chip's exp2 and elementwise arith), no device library. The formula
// and its error are on the pass (include/fmha/Transforms/Passes.td).
//
//===----------------------------------------------------------------------===//
#include "fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::fmha {
#define GEN_PASS_DEF_EXPANDTANHPASS
#include "fmha/Transforms/Passes.h.inc"
} // namespace mlir::fmha

using namespace mlir;

namespace {

/// tanh(x) for an f32 scalar or vector x, written at b's insertion point.
Value expandTanh(ImplicitLocOpBuilder &b, Value x) {
  Type t = x.getType();
  auto cst = [&](double v) -> Value {
    TypedAttr a = b.getF32FloatAttr(static_cast<float>(v));
    if (auto vt = dyn_cast<VectorType>(t))
      a = SplatElementsAttr::get(vt, a);
    return arith::ConstantOp::create(b, t, a);
  };
  // e = exp2(2 log2(e) x): +inf for large x (2 / inf = 0, tanh 1), 0 for
  // large -x (tanh -1); NaN stays NaN.
  Value e = math::Exp2Op::create(
      b, arith::MulFOp::create(b, x, cst(2.0 * 1.4426950408889634)));
  // A reciprocal, not an IEEE division (arcp, afn): rcp / div.approx.
  Value q = arith::DivFOp::create(
      b, cst(2.0), arith::AddFOp::create(b, cst(1.0), e),
      arith::FastMathFlags::arcp | arith::FastMathFlags::afn);
  return arith::SubFOp::create(b, cst(1.0), q);
}

struct ExpandTanhPass : public fmha::impl::ExpandTanhPassBase<ExpandTanhPass> {
  void runOnOperation() override {
    SmallVector<math::TanhOp> ops;
    getOperation()->walk([&](math::TanhOp op) {
      if (getElementTypeOrSelf(op.getType()).isF32())
        ops.push_back(op);
    });
    for (math::TanhOp op : ops) {
      ImplicitLocOpBuilder b(op.getLoc(), op);
      op.getResult().replaceAllUsesWith(expandTanh(b, op.getOperand()));
      op.erase();
    }
  }
};

} // namespace
