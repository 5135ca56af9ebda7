//===- RequestFlags.h - the request flags shared by the tools ---*- C++ -*-===//
//
// The flags that state one request (lengths, heads, dims, page size and
// table, quantization, types, mask, ...), shared by fmha-run and
// fmha-compile so both take the same spelling and reject the same input.
// Tools only: the libraries take a ref::Request and have no cl::opt.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TOOLS_COMMON_REQUESTFLAGS_H
#define FMHA_TOOLS_COMMON_REQUESTFLAGS_H

#include "ToolMain.h"
#include "fmha/Reference/PageTable.h"
#include "fmha/Reference/Problem.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace fmha_tools {
namespace cl = llvm::cl;
namespace ref = ::fmha::ref;


inline cl::opt<int64_t> optBatch("batch", cl::desc("sequences (with --qo-len/--kv-len scalars)"), cl::cat(kRequestCategory), cl::init(2));
inline cl::opt<std::string> optQoLen("qo-len", cl::desc("query rows per sequence: N or a comma list"), cl::cat(kRequestCategory), cl::init("100"));
inline cl::opt<std::string> optKvLen("kv-len", cl::desc("KV tokens per sequence: N or a comma list"), cl::cat(kRequestCategory), cl::init("1500"));
inline cl::opt<std::string> optHeads("heads", cl::desc("Hq/Hkv"), cl::cat(kRequestCategory), cl::init("32/8"));
inline cl::opt<std::string> optHeadDim("head-dim", cl::desc("D or D/Dv"), cl::cat(kRequestCategory), cl::init("128"));
inline cl::opt<int64_t> optPageSize("page-size", cl::desc("tokens per page"), cl::cat(kRequestCategory), cl::init(1024));
inline cl::opt<std::string> optTable("table", cl::desc("csr | block"), cl::cat(kRequestCategory), cl::init("csr"));
inline cl::opt<std::string> optLayout("layout", cl::desc("nhd | hnd"), cl::cat(kRequestCategory), cl::init("nhd"));
inline cl::opt<std::string> optQuant("quant", cl::desc("none | per_tensor | kv_blockscale"), cl::cat(kRequestCategory), cl::init("kv_blockscale"));
inline cl::opt<std::string> optQType("q-dtype", cl::desc("q element type: f8E4M3FN (e4m3, float8_e4m3fn), f8E4M3FNUZ (e4m3fnuz), f8E5M2 (e5m2), fp8 (the chip's e4m3), bf16, f16, f32"), cl::cat(kRequestCategory), cl::init("f8E4M3FN"));
inline cl::opt<std::string> optKvType("kv-dtype", cl::desc("k/v element type (as --q-dtype)"), cl::cat(kRequestCategory), cl::init("f8E4M3FN"));
inline cl::opt<std::string> optOutType("out-dtype", cl::desc("out element type"), cl::cat(kRequestCategory), cl::init("bf16"));
inline cl::opt<std::string> optMask("mask", cl::desc("none | causal | window:L,R"), cl::cat(kRequestCategory), cl::init("causal"));
inline cl::opt<double> optSmScale("sm-scale", cl::desc("softmax scale (default 1/sqrt(D))"), cl::cat(kRequestCategory), cl::init(0.0));
inline cl::opt<bool> optKvStrided("kv-strided", cl::desc("the kernel takes K and V with any page, token and head strides (d contiguous), read at run time; runs lay K and V out as one combined (N_pages, 2, P, Hkv, D) cache"), cl::cat(kRequestCategory), cl::init(false));
inline cl::opt<bool> optRuntimeScalars("runtime-scalars", cl::desc("the kernel reads sm_scale, the window bounds and the soft cap at run time ([4] i32 buffer runtime_scalars; one kernel for every scale, window and cap)"), cl::cat(kRequestCategory), cl::init(false));
inline cl::opt<double> optSoftCap("soft-cap", cl::desc("logit soft cap (0: none)"), cl::cat(kRequestCategory), cl::init(0.0));
inline cl::opt<bool> optLse("lse", cl::desc("also return lse"), cl::cat(kRequestCategory), cl::init(false));
inline cl::opt<uint64_t> optSeed("seed", cl::desc("input seed"), cl::cat(kRequestCategory), cl::init(0));
inline cl::opt<std::string> optData("data", cl::desc("input data: uniform (U[0,1)) | spread (K/V magnitudes 2^-6..2^6 per page and KV head)"), cl::cat(kRequestCategory), cl::init("uniform"));

inline bool parseList(const std::string &s, std::vector<int64_t> &out) {
  out.clear();
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(s).split(parts, ',');
  for (llvm::StringRef p : parts) {
    int64_t v;
    if (p.trim().getAsInteger(10, v))
      return false;
    out.push_back(v);
  }
  return !out.empty();
}

inline bool parsePair(const std::string &s, int64_t &a, int64_t &b, bool optionalSecond) {
  auto [x, y] = llvm::StringRef(s).split('/');
  if (x.getAsInteger(10, a))
    return false;
  if (y.empty()) {
    b = optionalSecond ? 0 : -1;
    return optionalSecond;
  }
  return !y.getAsInteger(10, b);
}

/// Reads the flags into a request; "" or the rule a flag broke.
inline std::string readRequest(ref::Request &r) {
  std::vector<int64_t> qo, kv;
  if (!parseList(optQoLen, qo) || !parseList(optKvLen, kv))
    return "--qo-len/--kv-len must be integers or comma lists";
  if (optBatch < 0 || optBatch > ref::kMaxBatch)
    return "--batch must be in [0, " + std::to_string(ref::kMaxBatch) +
           "], got " + std::to_string(optBatch);
  // --batch given with a list: the list must have that many entries (never
  // silently replaced by the list's size).
  const size_t listSize = std::max(qo.size(), kv.size());
  if (optBatch.getNumOccurrences() && listSize > 1 &&
      static_cast<int64_t>(listSize) != optBatch)
    return "--batch is " + std::to_string(optBatch) +
           " but the --qo-len/--kv-len list has " + std::to_string(listSize) +
           " entries";
  if (qo.size() == 1 && kv.size() == 1) {
    qo.assign(optBatch, qo[0]);
    kv.assign(optBatch, kv[0]);
  } else if (qo.size() == 1) {
    qo.assign(kv.size(), qo[0]);
  } else if (kv.size() == 1) {
    kv.assign(qo.size(), kv[0]);
  }
  if (qo.size() != kv.size())
    return "--qo-len and --kv-len lists must have the same length";
  r.qo_lens = qo;
  r.kv_lens = kv;
  if (!parsePair(optHeads, r.num_qo_heads, r.num_kv_heads, false))
    return "--heads must be Hq/Hkv";
  if (!parsePair(optHeadDim, r.head_dim, r.head_dim_v, true))
    return "--head-dim must be D or D/Dv";
  r.page_size = optPageSize;
  auto table = ref::parseTableForm(optTable);
  auto layout = ref::parseLayout(optLayout);
  auto quant = ref::parseQuantMode(optQuant);
  auto mask = ref::parseMask(optMask);
  auto data = ref::parseDataMode(optData);
  auto qT = ref::parseDType(optQType), kvT = ref::parseDType(optKvType),
       oT = ref::parseDType(optOutType);
  if (!table) return "--table must be csr or block";
  if (!layout) return "--layout must be nhd or hnd";
  if (!quant) return "--quant must be none, per_tensor or kv_blockscale";
  if (!mask) return "--mask must be none, causal or window:L,R";
  if (!data) return "--data must be uniform or spread";
  if (!qT || !kvT || !oT) return "unknown element type in --q-dtype/--kv-dtype/--out-dtype";
  r.table = *table;
  r.layout = *layout;
  r.quant = *quant;
  r.mask = *mask;
  r.data = *data;
  r.q_dtype = *qT;
  r.kv_dtype = *kvT;
  r.out_dtype = *oT;
  // Given, the scale must be a positive finite number; 0 is never a silent
  // "default" when it was asked for (ref::Request::validate checks the rest).
  if (optSmScale.getNumOccurrences() &&
      !(optSmScale > 0.0 && optSmScale <= std::numeric_limits<double>::max()))
    return "--sm-scale must be > 0 and finite, got " +
           std::to_string(optSmScale);
  r.sm_scale = optSmScale;
  r.soft_cap = optSoftCap;
  r.return_lse = optLse;
  r.runtime_scalars = optRuntimeScalars;
  r.kv_strided = optKvStrided;
  r.seed = optSeed;
  return "";
}

/// A type flag's value, with "fp8" meaning the chip's e4m3 flavour
/// (FNUZ where the chip's MFMA takes only FNUZ).
inline std::string chipDType(const std::string &flag, bool fnuz) {
  if (llvm::StringRef(flag).lower() == "fp8")
    return fnuz ? "f8E4M3FNUZ" : "f8E4M3FN";
  return flag;
}

} // namespace fmha_tools

#endif // FMHA_TOOLS_COMMON_REQUESTFLAGS_H
