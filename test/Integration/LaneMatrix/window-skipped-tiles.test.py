"""KV tiles visited with window(24, 4) and with no mask (window-skipped-tiles.test)."""
import json
import math
import sys

manifest, window, none = (json.load(open(p)) for p in sys.argv[1:4])
cfg, req = manifest["config"], manifest["request"]
bm, bn = cfg["block_m"], cfg["block_n"]


def tiles(left, right):
    count = 0
    for sq, sk in zip(req["qo_lens"], req["kv_lens"]):
        for r0 in range(0, sq, bm):
            rows = range(r0, min(sq, r0 + bm))
            # SPEC section 3: row i sees keys [i + sk - sq - left, i + sk - sq + right], within [0, sk).
            lo = max(0, min(i + sk - sq - left for i in rows)) if left >= 0 else 0
            hi = min(sk, max(i + sk - sq + right for i in rows) + 1) if right >= 0 else sk
            if hi > lo:
                count += math.ceil(hi / bn) - lo // bn
    return count * req["num_qo_heads"]


tw, tn = tiles(24, 4), tiles(-1, -1)
print(f"window tiles {tw} of {tn}")
assert window["pass"] and none["pass"]
for key in ("mma", "barriers"):
    w, n = window["lanes"][key], none["lanes"][key]
    # Skipping: counts scale with the tiles visited, exactly.
    ok = w * tn == n * tw
    print(f"{key} {w} of {n}: {'skipped' if ok else 'NOT in the ratio of the tiles'}")
