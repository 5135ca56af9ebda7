#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: spread data and the
# descale mutations on the real sm_90 kernels (issue 12 item 4).
#   bench/nvidia/device_mutations.sh KDIR OUTDIR
# KDIR: `bench/nvidia/make_matrix.py --sets spread` output (compiled on the
# development machine, carried). Builds the MLIR-free runner, runs every
# kernel of KDIR as compiled (spread data: each must pass), then on MUT_CASES
# each descale mutation (--mutate-descales) on spread data (each must fail)
# and, with the manifest's "data" set to uniform (the kernel does not depend
# on the data), the control and the five mutations on uniform data (what
# uniform data misses). Writes results.jsonl (one object per run: case, data,
# mutation, exit, the runner's JSON), results.md and build.log to OUTDIR.
# Environment: JOBS (runs at once, default 14), MUT_CASES (names in KDIR),
# RUNNER_ARGS (more fmha-cuda-run flags, e.g. --cuda-library for the mock).
set -u
KDIR=$1
OUT=$2
JOBS=${JOBS:-14}
MUT_CASES=${MUT_CASES:-"spread-p1-csr-kv_blockscale-causal-16x16 spread-p16-csr-kv_blockscale-causal-16x16 spread-p48-csr-kv_blockscale-causal-16x16 spread-p1024-block-kv_blockscale-window-16x16"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
KDIR=$(cd "$KDIR" && pwd)
t0=$(date +%s)
if ! { cmake -G Ninja -S . -B build-dev-gpu -DFMHA_ENABLE_MLIR=OFF -DCMAKE_BUILD_TYPE=Release &&
       ninja -C build-dev-gpu fmha-cuda-run; } > "$OUT/build.log" 2>&1; then
  tail -n 20 "$OUT/build.log" >&2
  exit 2
fi
RUNNER=$(pwd)/build-dev-gpu/bin/fmha-cuda-run
work=/tmp/mutations
mkdir -p "$work"
# One line per run: NAME DATA MUTATION.
jobs=$work/jobs.txt
: > "$jobs"
for j in "$KDIR"/*.json; do
  echo "$(basename "$j" .json) spread none" >> "$jobs"
done
for c in $MUT_CASES; do
  [ -f "$KDIR/$c.json" ] || continue
  sed 's/"data": "spread"/"data": "uniform"/' "$KDIR/$c.json" > "$work/$c.uniform.json"
  for m in swap-kv logical-page wrong-head per-tile global; do
    echo "$c spread $m" >> "$jobs"
    echo "$c uniform $m" >> "$jobs"
  done
  echo "$c uniform none" >> "$jobs"
done
one() {
  name=$1 data=$2 mut=$3
  manifest=$KDIR/$name.json
  [ "$data" = uniform ] && manifest=$work/$name.uniform.json
  res=$(timeout 300 "$RUNNER" "$manifest" --ptx "$KDIR/$name.ptx" --json \
        --mutate-descales="$mut" ${RUNNER_ARGS:-} 2> "$work/$name.$data.$mut.err")
  rc=$?
  [ -n "$res" ] || res=null
  echo "{\"case\": \"$name\", \"data\": \"$data\", \"mutation\": \"$mut\", \"exit\": $rc, \"run\": $res}"
}
export -f one
export KDIR RUNNER RUNNER_ARGS work
xargs -P "$JOBS" -L 1 bash -c 'one "$@"' _ < "$jobs" > "$OUT/results.jsonl"
python3 - "$OUT/results.jsonl" > "$OUT/results.md" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows.sort(key=lambda r: (r["case"], r["data"], r["mutation"] != "none", r["mutation"]))
print("| case | data | mutation | exit | oracle | max_row_rel | max_abs | rel_fro | emulation rel_fro |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    run = r["run"] or {}
    o, e = run.get("oracle") or {}, run.get("emulation") or {}
    f = lambda v: "-" if v is None else f"{v:.3g}"
    print(f"| {r['case']} | {r['data']} | {r['mutation']} | {r['exit']} | "
          f"{'PASS' if o.get('pass') else 'FAIL'} | {f(o.get('max_row_rel_err'))} | "
          f"{f(o.get('max_abs_err'))} | {f(o.get('rel_fro_err'))} | {f(e.get('rel_fro_err'))} |")
EOF
echo "runs: $(wc -l < "$jobs"), wall $(($(date +%s) - t0)) s" >> "$OUT/results.md"
exit 0
