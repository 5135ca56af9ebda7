//===- Types.cpp - Element types of the reference library -----------------===//

#include "fmha/Reference/Types.h"

#include <cctype>
#include <string>

namespace fmha::ref {

const char *dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  case DType::F8E4M3FN:
    return "f8E4M3FN";
  case DType::F8E4M3FNUZ:
    return "f8E4M3FNUZ";
  case DType::F8E5M2:
    return "f8E5M2";
  case DType::F8E5M2FNUZ:
    return "f8E5M2FNUZ";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view s) {
  std::string l;
  for (char c : s)
    l.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // Spellings users know: fp8_e4m3fn, float8_e4m3fn (torch), e4m3 (OCP),
  // e4m3fnuz, e5m2, f8E4M3FN (MLIR).
  if (l.rfind("fp8_", 0) == 0 || l.rfind("fp8-", 0) == 0)
    l = "f8" + l.substr(4);
  else if (l.rfind("float8_", 0) == 0)
    l = "f8" + l.substr(7);
  else if (l.rfind("e4m3", 0) == 0 || l.rfind("e5m2", 0) == 0)
    l = "f8" + l;
  if (l == "f8e4m3")
    l = "f8e4m3fn";
  if (l == "f32" || l == "fp32" || l == "float32" || l == "float")
    return DType::F32;
  if (l == "bf16" || l == "bfloat16")
    return DType::BF16;
  if (l == "f16" || l == "fp16" || l == "half" || l == "float16")
    return DType::F16;
  if (l == "f8e4m3fn")
    return DType::F8E4M3FN;
  if (l == "f8e4m3fnuz")
    return DType::F8E4M3FNUZ;
  if (l == "f8e5m2")
    return DType::F8E5M2;
  if (l == "f8e5m2fnuz")
    return DType::F8E5M2FNUZ;
  return std::nullopt;
}

size_t dtypeSize(DType t) {
  switch (t) {
  case DType::F32:
    return 4;
  case DType::BF16:
  case DType::F16:
    return 2;
  default:
    return 1;
  }
}

bool isFp8(DType t) { return dtypeSize(t) == 1; }

double dtypeMaxFinite(DType t) {
  switch (t) {
  case DType::F32:
    return 3.4028234663852886e38;
  case DType::BF16:
    return 3.3895313892515355e38;
  case DType::F16:
    return 65504.0;
  case DType::F8E4M3FN:
    return 448.0;
  case DType::F8E4M3FNUZ:
    return 240.0;
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
    return 57344.0;
  }
  return 0.0;
}

const char *layoutName(KVLayout l) { return l == KVLayout::NHD ? "NHD" : "HND"; }

std::optional<KVLayout> parseLayout(std::string_view s) {
  std::string l;
  for (char c : s)
    l.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  if (l == "NHD")
    return KVLayout::NHD;
  if (l == "HND")
    return KVLayout::HND;
  return std::nullopt;
}

int defaultExp2Shift(DType pType) {
  switch (pType) {
  case DType::F8E4M3FN:
    return 8;
  case DType::F8E4M3FNUZ:
    return 7;
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
    return 15;
  default:
    return 0;
  }
}

} // namespace fmha::ref
