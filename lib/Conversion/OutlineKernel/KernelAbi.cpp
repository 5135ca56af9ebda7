//===- KernelAbi.cpp - the fmha.abi record of a kernel --------------------===//
#include "fmha/Conversion/OutlineKernel/KernelAbi.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {
constexpr std::pair<AbiPart, const char *> kParts[] = {
    {AbiPart::Pointer, "pointer"}, {AbiPart::Size, "size"},
    {AbiPart::Offset, "offset"},   {AbiPart::Stride, "stride"},
    {AbiPart::Value, "value"},     {AbiPart::TensorMap, "tensormap"}};

bool hasDim(AbiPart p) { return p == AbiPart::Size || p == AbiPart::Stride; }
} // namespace

StringRef mlir::fmha::abiPartName(AbiPart part) {
  for (auto [p, n] : kParts)
    if (p == part)
      return n;
  llvm_unreachable("unknown ABI part");
}

std::string KernelAbiArg::flatName() const {
  switch (part) {
  case AbiPart::Pointer:
  case AbiPart::Value:
    return name;
  case AbiPart::Size:
    return name + "_dim" + std::to_string(dim);
  case AbiPart::Offset:
    return name + "_offset";
  case AbiPart::Stride:
    return name + "_stride" + std::to_string(dim);
  case AbiPart::TensorMap:
    return name + "_tmap";
  }
  llvm_unreachable("unknown ABI part");
}

DictionaryAttr KernelAbiArg::toAttr(MLIRContext *ctx) const {
  Builder b(ctx);
  SmallVector<NamedAttribute> fields;
  if (operand >= 0)
    fields.push_back(b.getNamedAttr("operand", b.getI64IntegerAttr(operand)));
  fields.push_back(b.getNamedAttr("name", b.getStringAttr(name)));
  fields.push_back(b.getNamedAttr("part", b.getStringAttr(abiPartName(part))));
  if (hasDim(part))
    fields.push_back(b.getNamedAttr("dim", b.getI64IntegerAttr(dim)));
  if (part == AbiPart::TensorMap) {
    fields.push_back(b.getNamedAttr("dims", b.getI64ArrayAttr(ArrayRef<int64_t>(tmapDims))));
    fields.push_back(b.getNamedAttr("box", b.getI64ArrayAttr(ArrayRef<int64_t>(tmapBox))));
    fields.push_back(b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzle)));
    fields.push_back(b.getNamedAttr("element_bytes", b.getI64IntegerAttr(elementBytes)));
    fields.push_back(b.getNamedAttr("shape", b.getI64ArrayAttr(ArrayRef<int64_t>(shape))));
    fields.push_back(b.getNamedAttr("strides", b.getI64ArrayAttr(ArrayRef<int64_t>(strides))));
  }
  return b.getDictionaryAttr(fields);
}

ArrayAttr mlir::fmha::kernelAbiAttr(MLIRContext *ctx,
                                    ArrayRef<KernelAbiArg> args) {
  SmallVector<Attribute> entries;
  for (const KernelAbiArg &a : args)
    entries.push_back(a.toAttr(ctx));
  return ArrayAttr::get(ctx, entries);
}

FailureOr<SmallVector<KernelAbiArg>>
mlir::fmha::readKernelAbi(gpu::GPUFuncOp kernel) {
  auto record = kernel->getAttrOfType<ArrayAttr>(kKernelAbiAttr);
  if (!record)
    return kernel.emitOpError()
           << "has no " << kKernelAbiAttr
           << " record of its arguments (run fmha-outline-kernel)";
  if (record.size() != kernel.getNumArguments())
    return kernel.emitOpError()
           << kKernelAbiAttr << " has " << record.size()
           << " entries for " << kernel.getNumArguments() << " arguments";
  SmallVector<KernelAbiArg> args;
  for (auto [i, entry] : llvm::enumerate(record)) {
    auto bad = [&, i = i](const Twine &why) {
      return kernel.emitOpError()
             << kKernelAbiAttr << " entry " << i << ": " << why;
    };
    auto d = dyn_cast<DictionaryAttr>(entry);
    if (!d)
      return bad("not a dictionary");
    KernelAbiArg a;
    auto name = d.getAs<StringAttr>("name");
    auto part = d.getAs<StringAttr>("part");
    if (!name || !part)
      return bad("needs a string 'name' and 'part'");
    a.name = name.getValue().str();
    bool known = false;
    for (auto [p, n] : kParts)
      if (part.getValue() == n) {
        a.part = p;
        known = true;
      }
    if (!known)
      return bad("part '" + part.getValue() +
                 "' is none of pointer, size, offset, stride, value, tensormap");
    if (Attribute op = d.get("operand")) {
      auto v = dyn_cast<IntegerAttr>(op);
      if (!v || v.getInt() < 0)
        return bad("'operand' must be a non-negative integer");
      a.operand = v.getInt();
    }
    auto dim = d.getAs<IntegerAttr>("dim");
    if (hasDim(a.part) != static_cast<bool>(dim) ||
        (dim && dim.getInt() < 0))
      return bad("'dim' (a non-negative integer) is given exactly for a size "
                 "or stride");
    if (dim)
      a.dim = dim.getInt();
    if (a.part == AbiPart::TensorMap) {
      auto ints = [&](StringRef key, std::vector<int64_t> &out) {
        auto arr = d.getAs<ArrayAttr>(key);
        if (!arr)
          return false;
        for (Attribute e : arr) {
          auto v = dyn_cast<IntegerAttr>(e);
          if (!v)
            return false;
          out.push_back(v.getInt());
        }
        return true;
      };
      auto sw = d.getAs<IntegerAttr>("swizzle");
      auto eb = d.getAs<IntegerAttr>("element_bytes");
      if (!ints("dims", a.tmapDims) || !ints("box", a.tmapBox) ||
          !ints("shape", a.shape) || !ints("strides", a.strides) || !sw || !eb ||
          a.tmapDims.size() != a.tmapBox.size() || a.tmapDims.empty() ||
          a.shape.size() != a.strides.size() || a.operand < 0)
        return bad("a tensormap needs an 'operand' and integer arrays 'dims' and "
                   "'box' of one length, 'shape' and 'strides' of one length, "
                   "and integers 'swizzle' and 'element_bytes'");
      a.swizzle = sw.getInt();
      a.elementBytes = eb.getInt();
    }
    args.push_back(std::move(a));
  }
  return args;
}
