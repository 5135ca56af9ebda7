#!/usr/bin/env bash
# The tools built and the whole test suite run with AddressSanitizer and
# UndefinedBehaviorSanitizer (issue 18):
#   scripts/sanitize.sh          (SAN_BUILD_DIR=build-fuzz, shared with
#                                 scripts/fuzz.sh; JOBS=2)
# Configures the sanitized build (-DFMHA_SANITIZE="address;undefined", UB
# fatal; LLVM and MLIR stay Debian's, uninstrumented), builds everything, and
# runs lit (check-fmha) and the unit tests. Processes that load our shared
# libraries into an uninstrumented program (python's ctypes, Debian's
# mlir-opt with the plugin) get the ASan runtime preloaded by lit. Leak
# checking is off (MLIR's registries live to exit), and so is manual
# poisoning (LLVM's allocators, inlined into our instrumented code, poison
# slabs that the uninstrumented libMLIR then uses: false reports). Exits non-zero on a
# failing test or any sanitizer report.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/lib/setup.sh"
bdir=${SAN_BUILD_DIR:-$root/build-fuzz}
fmha_install_packages
fmha_configure_sanitized "$bdir"
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
echo "== build (sanitized): $bdir"
ninja -C "$bdir" -j"$FMHA_JOBS"
echo "== lit (sanitized)"
LIT_OPTS="${LIT_OPTS:---no-progress-bar --time-tests}" ninja -C "$bdir" check-fmha
echo "== unit tests (sanitized)"
(cd "$bdir" && ctest --output-on-failure -j"$FMHA_JOBS")
echo "== sanitized: all passed in ${SECONDS}s"
