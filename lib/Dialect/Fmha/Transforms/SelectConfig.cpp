//===- SelectConfig.cpp - fmha-select-config --------------------------------===//
//
// Tile sizes, waves and MMA atoms per target, from the chip table
// (fmha/Support/Chips.h): gfx942 v_mfma_f32_32x32x16_fp8 (FNUZ fp8), gfx950
// v_mfma_f32_32x32x64_f8f6f4 (OCP fp8), sm_90 mma.sync m16n8k32 e4m3/e5m2;
// the host runs scalar loops.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/Transforms/Passes.h"
#include "fmha/Support/Chips.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHASELECTCONFIG
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The chip's entry in the chip table (fmha/Support/Chips.h), or null.
const ChipInfo *findChip(StringRef chip) { return lookupChip(chip); }

bool isFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType>(t);
}
bool isFnuz(Type t) { return isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(t); }

Type cacheType(BatchPrefillOp op) {
  return cast<MemRefType>(op.getKCache().getType()).getElementType();
}

/// The P type and SHIFT for a cache element type (see the pass description).
std::pair<Type, int64_t> pTypeAndShift(Type cache) {
  MLIRContext *ctx = cache.getContext();
  if (!isFp8(cache))
    return {cache, 0};
  if (isFnuz(cache))
    return {Float8E4M3FNUZType::get(ctx), 7};
  return {Float8E4M3FNType::get(ctx), 8};
}

/// Largest finite value of a float type.
double largest(Type t) {
  return llvm::APFloat::getLargest(cast<FloatType>(t).getFloatSemantics())
      .convertToDouble();
}

} // namespace

LogicalResult mlir::fmha::verifyConfig(BatchPrefillOp op, ConfigAttr cfg) {
  const ChipInfo *chip = findChip(cfg.getChip());
  if (!chip)
    return op.emitOpError() << "config names unknown chip '" << cfg.getChip()
                            << "'; expected " << expectedChipsText();
  for (auto [name, v] :
       {std::pair<StringRef, int64_t>{"block_m", cfg.getBlockM()},
        {"block_n", cfg.getBlockN()}, {"k_step", cfg.getKStep()},
        {"warps", cfg.getWarps()}, {"wave_size", cfg.getWaveSize()},
        {"mma_m", cfg.getMmaM()}, {"mma_n", cfg.getMmaN()}})
    if (v < 1)
      return op.emitOpError() << "config " << name << " must be >= 1, got "
                              << v;
  if (cfg.getBlockM() % (cfg.getMmaM() * cfg.getWarps()) != 0)
    return op.emitOpError()
           << "config block_m = " << cfg.getBlockM()
           << " must be a multiple of mma_m x warps = "
           << cfg.getMmaM() * cfg.getWarps();
  if (cfg.getBlockN() % cfg.getMmaN() != 0)
    return op.emitOpError() << "config block_n = " << cfg.getBlockN()
                            << " must be a multiple of mma_n = "
                            << cfg.getMmaN();
  if (op.getHeadDim() % cfg.getKStep() != 0)
    return op.emitOpError() << "head dim D = " << op.getHeadDim()
                            << " is not a multiple of the MMA K step "
                            << cfg.getKStep() << " of " << cfg.getChip();
  if (op.getHeadDimV() % cfg.getMmaN() != 0)
    return op.emitOpError() << "head dim Dv = " << op.getHeadDimV()
                            << " is not a multiple of the MMA N size "
                            << cfg.getMmaN() << " of " << cfg.getChip();
  Type cache = cacheType(op);
  Type qType = cast<MemRefType>(op.getQ().getType()).getElementType();
  for (Type t : {cache, qType}) {
    if (!isFp8(t))
      continue;
    if (chip->fp8Family == Fp8Family::FnuzOnly && !isFnuz(t))
      return op.emitOpError()
             << cfg.getChip() << " MFMA takes FNUZ fp8 (f8E4M3FNUZ, "
             << "f8E5M2FNUZ), got " << t;
    if (chip->fp8Family == Fp8Family::OcpOnly && isFnuz(t))
      return op.emitOpError() << cfg.getChip()
                              << " takes OCP fp8 (f8E4M3FN, f8E5M2), got "
                              << t;
  }
  Type p = cfg.getPType();
  if (isFp8(cache)) {
    if (!isFp8(p) || isFnuz(p) != isFnuz(cache))
      return op.emitOpError() << "config p_type " << p
                              << " must be an fp8 type of the cache's family ("
                              << cache << ")";
  } else if (p != cache) {
    return op.emitOpError() << "config p_type " << p
                            << " must equal the 16-bit cache type " << cache;
  }
  int64_t shift = cfg.getShift();
  if (shift < 0 || std::ldexp(1.0, shift) >= largest(p))
    return op.emitOpError() << "config shift = " << shift
                            << " must be >= 0 with 2^shift below the largest "
                            << p << " (" << static_cast<int64_t>(largest(p)) << ")";
  if (!isFp8(p) && shift != 0)
    return op.emitOpError() << "config shift must be 0 for a 16-bit P, got "
                            << shift;
  return success();
}

FailureOr<ConfigAttr> mlir::fmha::selectConfig(BatchPrefillOp op,
                                               StringRef chipName) {
  const ChipInfo *chip = findChip(chipName);
  if (!chip)
    return op.emitOpError() << "unknown chip '" << chipName
                            << "'; expected " << expectedChipsText(),
           failure();
  Type cache = cacheType(op);
  bool fp8 = isFp8(cache);
  auto [p, shift] = pTypeAndShift(cache);
  int64_t blockN = fp8 ? chip->blockNFp8 : chip->blockN16;
  MmaShape mma = fp8 ? chip->fp8Mma[0] : chip->mma16;
  int64_t kStep = mma.k;
  // A chip with a second fp8 MMA (gfx950's K=16), small pages with a V
  // descale per page: the K=16 MFMA keeps each MMA inside one page (its K=64
  // one would span several).
  if (chip->fp8Mmas().size() > 1 && fp8 && op.getQuant() == QuantMode::KVBlockScale &&
      static_cast<int64_t>(op.getPageSize()) < blockN &&
      static_cast<int64_t>(op.getPageSize()) % kStep != 0)
    kStep = chip->fp8Mma[1].k;
  auto cfg = ConfigAttr::get(op.getContext(), chip->name, chip->blockM,
                             blockN, kStep, chip->warps,
                             chip->waveSize, mma.m, mma.n, p, shift);
  if (failed(verifyConfig(op, cfg)))
    return failure();
  return cfg;
}

namespace {
struct FmhaSelectConfigPass
    : public fmha::impl::FmhaSelectConfigBase<FmhaSelectConfigPass> {
  using Base::Base;
  void runOnOperation() override {
    WalkResult r = getOperation()->walk([&](BatchPrefillOp op) {
      if (ConfigAttr existing = op.getConfigAttr()) {
        if (existing.getChip() != chip) {
          op.emitOpError() << "has a config for chip '" << existing.getChip()
                           << "' but the pass targets '" << chip << "'";
          return WalkResult::interrupt();
        }
        return failed(verifyConfig(op, existing)) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
      }
      FailureOr<ConfigAttr> cfg = selectConfig(op, chip);
      if (failed(cfg))
        return WalkResult::interrupt();
      op.setConfigAttr(*cfg);
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
