//===- TargetInfo.cpp - chip name to TargetInfo ---------------------------===//
#include "fmha/Conversion/FmhaToGPU/TargetInfo.h"

using namespace mlir;
using namespace mlir::fmha;

TargetInfo::~TargetInfo() = default;

std::unique_ptr<TargetInfo> mlir::fmha::createTargetInfo(StringRef chip) {
  if (std::unique_ptr<TargetInfo> amd = createAMDGPUTargetInfo(chip))
    return amd;
  return createNVVMTargetInfo(chip);
}
