# lit configuration for the fmha-mlir tests.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FMHA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fmha_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%fmha_src_root", config.fmha_src_root))
config.substitutions.append(("%fmha_obj_root", config.fmha_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS"])
llvm_config.use_default_substitutions()

# A sanitized build (scripts/sanitize.sh): a program that is not ours but
# loads our shared libraries (python's ctypes: %asan_preload %python; Debian's
# mlir-opt with the plugin) needs the ASan runtime first. Only those get it:
# our tools link the runtime statically and refuse a second one.
asan_preload = ""
if "address" in getattr(config, "fmha_sanitize", ""):
    import subprocess
    asan_rt = subprocess.run(
        ["clang++-22", "-print-file-name=libclang_rt.asan-x86_64.so"],
        capture_output=True, text=True).stdout.strip()
    config.environment["FMHA_ASAN_PRELOAD"] = asan_rt
    asan_preload = "env LD_PRELOAD=%s" % asan_rt
    config.available_features.add("asan")
config.substitutions.append(("%asan_preload", asan_preload))

tool_dirs = [config.fmha_tools_dir, config.llvm_tools_dir]
tools = ["fmha-opt", "fmha-run", "fmha-elf-manifest", "fmha-compile", "llvm-readelf", "llvm-objdump", "opt"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.fmha_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# JIT tests: mlir-runner and the runner-utils libraries of the LLVM install.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
runner_libs = {
    "%mlir_c_runner_utils": os.path.join(llvm_lib_dir, "libmlir_c_runner_utils.so"),
    "%mlir_runner_utils": os.path.join(llvm_lib_dir, "libmlir_runner_utils.so"),
}
if os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-runner")) and all(
    os.path.exists(lib) for lib in runner_libs.values()
):
    config.available_features.add("mlir-runner")
    config.substitutions.extend(runner_libs.items())
    llvm_config.add_tool_substitutions(["mlir-runner"], [config.llvm_tools_dir])

# HSACO tests: the build tree's toolkit folder (llvm/bin/ld.lld), made by
# cmake/FmhaToolkit.cmake when ld.lld exists.
fmha_toolkit_dir = getattr(config, "fmha_toolkit_dir", "")  # empty: ld.lld not found
if fmha_toolkit_dir:
    config.available_features.add("ld.lld")
    config.substitutions.append(("%fmha_toolkit", fmha_toolkit_dir))

# The dialect and pass plugin of the stock mlir-opt (built with libMLIR.so).
fmha_plugin = os.path.join(config.fmha_obj_root, "lib", "libFmhaMLIRPlugin.so")
stock_mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")
if os.path.exists(fmha_plugin) and os.path.exists(stock_mlir_opt):
    config.available_features.add("fmha-plugin")
    config.substitutions.append(("%fmha_plugin", fmha_plugin))
    stock = stock_mlir_opt
    if "FMHA_ASAN_PRELOAD" in config.environment:
        stock = "env LD_PRELOAD=%s %s" % (config.environment["FMHA_ASAN_PRELOAD"], stock)
    config.substitutions.append(("%stock_mlir_opt", stock))

# NVIDIA's ptxas (fmha-compile --cubin): on this project's build machine, not in CI.
import shutil
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")

# The stand-in HIP runtime built next to fmha-hip-run (tools/fmha-hip-run/mock).
hip_mock = os.path.join(config.fmha_obj_root, "lib", "libfmha-hip-mock.so")
if os.path.exists(hip_mock):
    config.available_features.add("fmha-hip-mock")
config.substitutions.append(("%fmha_hip_mock", hip_mock))
