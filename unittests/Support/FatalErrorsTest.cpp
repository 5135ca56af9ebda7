//===- FatalErrorsTest.cpp - fatal LLVM errors end a call (FatalErrors.h) -===//
//
// runRecovering turns report_fatal_error and crashes inside the call into a
// false return with the message; the process and other threads go on.
// Through LLVM's own back end: an intrinsic AMDGPU cannot select ends
// serializeToHsaco with "Cannot select", which would otherwise exit.
//
//===----------------------------------------------------------------------===//
#include "fmha/Support/FatalErrors.h"
#include "fmha/Target/AMDGPU.h"
#include "fmha/Target/ToolkitConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/ErrorHandling.h"

#include "gtest/gtest.h"

#include <csignal>
#include <thread>

using namespace mlir;

namespace {

TEST(FatalErrors, ReturningCallIsTrue) {
  std::string msg = "untouched";
  int ran = 0;
  EXPECT_TRUE(fmha::runRecovering([&] { ++ran; }, msg));
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(msg, "untouched");
}

TEST(FatalErrors, ReportFatalErrorEndsTheCallOnly) {
  std::string msg;
  bool after = false;
  EXPECT_FALSE(fmha::runRecovering(
      [&] {
        llvm::report_fatal_error("the back end gave up");
        after = true;
      },
      msg));
  EXPECT_FALSE(after);
  EXPECT_EQ(msg, "LLVM ERROR: the back end gave up");
  // And again: the handler stays usable.
  EXPECT_FALSE(fmha::runRecovering(
      [] { llvm::report_fatal_error("second", /*gen_crash_diag=*/false); },
      msg));
  EXPECT_EQ(msg, "LLVM ERROR: second");
}

TEST(FatalErrors, CrashEndsTheCallOnly) {
  std::string msg;
  EXPECT_FALSE(fmha::runRecovering([] { std::raise(SIGSEGV); }, msg));
  EXPECT_EQ(msg, "crashed (signal " + std::to_string(SIGSEGV) + ")");
}

TEST(FatalErrors, ThreadsRecoverApart) {
  std::string a, b;
  bool okA = true, okB = false;
  std::thread ta([&] {
    okA = fmha::runRecovering([] { llvm::report_fatal_error("thread a"); }, a);
  });
  std::thread tb([&] { okB = fmha::runRecovering([] {}, b); });
  ta.join();
  tb.join();
  EXPECT_FALSE(okA);
  EXPECT_EQ(a, "LLVM ERROR: thread a");
  EXPECT_TRUE(okB);
  EXPECT_TRUE(b.empty());
}

// An x86 intrinsic in an AMDGPU kernel: instruction selection calls
// report_fatal_error ("Cannot select"), which without recovery exits.
constexpr const char *kUnselectable = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @sel {
    gpu.func @cannot_select(%out: !llvm.ptr<1>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %r = llvm.call_intrinsic "llvm.x86.rdtsc"() : () -> i64
      llvm.store %r, %out : i64, !llvm.ptr<1>
      gpu.return
    }
  }
}
)mlir";

TEST(FatalErrors, BackEndFatalErrorIsRecovered) {
  DialectRegistry registry;
  fmha::registerAMDGPUTargetDependencies(registry);
  // Leaked on purpose: the abandoned call may have left it inconsistent.
  auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
  ctx->printOpOnDiagnostic(false);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kUnselectable, ctx);
  ASSERT_TRUE(module);
  std::string msg;
  bool serialized = false;
  ModuleOp m = module.release();
  EXPECT_FALSE(fmha::runRecovering(
      [&] {
        fmha::AMDGPUTargetOptions options;
        options.chip = "gfx942";
        serialized = succeeded(
            fmha::serializeToIsa(m, options));
      },
      msg));
  EXPECT_FALSE(serialized);
  EXPECT_NE(msg.find("Cannot select"), std::string::npos) << msg;
}

} // namespace
