//===- fmha-hip-run.cpp - launch a compiled kernel through HIP, check it --===//
//
// fmha-hip-run NAME.json [--hsaco FILE] [--device N]
//   reads the manifest `fmha-compile -o NAME` wrote next to NAME.hsaco, makes
//   the request's inputs with the reference library, loads HIP at run time
//   (dlopen of libamdhip64.so, so no ROCm is needed to build this tool),
//   launches the kernel as docs/ABI.md describes and compares the output with
//   the double-precision oracle (SPEC section 6).
// Everything that needs no GPU (manifest, code object header, request, inputs,
// kernarg layout) is checked before HIP is loaded.
// Exit: 0 pass, 1 SPEC section 6 not met, 2 invalid manifest, code object or
// request, 3 no HIP runtime or device, or a HIP call failed.
//
//===----------------------------------------------------------------------===//
#include "fmha/Reference/Compare.h"
#include "fmha/Reference/Oracle.h"
#include "fmha/Reference/PageTable.h"
#include "fmha/Reference/Problem.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

namespace cl = llvm::cl;
namespace json = llvm::json;
namespace ref = ::fmha::ref;
using llvm::StringRef;

static cl::OptionCategory category("fmha-hip-run options");
static cl::opt<std::string> optManifest(cl::Positional, cl::desc("<NAME.json>"),
                                        cl::init(""), cl::cat(category));
static cl::opt<std::string> optHsaco(
    "hsaco",
    cl::desc("code object (default: the manifest's \"binary\", else NAME.hsaco "
             "next to NAME.json)"),
    cl::value_desc("FILE"), cl::init(""), cl::cat(category));
static cl::opt<int> optDevice("device", cl::desc("HIP device index"),
                              cl::init(0), cl::cat(category));
static cl::opt<std::string> optHipLibrary(
    "hip-library",
    cl::desc("load this HIP runtime instead of searching for libamdhip64.so"),
    cl::value_desc("PATH"), cl::init(""), cl::Hidden, cl::cat(category));

namespace {

constexpr const char *kFormat = "fmha-kernel-manifest/1";

int fail(int code, const llvm::Twine &msg) {
  llvm::errs() << "fmha-hip-run: " << msg << "\n";
  return code;
}

std::string quote(StringRef s) { return "'" + s.str() + "'"; }

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

/// Tensor operands in the op's order (SPEC section 1). The short spellings
/// `k` and `v` of the caches are accepted too.
// clang-format off
constexpr const char *kTensors[] = {
    "q", "k_cache", "v_cache", "qo_indptr", "kv_indptr", "kv_page_indices",
    "kv_last_page_len", "block_table", "kv_seqlen", "q_descale", "k_descale",
    "v_descale", "out", "lse"};
// clang-format on

std::string canonicalTensor(StringRef name) {
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
enum class Field { Pointer, Dim, Stride, Offset };

struct Arg {
  std::string name, kind; ///< kind: "pointer", "i64" or "i32"
  uint64_t offset = 0, size = 0, align = 1;
  std::string tensor; ///< canonical tensor name
  Field field = Field::Pointer;
  int64_t index = -1; ///< N of TENSOR_dimN / TENSOR_strideN
};

struct Manifest {
  std::string chip, target, binary, kernel;
  ref::Request req;
  std::vector<Arg> args;
  uint64_t kernargSize = 0, kernargAlign = 8;
  std::array<uint32_t, 3> workgroup{}, grid{};
  std::array<std::string, 3> gridFormula; ///< "" when absent
};

/// Reads typed fields of one JSON object; the first problem is kept in `err`
/// and names the field by its path ("request.head_dim").
class Fields {
public:
  Fields(const json::Object &o, std::string path, std::string &err)
      : o(o), path(std::move(path)), err(err) {}

  std::string where(StringRef key) const {
    return "\"" + (path.empty() ? key.str() : path + "." + key.str()) + "\"";
  }
  bool problem(const std::string &msg) {
    if (err.empty())
      err = msg;
    return false;
  }
  bool missing(StringRef key, StringRef what) {
    return problem("missing " + where(key) + " (" + what.str() + ")");
  }

  bool str(StringRef key, std::string &out, bool required = true) {
    const json::Value *v = o.get(key);
    if (!v)
      return !required || missing(key, "a string");
    std::optional<StringRef> s = v->getAsString();
    if (!s)
      return problem(where(key) + " must be a string");
    out = s->str();
    return true;
  }
  bool i64(StringRef key, int64_t &out, bool required = true) {
    const json::Value *v = o.get(key);
    if (!v)
      return !required || missing(key, "an integer");
    std::optional<int64_t> i = v->getAsInteger();
    if (!i)
      return problem(where(key) + " must be an integer");
    out = *i;
    return true;
  }
  bool u64(StringRef key, uint64_t &out, bool required = true) {
    int64_t i = static_cast<int64_t>(out);
    if (!i64(key, i, required))
      return false;
    if (i < 0)
      return problem(where(key) + " must be >= 0, got " + std::to_string(i));
    out = static_cast<uint64_t>(i);
    return true;
  }
  bool num(StringRef key, double &out, bool required = true) {
    const json::Value *v = o.get(key);
    if (!v)
      return !required || missing(key, "a number");
    std::optional<double> d = v->getAsNumber();
    if (!d)
      return problem(where(key) + " must be a number");
    out = *d;
    return true;
  }
  bool boolean(StringRef key, bool &out, bool required = true) {
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
  bool i64List(StringRef key, std::vector<int64_t> &out) {
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
  bool dim3(StringRef key, std::array<uint32_t, 3> &out) {
    std::vector<int64_t> v;
    if (!i64List(key, v))
      return false;
    if (v.size() != 3)
      return problem(where(key) + " must have 3 entries, got " +
                     std::to_string(v.size()));
    for (size_t i = 0; i < 3; ++i) {
      if (v[i] < 0 || v[i] > UINT32_MAX)
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
std::string readRequest(const json::Object &o, ref::Request &r) {
  std::string err;
  Fields f(o, "request", err);
  std::vector<int64_t> qo, kv;
  int64_t batch = -1;
  std::string table, layout, quant, mask, qT, kvT, oT;
  f.i64List("qo_lens", qo) && f.i64List("kv_lens", kv) &&
      f.i64("batch", batch, false) && f.i64("num_qo_heads", r.num_qo_heads) &&
      f.i64("num_kv_heads", r.num_kv_heads) && f.i64("head_dim", r.head_dim) &&
      f.i64("head_dim_v", r.head_dim_v, false) &&
      f.i64("page_size", r.page_size) && f.i64("n_pages", r.n_pages, false) &&
      f.str("page_table", table) && f.str("kv_layout", layout) &&
      f.str("quant", quant) && f.str("mask", mask) && f.str("q_dtype", qT) &&
      f.str("kv_dtype", kvT) && f.str("out_dtype", oT) &&
      f.boolean("lse", r.return_lse) && f.num("sm_scale", r.sm_scale, false) &&
      f.num("soft_cap", r.soft_cap, false);
  int64_t seed = 0;
  f.i64("seed", seed, false);
  if (!err.empty())
    return err;
  r.seed = static_cast<uint64_t>(seed);
  // fmha-run's rule: scalar lengths repeat over the batch.
  if (batch >= 0) {
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
  if (!q || !k || !out)
    return "unknown element type in \"request.q_dtype\", \"kv_dtype\" or "
           "\"out_dtype\": " +
           quote(qT) + ", " + quote(kvT) + ", " + quote(oT);
  r.table = *tf;
  r.layout = *kl;
  r.quant = *qm;
  r.mask = *mk;
  r.q_dtype = *q;
  r.kv_dtype = *k;
  r.out_dtype = *out;
  return "";
}

/// One kernel argument of "args[i]".
std::string readArg(const json::Value &v, size_t i, Arg &a) {
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
    return what + ": kind must be pointer, i64 or i32, got '" + a.kind + "'";
  if (a.size != (a.kind == "i64" ? 8u : 4u))
    return what + ": an " + a.kind + " has size " +
           (a.kind == "i64" ? "8" : "4") + ", got " + std::to_string(a.size);
  // TENSOR_dimN, TENSOR_strideN or TENSOR_offset of a tensor operand.
  StringRef name = a.name;
  for (auto [suffix, field] :
       {std::pair{"_dim", Field::Dim}, std::pair{"_stride", Field::Stride}}) {
    auto [tensor, n] = name.rsplit(suffix);
    if (n.empty() || canonicalTensor(tensor).empty() ||
        n.getAsInteger(10, a.index) || a.index < 0)
      continue;
    a.tensor = canonicalTensor(tensor);
    a.field = field;
    return "";
  }
  if (name.consume_back("_offset") && !canonicalTensor(name).empty()) {
    a.tensor = canonicalTensor(name);
    a.field = Field::Offset;
    return "";
  }
  return what + ": a scalar argument must be named TENSOR_dimN, "
                "TENSOR_strideN or TENSOR_offset";
}

std::string readManifest(const json::Value &root, Manifest &m) {
  const json::Object *o = root.getAsObject();
  if (!o)
    return "the manifest must be a JSON object";
  std::string err, format;
  Fields f(*o, "", err);
  f.str("format", format) && f.str("kernel", m.kernel) &&
      f.str("chip", m.chip, false) && f.str("target", m.target, false) &&
      f.str("binary", m.binary, false) &&
      f.u64("kernarg_size", m.kernargSize) &&
      f.u64("kernarg_align", m.kernargAlign, false) &&
      f.dim3("workgroup", m.workgroup) && f.dim3("grid_for_request", m.grid);
  if (!err.empty())
    return err;
  if (format != kFormat)
    return "\"format\" must be \"" + std::string(kFormat) + "\", got \"" +
           format + "\"";
  if (m.kernel.empty())
    return "\"kernel\" must not be empty";

  const json::Object *req = o->getObject("request");
  if (!req)
    return o->get("request") ? "\"request\" must be an object"
                             : "missing \"request\" (the request the kernel "
                               "was compiled for)";
  if (std::string e = readRequest(*req, m.req); !e.empty())
    return e;

  const json::Array *args = o->getArray("args");
  if (!args)
    return o->get("args") ? "\"args\" must be an array"
                          : "missing \"args\" (the kernel arguments in order)";
  if (args->empty())
    return "\"args\" is empty";
  uint64_t end = 0;
  for (size_t i = 0; i < args->size(); ++i) {
    Arg a;
    if (std::string e = readArg((*args)[i], i, a); !e.empty())
      return e;
    if (a.offset < end)
      return "\"args[" + std::to_string(i) + "]\" ('" + a.name +
             "') at offset " + std::to_string(a.offset) +
             " overlaps the argument before it";
    end = a.offset + a.size;
    if (end > m.kernargSize)
      return "\"args[" + std::to_string(i) + "]\" ('" + a.name +
             "') ends at byte " + std::to_string(end) +
             ", past \"kernarg_size\" " + std::to_string(m.kernargSize);
    m.args.push_back(std::move(a));
  }

  uint64_t threads = uint64_t(m.workgroup[0]) * m.workgroup[1] * m.workgroup[2];
  if (threads == 0 || threads > 1024)
    return "\"workgroup\" must have 1 to 1024 threads, got " +
           std::to_string(threads);

  // The grid formula is optional; each entry is a string or a number.
  if (const json::Object *g = o->getObject("grid")) {
    const char *axes[] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
      const json::Value *v = g->get(axes[i]);
      if (!v)
        continue;
      if (std::optional<StringRef> s = v->getAsString())
        m.gridFormula[i] = s->str();
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
  Formula(StringRef text, const ref::Request &r) : s(text) {
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
  StringRef s;
  std::vector<std::pair<StringRef, double>> vars;

  void skip() { s = s.ltrim(); }
  bool eat(char c) {
    skip();
    if (!s.starts_with(StringRef(&c, 1)))
      return false;
    s = s.drop_front();
    return true;
  }
  std::optional<double> sum() {
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
    size_t n =
        s.find_if_not([](char c) { return llvm::isAlnum(c) || c == '_'; });
    StringRef word = s.take_front(n);
    s = s.drop_front(word.size());
    if (word.empty())
      return std::nullopt;
    uint64_t lit;
    if (!word.getAsInteger(10, lit))
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

//===----------------------------------------------------------------------===//
// Code object
//===----------------------------------------------------------------------===//

/// The ELF header checks that need no GPU: an AMDGPU HSA code object for the
/// manifest's chip (when the chip is one this tool knows the e_flags of).
std::string checkCodeObject(StringRef bytes, StringRef chip) {
  namespace ELF = llvm::ELF;
  if (bytes.size() < 64 || !bytes.starts_with(ELF::ElfMagic))
    return "not an ELF file";
  auto u16 = [&](size_t at) {
    return uint16_t(uint8_t(bytes[at]) | uint8_t(bytes[at + 1]) << 8);
  };
  auto u32 = [&](size_t at) {
    return uint32_t(u16(at)) | uint32_t(u16(at + 2)) << 16;
  };
  if (bytes[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      bytes[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return "not a 64-bit little-endian ELF file";
  if (u16(18) != ELF::EM_AMDGPU)
    return "not an AMDGPU code object (e_machine " + std::to_string(u16(18)) +
           ")";
  if (uint8_t(bytes[ELF::EI_OSABI]) != ELF::ELFOSABI_AMDGPU_HSA)
    return "not an HSA code object (OS/ABI " +
           std::to_string(uint8_t(bytes[ELF::EI_OSABI])) + ")";
  struct Mach {
    const char *chip;
    unsigned mach;
  } known[] = {{"gfx942", ELF::EF_AMDGPU_MACH_AMDGCN_GFX942},
               {"gfx950", ELF::EF_AMDGPU_MACH_AMDGCN_GFX950}};
  unsigned mach = u32(48) & ELF::EF_AMDGPU_MACH;
  const char *want = nullptr, *have = nullptr;
  for (const Mach &k : known) {
    if (chip == k.chip)
      want = k.chip;
    if (mach == k.mach)
      have = k.chip;
  }
  if (want && (!have || StringRef(have) != want))
    return "the code object is for " +
           (have ? std::string(have)
                 : "EF_AMDGPU_MACH 0x" + llvm::utohexstr(mach, true)) +
           ", the manifest says " + chip.str();
  return "";
}

//===----------------------------------------------------------------------===//
// Tensors and the kernarg buffer
//===----------------------------------------------------------------------===//

struct Tensor {
  std::string name;
  const void *host = nullptr; ///< bytes to upload (outputs: poisoned)
  size_t bytes = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides = {}; ///< in elements; empty: dense row-major
  int64_t offset = 0; ///< element 0, in elements from the pointer
  void *dev = nullptr;
  bool used = false; ///< passed as a pointer argument

  int64_t stride(size_t d) const {
    if (!strides.empty())
      return strides[d];
    int64_t s = 1;
    for (size_t i = d + 1; i < shape.size(); ++i)
      s *= shape[i];
    return s;
  }
};

/// Tensor operands of the request's op (RequestModule's kernelArgs rule,
/// repeated here because this tool must not link MLIR).
std::vector<std::string> expectedTensors(const ref::Request &r) {
  std::vector<std::string> t = {"q", "k_cache", "v_cache", "qo_indptr"};
  if (r.table == ref::TableForm::CSR)
    t.insert(t.end(), {"kv_indptr", "kv_page_indices", "kv_last_page_len"});
  else
    t.insert(t.end(), {"block_table", "kv_seqlen"});
  if (r.quant != ref::QuantMode::None)
    t.insert(t.end(), {"q_descale", "k_descale", "v_descale"});
  t.push_back("out");
  if (r.return_lse)
    t.push_back("lse");
  return t;
}

//===----------------------------------------------------------------------===//
// HIP, loaded at run time
//===----------------------------------------------------------------------===//

/// The HIP entry points used, declared here so no ROCm header is needed.
/// hipError_t is an int (0: hipSuccess); modules, functions and streams are
/// opaque pointers.
struct Hip {
  using Module = void *;
  using Function = void *;
  int (*init)(unsigned) = nullptr;
  int (*getDeviceCount)(int *) = nullptr;
  int (*setDevice)(int) = nullptr;
  int (*moduleLoadData)(Module *, const void *) = nullptr;
  int (*moduleGetFunction)(Function *, Module, const char *) = nullptr;
  int (*malloc)(void **, size_t) = nullptr;
  int (*memcpy)(void *, const void *, size_t, int) = nullptr;
  int (*moduleLaunchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, unsigned, void *, void **,
                            void **) = nullptr;
  int (*deviceSynchronize)() = nullptr;
  int (*free)(void *) = nullptr;
  const char *(*getErrorString)(int) = nullptr;
  int (*moduleUnload)(Module) = nullptr; ///< optional

  static constexpr int kMemcpyHostToDevice = 1, kMemcpyDeviceToHost = 2;

  std::string error(int e) const {
    const char *s = getErrorString ? getErrorString(e) : nullptr;
    return std::string(s ? s : "unknown HIP error") + " (" + std::to_string(e) +
           ")";
  }
};

/// dlopens the runtime; on failure `why` holds the first dlerror().
void *openHipLibrary(std::string &name, std::string &why) {
  std::vector<std::string> candidates;
  if (!optHipLibrary.empty()) {
    candidates.push_back(optHipLibrary);
  } else {
    candidates = {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6"};
    if (const char *rocm = std::getenv("ROCM_PATH"))
      candidates.push_back(std::string(rocm) + "/lib/libamdhip64.so");
    candidates.push_back("/opt/rocm/lib/libamdhip64.so");
  }
  name = candidates.front();
  for (const std::string &c : candidates) {
    if (void *lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      name = c;
      return lib;
    }
    if (why.empty())
      if (const char *e = dlerror())
        why = e;
  }
  return nullptr;
}

/// "" or the name of the first missing symbol.
std::string resolveHip(void *lib, Hip &h) {
  std::string missing;
  auto get = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(lib, name));
    if (!fn && missing.empty())
      missing = name;
  };
  get(h.init, "hipInit");
  get(h.getDeviceCount, "hipGetDeviceCount");
  get(h.setDevice, "hipSetDevice");
  get(h.moduleLoadData, "hipModuleLoadData");
  get(h.moduleGetFunction, "hipModuleGetFunction");
  get(h.malloc, "hipMalloc");
  get(h.memcpy, "hipMemcpy");
  get(h.moduleLaunchKernel, "hipModuleLaunchKernel");
  get(h.deviceSynchronize, "hipDeviceSynchronize");
  get(h.free, "hipFree");
  get(h.getErrorString, "hipGetErrorString");
  std::string required = missing;
  get(h.moduleUnload, "hipModuleUnload");
  return required;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  // Usage errors exit 2 (cl's default, 1, means "fail" here).
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "fmha-hip-run: launch a kernel fmha-compile wrote, through HIP, and "
          "check it against the oracle\n",
          &llvm::errs()))
    return 2;
  if (optManifest.empty())
    return fail(2, "usage: fmha-hip-run NAME.json [--hsaco FILE] [--device N]");

  // Manifest.
  auto file = llvm::MemoryBuffer::getFile(optManifest, /*IsText=*/true);
  if (!file)
    return fail(2, "cannot read manifest " + optManifest + ": " +
                       file.getError().message());
  llvm::Expected<json::Value> root = json::parse((*file)->getBuffer());
  if (!root)
    return fail(2, "malformed manifest " + optManifest + ": " +
                       llvm::toString(root.takeError()));
  Manifest m;
  if (std::string err = readManifest(*root, m); !err.empty())
    return fail(2, "invalid manifest " + optManifest + ": " + err);
  const ref::Request &req = m.req;
  if (std::string err = req.validate(); !err.empty())
    return fail(2, "invalid manifest " + optManifest +
                       ": invalid request: " + err);

  // Pointer operands are the request's, each once, and include the outputs.
  // An input may be absent: the kernel takes only the operands it reads.
  std::vector<std::string> want = expectedTensors(req);
  std::vector<std::string> seen;
  for (const Arg &a : m.args) {
    if (a.kind != "pointer")
      continue;
    if (std::find(seen.begin(), seen.end(), a.tensor) != seen.end())
      return fail(2, "invalid manifest " + optManifest +
                         ": pointer argument '" + a.tensor + "' appears twice");
    if (std::find(want.begin(), want.end(), a.tensor) == want.end())
      return fail(2, "invalid manifest " + optManifest +
                         ": pointer argument '" + a.tensor +
                         "' is not an operand of the request (" + req.str() +
                         (req.return_lse ? "" : " lse=false") + ")");
    seen.push_back(a.tensor);
  }
  for (const char *t : {"out", "lse"})
    if (std::find(want.begin(), want.end(), t) != want.end() &&
        std::find(seen.begin(), seen.end(), t) == seen.end())
      return fail(2, "invalid manifest " + optManifest +
                         ": no pointer argument for '" + t +
                         "', an output of the request");

  // The grid: grid_for_request, checked against the formula where it parses.
  for (int i = 0; i < 3; ++i) {
    if (m.gridFormula[i].empty())
      continue;
    std::optional<double> v = Formula(m.gridFormula[i], req).eval();
    if (v && *v != double(m.grid[i]))
      return fail(2, "invalid manifest " + optManifest +
                         ": \"grid_for_request\"[" + std::to_string(i) +
                         "] is " + std::to_string(m.grid[i]) +
                         " but \"grid\" says " + m.gridFormula[i] + " = " +
                         std::to_string(int64_t(*v)) + " for the request");
  }

  // Code object: the header says whether it can be for this kernel at all.
  std::string hsacoPath = optHsaco;
  if (hsacoPath.empty()) {
    llvm::SmallString<256> p;
    if (m.binary.empty()) {
      p = StringRef(optManifest);
      llvm::sys::path::replace_extension(p, "hsaco");
    } else if (llvm::sys::path::is_absolute(m.binary)) {
      p = m.binary;
    } else {
      p = llvm::sys::path::parent_path(optManifest);
      llvm::sys::path::append(p, m.binary);
    }
    hsacoPath = p.str().str();
  }
  auto hsaco = llvm::MemoryBuffer::getFile(hsacoPath, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!hsaco)
    return fail(2, "cannot read code object " + hsacoPath + ": " +
                       hsaco.getError().message());
  if (std::string err = checkCodeObject((*hsaco)->getBuffer(), m.chip);
      !err.empty())
    return fail(2, "code object " + hsacoPath + ": " + err);

  // Inputs, as fmha-run makes them, and the run-time page-table check.
  ref::Inputs in = ref::makeInputs(req);
  if (std::string err = ref::validatePageTable(in.table, req.table);
      !err.empty())
    return fail(2, "invalid page table: " + err);
  const ref::PageTable &pt = in.table;
  int64_t totalQ = req.totalQ(), hq = req.num_qo_heads, hkv = req.num_kv_heads,
          d = req.head_dim, dv = req.headDimV(), p = req.page_size,
          n = in.nPages(), b = req.batch();
  std::vector<uint8_t> out(totalQ * hq * dv * ref::dtypeSize(req.out_dtype));
  std::vector<float> lse(totalQ * hq);
  ref::poisonFill(req.out_dtype, out.data(), totalQ * hq * dv);
  ref::poisonFill(ref::DType::F32, lse.data(), lse.size());
  // Descales. kv_blockscale with the layout passed (k/v_descale offset and
  // both strides in the args): aiter's interleaved [N_pages, Hkv, 2] buffer,
  // as fmha-run passes it (one allocation; K at offset 0, V at 1, strides
  // {2*Hkv, 2}). Otherwise dense copies: [N_pages, Hkv], or [1] per tensor.
  bool blockscale = req.quant == ref::QuantMode::KVBlockscale;
  auto layoutArgs = [&](StringRef t) {
    return llvm::count_if(m.args, [&](const Arg &a) {
      return a.tensor == t &&
             (a.field == Field::Offset || a.field == Field::Stride);
    });
  };
  bool interleaved = blockscale && layoutArgs("k_descale") == 3 &&
                     layoutArgs("v_descale") == 3;
  std::vector<float> kd(blockscale ? n * hkv : 1), vd(kd.size());
  for (int64_t pg = 0; pg < (blockscale ? n : 1); ++pg)
    for (int64_t h = 0; h < (blockscale ? hkv : 1); ++h) {
      kd[pg * (blockscale ? hkv : 1) + h] = in.kDescale(pg, h);
      vd[pg * (blockscale ? hkv : 1) + h] = in.vDescale(pg, h);
    }
  float qd = in.q_descale;
  bool nhd = req.layout == ref::KVLayout::NHD;
  auto cacheShape = [&](int64_t dim) {
    return nhd ? std::vector<int64_t>{n, p, hkv, dim}
               : std::vector<int64_t>{n, hkv, p, dim};
  };
  auto i32 = [](const char *name, const std::vector<int32_t> &v,
                std::vector<int64_t> shape) {
    return Tensor{name, v.data(), v.size() * 4, std::move(shape)};
  };
  std::vector<int64_t> descaleShape =
      blockscale ? std::vector<int64_t>{n, hkv} : std::vector<int64_t>{1};
  std::vector<Tensor> tensors = {
      {"q", in.q.data(), in.q.size(), {totalQ, hq, d}},
      {"k_cache", in.k_cache.data(), in.k_cache.size(), cacheShape(d)},
      {"v_cache", in.v_cache.data(), in.v_cache.size(), cacheShape(dv)},
      i32("qo_indptr", in.qo_indptr, {b + 1}),
      i32("kv_indptr", pt.kv_indptr, {int64_t(pt.kv_indptr.size())}),
      i32("kv_page_indices", pt.kv_page_indices,
          {int64_t(pt.kv_page_indices.size())}),
      i32("kv_last_page_len", pt.kv_last_page_len, {b}),
      i32("block_table", pt.block_table, {b, pt.max_pages}),
      i32("kv_seqlen", pt.kv_seqlen, {b}),
      {"q_descale", &qd, 4, {1}},
      {"k_descale", kd.data(), kd.size() * 4, descaleShape},
      {"v_descale", vd.data(), vd.size() * 4, descaleShape},
      {"out", out.data(), out.size(), {totalQ, hq, dv}},
      {"lse", lse.data(), lse.size() * 4, {totalQ, hq}}};
  if (interleaved)
    for (Tensor &t : tensors) {
      if (t.name != "k_descale" && t.name != "v_descale")
        continue;
      const ref::DescaleLayout &l =
          t.name == "k_descale" ? in.k_descale : in.v_descale;
      t.host = in.kv_descale.data();
      t.bytes = in.kv_descale.size() * 4;
      t.offset = l.offset;
      t.strides = {l.page_stride, l.head_stride};
    }
  auto find = [&](StringRef name) -> Tensor & {
    for (Tensor &t : tensors)
      if (t.name == name)
        return t;
    llvm_unreachable("every canonical tensor has an entry");
  };

  // Kernarg values that need no device: sizes, strides and offsets (in
  // elements), checked against ranks.
  std::vector<uint8_t> kernarg(m.kernargSize, 0);
  for (const Arg &a : m.args) {
    Tensor &t = find(a.tensor);
    if (a.field == Field::Pointer) {
      t.used = true;
      continue;
    }
    if (a.field != Field::Offset && a.index >= int64_t(t.shape.size()))
      return fail(2, "invalid manifest " + optManifest + ": '" + a.name +
                         "': " + a.tensor + " has rank " +
                         std::to_string(t.shape.size()));
    int64_t v = a.field == Field::Dim      ? t.shape[a.index]
                : a.field == Field::Stride ? t.stride(a.index)
                                           : t.offset;
    if (a.kind == "i64") {
      std::memcpy(&kernarg[a.offset], &v, 8);
    } else {
      if (v > INT32_MAX)
        return fail(2, "'" + a.name + "' = " + std::to_string(v) +
                           " does not fit its i32 argument");
      int32_t v32 = int32_t(v);
      std::memcpy(&kernarg[a.offset], &v32, 4);
    }
  }

  // HIP.
  std::string libName, why;
  void *lib = openHipLibrary(libName, why);
  if (!lib) {
    fail(3, "no HIP runtime found (" + libName + "); nothing was launched");
    if (!why.empty())
      llvm::errs() << "fmha-hip-run: note: " << why << "\n";
    return 3;
  }
  Hip hip;
  if (std::string miss = resolveHip(lib, hip); !miss.empty())
    return fail(3, libName + " has no " + miss + "; nothing was launched");
  if (int e = hip.init(0))
    return fail(3, "no HIP device (hipInit: " + hip.error(e) +
                       "); nothing was launched");
  int count = 0;
  if (int e = hip.getDeviceCount(&count))
    return fail(3, "no HIP device (hipGetDeviceCount: " + hip.error(e) +
                       "); nothing was launched");
  if (count == 0)
    return fail(
        3,
        "no HIP device (hipGetDeviceCount: 0 devices); nothing was launched");
  if (optDevice < 0 || optDevice >= count)
    return fail(2, "--device " + std::to_string(optDevice) +
                       " is not a device (" + std::to_string(count) +
                       " found)");
  auto hipFailed = [&](const char *call, int e, const std::string &hint = "") {
    return fail(3, std::string(call) + " failed: " + hip.error(e) + hint);
  };
  if (int e = hip.setDevice(optDevice))
    return hipFailed("hipSetDevice", e);
  Hip::Module module = nullptr;
  if (int e = hip.moduleLoadData(&module, (*hsaco)->getBufferStart()))
    return hipFailed("hipModuleLoadData", e,
                     " (the code object is for " +
                         (m.target.empty() ? m.chip : m.target) +
                         ", code object v6, which needs ROCm 6.3 or later; is "
                         "device " +
                         std::to_string(optDevice) + " that chip?)");
  Hip::Function fn = nullptr;
  if (int e = hip.moduleGetFunction(&fn, module, m.kernel.c_str()))
    return hipFailed("hipModuleGetFunction", e, " (kernel '" + m.kernel + "')");

  // Upload the operands (outputs poisoned) and put their addresses in place.
  // Tensors that view one host buffer (the interleaved descales) share one
  // allocation.
  for (Tensor &t : tensors) {
    if (!t.used)
      continue;
    auto same = llvm::find_if(
        tensors, [&](const Tensor &o) { return o.dev && o.host == t.host; });
    if (same != tensors.end()) {
      t.dev = same->dev;
      continue;
    }
    // hipMalloc(0) may give a null pointer; an empty tensor (no pages at
    // all) still gets an address, which the kernel never reads.
    if (int e = hip.malloc(&t.dev, t.bytes ? t.bytes : 4))
      return hipFailed("hipMalloc", e,
                       " (" + t.name + ", " + std::to_string(t.bytes) +
                           " bytes)");
    if (t.bytes)
      if (int e = hip.memcpy(t.dev, t.host, t.bytes, Hip::kMemcpyHostToDevice))
        return hipFailed("hipMemcpy to the device", e, " (" + t.name + ")");
  }
  for (const Arg &a : m.args)
    if (a.field == Field::Pointer)
      std::memcpy(&kernarg[a.offset], &find(a.tensor).dev, 8);

  // One launch; the kernarg buffer goes through `extra` (docs/ABI.md). LDS is
  // static (group_segment_fixed_size), so no dynamic shared memory.
  size_t kernargBytes = kernarg.size();
  void *extra[] = {reinterpret_cast<void *>(1), kernarg.data(),
                   reinterpret_cast<void *>(2), &kernargBytes,
                   reinterpret_cast<void *>(3)};
  double ms = 0;
  if (m.grid[0] && m.grid[1] && m.grid[2]) {
    auto t0 = std::chrono::steady_clock::now();
    if (int e = hip.moduleLaunchKernel(
            fn, m.grid[0], m.grid[1], m.grid[2], m.workgroup[0], m.workgroup[1],
            m.workgroup[2], 0, nullptr, nullptr, extra))
      return hipFailed("hipModuleLaunchKernel", e);
    if (int e = hip.deviceSynchronize())
      return hipFailed("the kernel (hipDeviceSynchronize)", e);
    ms = std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
             .count();
  }
  Tensor &o = find("out"), &l = find("lse");
  if (!out.empty())
    if (int e =
            hip.memcpy(out.data(), o.dev, out.size(), Hip::kMemcpyDeviceToHost))
      return hipFailed("hipMemcpy from the device", e, " (out)");
  if (l.used && !lse.empty())
    if (int e = hip.memcpy(lse.data(), l.dev, lse.size() * 4,
                           Hip::kMemcpyDeviceToHost))
      return hipFailed("hipMemcpy from the device", e, " (lse)");
  for (size_t i = 0; i < tensors.size(); ++i)
    if (void *dev = tensors[i].dev;
        dev && std::none_of(tensors.begin(), tensors.begin() + i,
                            [&](const Tensor &o) { return o.dev == dev; }))
      hip.free(dev);
  if (hip.moduleUnload)
    hip.moduleUnload(module);

  ref::OracleResult oracle = ref::runOracle(in);
  ref::CompareResult vs = ref::compareWithOracle(
      in, out.data(), req.return_lse ? lse.data() : nullptr, oracle);
  llvm::outs() << (vs.pass ? "PASS" : "FAIL") << " " << req.str() << " | "
               << vs.summary() << " | " << (m.chip.empty() ? "?" : m.chip)
               << " device=" << optDevice << " grid=[" << m.grid[0] << ","
               << m.grid[1] << "," << m.grid[2] << "] block=[" << m.workgroup[0]
               << "," << m.workgroup[1] << "," << m.workgroup[2]
               << "] time_ms=" << llvm::format("%.3f", ms) << "\n";
  return vs.pass ? 0 : 1;
}
