# Shared steps of scripts/test.sh and scripts/demo.sh (sourced, not run).
# Debian packages the project builds with; installed only when missing.
FMHA_PACKAGES=(cmake ninja-build python3 llvm-22 llvm-22-dev llvm-22-tools
               mlir-22-tools libmlir-22-dev clang-22 lld-22 liblld-22-dev
               libgtest-dev)
FMHA_BUILD_DIR=${BUILD_DIR:-$root/build}
FMHA_JOBS=${JOBS:-2}

fmha_install_packages() {
  local missing=() p
  for p in "${FMHA_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "== installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${missing[@]}"
}

fmha_configure() {
  if [ -f "$FMHA_BUILD_DIR/build.ninja" ]; then
    return 0
  fi
  echo "== configure: $FMHA_BUILD_DIR"
  cmake -G Ninja -S "$root" -B "$FMHA_BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld
}

fmha_build() {
  echo "== build"
  ninja -C "$FMHA_BUILD_DIR" -j"$FMHA_JOBS"
}
