//===- ManifestReaderFuzzer.cpp - the launchers' manifest reader ----------===//
//
// Bytes as a manifest: MiniJson (tools/common/MiniJson.h) then the schema
// reader both launchers share (tools/common/KernelManifest.h), the request's
// validate() and the pointer-argument check, as fmha-cuda-run and
// fmha-hip-run run them. Must never crash, and a document of n bytes must
// parse in O(n): deep nesting is refused at MiniJson's depth limit, an
// object with many keys costs one hash lookup per key.
//
//===----------------------------------------------------------------------===//
#include "../tools/common/KernelManifest.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  ::fmha::minijson::Value root;
  std::string error;
  if (!::fmha::minijson::parse(text, root, error)) {
    if (error.empty())
      __builtin_trap(); // a refusal names its rule
    return 0;
  }
  for (const char *prefix : {"sm_", "gfx"}) {
    fmha_tools::manifest::Manifest m;
    fmha_tools::manifest::Rules rules;
    rules.tool = "fuzz";
    rules.chipPrefix = prefix;
    rules.requireConfig = prefix[0] == 's';
    if (!fmha_tools::manifest::readManifest(root, m, rules).empty())
      continue;
    if (!m.req.validate().empty())
      continue;
    (void)fmha_tools::manifest::checkPointerArgs(m);
    (void)fmha_tools::manifest::expectedTensors(m.req);
  }
  return 0;
}
