#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: the issue-12 evidence
# in one call. KROOT holds, compiled on the development machine and carried:
#   KROOT/emu/     bench/nvidia/emu_vs_h200.py compile (the emulator check)
#   KROOT/prefix/  the same kind of kernels from the compiler before the
#                  page-group fix (the fault, run on both)
#   KROOT/matrix/  bench/nvidia/make_matrix.py (the numerics matrix)
# Writes to OUTDIR (at most 8 files, as the device tool returns): the raw
# outputs of emu/ and prefix/ as emu_dumps.tar (NAME.out, NAME.out.lse,
# NAME.json: the runner's verdict), then device_matrix.sh's six files
# (results.md, results.jsonl, env.txt, clocks.txt, memcheck.txt, build.log).
#   bench/nvidia/device_issue12.sh KROOT OUTDIR
set -u
KROOT=$(cd "$1" && pwd)
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
t0=$(date +%s)
if ! { cmake -G Ninja -S . -B build-dev-gpu -DFMHA_ENABLE_MLIR=OFF -DCMAKE_BUILD_TYPE=Release &&
       ninja -C build-dev-gpu fmha-cuda-run; } > "$OUT/build.log" 2>&1; then
  tail -n 20 "$OUT/build.log" >&2
  exit 2
fi
runner=build-dev-gpu/bin/fmha-cuda-run
dumps=/tmp/emu_dumps
rm -rf "$dumps"; mkdir -p "$dumps"
for m in "$KROOT"/emu/*.json "$KROOT"/prefix/*.json; do
  [ -f "$m" ] || continue
  n=$(basename "$m" .json)
  d=$(basename "$(dirname "$m")")
  timeout 300 "$runner" "$m" --json --dump-out "$dumps/$d-$n.out" > "$dumps/$d-$n.json" 2> "$dumps/$d-$n.err"
  echo "rc=$?" >> "$dumps/$d-$n.err"
done
tar -C "$dumps" -cf "$OUT/emu_dumps.tar" .
echo "emulator check: $(($(date +%s) - t0)) s" > "$OUT/clocks.pre.txt"
SKIP_BUILD=1 bench/nvidia/device_matrix.sh "$KROOT/matrix" "$OUT"
cat "$OUT/clocks.pre.txt" >> "$OUT/clocks.txt"; rm -f "$OUT/clocks.pre.txt"
exit 0
