#!/usr/bin/env bash
# The whole test suite: installs what is missing (apt-get update, then
# apt-get install -y of the Debian packages in scripts/lib/setup.sh, skipped
# when all are present), configures, builds, and runs the lit suite
# (check-fmha), the unit tests, and the embedding example built out of tree
# against the installed package, then the fuzzers for a bounded time
# (scripts/fuzz.sh, a second build with ASan and UBSan). Exits non-zero on
# any failure.
#   scripts/test.sh            (BUILD_DIR=build by default, JOBS=2)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/lib/setup.sh"

# Each group says when it starts and how long it took; lit prints every
# test as it finishes ("PASS: FMHA :: name (k of N)") and the slowest ones
# at the end (--time-tests).
phase() { echo "== $1 (at ${SECONDS}s)"; }

phase "packages"
fmha_install_packages
phase "configure"
fmha_configure
phase "build"
fmha_build

phase "lit: check-fmha (every test as it finishes, the slowest at the end)"
LIT_OPTS="${LIT_OPTS:---no-progress-bar --print-result-after=all --time-tests}" \
  ninja -C "$FMHA_BUILD_DIR" check-fmha

phase "unit tests (ctest)"
(cd "$FMHA_BUILD_DIR" && ctest --output-on-failure -j"$FMHA_JOBS")

phase "embedding example"
fmha_embed_example

# The fuzzers (fuzz/README.md) for a bounded time in their own build with
# ASan and UBSan; FUZZ_SECONDS=0 skips them.
if [ "${FUZZ_SECONDS:-20}" != 0 ]; then
  phase "fuzzers (${FUZZ_SECONDS:-20}s each, ASan + UBSan build)"
  # A fixed seed: the bounded run repeats the mutations a developer ran.
  FUZZ_BUILD_DIR="${FUZZ_BUILD_DIR:-$FMHA_BUILD_DIR-fuzz}" \
    FUZZ_SEED="${FUZZ_SEED:-1}" bash "$root/scripts/fuzz.sh" "${FUZZ_SECONDS:-20}"
fi
echo "== all passed in ${SECONDS}s"
