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
# NAME<TAB>page<TAB>mask<TAB>sk) with `fmha-cuda-run --no-check --repeat 30`
# (3 warm-ups, CUDA events, L2 flushed), one JSON line per kernel with its
# case, page, mask and sk in front, into $2.
fmha_dev_time_folder() {
  local bdir=$1 o=$2 name page mask sk
  : > "$o"
  while IFS=$'\t' read -r name page mask sk; do
    timeout 120 "$runner" "$bdir/$name.json" --no-check --repeat 30 --json 2>/dev/null |
      grep -m1 '^{' | sed "s/^{/{\"case\": \"$name\", \"page\": $page, \"mask\": \"$mask\", \"sk\": $sk, /" >> "$o"
  done < "$bdir/bench.txt"
}
