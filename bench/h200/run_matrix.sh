#!/usr/bin/env bash
# Runs every compiled kernel of a folder on an NVIDIA GPU and tabulates the
# verdicts and timings. Meant for the H200 machine (a C++ compiler, CMake and
# Ninja, no LLVM, no MLIR), from the repository root:
#
#   bench/h200/run_matrix.sh KDIR OUTDIR [RUNNER_ARGS...]
#
#   KDIR     a folder of NAME.json + NAME.ptx pairs written by fmha-compile
#            (--chip sm_90) elsewhere; bench/h200/selftest/kernels holds a
#            set of naive kernels that checks the runner itself
#   OUTDIR   created if missing; gets results.md (a markdown table),
#            results.jsonl (one JSON object per case), cases/NAME.{out,err}
#            (the runner's stdout and stderr), build.log and env.txt
#   RUNNER_ARGS are passed to every fmha-cuda-run call (e.g. --device 1)
#
# It configures and builds the MLIR-free runner first:
#   cmake -G Ninja -S . -B build-dev-gpu -DFMHA_ENABLE_MLIR=OFF \
#         -DCMAKE_BUILD_TYPE=Release && ninja -C build-dev-gpu fmha-cuda-run
# then runs `fmha-cuda-run NAME.json --json --repeat $REPEAT` on each manifest
# with a per-case time limit.
#
# Environment: REPEAT (timed launches per case, default 20; 0 = check only),
# JOBS (cases run at once, default 1: the oracle and the emulation run on the
# CPU, so a matrix of long sequences wants one case per core; timings are
# only meaningful with JOBS=1),
# CASE_TIMEOUT (seconds, default 60), BUDGET (seconds for all the cases,
# default none: cases still to start once it is spent are tabulated as NOT
# RUN, running ones are cut at it, and the table is written either way),
# BUILD_DIR (default build-dev-gpu),
# SKIP_BUILD=1 (use an existing BUILD_DIR/bin/fmha-cuda-run).
#
# Exit status: 0 once every case has run, whatever the verdicts (the table
# says which failed); 2 for bad arguments or a failed build.
set -u

usage() {
  echo "usage: $0 KDIR OUTDIR [RUNNER_ARGS...]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
KDIR=$1
OUT=$2
shift 2
[ -d "$KDIR" ] || { echo "run_matrix: no folder $KDIR" >&2; exit 2; }

REPEAT=${REPEAT:-20}
JOBS=${JOBS:-1}
CASE_TIMEOUT=${CASE_TIMEOUT:-60}
BUILD_DIR=${BUILD_DIR:-build-dev-gpu}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

mkdir -p "$OUT/cases" || exit 2
# No case's files from an earlier run into the same folder.
rm -f "$OUT/cases/"*
OUT=$(cd "$OUT" && pwd)
KDIR=$(cd "$KDIR" && pwd)

# --- Build ------------------------------------------------------------------
cd "$ROOT" || exit 2
RUNNER=$BUILD_DIR/bin/fmha-cuda-run
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "run_matrix: building fmha-cuda-run in $BUILD_DIR (log: $OUT/build.log)"
  if ! { cmake -G Ninja -S . -B "$BUILD_DIR" -DFMHA_ENABLE_MLIR=OFF \
           -DCMAKE_BUILD_TYPE=Release &&
         ninja -C "$BUILD_DIR" fmha-cuda-run; } > "$OUT/build.log" 2>&1; then
    echo "run_matrix: the build failed; last lines of $OUT/build.log:" >&2
    tail -n 20 "$OUT/build.log" >&2
    exit 2
  fi
fi
[ -x "$RUNNER" ] || { echo "run_matrix: no runner at $RUNNER" >&2; exit 2; }
RUNNER=$(cd "$(dirname "$RUNNER")" && pwd)/fmha-cuda-run

# --- Environment --------------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n) $(uname -r)"
  echo "kernels: $KDIR"
  echo "runner: $RUNNER ${*:-}"
  echo "repeat: $REPEAT, per-case timeout: ${CASE_TIMEOUT}s"
  (cd "$ROOT" && git rev-parse HEAD 2>/dev/null | sed 's/^/commit: /')
  if command -v nvidia-smi > /dev/null 2>&1; then
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm \
      --format=csv 2>&1
  else
    echo "nvidia-smi: not found"
  fi
} > "$OUT/env.txt"

# --- Helpers ------------------------------------------------------------------
# One line as a JSON string body: backslashes, quotes, tabs escaped, other
# control characters dropped.
json_escape() {
  printf '%s' "$1" | tr -d '\000-\010\013-\037' |
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' | tr -d '\n'
}
# A top-level number or string field of the runner's JSON line ("" if absent).
field() { # JSON KEY
  printf '%s' "$1" | sed -n "s/.*\"$2\": \(\"[^\"]*\"\|[^,}]*\).*/\1/p" |
    head -n 1 | sed 's/^"\(.*\)"$/\1/'
}
# A field of the runner's compact "oracle" or "emulation" object.
subfield() { # JSON OBJECT KEY
  printf '%s' "$1" | sed -n "s/.*\"$2\": {[^}]*\"$3\":\([^,}]*\).*/\1/p" |
    head -n 1
}
# A number with 4 significant digits, "-" when absent.
fmt() { [ -n "$1" ] && [ "$1" != null ] && printf '%.4g' "$1" 2>/dev/null || printf -- '-'; }
# Markdown-safe cell.
cell() { printf '%s' "$1" | sed -e 's/|/\\|/g'; }

# --- Cases --------------------------------------------------------------------
MD=$OUT/results.md
JSONL=$OUT/results.jsonl
: > "$JSONL"
{
  echo "# fmha-cuda-run matrix"
  echo
  echo "Kernels: \`$KDIR\`; \`fmha-cuda-run NAME.json --json --repeat $REPEAT${*:+ $*}\`, ${CASE_TIMEOUT} s per case. See env.txt for the machine."
  echo
  echo "| case | status | request | oracle max_abs | oracle rel_fro | emulation rel_fro | median ms | TFLOPS | regs | local B | note |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$MD"

total=0 npass=0 nfail=0 nerror=0 nnotrun=0
shopt -s nullglob
manifests=("$KDIR"/*.json)
if [ ${#manifests[@]} -eq 0 ]; then
  echo "run_matrix: no *.json in $KDIR" >&2
fi
# Phase 1: run the cases, JOBS at a time; each leaves NAME.{out,err,rc}.
BUDGET=${BUDGET:-0}
deadline=$(( $(date +%s) + BUDGET ))
for manifest in "${manifests[@]}"; do
  name=$(basename "$manifest" .json)
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
  limit=$CASE_TIMEOUT
  if [ "$BUDGET" -gt 0 ]; then
    left=$(( deadline - $(date +%s) ))
    if [ "$left" -lt 5 ]; then
      echo 98 > "$OUT/cases/$name.rc"
      continue
    fi
    [ "$left" -lt "$limit" ] && limit=$left
  fi
  echo "$limit" > "$OUT/cases/$name.limit"
  (
    timeout -k 10 "$limit" "$RUNNER" "$manifest" --json \
      --repeat "$REPEAT" "$@" > "$OUT/cases/$name.out" 2> "$OUT/cases/$name.err" < /dev/null
    echo $? > "$OUT/cases/$name.rc"
  ) &
done
wait

# Phase 2: tabulate.
for manifest in "${manifests[@]}"; do
  name=$(basename "$manifest" .json)
  total=$((total + 1))
  out=$OUT/cases/$name.out
  err=$OUT/cases/$name.err
  rc=$(cat "$OUT/cases/$name.rc" 2>/dev/null || echo 99)
  limit=$(cat "$OUT/cases/$name.limit" 2>/dev/null || echo "$CASE_TIMEOUT")
  # Killed at a limit the budget cut short: not finished, not a timeout.
  if { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && [ "$limit" -lt "$CASE_TIMEOUT" ]; then
    rc=97
  fi
  line=""
  [ "$rc" = 98 ] || line=$(grep -m 1 '^{' "$out" 2>/dev/null || true)
  case $rc in
    0) status=PASS ;;
    1) status=FAIL ;;
    2) status="ERROR (input)" ;;
    3) status="ERROR (CUDA)" ;;
    124 | 137) status="TIMEOUT (${CASE_TIMEOUT}s)" ;;
    97) status="CUT (budget)" ;;
    98) status="NOT RUN" ;;
    *) status="CRASH (rc=$rc)" ;;
  esac
  case $rc in
    0) npass=$((npass + 1)) ;;
    1) nfail=$((nfail + 1)) ;;
    97 | 98) nnotrun=$((nnotrun + 1)) ;;
    *) nerror=$((nerror + 1)) ;;
  esac
  note=""
  if [ "$rc" = 97 ]; then
    note="stopped after ${limit} s, when the ${BUDGET} s budget ran out"
  elif [ "$rc" = 98 ]; then
    note="not started: the ${BUDGET} s budget was spent"
  elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    note="killed after ${CASE_TIMEOUT} s (oracle and emulation run on the CPU; see cases/$name.err)"
  elif [ "$rc" -ge 2 ]; then
    note=$(grep -v '^fmha-cuda-run: JIT error log:' "$err" | head -n 1 |
           sed 's/^fmha-cuda-run: //')
    [ -n "$note" ] || note="no message (see cases/$name.err)"
  elif [ -n "$line" ]; then
    [ "$(field "$line" repeat_identical)" = false ] &&
      note="repeated launches wrote different output"
    if [ "$rc" = 1 ]; then
      reason=$(printf '%s' "$line" |
               sed -n 's/.*"oracle": {[^}]*"reason":"\([^"]*\)".*/\1/p')
      [ -n "$reason" ] || reason=$(printf '%s' "$line" |
               sed -n 's/.*"emulation": {[^}]*"reason":"\([^"]*\)".*/\1/p' |
               sed 's/^/emulation: /')
      note=${note:+$note; }$reason
    fi
  fi
  request=$(field "$line" request)
  [ -n "$request" ] || request="-"
  omax=$(subfield "$line" oracle max_abs_err)
  ofro=$(subfield "$line" oracle rel_fro_err)
  efro=$(subfield "$line" emulation rel_fro_err)
  med=$(field "$line" median_ms)
  tfl=$(field "$line" tflops)
  regs=$(field "$line" num_regs)
  local_b=$(field "$line" local_bytes)
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$(cell "$name")" "$status" "$(cell "$request")" "$(fmt "$omax")" \
    "$(fmt "$ofro")" "$(fmt "$efro")" "$(fmt "$med")" "$(fmt "$tfl")" \
    "${regs:--}" "${local_b:--}" "$(cell "$note")" >> "$MD"
  # results.jsonl: the case, its status and the runner's own object (null
  # when it printed none: a timeout or a crash).
  printf '{"case": "%s", "status": "%s", "rc": %d, "note": "%s", "result": %s}\n' \
    "$(json_escape "$name")" "$(json_escape "$status")" "$rc" \
    "$(json_escape "$note")" "${line:-null}" >> "$JSONL"
  echo "run_matrix: $name: $status${note:+ ($note)}"
done

notrun=""
[ "$nnotrun" -gt 0 ] && notrun=", $nnotrun not run or cut (budget spent)"
{
  echo
  echo "$total cases: $npass pass, $nfail fail (SPEC section 6 not met), $nerror error/timeout/crash$notrun."
} >> "$MD"
echo "run_matrix: $total cases: $npass pass, $nfail fail, $nerror error/timeout/crash, $nnotrun not run or cut; table: $MD"
exit 0
