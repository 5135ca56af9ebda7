//===- LaneForms.h - the per-lane form of every tile value ------*- C++ -*-===//
//
// Before the lane lowering rewrites anything, LaneForms decides for every
// vector value of the kernel what it becomes on one lane (its "form"), and
// LaneTypeConverter turns that into the value's converted types: the 1:N
// type conversion the patterns and upstream's structural scf conversion run
// on. The forms (docs/GPU_LOWERING.md, "Lane forms"):
//
// | form | what a lane holds | converted types |
// |---|---|---|
// | acc | a 2-d tile in accumulator layout | one vector<accPerLane x T> per atom |
// | p | an fp8 P tile: its f32 scores, cast when the PV product packs them | as acc (f32) |
// | row_bcast | [BM x 1]: one value per row slot | slots x T |
// | q_operand | Q in MMA operand registers | one vector<perLane x fp8> per k step |
// | kv | a K or V tile staged in LDS | memref<rows*cols x i8, workgroup> |
// | affine | a 2-d column index b + column, kept symbolic | i32 (b) |
// | mask | lb <= column const <= ub per atom | atoms x vector<accPerLane x i32> per bound |
// | vec | a 1-d vector: row form (one scalar per row slot), column form (the column's value at every accumulator element), affine (b + column) and/or spread (the distinct columns of the lane's group, a share a lane: SpreadPlan) | slots x T, atoms x vector<accPerLane x T>, i32, vector<SpreadPlan::slots(atoms) x T> |
// | token_ids | per-key page ids, never materialized | none (1:0) |
//
// T is the element type with index as i32. Splat vectors (a splat constant,
// a broadcast scalar) are also known by their scalar, which patterns take
// from the defining op. A 1-d splat gets the forms its users need; a value a
// loop carries is row form (1-d) or acc (2-d).
//
// Every rule the lowering cannot follow is reported here, on the op, before
// any rewrite (the patterns then never fail).
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_CONVERSION_FMHATOGPU_LANEFORMS_H
#define FMHA_CONVERSION_FMHATOGPU_LANEFORMS_H

#include "fmha/Conversion/FmhaToGPU/LaneLayout.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace fmha {

/// Whether `v` is a vector of rank 1 (a row or column vector of the tiled
/// form) or 2 (a tile).
inline bool isVector1D(Value v) {
  auto t = dyn_cast<VectorType>(v.getType());
  return t && t.getRank() == 1;
}
inline bool isVector2D(Value v) {
  auto t = dyn_cast<VectorType>(v.getType());
  return t && t.getRank() == 2;
}

enum class FormKind { Acc, P, RowBcast, QOperand, KV, Affine, Mask, Vec, TokenIds };

struct ValueForm {
  explicit ValueForm(FormKind kind = FormKind::Acc) : kind(kind) {}
  FormKind kind;
  /// acc, p, mask, vec columns: atoms along N; q_operand: k steps.
  int64_t atoms = 0;
  /// vec: which of its forms exist. spread: the column form spread over
  /// groups of lanes (LaneLayout.h SpreadPlan), a lane's share of it.
  bool row = false, col = false, aff = false, spread = false;
  /// mask: which bounds exist.
  bool lb = false, ub = false;
  /// The lane element type (index as i32); p: f32; q_operand: the fp8 type.
  Type elem;
  /// p: the fp8 type P is cast to.
  Type fp8;
  /// kv: V (transposed in LDS at pvKeyPosition) or K (row-major; on sm_90a
  /// also Q), and the staged tile's shape in LDS: rows, and bytes per row
  /// (elements times MmaAtom::elemBytes).
  bool isV = false;
  /// kv, V only: staged row-major like K (a row per key, in key order) and
  /// read by the PV product's transpose loads (TargetInfo::transposeLoadsV).
  bool vRowMajor = false;
  int64_t ldsRows = 0, ldsCols = 0;
  /// kv, AMDGPU (LaneForms::bankSwizzle): the tile chunk-major, 16-byte
  /// column chunk c of row r at (c x ldsRows + r) x 16
  /// (LaneContext::ldsOffset), so that the 8 lanes of a 16-byte access,
  /// on 8 consecutive rows at one column, read or write 128 contiguous
  /// bytes: all 32 banks (row-major rows of 128 bytes put them on the same
  /// 4). A V^T also holds its key axis in step pairs
  /// (LaneLayout::vtPairColumn): a lane's two k steps are one 16-byte
  /// chunk, read by one 16-byte load.
  bool bankSwizzle = false;
  /// kv, V: the bytes of the tile's key axis (its contraction axis).
  int64_t vKeyBytes(int64_t elemBytes) const {
    return vRowMajor ? ldsRows * elemBytes : ldsCols;
  }
  /// kv: whether the lanes stage the tile transposed (V^T).
  bool transposedInLds() const { return isV && !vRowMajor; }
};

/// Bytes of workgroup memory the kernel's staged K and V tiles take: every
/// fmha.gather_kv tile is staged, and the KV loops fmha-peel-masked-tiles
/// split one loop into share their buffers (the most any one loop stages),
/// and the copies of a loop fmha-unroll-kv-loop unrolled share the first
/// copy's.
int64_t stagedKVBytes(gpu::GPUFuncOp kernel);
/// Bytes of the kernel's rings of K/V stages (fmha.stage_kv: stages x
/// the tile's bytes per ring), beside stagedKVBytes.
int64_t ringBytes(gpu::GPUFuncOp kernel);

class LaneForms {
public:
  /// Decides the form of every vector value in `kernel`; a diagnostic on the
  /// first op the lowering does not take.
  LogicalResult analyze(gpu::GPUFuncOp kernel, const LaneLayout &layout,
                        const TargetInfo &ti, ConfigAttr cfg);

  const ValueForm *lookup(Value v) const {
    auto it = forms.find(v);
    return it == forms.end() ? nullptr : &it->second;
  }
  const ValueForm &get(Value v) const { return forms.find(v)->second; }

  /// AMDGPU: stage the K and V tiles the lanes write in the bank-swizzled
  /// layout (ValueForm::bankSwizzle) where it applies. Set before analyze.
  bool bankSwizzle = false;

  /// The spread plan of the kernel's layout (groups of
  /// TargetInfo::groupBroadcastLanes), if it has one.
  const std::optional<SpreadPlan> &spreadPlan() const { return spread; }
  /// The slots of a spread form of a vector of `n` columns.
  int64_t spreadSlots(int64_t n) const;

  /// The converted types of a value of form `f`.
  void typesOf(const ValueForm &f, MLIRContext *ctx,
               SmallVectorImpl<Type> &out) const;

  /// Whether `v` is a splat vector (a splat constant or a broadcast scalar).
  static bool isSplat(Value v);

private:
  LogicalResult visit(Operation *op);
  LogicalResult visitElementwise(Operation *op);
  LogicalResult visitFor(Operation *op);
  void pruneSplats(gpu::GPUFuncOp kernel);

  const LaneLayout *layout = nullptr;
  /// The kernel has a K/V ring filled by loads straight into LDS.
  bool kLoadsIntoLds = false;
  const TargetInfo *ti = nullptr;
  ConfigAttr cfg;
  int64_t accPerLane = 0;
  /// stagedKVBytes of the kernel (sm_90a stages Q only where it fits too).
  int64_t kvBytes = 0;
  DenseMap<Value, ValueForm> forms;
  std::optional<SpreadPlan> spread;
};

/// The 1:N type conversion of the lane lowering: a value LaneForms has a form
/// for becomes that form's types; every other value keeps its type.
class LaneTypeConverter : public TypeConverter {
public:
  LaneTypeConverter(MLIRContext *ctx, const LaneForms &forms);
  const LaneForms &forms() const { return laneForms; }

private:
  const LaneForms &laneForms;
};

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_FMHATOGPU_LANEFORMS_H
