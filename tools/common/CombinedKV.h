//===- CombinedKV.h - a kv_strided kernel's K / V views for the launchers -===//
//
// fmha-cuda-run and fmha-hip-run (no MLIR) pass a kernel compiled with
// kv_strided K and V as views of one combined cache, the layout fmha-run
// gives it (ref::Inputs::combinedKVCache: per page its K block, then its V
// block); the views' offsets and strides go to the kernargs.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TOOLS_COMMON_COMBINEDKV_H
#define FMHA_TOOLS_COMMON_COMBINEDKV_H

#include "fmha/Reference/Problem.h"

#include <cstdint>
#include <vector>

namespace fmha_tools {

/// Points the "k_cache" and "v_cache" entries of `tensors` (each with name,
/// host, bytes, offset and strides) at `combined`, which it fills; nothing
/// when the request is not kv_strided. `combined` must outlive the launch.
template <typename Tensor>
void useCombinedKV(const ::fmha::ref::Inputs &in, std::vector<Tensor> &tensors,
                   std::vector<uint8_t> &combined) {
  const ::fmha::ref::Request &req = in.req;
  if (!req.kv_strided)
    return;
  const ::fmha::ref::Request::KVView kView = req.combinedKView(),
                                     vView = req.combinedVView();
  combined = in.combinedKVCache();
  for (Tensor &t : tensors) {
    if (t.name != "k_cache" && t.name != "v_cache")
      continue;
    const ::fmha::ref::Request::KVView &v = t.name == "k_cache" ? kView : vView;
    t.host = combined.data();
    t.bytes = combined.size();
    t.offset = v.offset;
    t.strides.assign(v.strides.begin(), v.strides.end());
  }
}

} // namespace fmha_tools

#endif // FMHA_TOOLS_COMMON_COMBINEDKV_H
