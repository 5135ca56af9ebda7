//===- Dependence.h - whether a value depends on another --------*- C++ -*-===//
//
// The passes that split a grid point by role (fmha-warp-specialize: the
// query head) or make its roles take turns (fmha-ping-pong: the consumer
// index) must know that loop bounds and conditions are the same for every
// role: that they do not depend on the value that tells the roles apart.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_LIB_DIALECT_FMHA_TRANSFORMS_DEPENDENCE_H
#define FMHA_LIB_DIALECT_FMHA_TRANSFORMS_DEPENDENCE_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace fmha {

namespace detail {
inline bool dependsOn(Value v, Value root, Region &scope, llvm::DenseSet<Value> &seen) {
  if (v == root)
    return true;
  if (!seen.insert(v).second)
    return false; // visited, or on the current path (a loop-carried cycle)
  auto dep = [&](Value x) { return dependsOn(x, root, scope, seen); };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Region *at = arg.getOwner()->getParent();
    // Defined outside the scope, or an argument of its entry block (the
    // grid's other indices): the same for every role.
    if (!scope.isAncestor(at) || arg.getOwner() == &scope.front())
      return false;
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop)
      return true; // another region op's argument: assumed to depend
    if (arg == loop.getInductionVar())
      return dep(loop.getLowerBound()) || dep(loop.getUpperBound()) ||
             dep(loop.getStep());
    unsigned i = arg.getArgNumber() - 1;
    return dep(loop.getInitArgs()[i]) || dep(loop.getYieldedValues()[i]);
  }
  Operation *def = v.getDefiningOp();
  if (!scope.isAncestor(def->getParentRegion()))
    return false;
  if (llvm::any_of(def->getOperands(), dep))
    return true;
  // A region op's result: also what its regions use from above.
  bool inner = false;
  def->walk([&](Operation *op) {
    if (op != def)
      for (Value x : op->getOperands())
        if (!def->isAncestor(x.getParentBlock()->getParentOp()) || x == root)
          inner = inner || dep(x);
  });
  return inner;
}
} // namespace detail

/// Whether `v` depends on `root` inside `scope`: through the operands of
/// the op defining it, the values a region op's regions use from above, an
/// scf.for's bounds (its induction variable) and a carried value's init and
/// yield. Values defined outside `scope` and the other arguments of its
/// entry block do not; arguments of any other region op inside it do
/// (conservatively).
inline bool dependsOn(Value v, Value root, Region &scope) {
  llvm::DenseSet<Value> seen;
  return detail::dependsOn(v, root, scope, seen);
}

} // namespace fmha
} // namespace mlir

#endif // FMHA_LIB_DIALECT_FMHA_TRANSFORMS_DEPENDENCE_H
