#!/usr/bin/env bash
# The libFuzzer fuzzers of fuzz/ (fuzz/README.md), in a build with
# AddressSanitizer and UndefinedBehaviorSanitizer:
#   scripts/fuzz.sh [SECONDS]    each fuzzer runs SECONDS (default 20)
#   FUZZ_BUILD_DIR=build-fuzz    the build (configured and built here)
#   FUZZ_JOBS=1                  parallel fuzzing processes per fuzzer
#   FUZZ_SEED=N                  libFuzzer's -seed (a fixed one repeats a
#                                run's mutations: scripts/test.sh uses 1)
# Steps: configure and build fmha-fuzzers (plus fmha-compile and
# fmha-elf-manifest, for seeds); make the seed corpora (the committed seeds
# in fuzz/corpus, the lit tests' manifests and dialect IR, code objects and
# manifests compiled here); replay every input in fuzz/regressions (the
# crashes found so far); run each fuzzer. A crash, a sanitizer report, an
# input slower than 30 s or more than 4 GB exits 1, the reproducer in
# $FUZZ_BUILD_DIR/findings/FUZZER/. New inputs collect in
# $FUZZ_BUILD_DIR/corpus/FUZZER, so a later run goes on from there.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/lib/setup.sh"
seconds=${1:-20}
bdir=${FUZZ_BUILD_DIR:-$root/build-fuzz}
jobs=${FUZZ_JOBS:-1}
fuzzers=(ManifestReaderFuzzer ElfManifestFuzzer RequestFlagsFuzzer
         CAPIRequestFuzzer FmhaIRFuzzer)

fmha_install_packages
fmha_configure_sanitized "$bdir"
ninja -C "$bdir" -j"$FMHA_JOBS" fmha-fuzzers fmha-compile fmha-elf-manifest

# Leak checking is off: MLIR's registries live to exit, and an API call that
# a fatal error abandoned leaks by design (fmha/Support/FatalErrors.h).
# Manual poisoning is off: LLVM's BumpPtrAllocator poisons its slabs when
# inlined into our instrumented code and Debian's uninstrumented libMLIR
# allocates from the same slabs without unpoisoning (a false
# use-after-poison in MLIR's attribute storage, the first "finding").
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0:abort_on_error=0:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

corpus=$bdir/corpus
seeds=$bdir/seeds
rm -rf "$seeds"
mkdir -p "$seeds" "$bdir/findings"
for f in "${fuzzers[@]}"; do
  mkdir -p "$corpus/$f" "$seeds/$f" "$bdir/findings/$f"
  [ -d "$root/fuzz/corpus/$f" ] && cp "$root/fuzz/corpus/$f"/* "$seeds/$f/"
done
# Manifests: the launchers' test inputs and one per chip from fmha-compile;
# code objects: the smallest kernel and the default kernel.
cp "$root"/test/Tools/fmha-cuda-run/Inputs/*.json "$seeds/ManifestReaderFuzzer/" 2>/dev/null || true
cp "$root"/test/Tools/fmha-hip-run/Inputs/*.json "$seeds/ManifestReaderFuzzer/" 2>/dev/null || true
for chip in gfx942 sm_90a; do
  "$bdir/bin/fmha-compile" --chip "$chip" -o "$seeds/k_$chip" --page-size 16
  mv "$seeds/k_$chip.json" "$seeds/ManifestReaderFuzzer/"
done
mv "$seeds/k_gfx942.hsaco" "$seeds/ElfManifestFuzzer/"
rm -f "$seeds"/k_*
"$bdir/bin/fmha-elf-manifest" --from-mlir "$root/test/Target/AMDGPU/Inputs/store_kernel.mlir" \
  --chip gfx942 -o "$seeds/ElfManifestFuzzer/store_one.hsaco" > /dev/null
python3 "$root/fuzz/make_ir_seeds.py" "$seeds/FmhaIRFuzzer" "$root/test/Dialect/Fmha"

# Every crash found so far stays fixed.
for f in "${fuzzers[@]}"; do
  if compgen -G "$root/fuzz/regressions/$f/*" > /dev/null; then
    echo "== $f: replaying fuzz/regressions/$f"
    "$bdir/fuzz/$f" -runs=1 "$root/fuzz/regressions/$f"/* 2>&1 | tail -2
  fi
done

dict() { [ "$1" = FmhaIRFuzzer ] && echo "-dict=$root/fuzz/fmha_ir.dict"; true; }
status=0
for f in "${fuzzers[@]}"; do
  echo "== $f: ${seconds}s"
  # From the findings folder: with -jobs, libFuzzer writes fuzz-N.log there.
  par=""
  [ "$jobs" -gt 1 ] && par="-jobs=$jobs -workers=$jobs"
  [ -n "${FUZZ_SEED:-}" ] && par="$par -seed=$FUZZ_SEED"
  if ! (cd "$bdir/findings/$f" && "$bdir/fuzz/$f" "$corpus/$f" "$seeds/$f" \
      $(dict "$f") $par -max_total_time="$seconds" -timeout=30 \
      -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$bdir/findings/$f/") > "$bdir/findings/$f.log" 2>&1; then
    status=1
    echo "FAIL $f: $(grep -m1 -E 'ERROR|SUMMARY|deadly|crash' "$bdir/findings/$f.log" || true)"
    ls "$bdir/findings/$f"
  fi
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$bdir/findings/$f.log" \
    | sed 's/^/   /' || true
done
[ $status -eq 0 ] && echo "== fuzzers: no crash in ${seconds}s each"
exit $status
