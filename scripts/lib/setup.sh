# Shared steps of scripts/test.sh and scripts/demo.sh (sourced, not run).
# Debian packages the project builds with; installed only when missing.
FMHA_PACKAGES=(cmake ninja-build python3 llvm-22 llvm-22-dev llvm-22-tools
               mlir-22-tools libmlir-22-dev clang-22 lld-22 liblld-22-dev
               libgtest-dev libclang-rt-22-dev python3-numpy)
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

# The sanitized build scripts/fuzz.sh and scripts/sanitize.sh share: ASan +
# UBSan and libFuzzer's coverage on the project's code, in folder $1.
fmha_configure_sanitized() {
  local bdir=$1
  mkdir -p "$bdir"
  [ -f "$bdir/build.ninja" ] && return 0
  cmake -G Ninja -S "$root" -B "$bdir" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld -DFMHA_SANITIZE="address;undefined" \
    -DFMHA_ENABLE_FUZZERS=ON > "$bdir/configure.log"
}

fmha_build() {
  echo "== build"
  ninja -C "$FMHA_BUILD_DIR" -j"$FMHA_JOBS"
}

# The embedding consumer (issue 8): cmake --install into $FMHA_BUILD_DIR/install,
# then examples/embed configured and built out of tree against that package,
# run, and its kernels compared byte for byte with fmha-compile's.
fmha_embed_example() {
  local prefix="$FMHA_BUILD_DIR/install" ebuild="$FMHA_BUILD_DIR/embed"
  local out="$ebuild/out"
  echo "== install: $prefix"
  rm -rf "$prefix"
  cmake --install "$FMHA_BUILD_DIR" --prefix "$prefix" > "$FMHA_BUILD_DIR/install.log"
  echo "== examples/embed against the installed package"
  rm -rf "$ebuild"
  # A CXX-only consumer with CMAKE_C_COMPILER set, as toolchain files do:
  # the package config must not pull in MLIR's and LLVM's (their FindFFI C
  # check fails there).
  cmake -G Ninja -S "$root/examples/embed" -B "$ebuild" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_PREFIX_PATH="$prefix" > "$ebuild.log"
  grep "FmhaMLIR" "$ebuild.log" || true
  echo "libFmhaMLIR.so: $(stat -c %s "$prefix/lib/libFmhaMLIR.so") bytes"
  ninja -C "$ebuild"
  mkdir -p "$out"
  "$ebuild/fmha-embed" "$out"
  # The API's request is the default one with lse (Request's default);
  # fmha-compile's --lse flag asks for the same.
  local fc="$FMHA_BUILD_DIR/bin/fmha-compile"
  "$fc" --chip gfx942 --qo-len 128,96 --kv-len 1280,1100 --lse -o "$out/fc_gfx942"
  "$fc" --chip sm_90 --qo-len 128,96 --kv-len 1280,1100 --lse -o "$out/fc_sm_90"
  cmp "$out/fc_gfx942.hsaco" "$out/embed_gfx942.hsaco"
  cmp "$out/fc_sm_90.ptx" "$out/embed_sm_90.ptx"
  echo "ok   the API and fmha-compile give byte-identical gfx942 HSACO and sm_90 PTX"
}
