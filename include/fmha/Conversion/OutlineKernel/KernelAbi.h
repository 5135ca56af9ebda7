//===- KernelAbi.h - where each argument of a kernel comes from -*- C++ -*-===//
//
// fmha-outline-kernel gives every kernel the flat ABI (one `!llvm.ptr<1>` per
// memref, one i64 per dynamic size, offset and stride, scalars as they are)
// and records on the `gpu.func`, as `fmha.abi`, where each argument comes
// from. Launchers and the manifest read this record; nothing re-derives the
// ABI from the IR of the launch.
//
// The record: an ArrayAttr with one DictionaryAttr per kernel argument, in
// argument order:
//
//   {operand = 0 : i64, name = "q", part = "pointer"}
//   {dim = 0 : i64, operand = 0 : i64, name = "q", part = "size"}
//   {operand = 10 : i64, name = "k_descale", part = "offset"}
//   {dim = 1 : i64, operand = 10 : i64, name = "k_descale", part = "stride"}
//   {operand = 3 : i64, name = "n", part = "value"}
//   {box = [128, 16, 1, 1], dims = [3, 1, 2, 0], element_bytes = 1,
//    name = "k_cache", operand = 1 : i64, part = "tensormap", swizzle = 128,
//    shape = [-1, 16, 8, 128], strides = [16384, 1024, 128, 1]}
//
// - `operand`: the argument number, in the function that held the grid, of
//   the value the kernel argument is taken from (for a request module, the
//   request operand). Absent when the value was computed in that function.
// - `name`: that function argument's `fmha.operand_name` (buildRequestModule
//   sets it: "q", "k_cache", ...); "argN" for a function argument without one;
//   "hostK" (the K-th such value) for a value computed in the function.
// - `part`: "pointer" (the memref's aligned pointer), "size" / "stride" (its
//   dynamic size / stride of dimension `dim`), "offset" (its dynamic offset),
//   "value" (a non-memref value passed as it is), "tensormap" (sm_90a with
//   TMA: a CUDA tensor map of the memref, `!llvm.ptr` in the kernel, by
//   value as a __grid_constant__ parameter on the device; docs/ABI.md):
//   map dimension i (innermost first) is the memref's dimension dims[i],
//   `box` its box in elements, `swizzle` 0 / 32 / 64 / 128 bytes;
//   `shape` and `strides` the memref type's (elements, -1 where dynamic:
//   the lane emulator builds its own map from them and the launch's flat
//   values).
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_CONVERSION_OUTLINEKERNEL_KERNELABI_H
#define FMHA_CONVERSION_OUTLINEKERNEL_KERNELABI_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
namespace gpu {
class GPUFuncOp;
} // namespace gpu

namespace fmha {

/// Kernel attribute: the record described above.
inline constexpr const char *kKernelAbiAttr = "fmha.abi";

/// What one kernel argument is of the value it comes from.
enum class AbiPart { Pointer, Size, Offset, Stride, Value, TensorMap };

/// "pointer", "size", "offset", "stride", "value", "tensormap".
StringRef abiPartName(AbiPart part);

/// One entry of the record.
struct KernelAbiArg {
  int64_t operand = -1; ///< function argument number; -1: computed on the host
  std::string name;     ///< "q", "k_cache", ..., "argN", "hostK"
  AbiPart part = AbiPart::Value;
  int64_t dim = -1; ///< Size / Stride: the dimension; -1 otherwise
  /// TensorMap: the map's dimensions (memref dims, innermost first), its
  /// box (elements), swizzle bytes, element bytes, and the memref type's
  /// shape and strides (-1: dynamic).
  std::vector<int64_t> tmapDims, tmapBox, shape, strides;
  int64_t swizzle = 0, elementBytes = 0;

  /// The argument's name in the manifest: NAME for a pointer or value,
  /// NAME_dimN, NAME_offset, NAME_strideN, NAME_tmap for the others.
  std::string flatName() const;
  /// The dictionary of the record.
  DictionaryAttr toAttr(MLIRContext *ctx) const;
};

/// The ArrayAttr of `args`, to set as kKernelAbiAttr.
ArrayAttr kernelAbiAttr(MLIRContext *ctx, ArrayRef<KernelAbiArg> args);

/// Reads `kernel`'s record back. Emits an error on the kernel and returns
/// failure when it is missing, malformed, or does not have one entry per
/// kernel argument.
FailureOr<SmallVector<KernelAbiArg>> readKernelAbi(gpu::GPUFuncOp kernel);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_OUTLINEKERNEL_KERNELABI_H
