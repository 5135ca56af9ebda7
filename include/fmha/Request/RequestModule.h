//===- RequestModule.h - a kernel request as an fmha module -----*- C++ -*-===//
//
// Turns a request of the reference library (the fields of fmha-run's and
// fmha-compile's flags) into a module with one function holding one
// fmha.batch_prefill, and back into the ABI its arguments follow.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REQUEST_REQUESTMODULE_H
#define FMHA_REQUEST_REQUESTMODULE_H

#include "fmha/Reference/Problem.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace mlir {
namespace fmha {

class ConfigAttr;
namespace ref = ::fmha::ref;

/// Name of the kernel function in the module.
inline constexpr const char *kKernelName = "fmha_batch_prefill";

/// One argument of the kernel function, in order.
struct RequestOperand {
  std::string name; ///< operand name of fmha.batch_prefill ("q", "k_cache", ...)
  int64_t rank;
};

/// The kernel's arguments for a request (the op's present operands, in order).
std::vector<RequestOperand> requestOperands(const ref::Request &req);

/// Builds `func.func @fmha_batch_prefill(...)` (with llvm.emit_c_interface,
/// each argument named by its `fmha.operand_name`, requestOperands' name)
/// around one fmha.batch_prefill stating the request. Returns null and emits
/// the verifier's diagnostics (through the context's handler) when invalid.
OwningOpRef<ModuleOp> buildRequestModule(MLIRContext &ctx,
                                         const ref::Request &req);

/// How a kernel of config `cfg` for `req` sums its MMA steps, for the
/// emulating reference (EmulateOptions::wgmma_fp8_promote and _pv, the
/// manifest's config.wgmma_fp8_promote and _pv): the chip's fp8 wgmma
/// promote steps of S (pv false) or P V (ChipInfo, sm_90a) when Q, K, V
/// and P all enter the MMA as fp8 (a 16-bit Q quantized per tile counts),
/// else 0.
int64_t wgmmaFp8Promote(const ref::Request &req, ConfigAttr cfg, bool pv = false);

} // namespace fmha
} // namespace mlir

#endif // FMHA_REQUEST_REQUESTMODULE_H
