//===- KernelAbiTest.cpp - the fmha.abi record of a kernel ----------------===//
#include "fmha/Conversion/OutlineKernel/KernelAbi.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fmha;

namespace {

struct KernelAbiTest : ::testing::Test {
  MLIRContext ctx;
  std::string diag;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  KernelAbiTest() {
    ctx.loadDialect<gpu::GPUDialect, LLVM::LLVMDialect>();
    ctx.allowUnregisteredDialects();
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &ctx, [this](Diagnostic &d) {
          diag = d.str();
          return success();
        });
  }
  /// A module with one kernel of `args` carrying `abi` (none when empty).
  OwningOpRef<ModuleOp> kernel(StringRef args, StringRef abi) {
    std::string src = "gpu.module @m { gpu.func @k(" + args.str() + ") kernel";
    if (!abi.empty())
      src += " attributes {fmha.abi = " + abi.str() + "}";
    src += " { gpu.return } }";
    return parseSourceString<ModuleOp>(src, &ctx);
  }
  gpu::GPUFuncOp first(ModuleOp m) {
    gpu::GPUFuncOp f;
    m.walk([&](gpu::GPUFuncOp k) { f = k; });
    return f;
  }
};

TEST_F(KernelAbiTest, RoundTripAndNames) {
  SmallVector<KernelAbiArg> abi = {
      {0, "q", AbiPart::Pointer, -1},  {0, "q", AbiPart::Size, 0},
      {9, "k_descale", AbiPart::Offset, -1},
      {9, "k_descale", AbiPart::Stride, 1}, {-1, "host0", AbiPart::Value, -1}};
  auto m = kernel("%a: i64, %b: i64, %c: i64, %d: i64, %e: index", "[]");
  ASSERT_TRUE(m);
  gpu::GPUFuncOp k = first(*m);
  k->setAttr(kKernelAbiAttr, kernelAbiAttr(&ctx, abi));
  FailureOr<SmallVector<KernelAbiArg>> back = readKernelAbi(k);
  ASSERT_TRUE(succeeded(back)) << diag;
  ASSERT_EQ(back->size(), abi.size());
  std::vector<std::string> names;
  for (auto [got, want] : llvm::zip(*back, abi)) {
    EXPECT_EQ(got.operand, want.operand);
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.part, want.part);
    EXPECT_EQ(got.dim, want.dim);
    names.push_back(got.flatName());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"q", "q_dim0", "k_descale_offset",
                                             "k_descale_stride1", "host0"}));
  // Absent fields stay absent: no operand on a host value, no dim on a
  // pointer.
  auto host = cast<DictionaryAttr>(
      k->getAttrOfType<ArrayAttr>(kKernelAbiAttr)[4]);
  EXPECT_FALSE(host.contains("operand"));
  EXPECT_FALSE(host.contains("dim"));
}

// A tensor map's entry (sm_90a TMA) reads back with its description.
TEST_F(KernelAbiTest, TensorMapRoundTrip) {
  KernelAbiArg a{1, "k_cache", AbiPart::TensorMap, -1};
  a.tmapDims = {3, 1, 2, 0};
  a.tmapBox = {128, 16, 1, 1};
  a.shape = {-1, 16, 8, 128};
  a.strides = {16384, 1024, 128, 1};
  a.swizzle = 128;
  a.elementBytes = 1;
  auto m = kernel("%a: !llvm.ptr", "[]");
  ASSERT_TRUE(m);
  gpu::GPUFuncOp k = first(*m);
  k->setAttr(kKernelAbiAttr, kernelAbiAttr(&ctx, {a}));
  FailureOr<SmallVector<KernelAbiArg>> back = readKernelAbi(k);
  ASSERT_TRUE(succeeded(back)) << diag;
  ASSERT_EQ(back->size(), 1u);
  const KernelAbiArg &b = (*back)[0];
  EXPECT_EQ(b.part, AbiPart::TensorMap);
  EXPECT_EQ(b.flatName(), "k_cache_tmap");
  EXPECT_EQ(b.tmapDims, a.tmapDims);
  EXPECT_EQ(b.tmapBox, a.tmapBox);
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.strides, a.strides);
  EXPECT_EQ(b.swizzle, 128);
  EXPECT_EQ(b.elementBytes, 1);
}

TEST_F(KernelAbiTest, RefusesMissingOrMalformed) {
  struct Case {
    const char *args, *abi, *error;
  };
  Case cases[] = {
      {"%a: i64", "", "has no fmha.abi record of its arguments (run "
                      "fmha-outline-kernel)"},
      {"%a: i64, %b: i64", "[{name = \"n\", part = \"value\"}]",
       "fmha.abi has 1 entries for 2 arguments"},
      {"%a: i64", "[1]", "fmha.abi entry 0: not a dictionary"},
      {"%a: i64", "[{name = \"n\"}]",
       "fmha.abi entry 0: needs a string 'name' and 'part'"},
      {"%a: i64", "[{name = \"n\", part = \"stride0\"}]",
       "fmha.abi entry 0: part 'stride0' is none of pointer, size, offset, "
       "stride, value, tensormap"},
      // A tensor map needs its operand and the map's description.
      {"%a: !llvm.ptr", "[{name = \"k_cache\", operand = 1 : i64, part = \"tensormap\"}]",
       "fmha.abi entry 0: a tensormap needs an 'operand' and integer arrays 'dims' "
       "and 'box' of one length, 'shape' and 'strides' of one length, and "
       "integers 'swizzle' and 'element_bytes'"},
      {"%a: !llvm.ptr",
       "[{box = [128, 16], dims = [3, 1, 2, 0], element_bytes = 1 : i64, "
       "name = \"k_cache\", operand = 1 : i64, part = \"tensormap\", "
       "shape = [-1, 16, 8, 128], strides = [16384, 1024, 128, 1], swizzle = 128 : i64}]",
       "fmha.abi entry 0: a tensormap needs an 'operand' and integer arrays 'dims' "
       "and 'box' of one length, 'shape' and 'strides' of one length, and "
       "integers 'swizzle' and 'element_bytes'"},
      {"%a: i64", "[{name = \"n\", part = \"size\"}]",
       "fmha.abi entry 0: 'dim' (a non-negative integer) is given exactly for "
       "a size or stride"},
      {"%a: i64", "[{dim = 0 : i64, name = \"n\", part = \"offset\"}]",
       "fmha.abi entry 0: 'dim' (a non-negative integer) is given exactly for "
       "a size or stride"},
      {"%a: i64", "[{name = \"n\", operand = \"q\", part = \"value\"}]",
       "fmha.abi entry 0: 'operand' must be a non-negative integer"},
  };
  for (const Case &c : cases) {
    auto m = kernel(c.args, c.abi);
    ASSERT_TRUE(m) << c.abi;
    diag.clear();
    EXPECT_TRUE(failed(readKernelAbi(first(*m)))) << c.abi;
    EXPECT_EQ(diag, std::string("'gpu.func' op ") + c.error) << c.abi;
  }
}

} // namespace
