"""Appends k_cache_tmap and v_cache_tmap (docs/ABI.md, tensor maps) to a
manifest fmha-compile wrote, as a --tma kernel's manifest has them: after all
other args, each at the next multiple of 64, box [D, 16, 1, 1] (head_dim for
K, head_dim_v for V), swizzle the D-byte row (fp8). Prints the manifest."""
import json
import sys

m = json.load(open(sys.argv[1]))
r = m["request"]
dims = [3, 1, 2, 0] if r["kv_layout"] == "nhd" else [3, 2, 1, 0]
offset = (m["kernarg_size"] + 63) // 64 * 64
for name, d in (("k_cache_tmap", r["head_dim"]),
                ("v_cache_tmap", r.get("head_dim_v") or r["head_dim"])):
    m["args"].append({"name": name, "kind": "tensormap", "offset": offset,
                      "size": 128, "align": 64,
                      "tensormap": {"dims": dims, "box": [d, 16, 1, 1],
                                    "element_bytes": 1, "swizzle": d}})
    offset += 128
m["kernarg_size"] = offset
m["kernarg_align"] = 64
json.dump(m, sys.stdout, indent=1)
