//===- FmhaOps.cpp - fmha operations and their verifier ---------------------===//
//
// The verifier is the contract of docs/SPEC.md section 7: every message names
// the operand and the rule, with the values that broke it.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fmha;

namespace {

bool isFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType>(t);
}
bool isFnuzFp8(Type t) { return isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(t); }
bool is16Bit(Type t) { return t.isBF16() || t.isF16(); }
bool isQType(Type t) {
  return is16Bit(t) || isa<Float8E4M3FNType, Float8E4M3FNUZType>(t);
}
bool isKVType(Type t) { return is16Bit(t) || isFp8(t); }
bool isOutType(Type t) { return is16Bit(t) || t.isF32(); }

std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

/// Both static and different: the only case a verifier can reject.
bool conflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

/// Checks the operand facts that do not depend on the other operands.
class OperandChecker {
public:
  explicit OperandChecker(BatchPrefillOp op) : op(op) {}

  LogicalResult rank(StringRef name, MemRefType t, int64_t rank,
                     StringRef shape) {
    if (t.getRank() != rank)
      return op.emitOpError() << "operand '" << name << "' must have rank "
                              << rank << " (" << shape << "), got " << str(t);
    return success();
  }

  LogicalResult elementType(StringRef name, MemRefType t,
                            function_ref<bool(Type)> allowed,
                            StringRef allowedList) {
    if (!allowed(t.getElementType()))
      return op.emitOpError()
             << "operand '" << name << "' has element type "
             << str(t.getElementType()) << "; allowed: " << allowedList;
    return success();
  }

  LogicalResult staticDims(StringRef name, MemRefType t,
                           ArrayRef<std::pair<unsigned, StringRef>> dims) {
    for (auto [idx, what] : dims)
      if (t.isDynamicDim(idx))
        return op.emitOpError()
               << "operand '" << name << "' must have a static " << what
               << " (dimension " << idx << "), got " << str(t);
    return success();
  }

  /// Innermost dimension contiguous (SPEC section 1); descales are exempt.
  LogicalResult contiguousInner(StringRef name, MemRefType t) {
    if (t.getRank() == 0)
      return success();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(t.getStridesAndOffset(strides, offset)) || strides.back() != 1)
      return op.emitOpError() << "operand '" << name
                              << "' must have a contiguous innermost "
                                 "dimension (stride 1), got "
                              << str(t);
    return success();
  }

  /// K / V strides (fmha-compile --kv-strided makes them dynamic): each
  /// static one > 0 and a multiple of 16 bytes (the kernels read 16-byte
  /// chunks), and, when all are static, no two dimensions overlapping
  /// (ordered by stride, each at least the extent below it; the run-time
  /// checkers apply the same rule to dynamic ones).
  LogicalResult kvStrides(StringRef name, MemRefType t) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (t.getRank() != 4 || failed(t.getStridesAndOffset(strides, offset)))
      return success(); // the rank and innermost checks report these
    int64_t bytes = std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
    SmallVector<std::pair<int64_t, int64_t>> dims;
    bool allStatic = true;
    for (int i = 0; i < 3; ++i) {
      if (ShapedType::isDynamic(strides[i])) {
        allStatic = false;
        continue;
      }
      if (t.getDimSize(i) == 1)
        continue;
      if (strides[i] <= 0 || (strides[i] * bytes) % 16 != 0)
        return op.emitOpError()
               << "operand '" << name << "' strides must be > 0 and multiples of "
               << "16 bytes (the kernels read 16-byte chunks), got " << str(t);
      dims.push_back({strides[i], t.getDimSize(i)});
    }
    if (!allStatic || t.isDynamicDim(3))
      return success();
    llvm::sort(dims);
    int64_t extent = t.getDimSize(3);
    for (auto [stride, size] : dims) {
      if (stride < extent)
        return op.emitOpError()
               << "operand '" << name << "' strides overlap: a stride of " << stride
               << " is less than the " << extent
               << " elements the dimensions below it span, got " << str(t);
      if (ShapedType::isDynamic(size))
        break; // the outermost (pages): nothing is above it
      extent = stride * (size - 1) + extent;
    }
    return success();
  }

  /// Every dim 1, not a product of 1: huge static dims can wrap the product
  /// (274177 x 67280421310721 "has" one element).
  LogicalResult oneElement(StringRef name, MemRefType t, StringRef mode) {
    if (!llvm::all_of(t.getShape(), [](int64_t d) { return d == 1; }))
      return op.emitOpError() << "operand '" << name << "' must hold one f32 "
                              << "element in quant mode " << mode << ", got "
                              << str(t);
    return success();
  }

private:
  BatchPrefillOp op;
};

bool isI32(Type t) { return t.isSignlessInteger(32); }
bool isF32(Type t) { return t.isF32(); }

} // namespace

static MemRefType getMemRef(Value v) { return cast<MemRefType>(v.getType()); }

int64_t BatchPrefillOp::getNumQHeads() { return getMemRef(getQ()).getDimSize(1); }
int64_t BatchPrefillOp::getHeadDim() { return getMemRef(getQ()).getDimSize(2); }
int64_t BatchPrefillOp::getHeadDimV() { return getMemRef(getOut()).getDimSize(2); }
int64_t BatchPrefillOp::getNumKVHeads() {
  return getMemRef(getKCache())
      .getDimSize(getKvLayout() == KVLayout::NHD ? 2 : 1);
}
double BatchPrefillOp::getSmScaleOrDefault() {
  if (auto s = getSmScale())
    return s->convertToDouble();
  return 1.0 / std::sqrt(static_cast<double>(getHeadDim()));
}
double BatchPrefillOp::getSoftCapOrZero() {
  if (auto c = getSoftCap())
    return c->convertToDouble();
  return 0.0;
}

LogicalResult BatchPrefillOp::verify() {
  OperandChecker check(*this);
  MemRefType qT = getMemRef(getQ()), kT = getMemRef(getKCache()),
             vT = getMemRef(getVCache()), outT = getMemRef(getOut()),
             qoT = getMemRef(getQoIndptr());
  bool nhd = getKvLayout() == KVLayout::NHD;
  StringRef cacheShape = nhd ? "[N_pages, P, Hkv, D] for kv_layout nhd"
                             : "[N_pages, Hkv, P, D] for kv_layout hnd";
  unsigned pageDim = nhd ? 1 : 2, headDim = nhd ? 2 : 1;

  // Ranks, element types, static dims, contiguity of the main tensors.
  if (failed(check.rank("q", qT, 3, "[total_q, Hq, D]")) ||
      failed(check.rank("k_cache", kT, 4, cacheShape)) ||
      failed(check.rank("v_cache", vT, 4, cacheShape)) ||
      failed(check.rank("out", outT, 3, "[total_q, Hq, Dv]")) ||
      failed(check.rank("qo_indptr", qoT, 1, "[B+1]")))
    return failure();
  if (failed(check.elementType("q", qT, isQType,
                               "bf16, f16, f8E4M3FN, f8E4M3FNUZ")) ||
      failed(check.elementType(
          "k_cache", kT, isKVType,
          "bf16, f16, f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ")) ||
      failed(check.elementType(
          "v_cache", vT, isKVType,
          "bf16, f16, f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ")) ||
      failed(check.elementType("out", outT, isOutType, "bf16, f16, f32")) ||
      failed(check.elementType("qo_indptr", qoT, isI32, "i32")))
    return failure();
  if (failed(check.staticDims("q", qT, {{1, "head count Hq"}, {2, "head dim D"}})) ||
      failed(check.staticDims("k_cache", kT,
                              {{pageDim, "page size"}, {headDim, "head count Hkv"},
                               {3, "head dim D"}})) ||
      failed(check.staticDims("v_cache", vT,
                              {{pageDim, "page size"}, {headDim, "head count Hkv"},
                               {3, "head dim Dv"}})) ||
      failed(check.staticDims("out", outT,
                              {{1, "head count Hq"}, {2, "head dim Dv"}})))
    return failure();
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"q", getQ()}, {"k_cache", getKCache()},
        {"v_cache", getVCache()}, {"out", getOut()}, {"qo_indptr", getQoIndptr()}})
    if (failed(check.contiguousInner(name, getMemRef(value))))
      return failure();
  if (failed(check.kvStrides("k_cache", kT)) || failed(check.kvStrides("v_cache", vT)))
    return failure();

  // Precision pairing: one MMA must take q and k.
  Type qE = qT.getElementType(), kE = kT.getElementType(),
       vE = vT.getElementType();
  if (kE != vE)
    return emitOpError() << "operands 'k_cache' and 'v_cache' must share one "
                            "element type, got "
                         << str(kE) << " and " << str(vE);
  if (isFp8(qE) && !isFp8(kE))
    return emitOpError() << "fp8 operand 'q' (" << str(qE)
                         << ") needs an fp8 KV cache, got " << str(kE);
  if (is16Bit(qE) && is16Bit(kE) && qE != kE)
    return emitOpError() << "16-bit operands 'q' and 'k_cache' must share one "
                            "element type, got "
                         << str(qE) << " and " << str(kE);
  if (isFp8(qE) && isFp8(kE) && isFnuzFp8(qE) != isFnuzFp8(kE))
    return emitOpError()
           << "fp8 operands must share one family (OCP f8E4M3FN/f8E5M2 or "
              "FNUZ f8E4M3FNUZ/f8E5M2FNUZ), got 'q' "
           << str(qE) << " and 'k_cache' " << str(kE);

  // Heads, head dims and the page size.
  int64_t hq = qT.getDimSize(1), d = qT.getDimSize(2);
  int64_t hkv = kT.getDimSize(headDim), dv = outT.getDimSize(2);
  int64_t nPages = kT.getDimSize(0), totalQ = qT.getDimSize(0);
  if (hq < 1 || hkv < 1 || d < 1 || dv < 1)
    return emitOpError() << "head counts and head dims must be >= 1, got Hq = "
                         << hq << ", Hkv = " << hkv << ", D = " << d
                         << ", Dv = " << dv;
  if (hq % hkv != 0)
    return emitOpError() << "query heads must be a multiple of KV heads "
                            "(Hq % Hkv == 0), got Hq = "
                         << hq << ", Hkv = " << hkv;
  if (kT.getDimSize(3) != d)
    return emitOpError() << "operand 'k_cache' head dim " << kT.getDimSize(3)
                         << " must equal the head dim D = " << d << " of 'q'";
  if (vT.getDimSize(headDim) != hkv)
    return emitOpError() << "operand 'v_cache' has " << vT.getDimSize(headDim)
                         << " KV heads, 'k_cache' has " << hkv;
  if (vT.getDimSize(3) != dv)
    return emitOpError() << "operand 'v_cache' head dim " << vT.getDimSize(3)
                         << " must equal the head dim Dv = " << dv
                         << " of 'out'";
  if (outT.getDimSize(1) != hq)
    return emitOpError() << "operand 'out' has " << outT.getDimSize(1)
                         << " heads, 'q' has Hq = " << hq;
  if (conflict(outT.getDimSize(0), totalQ))
    return emitOpError() << "operand 'out' has " << outT.getDimSize(0)
                         << " rows, 'q' has total_q = " << totalQ;
  if (conflict(vT.getDimSize(0), nPages))
    return emitOpError() << "operand 'v_cache' has " << vT.getDimSize(0)
                         << " pages, 'k_cache' has " << nPages;
  int64_t pageSize = getPageSize();
  if (pageSize < 1)
    return emitOpError() << "page_size must be >= 1, got " << pageSize;
  if (kT.getDimSize(pageDim) != pageSize || vT.getDimSize(pageDim) != pageSize)
    return emitOpError() << "page_size " << pageSize
                         << " must equal the page dimension of 'k_cache' ("
                         << kT.getDimSize(pageDim) << ") and 'v_cache' ("
                         << vT.getDimSize(pageDim) << ")";

  // Page table: the operands of the chosen form present, the other absent.
  int64_t qoLen = qoT.getDimSize(0);
  int64_t batch = ShapedType::isDynamic(qoLen) ? ShapedType::kDynamic : qoLen - 1;
  if (qoLen == 0)
    return emitOpError() << "operand 'qo_indptr' must have B+1 >= 1 entries, "
                            "got 0";
  auto checkIndex = [&](StringRef name, Value v, int64_t rank,
                        StringRef shape) -> LogicalResult {
    MemRefType t = getMemRef(v);
    if (failed(check.rank(name, t, rank, shape)) ||
        failed(check.elementType(name, t, isI32, "i32")) ||
        failed(check.contiguousInner(name, t)))
      return failure();
    return success();
  };
  auto present = [&](StringRef form, StringRef name, Value v) -> LogicalResult {
    if (!v)
      return emitOpError() << "page_table " << form << " needs operand '"
                           << name << "'";
    return success();
  };
  auto absent = [&](StringRef form, StringRef name, Value v) -> LogicalResult {
    if (v)
      return emitOpError() << "operand '" << name
                           << "' belongs to the other page-table form; "
                              "page_table is "
                           << form;
    return success();
  };
  auto batchDim = [&](StringRef name, int64_t got, int64_t want,
                      StringRef what) -> LogicalResult {
    if (conflict(got, want))
      return emitOpError() << "operand '" << name << "' has " << got
                           << " entries, expected " << what << " = " << want
                           << " (from 'qo_indptr' of " << qoLen
                           << " entries)";
    return success();
  };
  if (getPageTable() == PageTableForm::CSR) {
    StringRef f = "csr";
    if (failed(present(f, "kv_indptr", getKvIndptr())) ||
        failed(present(f, "kv_page_indices", getKvPageIndices())) ||
        failed(present(f, "kv_last_page_len", getKvLastPageLen())) ||
        failed(absent(f, "block_table", getBlockTable())) ||
        failed(absent(f, "kv_seqlen", getKvSeqlen())))
      return failure();
    if (failed(checkIndex("kv_indptr", getKvIndptr(), 1, "[B+1]")) ||
        failed(checkIndex("kv_page_indices", getKvPageIndices(), 1, "[nnz]")) ||
        failed(checkIndex("kv_last_page_len", getKvLastPageLen(), 1, "[B]")))
      return failure();
    if (failed(batchDim("kv_indptr", getMemRef(getKvIndptr()).getDimSize(0),
                        qoLen, "B+1")) ||
        failed(batchDim("kv_last_page_len",
                        getMemRef(getKvLastPageLen()).getDimSize(0), batch,
                        "B")))
      return failure();
  } else {
    StringRef f = "block_table";
    if (failed(present(f, "block_table", getBlockTable())) ||
        failed(present(f, "kv_seqlen", getKvSeqlen())) ||
        failed(absent(f, "kv_indptr", getKvIndptr())) ||
        failed(absent(f, "kv_page_indices", getKvPageIndices())) ||
        failed(absent(f, "kv_last_page_len", getKvLastPageLen())))
      return failure();
    if (failed(checkIndex("block_table", getBlockTable(), 2,
                          "[B, max_pages]")) ||
        failed(checkIndex("kv_seqlen", getKvSeqlen(), 1, "[B]")))
      return failure();
    if (failed(batchDim("block_table", getMemRef(getBlockTable()).getDimSize(0),
                        batch, "B")) ||
        failed(batchDim("kv_seqlen", getMemRef(getKvSeqlen()).getDimSize(0),
                        batch, "B")))
      return failure();
  }

  // Quantization: element types and descale shapes per mode.
  QuantMode mode = getQuant();
  StringRef modeName = stringifyQuantMode(mode);
  std::pair<StringRef, Value> descales[] = {{"q_descale", getQDescale()},
                                            {"k_descale", getKDescale()},
                                            {"v_descale", getVDescale()}};
  for (auto [name, v] : descales) {
    if (!v)
      continue;
    if (mode == QuantMode::None)
      return emitOpError() << "quant mode none takes no descales, but '" << name
                           << "' is given";
    if (failed(check.elementType(name, getMemRef(v), isF32, "f32")))
      return failure();
  }
  if (mode == QuantMode::None) {
    for (auto [name, t] : {std::pair<StringRef, Type>{"q", qE}, {"k_cache", kE}})
      if (isFp8(t))
        return emitOpError()
               << "quant mode none needs 16-bit q/k/v, but '" << name
               << "' is " << str(t)
               << "; fp8 operands need quant per_tensor or kv_blockscale";
  } else {
    for (auto [name, v] : descales)
      if (!v)
        return emitOpError() << "quant mode " << modeName << " needs operand '"
                             << name << "'";
    if (failed(check.oneElement("q_descale", getMemRef(getQDescale()), modeName)))
      return failure();
  }
  if (mode == QuantMode::PerTensor) {
    if (failed(check.oneElement("k_descale", getMemRef(getKDescale()), modeName)) ||
        failed(check.oneElement("v_descale", getMemRef(getVDescale()), modeName)))
      return failure();
  }
  if (mode == QuantMode::KVBlockScale) {
    if (!isFp8(kE))
      return emitOpError() << "quant mode kv_blockscale needs an fp8 KV cache, "
                              "but 'k_cache' is "
                           << str(kE);
    for (StringRef name : {StringRef("k_descale"), StringRef("v_descale")}) {
      MemRefType t = getMemRef(name == "k_descale" ? getKDescale() : getVDescale());
      if (t.getRank() != 2 || conflict(t.getDimSize(0), nPages) ||
          t.getDimSize(1) != hkv)
        return emitOpError()
               << "operand '" << name
               << "' must be [N_pages, Hkv] = [" << dimStr(nPages) << ", "
               << hkv << "] in quant mode kv_blockscale, got " << str(t);
    }
  }

  // lse: [total_q, Hq] f32.
  if (Value lse = getLse()) {
    MemRefType t = getMemRef(lse);
    if (failed(check.rank("lse", t, 2, "[total_q, Hq]")) ||
        failed(check.elementType("lse", t, isF32, "f32")) ||
        failed(check.contiguousInner("lse", t)))
      return failure();
    if (t.getDimSize(1) != hq || conflict(t.getDimSize(0), totalQ))
      return emitOpError() << "operand 'lse' must be [total_q, Hq] = ["
                           << dimStr(totalQ) << ", " << hq << "], got "
                           << str(t);
  }

  // Run-time scalars: [4] i32, replacing sm_scale, the window bounds and
  // (runtime_soft_cap) the soft cap's value.
  if (getRuntimeSoftCap() && !getRuntimeScalars())
    return emitOpError() << "runtime_soft_cap reads the cap from runtime_scalars[3]: "
                            "the op needs the runtime_scalars operand";
  if (getRuntimeSoftCap() && getSoftCap())
    return emitOpError() << "the soft cap comes from runtime_scalars[3] here "
                            "(runtime_soft_cap): drop the soft_cap attribute";
  if (Value rs = getRuntimeScalars()) {
    MemRefType t = getMemRef(rs);
    if (!t.hasStaticShape() || t.getRank() != 1 || t.getDimSize(0) != 4 ||
        !t.getElementType().isInteger(32) || !t.getLayout().isIdentity())
      return emitOpError() << "operand 'runtime_scalars' must be memref<4xi32> "
                              "(sm_scale as f32 bits, window left, window right, "
                              "soft cap as f32 bits), got "
                           << str(t);
    if (getSmScale())
      return emitOpError() << "sm_scale comes from runtime_scalars[0] here: drop "
                              "the sm_scale attribute";
    MaskAttr m = getMask();
    if (m.isWindow() && (m.getLeft() != -1 || m.getRight() != -1))
      return emitOpError() << "a window's bounds come from runtime_scalars[1..2] "
                              "here: write the mask #fmha.mask<window, left = -1, right = -1>";
  }

  // Scalars.
  if (auto s = getSmScale()) {
    double v = s->convertToDouble();
    if (!(v > 0.0) || !std::isfinite(v))
      return emitOpError() << "sm_scale must be finite and > 0, got " << v;
  }
  if (auto c = getSoftCap()) {
    double v = c->convertToDouble();
    if (!(v >= 0.0) || !std::isfinite(v))
      return emitOpError() << "soft_cap must be finite and >= 0 (0 = no cap), "
                              "got "
                           << v;
  }
  return success();
}

#define GET_OP_CLASSES
#include "fmha/Dialect/Fmha/IR/FmhaOps.cpp.inc"
