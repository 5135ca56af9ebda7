"""Prints a manifest's kernarg size and alignment, then its tensor-map
arguments one a line (tma_sm_90a.test)."""
import json
import sys

m = json.load(open(sys.argv[1]))
print(f"kernarg_size {m['kernarg_size']} kernarg_align {m['kernarg_align']}")
for a in m["args"]:
    if a["kind"] != "tensormap":
        continue
    t = a["tensormap"]
    print(f"{a['name']} tensormap offset {a['offset']} size {a['size']} align {a['align']} "
          f"dims {t['dims']} box {t['box']} element_bytes {t['element_bytes']} swizzle {t['swizzle']}")
