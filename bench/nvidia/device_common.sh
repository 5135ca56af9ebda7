# Shared steps of the bench/nvidia/device_*.sh scripts (sourced, not run),
# on the H200 from the repository root.

# The MLIR-free runner in build-dev-gpu (built when missing), its path in
# $runner; the build's output in $1 (default /dev/null). Exits 2 on failure.
fmha_dev_runner() {
  local log=${1:-/dev/null}
  runner=build-dev-gpu/bin/fmha-cuda-run
  [ -x "$runner" ] && return 0
  cmake -G Ninja -S . -B build-dev-gpu -DFMHA_ENABLE_MLIR=OFF -DCMAKE_BUILD_TYPE=Release > "$log" 2>&1 &&
    ninja -C build-dev-gpu fmha-cuda-run >> "$log" 2>&1 || { echo "runner build failed"; exit 2; }
}

# Times every kernel of benchmark folder $1 (make_bench.py: bench.txt lines
# NAME<TAB>page<TAB>mask<TAB>sk[<TAB>B<TAB>Sq]) with `fmha-cuda-run --no-check
# --repeat 30` (3 warm-ups, CUDA events, L2 flushed), one JSON line per
# kernel with its case, page, mask, sk, B and Sq in front, into $2.
fmha_dev_time_folder() {
  local bdir=$1 o=$2 name page mask sk nb sq
  : > "$o"
  while IFS=$'\t' read -r name page mask sk nb sq; do
    timeout 120 "$runner" "$bdir/$name.json" --no-check --repeat 30 --json 2>/dev/null |
      grep -m1 '^{' | sed "s/^{/{\"case\": \"$name\", \"page\": $page, \"mask\": \"$mask\", \"sk\": $sk, \"b\": ${nb:-4}, \"sq\": ${sq:-512}, /" >> "$o"
  done < "$bdir/bench.txt"
}

# Checks matrix folder $1/$2 (make_matrix.py) against the oracle and the
# emulation (run_matrix.sh, REPEAT=0, under a timeout): $3/results-$2.md,
# then its summary line and the rows that did not pass on stdout.
# CHECK_CASE_TIMEOUT (default 200 s) limits a case, CHECK_TIMEOUT (default
# 280 s) the cases of the set together (run_matrix.sh's BUDGET: cases not
# started by then are tabulated as NOT RUN), with 60 s more for the table.
fmha_dev_check_set() {
  local kdir=$1 d=$2 out=$3 t=${CHECK_TIMEOUT:-280}
  JOBS=${JOBS:-12} REPEAT=0 CASE_TIMEOUT=${CHECK_CASE_TIMEOUT:-200} SKIP_BUILD=1 BUDGET=$t \
    timeout $((t + 60)) bench/h200/run_matrix.sh "$kdir/$d" "/tmp/check-$d" > /dev/null 2>&1
  cp "/tmp/check-$d/results.md" "$out/results-$d.md" 2>/dev/null
  echo "$d: $(tail -1 "$out/results-$d.md")"
  grep -E '^\| [^ ]+ \| (FAIL|ERROR|TIMEOUT|CRASH)' "$out/results-$d.md" | cut -d'|' -f2,3,12 | cut -c1-220
}

# compute-sanitizer memcheck on kernels $3... of folder $1, under a
# timeout each, appended to file $2 (the last lines and the exit status).
fmha_dev_memcheck() {
  local dir=$1 log=$2 c
  shift 2
  for c in "$@"; do
    echo "== $dir/$c" >> "$log"
    timeout 120 compute-sanitizer --tool memcheck --leak-check no "$runner" "$dir/$c.json" \
      2>&1 | tail -3 >> "$log"
    echo "rc=${PIPESTATUS[0]}" >> "$log"
  done
}
