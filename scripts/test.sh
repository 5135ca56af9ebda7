#!/usr/bin/env bash
# The whole test suite: installs what is missing (apt-get update, then
# apt-get install -y of the Debian packages in scripts/lib/setup.sh, skipped
# when all are present), configures, builds, and runs the lit suite
# (check-fmha), the unit tests, and the embedding example built out of tree
# against the installed package. Exits non-zero on any failure.
#   scripts/test.sh            (BUILD_DIR=build by default, JOBS=2)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/lib/setup.sh"

fmha_install_packages
fmha_configure
fmha_build

echo "== lit: check-fmha"
ninja -C "$FMHA_BUILD_DIR" check-fmha

echo "== unit tests (ctest)"
(cd "$FMHA_BUILD_DIR" && ctest --output-on-failure -j"$FMHA_JOBS")

fmha_embed_example
