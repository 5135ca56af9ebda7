//===- LanePatternsTest.cpp - a vendor pattern replaces a shared one ------===//
//
// A vendor adds lane-lowering patterns through TargetInfo::populateLanePatterns
// at a benefit above the shared ones (LanePatterns.h). Here a vendor lowers
// math.exp2 of a tile as one vector math.exp2 per accumulator atom instead
// of the shared per-element TargetInfo::exp2: with the pattern the kernel has
// those and no rocdl.exp2; without it, the reverse.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/FmhaToGPU.h"
#include "fmha/Conversion/FmhaToGPU/LanePatterns.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "MutatedTargetInfo.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fmha;

namespace {

constexpr const char *kKernel = R"mlir(
gpu.module @fmha_kernels [#rocdl.target<chip = "gfx942">] {
  gpu.func @k(%q: memref<?x2x128xf8E4M3FNUZ>, %k: memref<?x1024x1x128xf8E4M3FNUZ>,
              %pages: memref<?xi32>, %o: memref<?x2x128xf32>, %row0: index,
              %rows: index, %len: index) kernel
      attributes {fmha.config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7, page_regime = one_page, vd_route = scalar>,
                  known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128xf8E4M3FNUZ> -> vector<128x128xf8E4M3FNUZ>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128xf8E4M3FNUZ>, i32 -> vector<128x128xf8E4M3FNUZ>
    %zs = arith.constant dense<0.0> : vector<128x128xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<128x128xf8E4M3FNUZ>, vector<128x128xf8E4M3FNUZ> -> vector<128x128xf32>
    %p = math.exp2 %s : vector<128x128xf32>
    fmha.store_rows %p, %o[%row0, %c0] rows(%rows) : vector<128x128xf32>, memref<?x2x128xf32>
    gpu.return
  }
}
)mlir";

/// The vendor's exp2: one vector op per atom.
struct VectorExp2 : LanePattern<math::Exp2Op> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    LaneValues in = lc.unpack(op.getOperand(), a.getOperand()), out;
    for (Value part : in.parts)
      out.parts.push_back(math::Exp2Op::create(rw, op.getLoc(), part));
    rw.replaceOpWithMultiple(op, {lc.pack(lc.forms.get(op), out)});
    return success();
  }
};

struct Counts {
  int vectorExp2 = 0, rocdlExp2 = 0, mfma = 0;
};

Counts lower(bool vendorPattern) {
  DialectRegistry registry;
  registry.insert<FmhaDialect, gpu::GPUDialect, arith::ArithDialect,
                  math::MathDialect, vector::VectorDialect, memref::MemRefDialect,
                  scf::SCFDialect, ROCDL::ROCDLDialect, LLVM::LLVMDialect,
                  amdgpu::AMDGPUDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects(); // the conversion creates ops of each
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(kKernel, &ctx);
  EXPECT_TRUE(m);
  Counts c;
  if (!m)
    return c;
  MutatedTargetInfo ti(createTargetInfo("gfx942"));
  if (vendorPattern)
    ti.lanePatterns = [](const TypeConverter &tc, RewritePatternSet &p,
                         const LaneContext &lc, unsigned benefit) {
      p.add<VectorExp2>(tc, p.getContext(), lc, PatternBenefit(benefit));
    };
  gpu::GPUFuncOp kernel;
  m->walk([&](gpu::GPUFuncOp f) { kernel = f; });
  auto cfg = kernel->getAttrOfType<ConfigAttr>("fmha.config");
  EXPECT_TRUE(succeeded(lowerKernelTiles(kernel, ti, cfg)));
  m->walk([&](Operation *op) {
    if (auto e = dyn_cast<math::Exp2Op>(op))
      c.vectorExp2 += isa<VectorType>(e.getType());
    c.rocdlExp2 += isa<ROCDL::ROCDLExp2>(op);
    c.mfma += isa<amdgpu::MFMAOp>(op);
  });
  return c;
}

TEST(LanePatterns, AVendorPatternAtAHigherBenefitReplacesTheSharedOne) {
  Counts shared = lower(false), vendor = lower(true);
  // Shared: one hardware exp per element of the lane's 4 atoms of 16.
  EXPECT_EQ(shared.rocdlExp2, 64);
  EXPECT_EQ(shared.vectorExp2, 0);
  // Vendor: one vector exp2 per atom, no per-element ones.
  EXPECT_EQ(vendor.vectorExp2, 4);
  EXPECT_EQ(vendor.rocdlExp2, 0);
  // Everything else is the shared lowering (32 MFMAs of S = Q K^T).
  EXPECT_EQ(shared.mfma, 32);
  EXPECT_EQ(vendor.mfma, 32);
}

} // namespace
