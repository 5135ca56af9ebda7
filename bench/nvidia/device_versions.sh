#!/usr/bin/env bash
# On the H200 (device tool), from the repository root: two or more compiled
# versions side by side in one lease. `check:NAME` checks matrix folder
# KDIR/NAME (make_matrix.py) against the oracle and the emulation;
# `time:NAME` times benchmark folder KDIR/NAME (make_bench.py) into
# OUT/ours-NAME.jsonl; `peers` times torch SDPA on the grid of the first
# timed folder (`peers:NAME:D`: on folder NAME's shapes at head dim D);
# `ncu:NAME/CASE` profiles one kernel (details and per-SASS
# source pages); `sanitize:NAME/CASE` runs compute-sanitizer memcheck,
# racecheck and synccheck on one kernel (OUT/sanitize.txt); `untar:FILE`
# unpacks KDIR/FILE (a .tgz of kernel folders, to carry more than 64 MiB of
# PTX) into KDIR; `probe:NAME/CASE` checks one kernel under a 90 s timeout
# and records its wall time (OUT/probe.txt). Steps run in the order given,
# each under a timeout.
#   bench/nvidia/device_versions.sh KDIR OUT STEP...
set -u
KDIR=$1
OUT=$2
shift 2
mkdir -p "$OUT"
source bench/nvidia/device_common.sh
fmha_dev_runner "$OUT/build.log"
first=""
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/clocks.txt" 2>&1
for step in "$@"; do
  case $step in
  untar:*) tar xzf "$KDIR/${step#untar:}" -C "$KDIR" ;;
  probe:*)
    k=${step#probe:}
    t0=$(date +%s)
    timeout 90 "$runner" "$KDIR/$k.json" > /tmp/probe-one.txt 2>&1
    rc=$?
    { echo "== $k rc=$rc wall=$(($(date +%s) - t0)) s"; tail -2 /tmp/probe-one.txt; } >> "$OUT/probe.txt" ;;
  check:*) fmha_dev_check_set "$KDIR" "${step#check:}" "$OUT" ;;
  time:*)
    b=${step#time:}
    [ -n "$first" ] || first=$b
    fmha_dev_time_folder "$KDIR/$b" "$OUT/ours-$b.jsonl" ;;
  peers)
    timeout 300 python3 bench/nvidia/peers_h200.py "$KDIR/$first/bench.txt" "$OUT/peers.json" > /dev/null 2>&1 ;;
  peers:*)
    # peers:NAME:D: the peers on folder NAME's shapes at head dim D.
    spec=${step#peers:}
    timeout 300 python3 bench/nvidia/peers_h200.py "$KDIR/${spec%%:*}/bench.txt" "$OUT/peers-${spec%%:*}.json" "${spec##*:}" > /dev/null 2>&1 ;;
  sanitize:*)
    k=${step#sanitize:}
    for tool in memcheck racecheck synccheck; do
      echo "== $tool $k" >> "$OUT/sanitize.txt"
      timeout 200 compute-sanitizer --tool $tool "$runner" "$KDIR/$k.json" 2>&1 | tail -3 >> "$OUT/sanitize.txt"
      echo "rc=${PIPESTATUS[0]}" >> "$OUT/sanitize.txt"
    done ;;
  ncu:*)
    k=${step#ncu:}
    n=$(echo "$k" | tr / -)
    timeout 240 ncu --clock-control none --set full "$runner" "$KDIR/$k.json" --no-check --repeat 0 > "$OUT/ncu-$n.txt" 2>&1
    timeout 240 ncu --clock-control none --set full --page source --print-source sass --csv "$runner" "$KDIR/$k.json" --no-check --repeat 0 > "$OUT/ncu-$n-sass.csv" 2>&1 ;;
  esac
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader >> "$OUT/clocks.txt" 2>&1
# The device tool returns a few files a call: everything also as one archive.
tar czf "$OUT.tgz" -C "$OUT" . 2>/dev/null
exit 0
