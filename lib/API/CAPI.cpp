//===- CAPI.cpp - fmha-mlir's C interface ---------------------------------===//
#include "fmha/API/CAPI.h"
#include "fmha/API/Compiler.h"
#include "fmha/Compile/Compile.h"
#include "fmha/Emulator/CpuKernel.h"
#include "fmha/Request/RequestModule.h"
#include "fmha/Support/FatalErrors.h"
#include "fmha/Version.h"

#include "llvm/Support/JSON.h"

#include <cstdlib>
#include <cstring>
#include <string>

struct fmha_kernel {
  fmha::api::Kernel kernel;
};

struct fmha_cpu_kernel {
  std::unique_ptr<mlir::fmha::CpuKernel> kernel;
  std::string operands; ///< JSON
};

namespace {
namespace ref = ::fmha::ref;

char *dup(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (p)
    std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

constexpr int kMaxJsonDepth = 64;

/// "" when no array or object of `text` nests deeper than kMaxJsonDepth
/// (brackets inside strings do not count); else the message.
std::string nestingTooDeep(const char *text) {
  int depth = 0;
  bool inString = false;
  for (const char *p = text; *p; ++p) {
    char c = *p;
    if (inString) {
      if (c == '\\' && p[1])
        ++p;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return "nesting deeper than " + std::to_string(kMaxJsonDepth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return "";
}

/// The request of a JSON object; "" or the first problem.
std::string readRequest(const llvm::json::Object &o, ref::Request &r,
                        bool lengthsRequired = true) {
  auto lens = [&](const char *key, std::vector<int64_t> &out) -> std::string {
    const llvm::json::Array *a = o.getArray(key);
    if (!a)
      return std::string("\"") + key + "\" must be an array of integers";
    for (const llvm::json::Value &v : *a) {
      std::optional<int64_t> i = v.getAsInteger();
      if (!i)
        return std::string("\"") + key + "\" must be an array of integers";
      out.push_back(*i);
    }
    return "";
  };
  // Every key is one the manifest's "request" has (docs/ABI.md): a misspelt
  // key would otherwise leave its field at the default without a word.
  static constexpr const char *kKeys[] = {
      "batch", "qo_lens", "kv_lens", "num_qo_heads", "num_kv_heads",
      "head_dim", "head_dim_v", "page_size", "page_table", "kv_layout",
      "quant", "mask", "q_dtype", "kv_dtype", "out_dtype", "sm_scale",
      "soft_cap", "lse", "runtime_scalars", "kv_strided", "seed", "data"};
  for (const auto &kv : o)
    if (!llvm::is_contained(kKeys, llvm::StringRef(kv.first)))
      return "unknown key \"" + kv.first.str() + "\"";
  for (const char *key : {"page_table", "kv_layout", "quant", "mask", "q_dtype",
                          "kv_dtype", "out_dtype", "data"})
    if (const llvm::json::Value *v = o.get(key); v && !v->getAsString())
      return std::string("\"") + key + "\" must be a string";
  for (auto [key, field] : {std::pair<const char *, std::vector<int64_t> *>{
                                "qo_lens", &r.qo_lens},
                            {"kv_lens", &r.kv_lens}})
    if (lengthsRequired || o.get(key))
      if (std::string e = lens(key, *field); !e.empty())
        return e;
  for (auto [key, field] :
       {std::pair<const char *, int64_t *>{"num_qo_heads", &r.num_qo_heads},
        {"num_kv_heads", &r.num_kv_heads}, {"head_dim", &r.head_dim},
        {"head_dim_v", &r.head_dim_v}, {"page_size", &r.page_size}})
    if (const llvm::json::Value *v = o.get(key)) {
      std::optional<int64_t> i = v->getAsInteger();
      if (!i)
        return std::string("\"") + key + "\" must be an integer";
      *field = *i;
    }
  auto str = [&](const char *key) -> std::optional<std::string> {
    if (std::optional<llvm::StringRef> s = o.getString(key))
      return s->str();
    return std::nullopt;
  };
  auto bad = [](const char *key, const std::string &v) {
    return std::string("\"") + key + "\": unknown value '" + v + "'";
  };
  if (auto s = str("page_table")) {
    if (*s == "csr")
      r.table = ref::TableForm::CSR;
    else if (*s == "block_table" || *s == "block")
      r.table = ref::TableForm::Block;
    else
      return bad("page_table", *s);
  }
  if (auto s = str("kv_layout")) {
    if (*s == "nhd")
      r.layout = ref::KVLayout::NHD;
    else if (*s == "hnd")
      r.layout = ref::KVLayout::HND;
    else
      return bad("kv_layout", *s);
  }
  if (auto s = str("quant")) {
    std::optional<ref::QuantMode> q = ref::parseQuantMode(*s);
    if (!q)
      return bad("quant", *s);
    r.quant = *q;
  }
  if (auto s = str("mask")) {
    std::optional<ref::Mask> m = ref::parseMask(*s);
    if (!m)
      return bad("mask", *s);
    r.mask = *m;
  }
  for (auto [key, field] : {std::pair<const char *, ref::DType *>{"q_dtype", &r.q_dtype},
                            {"kv_dtype", &r.kv_dtype}, {"out_dtype", &r.out_dtype}})
    if (auto s = str(key)) {
      std::optional<ref::DType> t = ref::parseDType(*s);
      if (!t)
        return bad(key, *s);
      *field = *t;
    }
  for (auto [key, field] : {std::pair<const char *, double *>{"sm_scale", &r.sm_scale},
                            {"soft_cap", &r.soft_cap}})
    if (const llvm::json::Value *v = o.get(key)) {
      std::optional<double> d = v->getAsNumber();
      if (!d)
        return std::string("\"") + key + "\" must be a number";
      *field = *d;
    }
  for (auto [key, field] : {std::pair<const char *, bool *>{"lse", &r.return_lse},
                            {"runtime_scalars", &r.runtime_scalars},
                            {"kv_strided", &r.kv_strided}})
    if (const llvm::json::Value *v = o.get(key)) {
      std::optional<bool> b = v->getAsBoolean();
      if (!b)
        return std::string("\"") + key + "\" must be true or false";
      *field = *b;
    }
  if (const llvm::json::Value *v = o.get("seed")) {
    std::optional<int64_t> i = v->getAsInteger();
    if (!i || *i < 0)
      return "\"seed\" must be a non-negative integer";
    r.seed = static_cast<uint64_t>(*i);
  }
  if (auto s = str("data")) {
    std::optional<ref::DataMode> d = ref::parseDataMode(*s);
    if (!d)
      return bad("data", *s);
    r.data = *d;
  }
  // The manifest's batch is the lengths' count; given, it must agree.
  if (const llvm::json::Value *v = o.get("batch")) {
    std::optional<int64_t> i = v->getAsInteger();
    if (!i || *i != static_cast<int64_t>(r.qo_lens.size()))
      return "\"batch\" must be the number of qo_lens (" +
             std::to_string(r.qo_lens.size()) + ")";
  }
  return "";
}

/// `text` parsed into `v`, which must be a JSON object; "" or the message
/// ("invalid <what> JSON: ..."). llvm::json::parse recurses once per
/// nesting level: a deep document overflowed the host's stack
/// (CAPIRequestFuzzer), so nesting past kMaxJsonDepth is refused first.
std::string parseObject(const char *text, const char *what, llvm::json::Value &v) {
  std::string prefix = std::string("invalid ") + what + " JSON: ";
  if (std::string err = nestingTooDeep(text); !err.empty())
    return prefix + err;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return prefix + llvm::toString(parsed.takeError());
  if (!parsed->getAsObject())
    return prefix + "not an object";
  v = std::move(*parsed);
  return "";
}

/// The request of `text`, a JSON object; "" or the message (for exit 2).
std::string parseRequest(const char *text, ref::Request &req,
                         bool lengthsRequired) {
  llvm::json::Value v = nullptr;
  if (std::string err = parseObject(text, "request", v); !err.empty())
    return err;
  const llvm::json::Object *o = v.getAsObject();
  if (std::string err = readRequest(*o, req, lengthsRequired); !err.empty())
    return "invalid request: " + err;
  return "";
}

/// The lowering options of `text` (a JSON object, CAPI.h) into `o`, an
/// api::Target or a CpuKernelOptions (the same field names); "" or the
/// first problem. Null or "" leaves `o` as it is.
template <typename Options> std::string readOptions(const char *text, Options &o) {
  if (!text || !*text)
    return "";
  llvm::json::Value v = nullptr;
  if (std::string err = parseObject(text, "options", v); !err.empty())
    return err;
  const llvm::json::Object *obj = v.getAsObject();
  // The value of `key`, when there is one, into `field` through `as` (a
  // json::Value getter); "" or what the value must be.
  auto field = [&](llvm::StringRef key, auto &out, auto as,
                   const char *must) -> std::string {
    if (const llvm::json::Value *x = obj->get(key)) {
      auto got = as(*x);
      if (!got)
        return "invalid options: \"" + key.str() + "\" must be " + must;
      out = *got;
    }
    return "";
  };
  auto flag = [&](llvm::StringRef key, bool &out) {
    return field(key, out, [](const llvm::json::Value &x) { return x.getAsBoolean(); },
                 "true or false");
  };
  auto count = [&](llvm::StringRef key, int64_t &out) {
    return field(key, out, [](const llvm::json::Value &x) { return x.getAsInteger(); },
                 "an integer");
  };
  static constexpr const char *kKeys[] = {
      "folds", "peel", "pipeline", "warp_specialize", "transpose_v", "ping_pong",
      "stage_descales",
      "kv_stages", "kv_unroll", "lds_loads", "lds_swizzle", "tma", "vd_route", "warps",
      "block_n"};
  for (const auto &kv : *obj)
    if (!llvm::is_contained(kKeys, llvm::StringRef(kv.first)))
      return "invalid options: unknown key \"" + kv.first.str() + "\"";
  for (auto [key, field] : {std::pair<const char *, bool *>{"folds", &o.folds},
                            {"peel", &o.peel},
                            {"pipeline", &o.pipeline},
                            {"warp_specialize", &o.warpSpecialize},
                            {"transpose_v", &o.transposeV},
                            {"ping_pong", &o.pingPong}})
    if (std::string e = flag(key, *field); !e.empty())
      return e;
  for (auto [key, field] : {std::pair<const char *, int64_t *>{"kv_stages", &o.kvStages},
                            {"kv_unroll", &o.kvUnroll},
                            {"warps", &o.warps},
                            {"block_n", &o.blockN}})
    if (std::string e = count(key, *field); !e.empty())
      return e;
  // true, false or null (the chip's choice).
  for (auto [key, field] :
       {std::pair<const char *, std::optional<bool> *>{"lds_loads", &o.ldsLoads},
        {"lds_swizzle", &o.ldsSwizzle},
        {"stage_descales", &o.stageDescales},
        {"tma", &o.tma}})
    if (const llvm::json::Value *x = obj->get(key)) {
      if (x->getAsNull())
        field->reset();
      else if (std::optional<bool> b = x->getAsBoolean())
        *field = *b;
      else
        return "invalid options: \"" + std::string(key) + "\" must be true, false or null";
    }
  if (const llvm::json::Value *x = obj->get("vd_route")) {
    std::optional<llvm::StringRef> s = x->getAsString();
    if (!s)
      return "invalid options: \"vd_route\" must be a string";
    o.vdRoute = s->str();
  }
  return "";
}

/// Sets *out to null and *diagnostic to null; fail(code, msg) sets the
/// diagnostic and returns code.
struct Failer {
  char **diagnostic;
  int operator()(int code, const std::string &msg) const {
    if (diagnostic)
      *diagnostic = dup(msg);
    return code;
  }
};
} // namespace

extern "C" {

const char *fmha_version(void) { return FMHA_VERSION; }

int fmha_compile(const char *request_json, const char *chip, const char *format,
                 fmha_kernel **out, char **diagnostic) {
  return fmha_compile_options(request_json, chip, format, nullptr, out, diagnostic);
}

int fmha_compile_options(const char *request_json, const char *chip,
                         const char *format, const char *options_json,
                         fmha_kernel **out, char **diagnostic) {
  if (out)
    *out = nullptr;
  if (diagnostic)
    *diagnostic = nullptr;
  Failer fail{diagnostic};
  if (!request_json || !chip || !format || !out)
    return fail(2, "fmha_compile: request, chip, format and out must be given");
  fmha::api::Request req;
  if (std::string err = parseRequest(request_json, req, true); !err.empty())
    return fail(2, err);
  fmha::api::Target target;
  if (std::string err = readOptions(options_json, target); !err.empty())
    return fail(2, err);
  target.chip = chip;
  std::string f = format;
  if (f == "bin")
    target.format = fmha::api::Format::Binary;
  else if (f == "isa")
    target.format = fmha::api::Format::Assembly;
  else if (f == "llvm")
    target.format = fmha::api::Format::LLVMIR;
  else if (f == "mlir")
    target.format = fmha::api::Format::MLIR;
  else
    return fail(2, "format must be bin, isa, llvm or mlir, not '" + f + "'");
  fmha::api::Result r = fmha::api::compile(req, target);
  if (!r)
    return fail(r.badInput ? 2 : 3, r.diagnostic);
  *out = new fmha_kernel{std::move(*r.kernel)};
  return 0;
}

const char *fmha_kernel_binary(const fmha_kernel *k, size_t *size) {
  if (size)
    *size = k ? k->kernel.binary.size() : 0;
  return k ? k->kernel.binary.data() : nullptr;
}

const char *fmha_kernel_manifest(const fmha_kernel *k) {
  return k ? k->kernel.manifest.c_str() : nullptr;
}

void fmha_kernel_free(fmha_kernel *k) { delete k; }
void fmha_free(char *text) { std::free(text); }

int fmha_request_complete(const char *request_json, char **completed,
                          char **diagnostic) {
  if (completed)
    *completed = nullptr;
  if (diagnostic)
    *diagnostic = nullptr;
  Failer fail{diagnostic};
  if (!request_json || !completed)
    return fail(2, "fmha_request_complete: request and completed must be given");
  ref::Request req;
  if (std::string err = parseRequest(request_json, req, false); !err.empty())
    return fail(2, err);
  if (std::string err = req.validate(); !err.empty())
    return fail(2, "invalid request: " + err);
  llvm::Expected<llvm::json::Value> full =
      llvm::json::parse(mlir::fmha::requestJson(req));
  if (!full)
    return fail(3, "internal error: " + llvm::toString(full.takeError()));
  llvm::json::Value out(llvm::json::Object{{"kernel_key", req.kernelKey()},
                                           {"request", std::move(*full)}});
  std::string text;
  llvm::raw_string_ostream os(text);
  os << out;
  os.flush();
  *completed = dup(text);
  return 0;
}

int fmha_cpu_compile(const char *request_json, const char *target,
                     fmha_cpu_kernel **out, char **diagnostic) {
  return fmha_cpu_compile_options(request_json, target, nullptr, out, diagnostic);
}

int fmha_cpu_compile_options(const char *request_json, const char *target,
                             const char *options_json, fmha_cpu_kernel **out,
                             char **diagnostic) {
  if (out)
    *out = nullptr;
  if (diagnostic)
    *diagnostic = nullptr;
  Failer fail{diagnostic};
  if (!request_json || !target || !out)
    return fail(2, "fmha_cpu_compile: request, target and out must be given");
  ref::Request req;
  if (std::string err = parseRequest(request_json, req, false); !err.empty())
    return fail(2, err);
  mlir::fmha::CpuKernelOptions opt;
  if (std::string err = readOptions(options_json, opt); !err.empty())
    return fail(2, err);
  opt.target = target;
  std::string err, fatal;
  int code = 3;
  std::unique_ptr<mlir::fmha::CpuKernel> k;
  // As api::compile: a fatal LLVM error or a crash ends this call, not the
  // host (what the abandoned compile allocated is leaked).
  if (!mlir::fmha::runRecovering(
          [&] { k = mlir::fmha::CpuKernel::compile(req, opt, err, code); }, fatal)) {
    (void)k.release();
    return fail(3, "internal compiler error, the compile was abandoned: " + fatal);
  }
  if (!k)
    return fail(code, err);
  std::string ops = "[";
  for (const mlir::fmha::RequestOperand &a : mlir::fmha::requestOperands(req))
    ops += (ops.size() > 1 ? ", " : "") + std::string("{\"name\": \"") + a.name +
           "\", \"rank\": " + std::to_string(a.rank) + "}";
  *out = new fmha_cpu_kernel{std::move(k), ops + "]"};
  return 0;
}

const char *fmha_cpu_kernel_operands(const fmha_cpu_kernel *k) {
  return k ? k->operands.c_str() : nullptr;
}

int fmha_cpu_run(fmha_cpu_kernel *k, const fmha_buffer *buffers, size_t count,
                 char **diagnostic) {
  if (diagnostic)
    *diagnostic = nullptr;
  Failer fail{diagnostic};
  if (!k || (!buffers && count))
    return fail(2, "fmha_cpu_run: a kernel and the buffers must be given");
  std::vector<mlir::fmha::BufferView> views;
  for (size_t i = 0; i < count; ++i) {
    const fmha_buffer &b = buffers[i];
    if (!b.name || b.rank < 0 || b.rank > 4 || (b.rank && !b.sizes))
      return fail(2, "fmha_cpu_run: buffer " + std::to_string(i) +
                         " needs a name, a rank in [0, 4] and its sizes");
    mlir::fmha::BufferView v;
    v.name = b.name;
    v.data = b.data;
    v.sizes.assign(b.sizes, b.sizes + b.rank);
    if (b.strides)
      v.strides.assign(b.strides, b.strides + b.rank);
    views.push_back(std::move(v));
  }
  std::string err;
  // Buffer and table checks fail before the run (exit 2); a lane emulator
  // error fails the run itself (3).
  if (failed(k->kernel->runOnBuffers(views, err)))
    return fail(err.rfind("lane emulator", 0) == 0 || err.rfind("JIT", 0) == 0 ? 3 : 2,
                err);
  return 0;
}

void fmha_cpu_kernel_free(fmha_cpu_kernel *k) { delete k; }

} // extern "C"
