//===- FmhaDialect.cpp - The fmha dialect and its attributes ----------------===//
#include "fmha/Dialect/Fmha/IR/FmhaDialect.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fmha;

#include "fmha/Dialect/Fmha/IR/FmhaOpsDialect.cpp.inc"
#include "fmha/Dialect/Fmha/IR/FmhaEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/Fmha/IR/FmhaAttributes.cpp.inc"

void FmhaDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fmha/Dialect/Fmha/IR/FmhaAttributes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "fmha/Dialect/Fmha/IR/FmhaOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MaskAttr: #fmha.mask<none>, #fmha.mask<causal>,
//           #fmha.mask<window, left = L, right = R>
//===----------------------------------------------------------------------===//

Attribute MaskAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  SMLoc kindLoc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseKeyword(&kindName))
    return {};
  std::optional<MaskKind> kind = symbolizeMaskKind(kindName);
  if (!kind) {
    parser.emitError(kindLoc, "unknown mask kind '")
        << kindName << "'; expected none, causal or window";
    return {};
  }
  int64_t left = -1, right = -1;
  bool seenLeft = false, seenRight = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    int64_t value;
    if (parser.parseInteger(value))
      return {};
    if (*kind != MaskKind::Window) {
      parser.emitError(loc, "mask '")
          << kindName << "' takes no bounds; only 'window' has left/right";
      return {};
    }
    if (key == "left" && !seenLeft) {
      left = value;
      seenLeft = true;
    } else if (key == "right" && !seenRight) {
      right = value;
      seenRight = true;
    } else {
      parser.emitError(loc, "expected 'left' or 'right' once each, got '")
          << key << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return MaskAttr::getChecked(
      [&] { return parser.emitError(kindLoc); }, parser.getContext(), *kind,
      left, right);
}

void MaskAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyMaskKind(getKind());
  if (isWindow())
    printer << ", left = " << getLeft() << ", right = " << getRight();
  printer << ">";
}

LogicalResult MaskAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               MaskKind kind, int64_t left, int64_t right) {
  if (kind != MaskKind::Window) {
    if (left != -1 || right != -1)
      return emitError() << "mask '" << stringifyMaskKind(kind)
                         << "' takes no window bounds (left = " << left
                         << ", right = " << right << ")";
    return success();
  }
  if (left < -1)
    return emitError() << "window bound 'left' must be >= -1 (-1 means "
                          "unbounded), got "
                       << left;
  if (right < -1)
    return emitError() << "window bound 'right' must be >= -1 (-1 means "
                          "unbounded), got "
                       << right;
  return success();
}
