//===- KernelManifest.h - the manifest fmha-compile writes, read back -*- C++ -*-===//
//
// NAME.json (docs/ABI.md): the request the kernel was compiled for, its tile
// config, the ordered kernel arguments, the workgroup, the grid and its
// formula. Shared by the launchers (fmha-hip-run, fmha-cuda-run); header only
// and free of LLVM and MLIR, since fmha-cuda-run builds on the GPU machine
// where neither exists. Every problem is one message naming the field.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TOOLS_COMMON_KERNELMANIFEST_H
#define FMHA_TOOLS_COMMON_KERNELMANIFEST_H

#include "MiniJson.h"

#include "fmha/Reference/PageTable.h"
#include "fmha/Reference/Problem.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fmha_tools {
namespace manifest {
namespace json = ::fmha::minijson;
namespace ref = ::fmha::ref;

inline constexpr const char *kFormat = "fmha-kernel-manifest/1";

inline std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

inline bool parseInt(std::string_view s, int64_t &out) {
  if (s.empty() || s.size() > 18)
    return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size())
    return false;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    v = v * 10 + (s[i] - '0');
  }
  out = s[0] == '-' ? -v : v;
  return true;
}


//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

/// Tensor operands in the op's order (SPEC section 1). The short spellings
/// `k` and `v` of the caches are accepted too.
// clang-format off
constexpr const char *kTensors[] = {
    "q", "k_cache", "v_cache", "qo_indptr", "kv_indptr", "kv_page_indices",
    "kv_last_page_len", "block_table", "kv_seqlen", "q_descale", "k_descale",
    "v_descale", "runtime_scalars", "out", "lse"};
// clang-format on

inline std::string canonicalTensor(std::string_view name) {
  if (name == "k")
    return "k_cache";
  if (name == "v")
    return "v_cache";
  for (const char *t : kTensors)
    if (name == t)
      return t;
  return "";
}

/// What a scalar argument holds about its tensor (memref semantics, in
/// elements): a size, a stride, or the offset of element 0 from the pointer.
/// TensorMap: a CUDA tensor map of the tensor, passed by value.
enum class Field { Pointer, Dim, Stride, Offset, TensorMap };

/// A "tensormap" argument's encoding (NVIDIA TMA): the CUtensorMap the
/// launcher builds with cuTensorMapEncodeTiled from its tensor.
struct TensorMap {
  /// Map dimension i (innermost first) is tensor dimension dims[i] (memref
  /// dims, outermost = 0); its length is the map's rank.
  std::vector<int64_t> dims;
  std::vector<int64_t> box; ///< elements per map dimension
  int64_t elementBytes = 0; ///< 1 (UINT8) or 2 (UINT16)
  int64_t swizzle = 0;      ///< bytes: 0 (none), 32, 64 or 128
};

/// A CUtensorMap: 128 bytes, 64-byte aligned (cuda.h).
inline constexpr uint64_t kTensorMapBytes = 128, kTensorMapAlign = 64;

struct Arg {
  std::string name, kind; ///< kind: "pointer", "i64", "i32" or "tensormap"
  uint64_t offset = 0, size = 0, align = 1;
  std::string tensor; ///< canonical tensor name
  Field field = Field::Pointer;
  int64_t index = -1; ///< N of TENSOR_dimN / TENSOR_strideN
  TensorMap tmap;     ///< kind "tensormap" only
};

/// The tile config of the kernel ("config"): what the emulation needs.
struct Config {
  int64_t blockM = 0, blockN = 0, kStep = 0, warps = 0, waveSize = 0;
  int64_t shift = 0;
  std::string pType;
  ref::DType pDType = ref::DType::F32;
  /// "pv_vd_route": the config's vd_route (a GPU kernel's), how it applies V
  /// descales: "scalar" (one per tile), "page_groups" (per page, after the
  /// cast, as the tiled form), "scaled_p" (folded into P before the cast) or
  /// "exp2_bias" (log2(vd) in the exp2 argument, docs/FOLDS.md).
  std::string pvVdRoute = "scalar";
  /// "page_regime" (one_page, whole_pages, unaligned) and "pv_group" (k steps
  /// per page group): the config's other decisions (docs/REGIMES.md).
  std::string pageRegime;
  int64_t pvGroup = 0;
  /// "q_scale": "as_stored" (Q enters the product as stored) or "per_tile"
  /// (a 16-bit Q quantized to the cache's fp8 type per Q tile, SPEC
  /// section 4); left out: as_stored.
  std::string qScale = "as_stored";
  /// "wgmma_fp8_promote": > 0 where the MMA is sm_90a's fp8 wgmma (its
  /// chains summed in f32 every this many k steps; the emulating reference
  /// sums as that MMA does); 0 or left out: products sum exactly.
  int64_t wgmmaFp8Promote = 0;
  /// "wgmma_fp8_promote_pv": the same for the P V chains (0 or left out:
  /// as wgmma_fp8_promote).
  int64_t wgmmaFp8PromotePv = 0;
};

struct Manifest {
  std::string chip, target, binary, binaryFormat, kernel;
  ref::Request req;
  Config config;
  bool hasConfig = false;
  std::vector<Arg> args;
  uint64_t kernargSize = 0, kernargAlign = 8, ldsBytes = 0;
  /// Shared memory the launch passes (NVIDIA: all of it is dynamic).
  uint64_t dynamicSharedBytes = 0;
  std::array<uint32_t, 3> workgroup{}, grid{};
  std::array<std::string, 3> gridFormula; ///< "" when absent
};

/// Reads typed fields of one JSON object; the first problem is kept in `err`
/// and names the field by its path ("request.head_dim").
class Fields {
public:
  Fields(const json::Object &o, std::string path, std::string &err)
      : o(o), path(std::move(path)), err(err) {}

  std::string where(std::string_view key) const {
    return "\"" + (path.empty() ? std::string(key) : path + "." + std::string(key)) +
           "\"";
  }
  bool problem(const std::string &msg) {
    if (err.empty())
      err = msg;
    return false;
  }
  bool missing(std::string_view key, std::string_view what) {
    return problem("missing " + where(key) + " (" + std::string(what) + ")");
  }

  bool str(std::string_view key, std::string &out, bool required = true) {
    const json::Value *v = o.get(key);
    if (!v)
      return !required || missing(key, "a string");
    std::optional<std::string_view> s = v->getAsString();
    if (!s)
      return problem(where(key) + " must be a string");
    out = std::string(*s);
    return true;
  }
  bool i64(std::string_view key, int64_t &out, bool required = true) {
    const json::Value *v = o.get(key);
    if (!v)
      return !required || missing(key, "an integer");
    std::optional<int64_t> i = v->getAsInteger();
    if (!i)
      return problem(where(key) + " must be an integer");
    out = *i;
    return true;
  }
  bool u64(std::string_view key, uint64_t &out, bool required = true) {
    int64_t i = static_cast<int64_t>(out);
    if (!i64(key, i, required))
      return false;
    if (i < 0)
      return problem(where(key) + " must be >= 0, got " + std::to_string(i));
    out = static_cast<uint64_t>(i);
    return true;
  }
  /// An integer >= 1.
  bool positive(std::string_view key, int64_t &out, bool required = true) {
    const json::Value *v = o.get(key);
    if (!i64(key, out, required))
      return false;
    if (v && out < 1)
      return problem(where(key) + " must be >= 1, got " + std::to_string(out));
    return true;
  }
  bool num(std::string_view key, double &out, bool required = true) {
    const json::Value *v = o.get(key);
    if (!v)
      return !required || missing(key, "a number");
    std::optional<double> d = v->getAsNumber();
    if (!d)
      return problem(where(key) + " must be a number");
    out = *d;
    return true;
  }
  bool boolean(std::string_view key, bool &out, bool required = true) {
    const json::Value *v = o.get(key);
    if (!v)
      return !required || missing(key, "true or false");
    std::optional<bool> b = v->getAsBoolean();
    if (!b)
      return problem(where(key) + " must be true or false");
    out = *b;
    return true;
  }
  /// An array of integers; a single integer is accepted as a one-element list.
  bool i64List(std::string_view key, std::vector<int64_t> &out) {
    const json::Value *v = o.get(key);
    if (!v)
      return missing(key, "an array of integers");
    out.clear();
    if (std::optional<int64_t> i = v->getAsInteger()) {
      out.push_back(*i);
      return true;
    }
    const json::Array *a = v->getAsArray();
    if (!a)
      return problem(where(key) + " must be an array of integers");
    for (const json::Value &e : *a) {
      std::optional<int64_t> i = e.getAsInteger();
      if (!i)
        return problem(where(key) + " must be an array of integers");
      out.push_back(*i);
    }
    return true;
  }
  /// Three non-negative 32-bit integers.
  bool dim3(std::string_view key, std::array<uint32_t, 3> &out) {
    std::vector<int64_t> v;
    if (!i64List(key, v))
      return false;
    if (v.size() != 3)
      return problem(where(key) + " must have 3 entries, got " +
                     std::to_string(v.size()));
    for (size_t i = 0; i < 3; ++i) {
      if (v[i] < 0 || v[i] > int64_t(UINT32_MAX))
        return problem(where(key) + "[" + std::to_string(i) +
                       "] is out of range: " + std::to_string(v[i]));
      out[i] = static_cast<uint32_t>(v[i]);
    }
    return true;
  }

private:
  const json::Object &o;
  std::string path;
  std::string &err;
};

/// The "request" object: fmha-run's flag values. Fields that change the
/// kernel's code are required, so a manifest never silently runs the project's
/// default request against another kernel.
inline std::string readRequest(const json::Object &o, ref::Request &r) {
  std::string err;
  Fields f(o, "request", err);
  std::vector<int64_t> qo, kv;
  int64_t batch = -1;
  std::string table, layout, quant, mask, qT, kvT, oT, data = "uniform";
  f.i64List("qo_lens", qo) && f.i64List("kv_lens", kv) &&
      f.i64("batch", batch, false) && f.i64("num_qo_heads", r.num_qo_heads) &&
      f.i64("num_kv_heads", r.num_kv_heads) && f.i64("head_dim", r.head_dim) &&
      f.i64("head_dim_v", r.head_dim_v, false) &&
      f.i64("page_size", r.page_size) && f.i64("n_pages", r.n_pages, false) &&
      f.str("page_table", table) && f.str("kv_layout", layout) &&
      f.str("quant", quant) && f.str("mask", mask) && f.str("q_dtype", qT) &&
      f.str("kv_dtype", kvT) && f.str("out_dtype", oT) &&
      f.boolean("lse", r.return_lse) && f.num("sm_scale", r.sm_scale, false) &&
      f.num("soft_cap", r.soft_cap, false) &&
      f.boolean("runtime_scalars", r.runtime_scalars, false) &&
      f.boolean("kv_strided", r.kv_strided, false);
  int64_t seed = 0;
  f.i64("seed", seed, false) && f.str("data", data, false);
  if (!err.empty())
    return err;
  r.seed = static_cast<uint64_t>(seed);
  // fmha-run's rule: scalar lengths repeat over the batch.
  if (batch >= 0) {
    if (batch > (int64_t(1) << 24))
      return "\"request.batch\" is too large: " + std::to_string(batch);
    if (qo.size() == 1)
      qo.assign(batch, qo[0]);
    if (kv.size() == 1)
      kv.assign(batch, kv[0]);
  } else if (qo.size() == 1 && kv.size() > 1) {
    qo.assign(kv.size(), qo[0]);
  } else if (kv.size() == 1 && qo.size() > 1) {
    kv.assign(qo.size(), kv[0]);
  }
  if (qo.size() != kv.size())
    return "\"request.qo_lens\" and \"request.kv_lens\" have different "
           "lengths: " +
           std::to_string(qo.size()) + " and " + std::to_string(kv.size());
  if (batch >= 0 && static_cast<int64_t>(qo.size()) != batch)
    return "\"request.batch\" is " + std::to_string(batch) +
           " but \"request.qo_lens\" has " + std::to_string(qo.size()) +
           " entries";
  r.qo_lens = qo;
  r.kv_lens = kv;
  auto tf = ref::parseTableForm(table);
  auto kl = ref::parseLayout(layout);
  auto qm = ref::parseQuantMode(quant);
  auto mk = ref::parseMask(mask);
  auto dm = ref::parseDataMode(data);
  auto q = ref::parseDType(qT), k = ref::parseDType(kvT),
       out = ref::parseDType(oT);
  if (!tf)
    return "\"request.page_table\" must be csr or block_table, got " +
           quote(table);
  if (!kl)
    return "\"request.kv_layout\" must be nhd or hnd, got " + quote(layout);
  if (!qm)
    return "\"request.quant\" must be none, per_tensor or kv_blockscale, "
           "got " +
           quote(quant);
  if (!mk)
    return "\"request.mask\" must be none, causal or window(L,R), got " +
           quote(mask);
  if (!dm)
    return "\"request.data\" must be uniform or spread, got " + quote(data);
  if (!q)
    return "\"request.q_dtype\" is not an element type: " + quote(qT);
  if (!k)
    return "\"request.kv_dtype\" is not an element type: " + quote(kvT);
  if (!out)
    return "\"request.out_dtype\" is not an element type: " + quote(oT);
  r.table = *tf;
  r.layout = *kl;
  r.quant = *qm;
  r.mask = *mk;
  r.data = *dm;
  r.q_dtype = *q;
  r.kv_dtype = *k;
  r.out_dtype = *out;
  return "";
}

/// The "config" object: the kernel's tiles, P type and exp2 shift, which the
/// emulating reference must use to round like the kernel.
inline std::string readConfig(const json::Object &o, Config &c) {
  std::string err;
  Fields f(o, "config", err);
  f.positive("block_m", c.blockM) && f.positive("block_n", c.blockN) &&
      f.str("p_type", c.pType) && f.i64("shift", c.shift) &&
      f.positive("k_step", c.kStep, false) &&
      f.positive("warps", c.warps, false) &&
      f.positive("wave_size", c.waveSize, false) &&
      f.str("pv_vd_route", c.pvVdRoute, false) &&
      f.str("page_regime", c.pageRegime, false) &&
      f.i64("pv_group", c.pvGroup, false) &&
      f.str("q_scale", c.qScale, false) &&
      f.i64("wgmma_fp8_promote", c.wgmmaFp8Promote, false) &&
      f.i64("wgmma_fp8_promote_pv", c.wgmmaFp8PromotePv, false);
  if (!err.empty())
    return err;
  if (c.wgmmaFp8Promote < 0 || c.wgmmaFp8PromotePv < 0)
    return "\"config.wgmma_fp8_promote\" and \"config.wgmma_fp8_promote_pv\" "
           "must be >= 0, got " + std::to_string(c.wgmmaFp8Promote) + " and " +
           std::to_string(c.wgmmaFp8PromotePv);
  if (c.qScale != "as_stored" && c.qScale != "per_tile")
    return "\"config.q_scale\" must be as_stored or per_tile, got " + quote(c.qScale);
  if (!c.pageRegime.empty() && c.pageRegime != "one_page" &&
      c.pageRegime != "whole_pages" && c.pageRegime != "unaligned")
    return "\"config.page_regime\" must be one_page, whole_pages or unaligned, "
           "got " + quote(c.pageRegime);
  if (c.pvGroup < 0 || (c.pvGroup > 0) != (c.pvVdRoute == "page_groups"))
    return "\"config.pv_group\" must be > 0 with pv_vd_route page_groups and 0 "
           "otherwise, got " + std::to_string(c.pvGroup);
  if (c.pvVdRoute != "scalar" && c.pvVdRoute != "page_groups" &&
      c.pvVdRoute != "scaled_p" && c.pvVdRoute != "exp2_bias")
    return "\"config.pv_vd_route\" must be scalar, page_groups, scaled_p or exp2_bias, got " +
           quote(c.pvVdRoute);
  std::optional<ref::DType> p = ref::parseDType(c.pType);
  if (!p)
    return "\"config.p_type\" is not an element type: " + quote(c.pType);
  c.pDType = *p;
  if (c.shift < 0 || c.shift > 30)
    return "\"config.shift\" must be in [0, 30], got " +
           std::to_string(c.shift);
  return "";
}

/// The rest of a "tensormap" entry of "args[i]" (`at`; `what` names it for
/// messages): the tensor from its name, the layout rules of a by-value
/// CUtensorMap, and the "tensormap" object with the rules
/// cuTensorMapEncodeTiled puts on the box and swizzle.
inline std::string readTensorMap(const json::Object &o, const std::string &at,
                                 const std::string &what, Arg &a) {
  // The kernel declares `.param .align 64 .b8 NAME[128]`.
  if (a.size != kTensorMapBytes)
    return what + ": a tensormap has size 128 (a CUtensorMap), got " +
           std::to_string(a.size);
  if (o.get("align") && a.align != kTensorMapAlign)
    return what + ": a tensormap has align 64 (a CUtensorMap), got " +
           std::to_string(a.align);
  a.align = kTensorMapAlign;
  if (a.offset % kTensorMapAlign)
    return what +
           ": a tensormap must be at an offset that is a multiple of "
           "64 (a CUtensorMap is 64-byte aligned), got " +
           std::to_string(a.offset);
  constexpr std::string_view kSuffix = "_tmap";
  std::string_view name = a.name;
  if (name.size() > kSuffix.size() &&
      name.substr(name.size() - kSuffix.size()) == kSuffix)
    name.remove_suffix(kSuffix.size());
  if (name != "k_cache" && name != "v_cache")
    return what + ": a tensormap must be named k_cache_tmap or v_cache_tmap "
                  "(a cache TMA reads, + \"_tmap\")";
  a.tensor = std::string(name);
  a.field = Field::TensorMap;

  const json::Value *tv = o.get("tensormap");
  const json::Object *t = tv ? tv->getAsObject() : nullptr;
  if (!t)
    return tv ? "\"" + at + ".tensormap\" must be an object"
              : "missing \"" + at +
                    ".tensormap\" (dims, box, element_bytes, swizzle)";
  TensorMap &m = a.tmap;
  std::string err;
  Fields f(*t, at + ".tensormap", err);
  f.i64List("dims", m.dims) && f.i64List("box", m.box) &&
      f.i64("element_bytes", m.elementBytes) && f.i64("swizzle", m.swizzle);
  if (!err.empty())
    return err;
  auto list = [](const std::vector<int64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  // A cache is [pages][page_size or heads][heads or page_size][D]: the map
  // names each of its 4 dimensions once.
  constexpr int64_t kCacheRank = 4;
  if (m.dims.empty() || m.dims.size() > 5)
    return what +
           ": tensormap.dims must have 1 to 5 entries (the map's "
           "rank), got " +
           std::to_string(m.dims.size());
  std::array<bool, kCacheRank> seen{};
  bool permutation = int64_t(m.dims.size()) == kCacheRank;
  for (int64_t d : m.dims) {
    if (d < 0 || d >= kCacheRank || seen[d])
      permutation = false;
    else
      seen[d] = true;
  }
  if (!permutation)
    return what + ": tensormap.dims must be a permutation of " + a.tensor +
           "'s dimensions 0..3, got " + list(m.dims);
  if (m.box.size() != m.dims.size())
    return what + ": tensormap.box must have one entry per map dimension (" +
           std::to_string(m.dims.size()) + "), got " + list(m.box);
  for (size_t i = 0; i < m.box.size(); ++i)
    if (m.box[i] < 1 || m.box[i] > 256)
      return what + ": tensormap.box[" + std::to_string(i) +
             "] must be in 1..256, got " + std::to_string(m.box[i]);
  if (m.elementBytes != 1 && m.elementBytes != 2)
    return what +
           ": tensormap.element_bytes must be 1 or 2 (a UINT8 or "
           "UINT16 map), got " +
           std::to_string(m.elementBytes);
  if (m.swizzle != 0 && m.swizzle != 32 && m.swizzle != 64 && m.swizzle != 128)
    return what + ": tensormap.swizzle must be 0, 32, 64 or 128 (bytes), got " +
           std::to_string(m.swizzle);
  // TMA moves the innermost box row in 16-byte units, and a swizzled row
  // must fit the swizzle's span.
  int64_t row = m.box[0] * m.elementBytes;
  if (row % 16)
    return what +
           ": tensormap.box[0] * element_bytes = " + std::to_string(row) +
           " bytes must be a multiple of 16";
  if (m.swizzle && row > m.swizzle)
    return what +
           ": tensormap.box[0] * element_bytes = " + std::to_string(row) +
           " bytes must be at most the swizzle width " +
           std::to_string(m.swizzle);
  return "";
}

/// One kernel argument of "args[i]".
inline std::string readArg(const json::Value &v, size_t i, Arg &a) {
  std::string at = "args[" + std::to_string(i) + "]";
  const json::Object *o = v.getAsObject();
  if (!o)
    return "\"" + at + "\" must be an object";
  std::string err;
  Fields f(*o, at, err);
  f.str("name", a.name) && f.str("kind", a.kind) && f.u64("offset", a.offset) &&
      f.u64("size", a.size) && f.u64("align", a.align, false);
  if (!err.empty())
    return err;
  std::string what = "\"" + at + "\" ('" + a.name + "')";
  // Before the common align check, so a misplaced map gets its own rule.
  if (a.kind == "tensormap")
    return readTensorMap(*o, at, what, a);
  if (a.align == 0 || (a.align & (a.align - 1)))
    return what + ": align must be a power of two, got " +
           std::to_string(a.align);
  if (a.offset % a.align)
    return what + ": offset " + std::to_string(a.offset) +
           " is not a multiple of its align " + std::to_string(a.align);
  if (a.kind == "pointer") {
    a.tensor = canonicalTensor(a.name);
    if (a.tensor.empty())
      return what + ": not a tensor operand of fmha.batch_prefill";
    if (a.size != 8)
      return what + ": a pointer has size 8, got " + std::to_string(a.size);
    return "";
  }
  if (a.kind != "i64" && a.kind != "i32")
    return what + ": kind must be pointer, i64, i32 or tensormap, got '" +
           a.kind + "'";
  if (a.size != (a.kind == "i64" ? 8u : 4u))
    return what + ": an " + a.kind + " has size " +
           (a.kind == "i64" ? "8" : "4") + ", got " + std::to_string(a.size);
  // TENSOR_dimN, TENSOR_strideN or TENSOR_offset of a tensor operand.
  std::string_view name = a.name;
  for (auto [suffix, field] :
       {std::pair{std::string_view("_dim"), Field::Dim},
        std::pair{std::string_view("_stride"), Field::Stride}}) {
    size_t cut = name.rfind(suffix);
    if (cut == std::string_view::npos)
      continue;
    std::string_view tensor = name.substr(0, cut),
                     n = name.substr(cut + suffix.size());
    int64_t idx;
    if (n.empty() || n[0] == '-' || canonicalTensor(tensor).empty() ||
        !parseInt(n, idx))
      continue;
    a.index = idx;
    a.tensor = canonicalTensor(tensor);
    a.field = field;
    return "";
  }
  constexpr std::string_view kOffset = "_offset";
  if (name.size() > kOffset.size() &&
      name.substr(name.size() - kOffset.size()) == kOffset &&
      !canonicalTensor(name.substr(0, name.size() - kOffset.size())).empty()) {
    a.tensor = canonicalTensor(name.substr(0, name.size() - kOffset.size()));
    a.field = Field::Offset;
    return "";
  }
  return what + ": a scalar argument must be named TENSOR_dimN, "
                "TENSOR_strideN or TENSOR_offset";
}

/// What one launcher accepts beyond the common schema.
struct Rules {
  std::string tool;          ///< "fmha-cuda-run", for messages
  std::string chipPrefix;    ///< "sm_" or "gfx" ("" accepts any chip)
  std::string chipKind;      ///< "an NVIDIA chip (sm_NN)", for messages
  bool requireConfig = false; ///< the emulation check needs "config"
  uint64_t maxKernargSize = 0; ///< 0: no limit
  std::string maxKernargWhat;
  /// "tensormap" arguments (CUDA tensor maps) are accepted: the launcher
  /// encodes them. Off, a manifest with one is refused, never misread.
  bool tensorMaps = false;
};

inline std::string readManifest(const json::Value &root, Manifest &m,
                                const Rules &rules) {
  const json::Object *o = root.getAsObject();
  if (!o)
    return "the manifest must be a JSON object";
  std::string err, format;
  Fields f(*o, "", err);
  f.str("format", format) && f.str("kernel", m.kernel) &&
      f.str("chip", m.chip, false) && f.str("target", m.target, false) &&
      f.str("binary", m.binary, false) &&
      f.str("binary_format", m.binaryFormat, false) &&
      f.u64("kernarg_size", m.kernargSize) &&
      f.u64("kernarg_align", m.kernargAlign, false) &&
      f.dim3("workgroup", m.workgroup) && f.dim3("grid_for_request", m.grid) &&
      f.u64("lds_bytes", m.ldsBytes, false) &&
      f.u64("dynamic_shared_bytes", m.dynamicSharedBytes, false);
  if (!err.empty())
    return err;
  if (format != kFormat)
    return "\"format\" must be \"" + std::string(kFormat) + "\", got \"" +
           format + "\"";
  if (m.kernel.empty())
    return "\"kernel\" must not be empty";
  if (!rules.chipPrefix.empty() && !m.chip.empty() &&
      m.chip.compare(0, rules.chipPrefix.size(), rules.chipPrefix) != 0)
    return "\"chip\" is '" + m.chip + "', not " + rules.chipKind +
           ": this manifest is not for " + rules.tool;

  const json::Object *req = o->getObject("request");
  if (!req)
    return o->get("request") ? "\"request\" must be an object"
                             : "missing \"request\" (the request the kernel "
                               "was compiled for)";
  if (std::string e = readRequest(*req, m.req); !e.empty())
    return e;

  const json::Object *cfg = o->getObject("config");
  if (!cfg && (o->get("config") || rules.requireConfig))
    return o->get("config") ? "\"config\" must be an object"
                            : "missing \"config\" (the kernel's tile config, "
                              "which the emulation check needs)";
  if (cfg)
    if (std::string e = readConfig(*cfg, m.config); !e.empty())
      return e;
  m.hasConfig = cfg != nullptr;

  const json::Array *args = o->getArray("args");
  if (!args)
    return o->get("args") ? "\"args\" must be an array"
                          : "missing \"args\" (the kernel arguments in order)";
  if (args->empty())
    return "\"args\" is empty";
  if (rules.maxKernargSize && m.kernargSize > rules.maxKernargSize)
    return "\"kernarg_size\" is " + std::to_string(m.kernargSize) +
           ", larger than " + rules.maxKernargWhat;
  if (m.kernargAlign == 0 || (m.kernargAlign & (m.kernargAlign - 1)))
    return "\"kernarg_align\" must be a power of two, got " +
           std::to_string(m.kernargAlign);
  uint64_t end = 0;
  std::string lastMap, lastMapTensor; ///< the last tensormap argument so far
  for (size_t i = 0; i < args->size(); ++i) {
    Arg a;
    if (std::string e = readArg((*args)[i], i, a); !e.empty())
      return e;
    std::string what = "\"args[" + std::to_string(i) + "]\" ('" + a.name + "')";
    if (a.field == Field::TensorMap) {
      if (!rules.tensorMaps)
        return what +
               ": a tensormap argument (an NVIDIA TMA tensor map), "
               "which " +
               (rules.tool.empty() ? std::string("this launcher")
                                   : rules.tool) +
               " does not take";
      // One map per cache, k_cache's first (the manifest's contract).
      if (lastMapTensor == a.tensor)
        return what + ": a second tensormap of " + a.tensor;
      if (lastMapTensor == "v_cache")
        return what + ": after '" + lastMap +
               "'; k_cache_tmap comes before v_cache_tmap";
      size_t kvBytes = ref::dtypeSize(m.req.kv_dtype);
      if (uint64_t(a.tmap.elementBytes) != kvBytes)
        return what + ": tensormap.element_bytes is " +
               std::to_string(a.tmap.elementBytes) + ", but the request's " +
               "kv_dtype " + ref::dtypeName(m.req.kv_dtype) + " has " +
               std::to_string(kvBytes) + "-byte elements";
    } else if (!lastMap.empty()) {
      return what + ": after the tensormap '" + lastMap +
             "'; tensormap arguments come after all others";
    }
    if (a.offset < end)
      return "\"args[" + std::to_string(i) + "]\" ('" + a.name +
             "') at offset " + std::to_string(a.offset) +
             " overlaps the argument before it";
    end = a.offset + a.size;
    if (end > m.kernargSize)
      return "\"args[" + std::to_string(i) + "]\" ('" + a.name +
             "') ends at byte " + std::to_string(end) +
             ", past \"kernarg_size\" " + std::to_string(m.kernargSize);
    if (a.field == Field::TensorMap) {
      lastMap = a.name;
      lastMapTensor = a.tensor;
    }
    m.args.push_back(std::move(a));
  }

  uint64_t threads = uint64_t(m.workgroup[0]) * m.workgroup[1] * m.workgroup[2];
  if (threads == 0 || threads > 1024)
    return "\"workgroup\" must have 1 to 1024 threads, got " +
           std::to_string(threads);

  // The grid formula is optional; each entry is a string or a number.
  if (const json::Value *gv = o->get("grid")) {
    const json::Object *g = gv->getAsObject();
    if (!g)
      return "\"grid\" must be an object";
    const char *axes[] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
      const json::Value *v = g->get(axes[i]);
      if (!v)
        continue;
      if (std::optional<std::string_view> s = v->getAsString())
        m.gridFormula[i] = std::string(*s);
      else if (std::optional<int64_t> n = v->getAsInteger())
        m.gridFormula[i] = std::to_string(*n);
      else
        return "\"grid." + std::string(axes[i]) +
               "\" must be a string or an integer";
    }
  }
  return "";
}

/// Evaluates a grid formula such as "ceil(max_qo_len / 128)" over the
/// request's quantities: + - * / and ceil()/floor() on numbers and names.
/// std::nullopt when the formula uses anything else (then it is not checked).
class Formula {
public:
  Formula(std::string_view text, const ref::Request &r) : s(text) {
    int64_t maxQ = 0, maxK = 0;
    for (int64_t q : r.qo_lens)
      maxQ = std::max(maxQ, q);
    for (int64_t k : r.kv_lens)
      maxK = std::max(maxK, k);
    vars = {{"batch", double(r.batch())},
            {"num_qo_heads", double(r.num_qo_heads)},
            {"num_kv_heads", double(r.num_kv_heads)},
            {"max_qo_len", double(maxQ)},
            {"max_kv_len", double(maxK)},
            {"total_q", double(r.totalQ())}};
  }
  std::optional<double> eval() {
    std::optional<double> v = sum();
    skip();
    if (!v || !s.empty())
      return std::nullopt;
    return v;
  }

private:
  std::string_view s;
  std::vector<std::pair<std::string_view, double>> vars;
  int depth = 0;

  void skip() {
    while (!s.empty() && (s[0] == ' ' || s[0] == '\t'))
      s.remove_prefix(1);
  }
  bool eat(char c) {
    skip();
    if (s.empty() || s[0] != c)
      return false;
    s.remove_prefix(1);
    return true;
  }
  std::optional<double> sum() {
    if (++depth > 64)
      return std::nullopt;
    std::optional<double> v = product();
    while (v) {
      if (eat('+')) {
        std::optional<double> r = product();
        v = r ? std::optional<double>(*v + *r) : std::nullopt;
      } else if (eat('-')) {
        std::optional<double> r = product();
        v = r ? std::optional<double>(*v - *r) : std::nullopt;
      } else {
        break;
      }
    }
    --depth;
    return v;
  }
  std::optional<double> product() {
    std::optional<double> v = atom();
    while (v) {
      if (eat('*')) {
        std::optional<double> r = atom();
        v = r ? std::optional<double>(*v * *r) : std::nullopt;
      } else if (eat('/')) {
        std::optional<double> r = atom();
        v = r && *r != 0 ? std::optional<double>(*v / *r) : std::nullopt;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<double> atom() {
    skip();
    if (eat('(')) {
      std::optional<double> v = sum();
      return v && eat(')') ? v : std::nullopt;
    }
    size_t n = 0;
    while (n < s.size() && (std::isalnum(static_cast<unsigned char>(s[n])) ||
                            s[n] == '_'))
      ++n;
    std::string_view word = s.substr(0, n);
    s.remove_prefix(n);
    if (word.empty())
      return std::nullopt;
    int64_t lit;
    if (word[0] != '-' && parseInt(word, lit))
      return double(lit);
    if (word == "ceil" || word == "floor") {
      if (!eat('('))
        return std::nullopt;
      std::optional<double> v = sum();
      if (!v || !eat(')'))
        return std::nullopt;
      return word == "ceil" ? std::ceil(*v) : std::floor(*v);
    }
    for (auto &[name, value] : vars)
      if (word == name)
        return value;
    return std::nullopt;
  }
};

/// Tensor operands of the request's op (RequestModule's requestOperands rule,
/// repeated here because the launchers must not link MLIR).
inline std::vector<std::string> expectedTensors(const ref::Request &r) {
  std::vector<std::string> t = {"q", "k_cache", "v_cache", "qo_indptr"};
  if (r.table == ref::TableForm::CSR)
    t.insert(t.end(), {"kv_indptr", "kv_page_indices", "kv_last_page_len"});
  else
    t.insert(t.end(), {"block_table", "kv_seqlen"});
  if (r.quant != ref::QuantMode::None)
    t.insert(t.end(), {"q_descale", "k_descale", "v_descale"});
  if (r.runtime_scalars)
    t.push_back("runtime_scalars");
  t.push_back("out");
  if (r.return_lse)
    t.push_back("lse");
  return t;
}

/// Pointer arguments are operands of the request, each once, and include
/// the outputs ("" when so). An input may be absent: the kernel takes only
/// the operands it reads.
inline std::string checkPointerArgs(const Manifest &m) {
  const ref::Request &req = m.req;
  std::vector<std::string> want = expectedTensors(req), seen;
  auto has = [](const std::vector<std::string> &v, const std::string &s) {
    for (const std::string &x : v)
      if (x == s)
        return true;
    return false;
  };
  for (const Arg &a : m.args) {
    if (a.kind != "pointer")
      continue;
    if (has(seen, a.tensor))
      return "pointer argument '" + a.tensor + "' appears twice";
    if (!has(want, a.tensor))
      return "pointer argument '" + a.tensor +
             "' is not an operand of the request (" + req.str() +
             (req.return_lse ? "" : " lse=false") + ")";
    seen.push_back(a.tensor);
  }
  for (const char *t : {"out", "lse"})
    if (has(want, t) && !has(seen, t))
      return std::string("no pointer argument for '") + t +
             "', an output of the request";
  return "";
}

} // namespace manifest
} // namespace fmha_tools

#endif // FMHA_TOOLS_COMMON_KERNELMANIFEST_H
