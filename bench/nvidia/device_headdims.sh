#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: our kernels at head
# dims 64 and 256 beside the peers at the same D (issue 14's goal: at least
# 1.5x SDPA flash at D 64 and D 256).
#   bench/nvidia/device_headdims.sh KDIR OUTDIR
# KDIR holds b90a-d64, b90a-d256 and b90-d256 (make_bench.py --pages 1024
# --flag=--head-dim=D). Writes OUTDIR/ours-*.jsonl, peers-d64.json,
# peers-d256.json, clocks.txt.
set -u
KDIR=$1
OUT=$2
mkdir -p "$OUT"
source bench/nvidia/device_common.sh
fmha_dev_runner
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/clocks.txt" 2>&1
for BDIR in "$KDIR"/b90a-d64 "$KDIR"/b90a-d256 "$KDIR"/b90-d256; do
  fmha_dev_time_folder "$BDIR" "$OUT/ours-$(basename "$BDIR").jsonl"
done
for d in 64 256; do
  timeout 200 python3 bench/nvidia/peers_h200.py "$KDIR/b90a-d$d/bench.txt" "$OUT/peers-d$d.json" $d > /dev/null 2>&1
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> "$OUT/clocks.txt" 2>&1
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
def ours(tag):
    r = {}
    for line in open(os.path.join(out, f"ours-{tag}.jsonl")):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        r[(j["mask"], j["sk"])] = j.get("tflops")
    return r
for d, tags in ((64, ["b90a-d64"]), (256, ["b90a-d256", "b90-d256"])):
    peers = {(p["peer"], p["mask"], p["sk"]): p.get("tflops") for p in json.load(open(os.path.join(out, f"peers-d{d}.json")))}
    rs = {t: ours(t) for t in tags}
    for key in sorted(rs[tags[0]]):
        print("D", d, key, " ".join(f"{t}={rs[t].get(key)}" for t in tags),
              "flash", peers.get(("flash",) + key), "cudnn", peers.get(("cudnn",) + key))
PY
