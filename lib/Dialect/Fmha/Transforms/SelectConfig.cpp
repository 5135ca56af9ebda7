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
#include "llvm/Support/MathExtras.h"

#include <algorithm>
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

/// The host lowering's loops scale each key of P x V by its own V descale;
/// the GPU lowering has the page_groups and scaled_p routes.
bool isHost(ConfigAttr cfg) {
  const ChipInfo *c = lookupChip(cfg.getChip());
  return c && !c->isGPU();
}

/// The page regime of tiles of `blockN` keys on pages of `page` keys.
PageRegime pageRegimeOf(int64_t page, int64_t blockN) {
  if (page % blockN == 0)
    return PageRegime::OnePage;
  if (blockN % page == 0)
    return PageRegime::WholePages;
  return PageRegime::Unaligned;
}

/// Whether the V descale differs between keys of one tile.
bool perKeyVd(BatchPrefillOp op, PageRegime regime) {
  return op.getQuant() == QuantMode::KVBlockScale && regime != PageRegime::OnePage;
}

/// Whether the MMA steps of one page can accumulate apart: the tile is whole
/// pages and a page is whole MMA steps.
bool pageGroupsFit(BatchPrefillOp op, ConfigAttr cfg) {
  return pageRegimeOf(op.getPageSize(), cfg.getBlockN()) == PageRegime::WholePages &&
         static_cast<int64_t>(op.getPageSize()) % cfg.getKStep() == 0;
}

/// AMDGPU, per-key vd and no soft cap: exp2_bias (docs/FOLDS.md). At page
/// 16 (gfx942) it replaced 7 of 8 page groups' 32 v_pk_fma: 879 -> 689 loop
/// instructions, 1337 -> 1124 modelled cycles (bench/NOTES.md); where
/// scaled_p was taken it is also the more accurate route (unittests/
/// Reference/EmulateTest.cpp). Until 2026-12-06 (eleventh session) a tile
/// of at most two pages that fit page_groups (page 64 at block_n 128) kept
/// page_groups; with P x V into o, the row max in exp2 units and the
/// weighted row sum after P x V, exp2_bias models 947.5 -> 767.5 cycles a
/// tile there on gfx942 (1.24x -> 1.00x page 1024) and 593.5 -> 564 on
/// gfx950, with the page-run routes' accuracy at page 64 (0.0019 rel.
/// Frobenius both, docs/FOLDS.md). Except where such a tile's pages are
/// one MMA k step each (gfx950's K=64 at page 64): there exp2_bias spilled
/// 8 VGPRs (593.5 -> 564 cycles, page_groups none), so page_groups stays,
/// except under a window mask: there page_groups' masked-tile loops
/// spilled 363 VGPRs to scratch (the window's row bounds beside the page
/// groups' accumulators), exp2_bias none, and its steady loop models 903
/// cycles an iteration against 1030 (eighteenth session, bench/NOTES.md).
/// NVIDIA keeps its routes (sm_90a timed exp2_bias 5-11 % slower than
/// scaled_p at page 16, 1-4 % slower at pages 16 and 48 on an H100 in
/// 2026-12-07), except sm_90a where a tile holds kExp2BiasMinPagesWgmma
/// pages or more (block_n 128: pages of at most 8 keys): at page 1
/// exp2_bias was 1.4-6.0 % faster at all 10 points timed (H100,
/// bench/NOTES.md, fifteenth session); at page 8 scaled_p misses
/// the spread-data row bar (D 64: 0.0711 and 0.0782 against 0.07, where
/// exp2_bias gives 0.0384 and 0.0266; a tile holds 16 pages, whose vd /
/// r down to 2^-12 lose P's low bits in the wgmma's 14-bit sums), and
/// costs 0.3 % without a mask and 5 % causal (twenty-first session). The
/// rule is the tile's page count, so it follows block_n: with block_n 256
/// (kWgmmaWideBlockN) page 16 is such a tile, and scaled_p missed the bar
/// there the same way (D 64, the page-8 case's data: 0.0710).
constexpr int64_t kExp2BiasMinPagesWgmma = 16;

/// sm_90a (a warpgroup MMA chip) with an fp8 kv_blockscale cache, D and Dv
/// of at most kWgmmaWideMaxHeadDim and no mask takes block_n
/// kWgmmaWideBlockN (one m64n256 wgmma for S): half the tiles, so half the per-tile waits,
/// barriers, row-max shuffles and o updates. Timed on an H100 against
/// block_n 128 (B 4, Sq 512, Sk 1k-16k, D 64, GQA 32/8, twenty-second
/// session, bench/NOTES.md): without a mask +2-13 % (geomean 1.07 at pages
/// 1024 and 64, 1.08 at page 16); causal +10-13 % at Sk 16k but -9 to -14 %
/// at Sk 1k (the diagonal tile's masked half doubles), so a masked request
/// keeps 128. A stated block-n decides instead. Only where it was timed:
/// kv_blockscale, a GQA group the warp-specialized kernel splits (even;
/// the one-warpgroup kernel spills 84 bytes at 256), and tiles of fewer
/// than kExp2BiasMinPagesWgmma pages (pages of 32 keys or more: page 16's
/// 256-key tile must take exp2_bias, whose speed there is not measured).
constexpr int64_t kWgmmaWideBlockN = 256;
constexpr int64_t kWgmmaWideMaxHeadDim = 64;

bool wideWgmmaTile(BatchPrefillOp op, const ChipInfo &chip, int64_t rowBytes) {
  int64_t group = op.getNumKVHeads() > 0 ? op.getNumQHeads() / op.getNumKVHeads() : 0;
  return chip.warpgroupMma && isFp8(cacheType(op)) &&
         op.getQuant() == QuantMode::KVBlockScale && op.getMask().isNone() &&
         op.getHeadDim() <= kWgmmaWideMaxHeadDim &&
         op.getHeadDimV() <= kWgmmaWideMaxHeadDim && group > 0 && group % 2 == 0 &&
         kWgmmaWideBlockN < kExp2BiasMinPagesWgmma * static_cast<int64_t>(op.getPageSize()) &&
         kWgmmaWideBlockN * rowBytes <= chip.ldsBytesPerWorkgroup;
}

bool exp2BiasFirst(BatchPrefillOp op, ConfigAttr cfg) {
  const ChipInfo *chip = findChip(cfg.getChip());
  if (!chip || op.getSoftCap() || op.getRuntimeSoftCap())
    return false;
  int64_t page = static_cast<int64_t>(op.getPageSize());
  if (chip->vendor != ChipVendor::AMDGPU)
    return chip->warpgroupMma &&
           (cfg.getBlockN() >= kExp2BiasMinPagesWgmma * page ||
            pageRegimeOf(page, cfg.getBlockN()) == PageRegime::WholePages);
  bool twoOneStepPages = cfg.getKStep() > 0 && pageGroupsFit(op, cfg) &&
                         cfg.getBlockN() <= 2 * page && page == cfg.getKStep();
  return !twoOneStepPages || op.getMask().isWindow();
}

int64_t pageGroupSteps(BatchPrefillOp op, ConfigAttr cfg) {
  return std::min(cfg.getBlockN() / cfg.getKStep(),
                  static_cast<int64_t>(op.getPageSize()) / cfg.getKStep());
}

ConfigAttr withDecisions(ConfigAttr c, PageRegime regime, VdRoute route,
                         int64_t group, QScale qScale) {
  return ConfigAttr::get(c.getContext(), c.getChip(), c.getBlockM(),
                         c.getBlockN(), c.getKStep(), c.getWarps(),
                         c.getWaveSize(), c.getMmaM(), c.getMmaN(),
                         c.getPType(), c.getShift(), regime, route, group,
                         qScale);
}

/// A 16-bit Q with an fp8 cache: the GPU MMAs take one operand type, so Q
/// is quantized per tile (SPEC section 4); the host multiplies it as stored.
bool needsQuantizedQ(BatchPrefillOp op) {
  Type q = cast<MemRefType>(op.getQ().getType()).getElementType();
  return q.getIntOrFloatBitWidth() == 16 && isFp8(cacheType(op));
}

} // namespace

ConfigAttr mlir::fmha::completeConfig(BatchPrefillOp op, ConfigAttr cfg) {
  PageRegime regime = cfg.getPageRegime();
  if (regime == PageRegime::Unset)
    regime = pageRegimeOf(op.getPageSize(), std::max<int64_t>(cfg.getBlockN(), 1));
  VdRoute route = cfg.getVdRoute();
  int64_t group = cfg.getPvGroup();
  if (route == VdRoute::Unset) {
    if (!perKeyVd(op, regime))
      route = VdRoute::Scalar;
    else if (isHost(cfg))
      route = VdRoute::PerKey;
    else if (exp2BiasFirst(op, cfg))
      route = VdRoute::Exp2Bias;
    else if (cfg.getKStep() > 0 && pageGroupsFit(op, cfg))
      route = VdRoute::PageGroups;
    else
      route = VdRoute::ScaledP;
  }
  if (route == VdRoute::PageGroups && group == 0 && cfg.getKStep() > 0)
    group = pageGroupSteps(op, cfg);
  QScale qScale = cfg.getQScale();
  if (!isHost(cfg) && needsQuantizedQ(op))
    qScale = QScale::PerTile;
  return withDecisions(cfg, regime, route, group, qScale);
}

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
  // AMDGPU: a workgroup of more waves than SIMDs keeps ceil(warps / SIMDs)
  // waves on each, all resident at once; at two, a lane's 256 registers
  // hold the S and O accumulators (block_m (block_n + Dv) f32 over the
  // workgroup's lanes) only up to half of them, as OutlineKernel's
  // waves_per_eu rule (D 256 takes one wave a SIMD). More is not offered.
  // A count that is no power of two leaves the staged tiles' 16-byte
  // chunks unevenly over the lanes (the lane lowering refuses it later).
  if (chip->vendor == ChipVendor::AMDGPU && !llvm::isPowerOf2_64(cfg.getWarps()))
    return op.emitOpError() << "config warps = " << cfg.getWarps()
                            << " is not a power of two (the staged K/V tiles' "
                               "chunks are spread evenly over the lanes)";
  if (chip->vendor == ChipVendor::AMDGPU && cfg.getWarps() > chip->simdsPerCu) {
    int64_t perSimd = (cfg.getWarps() + chip->simdsPerCu - 1) / chip->simdsPerCu;
    int64_t accPerLane = accumulatorsPerLane(cfg, op.getHeadDimV(),
                                             cfg.getWarps() * cfg.getWaveSize());
    if (perSimd > 2)
      return op.emitOpError()
             << "config warps = " << cfg.getWarps() << " puts " << perSimd
             << " waves on each of " << cfg.getChip() << "'s "
             << chip->simdsPerCu << " SIMDs; at most 2 (warps <= "
             << 2 * chip->simdsPerCu << ")";
    if (accPerLane > 128)
      return op.emitOpError()
             << "config warps = " << cfg.getWarps()
             << " puts 2 waves on each SIMD, whose lanes then hold at most 128 "
                "accumulator values (half of 256 registers); block_m (block_n + "
                "Dv) / threads = "
             << accPerLane << " (head dim Dv = " << op.getHeadDimV() << ")";
  }
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
  return verifyDecisions(op, cfg);
}

LogicalResult mlir::fmha::verifyDecisions(BatchPrefillOp op, ConfigAttr cfg) {
  if (cfg.getQScale() == QScale::PerTile && !needsQuantizedQ(op))
    return op.emitOpError()
           << "config q_scale = per_tile quantizes a 16-bit Q for an fp8 "
              "cache; this op has Q "
           << cast<MemRefType>(op.getQ().getType()).getElementType()
           << " and cache " << cacheType(op);
  int64_t page = op.getPageSize(), bn = cfg.getBlockN();
  PageRegime regime = pageRegimeOf(page, bn);
  if (cfg.getPageRegime() != PageRegime::Unset && cfg.getPageRegime() != regime)
    return op.emitOpError()
           << "config page_regime = " << stringifyPageRegime(cfg.getPageRegime())
           << " but page size " << page << " and block_n " << bn << " give "
           << stringifyPageRegime(regime)
           << " (one_page: P % block_n == 0; whole_pages: block_n % P == 0; "
              "else unaligned)";
  VdRoute route = cfg.getVdRoute();
  if (route == VdRoute::Unset) {
    if (cfg.getPvGroup() != 0)
      return op.emitOpError() << "config pv_group = " << cfg.getPvGroup()
                              << " needs vd_route = page_groups";
    return success();
  }
  bool perKey = perKeyVd(op, regime);
  if ((route == VdRoute::Scalar) == perKey)
    return op.emitOpError()
           << "config vd_route = " << stringifyVdRoute(route) << " but "
           << (perKey ? "the V descale differs between keys of a tile "
                        "(kv_blockscale, pages that do not hold a whole tile): "
                        "page_groups, scaled_p or exp2_bias"
                      : "the V descale is one per tile: scalar");
  if (route == VdRoute::Exp2Bias && (op.getSoftCap() || op.getRuntimeSoftCap()))
    return op.emitOpError()
           << "config vd_route = exp2_bias takes no soft cap (the bias joins "
              "the exp2 argument outside the cap's tanh)";
  if (perKey && (route == VdRoute::PerKey) != isHost(cfg))
    return op.emitOpError()
           << "config vd_route = " << stringifyVdRoute(route) << " but "
           << (isHost(cfg) ? "the host lowering scales each key: per_key"
                           : "the GPU lowering's per-key routes are page_groups, "
                             "scaled_p and exp2_bias");
  if (route == VdRoute::PageGroups) {
    if (!pageGroupsFit(op, cfg))
      return op.emitOpError()
             << "config vd_route = page_groups needs tiles of whole pages "
                "(block_n % P == 0) and pages of whole MMA steps (P % k_step "
                "== 0); page size "
             << page << ", block_n " << bn << ", k_step " << cfg.getKStep();
    // pv_group 0: left out, completeConfig takes it.
    if (cfg.getPvGroup() != 0 && cfg.getPvGroup() != pageGroupSteps(op, cfg))
      return op.emitOpError()
             << "config pv_group = " << cfg.getPvGroup() << " but a page is "
             << pageGroupSteps(op, cfg)
             << " k steps of the tile (min(block_n, P) / k_step)";
  } else if (cfg.getPvGroup() != 0) {
    return op.emitOpError() << "config pv_group = " << cfg.getPvGroup()
                            << " needs vd_route = page_groups";
  }
  return success();
}

std::optional<VdRoute> mlir::fmha::parseVdRouteOption(StringRef name) {
  if (name.empty() || name == "auto")
    return VdRoute::Unset;
  std::optional<VdRoute> r = symbolizeVdRoute(name);
  if (!r || *r == VdRoute::Unset)
    return std::nullopt;
  return r;
}

FailureOr<ConfigAttr> mlir::fmha::selectConfig(BatchPrefillOp op,
                                               StringRef chipName, VdRoute route,
                                               int64_t warps, int64_t statedBlockN) {
  const ChipInfo *chip = findChip(chipName);
  if (!chip)
    return op.emitOpError() << "unknown chip '" << chipName
                            << "'; expected " << expectedChipsText(),
           failure();
  Type cache = cacheType(op);
  bool fp8 = isFp8(cache);
  auto [p, shift] = pTypeAndShift(cache);
  int64_t blockN = fp8 ? chip->blockNFp8 : chip->blockN16;
  // The K and V tiles of one KV step are staged in workgroup memory: halve
  // block_n until block_n (D + Dv) values fit (sm_90a's 48 KiB at D 256:
  // 64; every other chip and head dim keeps the table's).
  auto lastDim = [](Value cache) { return cast<MemRefType>(cache.getType()).getShape().back(); };
  int64_t rowBytes = (lastDim(op.getKCache()) + lastDim(op.getVCache())) *
                     cache.getIntOrFloatBitWidth() / 8;
  while (chip->isGPU() && blockN > 64 && blockN * rowBytes > chip->ldsBytesPerWorkgroup)
    blockN /= 2;
  if (wideWgmmaTile(op, *chip, rowBytes))
    blockN = kWgmmaWideBlockN;
  // A stated block_n replaces the table's (verifyConfig below checks it).
  if (statedBlockN < 0)
    return op.emitOpError() << "fmha-select-config: block-n must be >= 0 (0: "
                               "the chip's), got "
                            << statedBlockN,
           failure();
  if (statedBlockN != 0)
    blockN = statedBlockN;
  MmaShape mma = fp8 ? chip->fp8Mma[0] : chip->mma16;
  // A stated wave count keeps the chip's rows a wave (block_m / warps).
  if (warps < 0)
    return op.emitOpError() << "fmha-select-config: warps must be >= 0 (0: the "
                               "chip's), got "
                            << warps,
           failure();
  if (warps != 0 && warps != chip->warps && chip->vendor != ChipVendor::AMDGPU)
    return op.emitOpError() << "fmha-select-config: warps " << warps << " on "
                            << chip->name << ", whose lowering takes "
                            << chip->warps
                            << " (another wave count is an AMDGPU option)",
           failure();
  int64_t nWarps = warps ? warps : chip->warps;
  int64_t blockM = chip->blockM / chip->warps * nWarps;
  auto configWith = [&](int64_t kStep) {
    return ConfigAttr::get(op.getContext(), chip->name, blockM, blockN,
                           kStep, nWarps, chip->waveSize, mma.m, mma.n, p,
                           shift, PageRegime::Unset, route, 0, QScale::AsStored);
  };
  auto cfg = configWith(mma.k);
  // A chip with a second fp8 MMA (gfx950's K=16), small pages with a V
  // descale per page: the K=16 MFMA keeps each P x V step inside one page
  // (its K=64 one would span several), which the page_groups route needs.
  // exp2_bias (and scaled_p) put vd into P before the product, so a step
  // may span pages and the K=64 MFMA stays (a quarter of the MFMAs at page
  // 16).
  if (chip->fp8Mmas().size() > 1 && fp8 && op.getQuant() == QuantMode::KVBlockScale &&
      static_cast<int64_t>(op.getPageSize()) < blockN &&
      static_cast<int64_t>(op.getPageSize()) % mma.k != 0) {
    ConfigAttr k16 = configWith(chip->fp8Mma[1].k);
    bool pageGroups = route == VdRoute::Unset
                          ? !exp2BiasFirst(op, cfg) && pageGroupsFit(op, k16)
                          : route == VdRoute::PageGroups;
    if (pageGroups)
      cfg = k16;
  }
  if (failed(verifyConfig(op, cfg)))
    return failure();
  return completeConfig(op, cfg);
}

namespace {
struct FmhaSelectConfigPass
    : public fmha::impl::FmhaSelectConfigBase<FmhaSelectConfigPass> {
  using Base::Base;
  void runOnOperation() override {
    std::optional<VdRoute> parsed = parseVdRouteOption(vdRoute);
    if (!parsed) {
      getOperation()->emitError()
          << "fmha-select-config: unknown vd-route '" << vdRoute
          << "'; expected auto, scalar, page_groups, scaled_p, exp2_bias or "
             "per_key";
      return signalPassFailure();
    }
    VdRoute route = *parsed;
    WalkResult r = getOperation()->walk([&](BatchPrefillOp op) {
      if (ConfigAttr existing = op.getConfigAttr()) {
        if (existing.getChip() != chip) {
          op.emitOpError() << "has a config for chip '" << existing.getChip()
                           << "' but the pass targets '" << chip << "'";
          return WalkResult::interrupt();
        }
        if (warps != 0 && existing.getWarps() != warps) {
          op.emitOpError() << "fmha-select-config: warps " << static_cast<int64_t>(warps)
                           << " but the config states " << existing.getWarps();
          return WalkResult::interrupt();
        }
        if (blockN != 0 && existing.getBlockN() != blockN) {
          op.emitOpError() << "fmha-select-config: block-n " << static_cast<int64_t>(blockN)
                           << " but the config states " << existing.getBlockN();
          return WalkResult::interrupt();
        }
        // A stated vd-route joins a config that leaves the route out; one
        // that states another is a conflict.
        if (route != VdRoute::Unset) {
          if (existing.getVdRoute() == VdRoute::Unset) {
            existing = withDecisions(existing, existing.getPageRegime(), route,
                                     existing.getPvGroup(), existing.getQScale());
          } else if (existing.getVdRoute() != route) {
            op.emitOpError() << "fmha-select-config: vd-route "
                             << stringifyVdRoute(route) << " but the config states "
                             << stringifyVdRoute(existing.getVdRoute());
            return WalkResult::interrupt();
          }
        }
        if (failed(verifyConfig(op, existing)))
          return WalkResult::interrupt();
        // The decisions a hand-written config leaves out are taken here.
        op.setConfigAttr(completeConfig(op, existing));
        return WalkResult::advance();
      }
      FailureOr<ConfigAttr> cfg = selectConfig(op, chip, route, static_cast<int64_t>(warps),
                                                 static_cast<int64_t>(blockN));
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
