#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: issue 16's serving
# features on the GPU. The `serving` matrix set (make_matrix.py --sets
# serving: e5m2 caches, a bf16 Q over one, the soft cap read at run time,
# D 192 / Dv 128 and D 256) on sm_90 and sm_90a, and the `q16` set on
# sm_90a (a quantized Q in registers, the RS form), each checked against the
# oracle and the emulation; compute-sanitizer memcheck on sm_90a's RS cases;
# then the speed of sm_90a at page 1024 with an e4m3 Q, a bf16 Q and an
# e5m2 cache, side by side with the peers.
#   bench/nvidia/device_serving.sh KDIR OUTDIR
# KDIR holds sv90/ and sv90a/ (make_matrix.py) and b90a, b90a-q16,
# b90a-e5m2 (make_bench.py --pages 1024, b90a first: the peers run on its
# shapes). Every run that could hang is under `timeout`.
set -u
KDIR=$1
OUT=$2
mkdir -p "$OUT"
source bench/nvidia/device_common.sh
fmha_dev_runner "$OUT/build.log"
for d in sv90 sv90a; do
  fmha_dev_check_set "$KDIR" "$d" "$OUT"
done
: > "$OUT/memcheck.txt"
fmha_dev_memcheck "$KDIR/sv90a" "$OUT/memcheck.txt" \
  d192v128-spread-p64-csr-nhd-kv_blockscale-causal-16x16 \
  q16-bf16-spread-p16-csr-nhd-kv_blockscale-causal-16x16 \
  d256-spread-p1024-csr-nhd-kv_blockscale-causal-16x16
cat "$OUT/memcheck.txt"
timeout 240 bench/nvidia/device_speed.sh "$OUT" "$KDIR"/b90a "$KDIR"/b90a-q16 "$KDIR"/b90a-e5m2 > /dev/null 2>&1
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
rows = {}
for tag in ["b90a", "b90a-q16", "b90a-e5m2"]:
    p = os.path.join(out, f"ours-{tag}.jsonl")
    if not os.path.exists(p):
        continue
    for line in open(p):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        rows.setdefault((r["mask"], r["sk"]), {})[tag] = r.get("tflops")
for (mask, sk), v in sorted(rows.items()):
    print(mask, sk, " ".join(f"{t}={v.get(t)}" for t in ["b90a", "b90a-q16", "b90a-e5m2"]))
PY
