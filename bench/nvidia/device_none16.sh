#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: 16-bit Q, K and V
# (quant none) on sm_90 and sm_90a. The none16 matrix set (make_matrix.py
# --sets none16 --chip sm_90 | sm_90a) checked against the oracle and the
# emulation, memcheck on one sm_90a case, and the speed of the bf16 kernels
# (make_bench.py --flag=--quant=none --flag=--q-dtype=bf16
# --flag=--kv-dtype=bf16, page 1024) beside the fp8 ones and the peers
# (torch SDPA bf16: here the same precision as ours).
#   bench/nvidia/device_none16.sh KDIR OUTDIR
# KDIR holds n90/, n90a/ (make_matrix.py) and b90a, b90a-bf16 (make_bench.py;
# b90a first: the peers run on its shapes). Everything under `timeout`.
set -u
KDIR=$1
OUT=$2
mkdir -p "$OUT"
source bench/nvidia/device_common.sh
fmha_dev_runner "$OUT/build.log"
for d in n90 n90a; do
  fmha_dev_check_set "$KDIR" "$d" "$OUT"
done
: > "$OUT/memcheck.txt"
fmha_dev_memcheck "$KDIR/n90a" "$OUT/memcheck.txt" "$(cut -f1 "$KDIR/n90a/cases.txt" | head -1)"
cat "$OUT/memcheck.txt"
timeout 240 bench/nvidia/device_speed.sh "$OUT" "$KDIR"/b90a "$KDIR"/b90a-bf16 > /dev/null 2>&1
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
rows = {}
for tag in ["b90a", "b90a-bf16"]:
    for line in open(os.path.join(out, f"ours-{tag}.jsonl")):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        rows.setdefault((r["mask"], r["sk"]), {})[tag] = r.get("tflops")
peers = {(p["peer"], p["mask"], p["sk"]): p["tflops"] for p in json.load(open(os.path.join(out, "peers.json")))}
for (mask, sk), v in sorted(rows.items()):
    print(mask, sk, "fp8", v.get("b90a"), "bf16", v.get("b90a-bf16"),
          "flash", peers.get(("flash", mask, sk)), "cudnn", peers.get(("cudnn", mask, sk)))
PY
