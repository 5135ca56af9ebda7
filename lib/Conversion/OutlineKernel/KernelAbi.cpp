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
    {AbiPart::Value, "value"}};

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
                 "' is none of pointer, size, offset, stride, value");
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
    args.push_back(std::move(a));
  }
  return args;
}
