//===- LaneForms.cpp - the per-lane form of every tile value --------------===//
#include "fmha/Conversion/FmhaToGPU/LaneForms.h"
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

#include <map>

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Rows of `bytes` that the chip's swizzle layout holds whole: widths of
/// 32, 64 or 128 bytes, or column groups of 128.
bool wholeSwizzleRows(const TargetInfo &ti, int64_t bytes) {
  int64_t w = ti.ldsSwizzleBytes(bytes);
  return (w == 32 || w == 64 || w == 128) && bytes % w == 0;
}
Type laneElem(Type t) {
  return t.isIndex() ? IntegerType::get(t.getContext(), 32) : t;
}
/// Whether the columns of `r` start at multiples of `len` on every lane.
bool runStartsAligned(ArrayRef<FragmentRun> runs) {
  for (const FragmentRun &r : runs) {
    if (r.col.c0 % r.len)
      return false;
    for (int64_t c : r.col.coef)
      if (c % r.len)
        return false;
  }
  return true;
}
} // namespace

int64_t LaneForms::spreadSlots(int64_t n) const {
  return spread->slots(n / layout->atomN);
}

int64_t mlir::fmha::stagedKVBytes(gpu::GPUFuncOp kernel) {
  llvm::MapVector<Operation *, int64_t> perLoop;
  llvm::DenseMap<Operation *, int64_t> gathers;
  kernel.walk([&](GatherKVOp g) {
    VectorType t = g.getTile().getType();
    perLoop[g->getParentOp()] += t.getNumElements() * t.getElementTypeBitWidth() / 8;
    ++gathers[g->getParentOp()];
  });
  int64_t bytes = 0, kvLoopBytes = 0;
  for (auto [parent, n] : perLoop) {
    // An unrolled loop's copies share the first copy's buffers (LowerTiles,
    // when the copies stage as many tiles each).
    if (auto u = parent->getAttrOfType<IntegerAttr>(kUnrolledAttr);
        u && u.getInt() > 1 && gathers[parent] % u.getInt() == 0)
      n /= u.getInt();
    if (parent->hasAttr(kKVLoopAttr))
      kvLoopBytes = std::max(kvLoopBytes, n);
    else
      bytes += n;
  }
  return bytes + kvLoopBytes;
}

int64_t mlir::fmha::ringBytes(gpu::GPUFuncOp kernel) {
  std::map<int64_t, int64_t> rings;
  kernel.walk([&](StageKVOp s) {
    auto t = cast<VectorType>(s.getTileType());
    rings[s.getRing()] = s.getStages() * t.getNumElements() * t.getElementTypeBitWidth() / 8;
  });
  int64_t bytes = 0;
  for (auto [ring, n] : rings)
    bytes += n;
  return bytes;
}

bool LaneForms::isSplat(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    return isa<SplatElementsAttr>(c.getValue());
  if (auto b = v.getDefiningOp<vector::BroadcastOp>())
    return !isa<VectorType>(b.getSource().getType());
  return false;
}

void LaneForms::typesOf(const ValueForm &f, MLIRContext *ctx,
                        SmallVectorImpl<Type> &out) const {
  auto vec = [&](Type e) { return VectorType::get({accPerLane}, e); };
  Type i32 = IntegerType::get(ctx, 32);
  switch (f.kind) {
  case FormKind::Acc:
  case FormKind::P:
    out.append(f.atoms, vec(f.elem));
    return;
  case FormKind::RowBcast:
    out.append(layout->slots(), f.elem);
    return;
  case FormKind::QOperand:
    // qPerLane counts the MMA's operand bytes: elements of a 16-bit MMA
    // take two (a 16-bit Q quantized for an fp8 MMA has one per byte).
    out.append(f.atoms, VectorType::get({layout->qPerLane() / layout->atom.elemBytes},
                                        f.elem));
    return;
  case FormKind::KV:
    out.push_back(MemRefType::get(
        {f.ldsRows * f.ldsCols}, IntegerType::get(ctx, 8), AffineMap(),
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)));
    return;
  case FormKind::Affine:
    out.push_back(i32);
    return;
  case FormKind::Mask:
    out.append((f.lb ? f.atoms : 0) + (f.ub ? f.atoms : 0), vec(i32));
    return;
  case FormKind::Vec:
    if (f.row)
      out.append(layout->slots(), f.elem);
    if (f.col)
      out.append(f.atoms, vec(f.elem));
    if (f.aff)
      out.push_back(i32);
    if (f.spread)
      out.push_back(VectorType::get({spread->slots(f.atoms)}, f.elem));
    return;
  case FormKind::TokenIds:
    return;
  }
}

LogicalResult LaneForms::analyze(gpu::GPUFuncOp kernel, const LaneLayout &l,
                                 const TargetInfo &target, ConfigAttr c) {
  cfg = c;
  layout = &l;
  ti = &target;
  accPerLane = l.accPerLane();
  kvBytes = stagedKVBytes(kernel);
  forms.clear();
  kLoadsIntoLds = false;
  kernel.walk([&](StageKVOp s) {
    kLoadsIntoLds |= target.ldsLoadBytes() && s.getStages() == 1;
  });
  spread = planSpread(l, target.groupBroadcastLanes(), target.groupBroadcastStride());
  if (cfg.getPageRegime() == PageRegime::Unset || cfg.getVdRoute() == VdRoute::Unset)
    return laneError(kernel, target,
                     "the kernel's config leaves page_regime or vd_route unset "
                     "(fmha-select-config takes them)");
  for (Operation &op : kernel.getBody().front())
    if (failed(visit(&op)))
      return failure();
  pruneSplats(kernel);
  // No chunk-major tiles in a kernel whose values take the spread form
  // (per-key descales at pages of 1 or 48 keys): its VGPRs are full and
  // llvm-mca put 32-35% more cycles on its loop, whose LDS reads LLVM then
  // serialized (bench/NOTES.md, 2026-12-07).
  if (llvm::any_of(forms, [](const auto &e) { return e.second.spread; }))
    for (auto &e : forms)
      e.second.bankSwizzle = false;
  return success();
}

LogicalResult LaneForms::visit(Operation *op) {
  auto fail = [&](const Twine &msg) { return laneError(op, *ti, msg); };
  auto has = [&](Value v) { return forms.count(v) > 0; };
  auto kindOf = [&](Value v) { return forms.find(v)->second.kind; };
  auto set = [&](Value v, ValueForm f) {
    if (!f.elem)
      f.elem = laneElem(getElementTypeOrSelf(v.getType()));
    forms[v] = f;
    return success();
  };
  auto atomsOf = [&](Value v) {
    return cast<VectorType>(v.getType()).getShape().back() / layout->atomN;
  };
  const int64_t atomN = layout->atomN;

  if (isa<scf::ForOp>(op))
    return visitFor(op);
  if (auto i = dyn_cast<scf::IfOp>(op)) {
    if (i.getNumResults())
      return fail("only uniform scf.if without results");
    for (Region &r : i->getRegions())
      for (Block &b : r)
        for (Operation &o : b)
          if (failed(visit(&o)))
            return failure();
    return success();
  }
  if (auto x = dyn_cast<LoadRowsOp>(op)) {
    VectorType t = x.getResult().getType();
    if (t.getRank() != 2)
      return fail("only 2-d row loads");
    // A 16-bit Q reaches the fp8 MMA through fmha.quantize_tile (config
    // q_scale = per_tile): loaded in the operand layout, 16-bit elements.
    bool quantized =
        t.getElementType().getIntOrFloatBitWidth() == 16 && !x->use_empty() &&
        llvm::all_of(x->getUsers(), llvm::IsaPred<QuantizeTileOp>);
    // An fp8 Q of the cache's family may differ from the cache's type: every
    // chip's MMA takes e4m3 x e5m2 (gfx942 v_mfma_*_fp8_bf8, gfx950's
    // f8f6f4 formats per operand, mma.sync / wgmma .e4m3.e5m2).
    if (!quantized && !ti->mmaAtom(t.getElementType()))
      return fail("Q of type ")
             << t.getElementType() << " must be an fp8 type the MMA takes with the "
             << "KV cache's " << layout->atom.aElem
             << (t.getElementType().getIntOrFloatBitWidth() == 16
                     ? " or be quantized per tile (fmha.quantize_tile, config "
                       "q_scale = per_tile)"
                     : "");
    if (!runStartsAligned(layout->qRuns))
      return fail("operand run start not aligned");
    // sm_90a: an fp8 Q is staged in shared memory like K (S = Q K^T with
    // both operands read by the MMA: the SS form) where its BlockM rows of D
    // bytes fit beside the K and V tiles; otherwise, and for a Q quantized
    // per tile (in operand registers), it stays in registers, the A operand
    // of the RS form (wgmma's register fragment is mma.sync's per warp).
    if (ti->warpgroupMma() && !quantized) {
      ValueForm f{FormKind::KV};
      f.ldsRows = t.getDimSize(0);
      f.ldsCols = t.getDimSize(1) * layout->atom.elemBytes;
      if (f.ldsRows != 64)
        return fail("the warpgroup MMA takes 64 query rows; this Q tile has ")
               << f.ldsRows;
      if (wholeSwizzleRows(*ti, f.ldsCols) &&
          f.ldsRows * f.ldsCols + kvBytes <= ti->sharedMemoryBytesPerBlock())
        return set(x.getResult(), f);
    }
    ValueForm f{FormKind::QOperand};
    f.atoms = t.getDimSize(1) * layout->atom.elemBytes / layout->atom.k;
    f.elem = t.getElementType();
    return set(x.getResult(), f);
  }
  if (auto x = dyn_cast<QuantizeTileOp>(op)) {
    const ValueForm *in = lookup(x.getTile());
    if (!in || in->kind != FormKind::QOperand)
      return fail("quantizes only a Q tile in operand registers");
    Type q8 = x.getResult().getType().getElementType();
    if (!ti->mmaAtom(q8))
      return fail("quantizes to ") << q8 << ", which the MMA does not take";
    ValueForm f = *in;
    f.elem = q8;
    return set(x.getResult(), f);
  }
  if (auto x = dyn_cast<StoreRowsOp>(op)) {
    Value v = x.getValue();
    if (isVector1D(v)) {
      if (!has(v) || !forms[v].row)
        return fail("1-d store of a vector without row form");
      return success();
    }
    if (!has(v) || kindOf(v) != FormKind::Acc)
      return fail("stores only accumulator-layout tiles");
    return success();
  }
  if (auto x = dyn_cast<PageIdsOp>(op)) {
    if (isa<VectorType>(x.getIds().getType()))
      return set(x.getIds(), ValueForm{FormKind::TokenIds});
    return success();
  }
  if (auto x = dyn_cast<GatherDescaleOp>(op)) {
    if (!isa<VectorType>(x.getResult().getType()))
      return success();
    auto ids = x.getIds().getDefiningOp<PageIdsOp>();
    if (!ids || !has(ids.getIds()))
      return fail("per-key descales need their page_ids in the same tile "
                  "(run fmha-prefetch-page-ids with per-token=false)");
    ValueForm f{FormKind::Vec};
    f.atoms = atomsOf(x.getResult());
    // Where the column form's loads are not wave-uniform (a lane loads an
    // id and a descale per group of its elements: 64 at page 1 on
    // AMDGPU), the spread form loads a lane's share of them, and the
    // users that need columns take them by group broadcasts.
    bool aligned = cfg.getPageRegime() != PageRegime::Unaligned;
    if (spread && spread->fits(*layout, f.atoms) &&
        !descaleLoadsUniform(*layout, f.atoms * atomN, ids.getPageSize(), aligned))
      f.spread = true;
    else
      f.col = true;
    return set(x.getResult(), f);
  }
  // Descales staged by the producer (fmha-warp-specialize stage-descales):
  // read from shared memory a group of keys at a time, in columns.
  if (auto x = dyn_cast<StagedDescaleOp>(op)) {
    ValueForm f{FormKind::Vec};
    f.atoms = atomsOf(x.getResult());
    f.col = true;
    return set(x.getResult(), f);
  }
  if (auto x = dyn_cast<StageDescaleOp>(op)) {
    auto ids = x.getIds().getDefiningOp<PageIdsOp>();
    if (!ids || !has(ids.getIds()))
      return fail("per-key descales need their page_ids in the same tile");
    return success();
  }
  // A tile's shape in 16-byte chunks, and the cache a gather or a stage
  // reads (the page ids it takes, the page size).
  auto checkTile = [&](VectorType t) -> LogicalResult {
    int64_t bn = t.getDimSize(0), d = t.getDimSize(1);
    if (t.getElementType() != layout->atom.aElem)
      return fail("cache type ") << t.getElementType() << " differs from the MMA's "
                                 << layout->atom.aElem;
    int64_t threads = cfg.getWarps() * layout->wave;
    // Rows of d elements are d * elemBytes bytes (a 16-bit cache's twice).
    int64_t eb = layout->atom.elemBytes;
    int64_t chunk = 16, perRow = d * eb / chunk;
    if ((d * eb) % chunk || (bn * perRow) % threads || (bn & (bn - 1)))
      return fail("tile ") << bn << "x" << d << " does not split into 16-byte "
                           << "chunks over " << threads << " threads";
    return success();
  };
  auto checkCache = [&](Value cache, Value idsV, KVLayout kvLayout) -> LogicalResult {
    if (isa<VectorType>(idsV.getType()) && !idsV.getDefiningOp<PageIdsOp>())
      return fail("per-token page ids must come from fmha.page_ids of the "
                  "same tile (run fmha-prefetch-page-ids with per-token=false)");
    // The slot of a key in its page is key % P, P the cache's page dim.
    auto cacheT = cast<MemRefType>(cache.getType());
    int64_t pageDim = cacheT.getDimSize(kvLayout == KVLayout::NHD ? 1 : 2);
    if (ShapedType::isDynamic(pageDim))
      return fail("the cache's page dimension must be static");
    if (auto ids = idsV.getDefiningOp<PageIdsOp>();
        ids && static_cast<int64_t>(ids.getPageSize()) != pageDim)
      return fail("page_ids has page_size ")
             << ids.getPageSize() << " but the cache's pages hold " << pageDim;
    return success();
  };
  if (auto x = dyn_cast<StageKVOp>(op)) {
    // Loads straight into LDS (AMDGPU) take one-stage rings of fp8 tiles
    // read through a bounded view (a static row stride).
    bool ldsLoads = ti->ldsLoadBytes() && x.getStages() == 1;
    if (!ti->hasAsyncCopies() && !ldsLoads)
      return fail("fmha.stage_kv needs asynchronous copies into shared "
                  "memory, which this chip's lowering does not have (loads "
                  "into LDS take rings of one stage)");
    if (ldsLoads) {
      SmallVector<int64_t> strides;
      int64_t offset;
      auto cacheT = cast<MemRefType>(x.getCache().getType());
      bool nhd = x.getKvLayout() == KVLayout::NHD;
      if (failed(cacheT.getStridesAndOffset(strides, offset)) ||
          ShapedType::isDynamic(strides[nhd ? 1 : 2]) ||
          cacheT.getElementTypeBitWidth() != 8)
        return fail("loads into LDS need an fp8 cache with a static row stride");
    }
    auto t = cast<VectorType>(x.getTileType());
    if (failed(checkTile(t)) || failed(checkCache(x.getCache(), x.getIds(), x.getKvLayout())))
      return failure();
    return success();
  }
  if (isa<GatherKVOp, StagedKVOp>(op)) {
    Value tile = op->getResult(0);
    bool isK = false, isV = false;
    for (Operation *u : tile.getUsers()) {
      auto mma = dyn_cast<TileMmaOp>(u);
      if (!mma || mma.getRhs() != tile)
        return fail("KV tiles may only feed tile_mma as its right operand");
      (mma.getTransposeRhs() ? isK : isV) = true;
    }
    if (isK == isV)
      return fail("a KV tile must be used as exactly one of K and V");
    VectorType t = cast<VectorType>(tile.getType());
    int64_t bn = t.getDimSize(0), d = t.getDimSize(1);
    int64_t eb = layout->atom.elemBytes;
    if (failed(checkTile(t)))
      return failure();
    if (auto x = dyn_cast<GatherKVOp>(op);
        x && failed(checkCache(x.getCache(), x.getIds(), x.getKvLayout())))
      return failure();
    if (isV && !fitBits(bn, [&](int64_t key) { return ti->pvKeyPosition(key); }))
      return fail("pvKeyPosition is not linear in the key bits");
    if (isK && !runStartsAligned(layout->kvRuns))
      return fail("operand run start not aligned");
    ValueForm f{FormKind::KV};
    f.isV = isV;
    // A gathered V is staged row-major where the chip reads its operand by
    // transpose loads (a staged_kv's ring is K's layout, transposed by the
    // lanes: chips with async copies have no transpose loads).
    // (transposedVOperand's reads: a 32x32x64 atom, whole k steps of 64
    // keys and a bit-linear inverse of pvKeyPosition; else V^T as before.)
    auto staged = dyn_cast<StagedKVOp>(op);
    auto filler = staged ? dyn_cast_or_null<StageKVOp>(staged.getFiller()) : StageKVOp();
    bool rowMajorStage = filler && ti->ldsLoadBytes() && filler.getStages() == 1;
    f.vRowMajor = isV && (isa<GatherKVOp>(op) || rowMajorStage) && ti->transposeLoadsV() &&
                  layout->atom.k == 64 && layout->atom.m == 32 && bn % 64 == 0 &&
                  pvKeyInverse(*ti, bn).has_value();
    bool vt = f.transposedInLds();
    f.ldsRows = vt ? d : bn;
    f.ldsCols = (vt ? bn : d) * eb;
    // Chunk-major (the bank swizzle, bench/NOTES.md 2026-12-07) where the
    // lanes write the tile. Row-major stay: a staged tile read in place
    // (its ring's stage, row-major: LowerTiles), and every K (or row-major
    // V) tile of a kernel whose rings load straight into LDS, whose masked
    // tiles' gathers reuse the ring's buffer (a wave's chunk-major stores
    // there landed among another wave's loads still in flight: the lane
    // emulator's --waves-in-turn, gfx942 --lds-loads, page 64). K needs
    // rows of 128 bytes or more (at 64, D 64, a row-major K's reads
    // conflict 4-way, not 8, and the layout put D 64 0.5 instructions a
    // tile over its goal); a V^T, k steps that pair into 16-byte runs.
    bool keepRowMajor = !vt && (kLoadsIntoLds || staged);
    int64_t kSteps = (vt ? bn * eb : d * eb) / layout->atom.k;
    f.bankSwizzle =
        bankSwizzle && !ti->warpgroupMma() && !keepRowMajor && f.ldsCols % 16 == 0 &&
        (vt ? layout->kvRuns.size() == 1 && kSteps % 2 == 0 &&
                  2 * layout->kvRuns[0].len == 16
            : f.ldsCols >= 128);
    if (ti->warpgroupMma()) {
      // The warpgroup MMA: one warpgroup, B rows of whole swizzle widths
      // (32, 64 or 128 bytes, or a multiple of 128), N = rows <= 256.
      if (cfg.getWarps() * layout->wave != 128)
        return fail("the warpgroup MMA needs one warpgroup (4 warps of 32), "
                    "the config has ")
               << cfg.getWarps() << " warps";
      if (!wholeSwizzleRows(*ti, f.ldsCols))
        return fail("the warpgroup MMA reads staged rows of 32, 64 or a "
                    "multiple of 128 bytes; this ")
               << (isV ? "V^T" : "K") << " tile's rows hold " << f.ldsCols;
      if (f.ldsRows > 256 || f.ldsRows % 8)
        return fail("the warpgroup MMA's N (")
               << f.ldsRows << ") must be a multiple of 8 up to 256";
    }
    return set(tile, f);
  }
  if (auto x = dyn_cast<MmaWaitOp>(op)) {
    if (!has(x.getProduct()))
      return fail("operands were not lowered");
    return set(x.getResult(), forms[x.getProduct()]);
  }
  if (auto x = dyn_cast<TileMmaOp>(op)) {
    if (!has(x.getLhs()) || !has(x.getRhs()) || !has(x.getAcc()))
      return fail("operands were not lowered");
    const ValueForm &lhs = forms[x.getLhs()], &rhs = forms[x.getRhs()],
                    &acc = forms[x.getAcc()];
    if (rhs.kind != FormKind::KV || acc.kind != FormKind::Acc)
      return fail("expects a staged KV tile and an accumulator");
    if (x.getTransposeRhs()) {
      bool qOk = lhs.kind == FormKind::QOperand ||
                 (ti->warpgroupMma() && lhs.kind == FormKind::KV && !lhs.isV);
      if (!qOk || rhs.isV)
        return fail(ti->warpgroupMma()
                        ? "Q K^T expects a staged Q tile or Q operand registers, "
                          "and a K tile"
                        : "Q K^T expects Q operand registers and a K tile");
    } else {
      if (lhs.kind != FormKind::P || !rhs.isV)
        return fail("P V expects fp8 P from scores and a V tile");
      int64_t keyBytes = rhs.vKeyBytes(layout->atom.elemBytes);
      if (failed(layout->pvOperandElems(*ti, keyBytes / layout->atom.elemBytes, op)))
        return failure();
      VdRoute route = cfg.getVdRoute();
      bool perKey = route == VdRoute::PageGroups || route == VdRoute::ScaledP;
      if (bool(x.getKScale()) != perKey)
        return fail("the P V product ")
               << (x.getKScale() ? "has" : "has no")
               << " per-key V descales but the config's vd_route is "
               << stringifyVdRoute(route);
      if (x.getKScale()) {
        const ValueForm *ks = lookup(x.getKScale());
        if (!ks || ks->kind != FormKind::Vec || !(ks->col || ks->aff || ks->spread))
          return fail("k_scale has no column form");
      }
      int64_t steps = keyBytes / layout->atom.k;
      if (route == VdRoute::PageGroups &&
          (cfg.getPvGroup() < 1 || steps % cfg.getPvGroup()))
        return fail("config pv_group = ")
               << cfg.getPvGroup() << " does not divide the tile's " << steps
               << " k steps";
      // A page group scales its steps by one page's vd: its keys must lie in
      // one page (a consistency check of the config, not a decision).
      // (fmha-fold-vd-rescale divides the gathered scales by the first
      // key's: look through that division.)
      Value ksV = x.getKScale();
      if (auto div = ksV ? ksV.getDefiningOp<arith::DivFOp>() : arith::DivFOp())
        ksV = div.getLhs();
      auto gd = ksV ? ksV.getDefiningOp<GatherDescaleOp>() : GatherDescaleOp();
      auto ids = gd ? gd.getIds().getDefiningOp<PageIdsOp>() : PageIdsOp();
      int64_t groupKeys = cfg.getPvGroup() * layout->atom.k / layout->atom.elemBytes;
      if (route == VdRoute::PageGroups && ids && ids.getPageSize() % groupKeys)
        return fail("config vd_route = page_groups with pv_group = ")
               << cfg.getPvGroup() << ": a group of " << groupKeys
               << " keys does not lie in one page of " << ids.getPageSize();
      // fmha.unit_first_page: the first group (accumulated unscaled) must
      // hold the tile's first keys, the ones whose scale is 1.
      if (route == VdRoute::PageGroups && x->hasAttr(kUnitFirstPageAttr))
        for (int64_t key = 0; key < groupKeys; ++key)
          if (ti->pvKeyPosition(key) >= groupKeys)
            return fail("fmha.unit_first_page: the chip's pvKeyPosition moves "
                        "key ")
                   << key << " out of the first page group of " << groupKeys << " keys";
    }
    return set(x.getResult(), acc);
  }
  if (auto r = dyn_cast<WarpRolesOp>(op)) {
    // Each role's ops as if they were the kernel's (LowerTiles gives each
    // role the lane values of its own warpgroup).
    if (!ti->hasWarpRoles())
      return fail("fmha.warp_roles needs a chip with warp roles (mbarriers, "
                  "named barriers, setmaxnreg: sm_90a)");
    for (Region *reg : {&r.getProducer(), &r.getConsumer()})
      for (Operation &o : reg->front())
        if (failed(visit(&o)))
          return failure();
    return success();
  }
  if (op->getNumRegions())
    return fail("ops with regions other than scf.for, scf.if and "
                "fmha.warp_roles are not lowered to lanes");
  bool vec = llvm::any_of(op->getOperandTypes(), llvm::IsaPred<VectorType>) ||
             llvm::any_of(op->getResultTypes(), llvm::IsaPred<VectorType>);
  if (!vec)
    return success();
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (!isa<SplatElementsAttr>(c.getValue()))
      return fail("only splat vector constants are supported");
    ValueForm f{isVector2D(c) ? FormKind::Acc : FormKind::Vec};
    f.atoms = atomsOf(c);
    f.row = f.col = !isVector2D(c);
    return set(c, f);
  }
  if (auto x = dyn_cast<vector::BroadcastOp>(op)) {
    Value src = x.getSource();
    VectorType t = x.getResultVectorType();
    ValueForm f{FormKind::Acc};
    f.atoms = t.getShape().back() / atomN;
    if (!isa<VectorType>(src.getType())) {
      if (t.getRank() == 1) {
        f.kind = FormKind::Vec;
        f.row = f.col = true;
      }
      return set(x, f);
    }
    const ValueForm *s = lookup(src);
    if (isVector1D(src) && t.getRank() == 2) {
      if (s && s->aff && !s->col) {
        f.kind = FormKind::Affine;
        return set(x, f);
      }
      // (A spread vector's columns are made where they are used: LaneContext::colsOf.)
      if (!s || !(s->col || s->spread))
        return fail("broadcast of a vector that has no column form");
      return set(x, f);
    }
    if (isVector2D(src) && s && s->kind == FormKind::RowBcast)
      return set(x, f);
    return fail("unsupported broadcast");
  }
  if (auto x = dyn_cast<vector::MultiDimReductionOp>(op)) {
    const ValueForm *s = lookup(x.getSource()), *a = lookup(x.getAcc());
    if (x.getReductionDims().size() != 1 || x.getReductionDims()[0] != 1 || !s ||
        s->kind != FormKind::Acc || !a || !a->row)
      return fail("only row reductions (dim 1) of accumulator tiles");
    using K = vector::CombiningKind;
    if (!llvm::is_contained({K::MAXIMUMF, K::MAXNUMF, K::ADD}, x.getKind()) ||
        !isa<FloatType>(x.getSourceVectorType().getElementType()))
      return fail("unsupported reduction kind (maximumf, maxnumf or add of f32 "
                  "tiles)");
    ValueForm f{FormKind::Vec};
    f.row = true;
    f.atoms = atomsOf(x.getResult());
    return set(x.getResult(), f);
  }
  if (auto x = dyn_cast<math::Exp2Op>(op)) {
    const ValueForm *s = lookup(x.getOperand());
    if (!s)
      return fail("operand was not lowered");
    if (isVector2D(x)) {
      if (s->kind != FormKind::Acc)
        return fail("exp2 of a tile that is not in accumulator layout");
      return set(x, *s);
    }
    ValueForm f{FormKind::Vec};
    f.row = s->row;
    f.col = s->col && !s->spread;
    f.spread = s->spread;
    f.atoms = s->atoms;
    if (!f.row && !f.col && !f.spread)
      return fail("exp2 of a vector with no row or column form");
    return set(x, f);
  }
  if (auto x = dyn_cast<math::Log2Op>(op)) {
    // log2 of a row or column vector (fmha-fold-vd-exp2: log2 of vd per key).
    const ValueForm *s = lookup(x.getOperand());
    if (!s || s->kind != FormKind::Vec || !(s->row || s->col || s->spread) || s->aff)
      return fail("only row and column vectors take a log2");
    ValueForm f{FormKind::Vec};
    f.row = s->row;
    f.col = s->col && !s->spread;
    f.spread = s->spread;
    f.atoms = s->atoms;
    return set(x, f);
  }
  if (auto x = dyn_cast<math::LogOp>(op)) {
    const ValueForm *s = lookup(x.getOperand());
    if (!s || s->kind != FormKind::Vec || !s->row)
      return fail("only row vectors take a log");
    ValueForm f{FormKind::Vec};
    f.row = true;
    f.atoms = s->atoms;
    return set(x, f);
  }
  if (auto x = dyn_cast<vector::StepOp>(op)) {
    ValueForm f{FormKind::Vec};
    f.row = f.aff = true;
    f.atoms = atomsOf(x);
    return set(x, f);
  }
  if (auto x = dyn_cast<vector::ShapeCastOp>(op)) {
    VectorType t = x.getResultVectorType();
    const ValueForm *s = lookup(x.getSource());
    if (t.getRank() == 2 && t.getDimSize(1) == 1 && s && s->kind == FormKind::Vec &&
        s->row) {
      ValueForm f{FormKind::RowBcast};
      return set(x, f);
    }
    return fail("unsupported shape_cast");
  }
  if (auto x = dyn_cast<arith::TruncFOp>(op)) {
    Type elem = getElementTypeOrSelf(x.getType());
    bool onlyMma = !x->use_empty() && llvm::all_of(x->getUsers(), [&](Operation *u) {
      auto m = dyn_cast<TileMmaOp>(u);
      return m && m.getLhs() == x.getResult();
    });
    // P's cast: to fp8, or to 16 bits for a 16-bit cache's MMA (a 16-bit
    // cast that feeds no product, O's, is elementwise).
    bool p16 = elem.getIntOrFloatBitWidth() == 16 && onlyMma;
    if (isa<FloatType>(elem) && (elem.getIntOrFloatBitWidth() == 8 || p16) &&
        isVector2D(x.getIn())) {
      if (!onlyMma)
        return fail("fp8 tiles may only feed the P V product");
      const ValueForm *s = lookup(x.getIn());
      if (!s || s->kind != FormKind::Acc)
        return fail("operand is not an accumulator-layout tile");
      ValueForm f = *s;
      f.kind = FormKind::P;
      f.fp8 = elem;
      return set(x, f);
    }
  }
  if (op->getNumResults() == 1 && op->hasTrait<OpTrait::Elementwise>() &&
      op->getDialect()->getNamespace() == "arith")
    return visitElementwise(op);
  return fail("is not supported on vectors by the GPU lowering");
}

LogicalResult LaneForms::visitElementwise(Operation *op) {
  auto fail = [&](const Twine &msg) { return laneError(op, *ti, msg); };
  Value res = op->getResult(0);
  auto formOf = [&](Value v) { return lookup(v); };
  auto isKind = [&](Value v, FormKind k) {
    const ValueForm *f = formOf(v);
    return f && f->kind == k;
  };
  ValueForm out;
  out.elem = laneElem(getElementTypeOrSelf(res.getType()));
  out.atoms = cast<VectorType>(res.getType()).getShape().back() / layout->atomN;
  if (isVector2D(res)) {
    if (isa<arith::AddIOp>(op))
      for (int i = 0; i < 2; ++i)
        if (isKind(op->getOperand(i), FormKind::Affine) &&
            isSplat(op->getOperand(1 - i))) {
          out.kind = FormKind::Affine;
          forms[res] = out;
          return success();
        }
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      Value l = cmp.getLhs(), r = cmp.getRhs();
      using P = arith::CmpIPredicate;
      P pred = cmp.getPredicate();
      if (!isKind(l, FormKind::Affine) && isKind(r, FormKind::Affine)) {
        std::swap(l, r);
        pred = pred == P::slt ? P::sgt : pred == P::sgt ? P::slt
             : pred == P::sle ? P::sge : pred == P::sge ? P::sle : pred;
      }
      if (isKind(l, FormKind::Affine) && !isKind(r, FormKind::Affine) &&
          formOf(r) && llvm::is_contained({P::slt, P::sle, P::sgt, P::sge}, pred)) {
        out.kind = FormKind::Mask;
        (pred == P::slt || pred == P::sle ? out.ub : out.lb) = true;
        forms[res] = out;
        return success();
      }
    }
    if (auto a = dyn_cast<arith::AndIOp>(op)) {
      const ValueForm *x = formOf(a.getLhs()), *y = formOf(a.getRhs());
      if (x && y && x->kind == FormKind::Mask && y->kind == FormKind::Mask) {
        out.kind = FormKind::Mask;
        out.lb = x->lb || y->lb;
        out.ub = x->ub || y->ub;
        forms[res] = out;
        return success();
      }
    }
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      Value c = sel.getCondition();
      if (isVector2D(c) && isKind(c, FormKind::Mask) && formOf(sel.getTrueValue()) &&
          formOf(sel.getFalseValue())) {
        out.kind = FormKind::Acc;
        forms[res] = out;
        return success();
      }
    }
    for (Value o : op->getOperands()) {
      if (!isVector2D(o))
        continue;
      const ValueForm *f = formOf(o);
      if (!f || (f->kind != FormKind::Acc && f->kind != FormKind::Affine &&
                 f->kind != FormKind::Mask))
        return fail("operand is not an accumulator-layout tile");
    }
    out.kind = FormKind::Acc;
    forms[res] = out;
    return success();
  }
  out.kind = FormKind::Vec;
  if (isa<arith::AddIOp>(op))
    for (int i = 0; i < 2; ++i) {
      const ValueForm *f = formOf(op->getOperand(i));
      if (f && f->aff && isSplat(op->getOperand(1 - i)))
        out.aff = true;
    }
  bool allRow = true, allCol = !out.aff, allSpread = !out.aff, anySpread = false;
  for (Value o : op->getOperands()) {
    if (!isVector1D(o))
      continue;
    const ValueForm *f = formOf(o);
    allRow &= f && f->row;
    allCol &= f && (f->col || f->aff || f->spread);
    // A splat takes any form (pruneSplats); the spread form is computed
    // from its scalar.
    allSpread &= f && (f->spread || isSplat(o));
    anySpread |= f && f->spread;
  }
  out.row = allRow;
  // The broadcasts move 32-bit values: a result of another width (a
  // compare's i1) is computed in columns from its operands'.
  out.spread = allSpread && anySpread && out.elem.getIntOrFloatBitWidth() == 32;
  // Computed in columns: operands only in the spread form make theirs
  // where they are used (LaneContext::colsOf).
  out.col = allCol && !out.spread;
  if (!allRow && !allCol && !out.aff && !out.spread)
    return fail("mixes row and column vectors");
  forms[res] = out;
  return success();
}

LogicalResult LaneForms::visitFor(Operation *op) {
  auto f = cast<scf::ForOp>(op);
  auto fail = [&](const Twine &msg) { return laneError(op, *ti, msg); };
  auto carried = [&](Value v) {
    ValueForm c;
    c.elem = laneElem(getElementTypeOrSelf(v.getType()));
    c.atoms = cast<VectorType>(v.getType()).getShape().back() / layout->atomN;
    c.kind = isVector1D(v) ? FormKind::Vec : FormKind::Acc;
    c.row = isVector1D(v);
    return c;
  };
  for (Value init : f.getInitArgs()) {
    if (!isa<VectorType>(init.getType()))
      continue;
    const ValueForm *i = lookup(init);
    if (isVector1D(init) && (!i || !i->row))
      return fail("carried 1-d vector has no row form");
    if (isVector2D(init) && (!i || i->kind != FormKind::Acc))
      return fail("carried tile is not in accumulator layout");
  }
  for (auto [arg, res] : llvm::zip(f.getRegionIterArgs(), f.getResults()))
    if (isa<VectorType>(arg.getType())) {
      forms[arg] = carried(arg);
      forms[res] = carried(res);
    }
  for (Operation &o : f.getBody()->without_terminator())
    if (failed(visit(&o)))
      return failure();
  auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
  for (Value v : yield.getOperands()) {
    if (!isa<VectorType>(v.getType()))
      continue;
    const ValueForm *y = lookup(v);
    if (isVector1D(v) && (!y || !y->row))
      return fail("yielded 1-d vector has no row form");
    if (isVector2D(v) && (!y || y->kind != FormKind::Acc))
      return fail("yielded tile is not in accumulator layout");
    if (isVector1D(v) && !isSplat(v) && (y->col || y->aff || y->spread))
      return fail("a yielded 1-d vector must have its row form only");
  }
  for (Value init : f.getInitArgs())
    if (isVector1D(init) && !isSplat(init) &&
        (forms[init].col || forms[init].aff || forms[init].spread))
      return fail("a carried 1-d vector must have its row form only");
  return success();
}

void LaneForms::pruneSplats(gpu::GPUFuncOp kernel) {
  // A 1-d splat takes the forms its users need (and the loop that carries
  // it, its row form only).
  kernel.walk([&](Operation *op) {
    if (op->getNumResults() != 1 || !isVector1D(op->getResult(0)) ||
        !isSplat(op->getResult(0)))
      return;
    Value v = op->getResult(0);
    bool row = false, col = false;
    for (OpOperand &use : v.getUses()) {
      Operation *u = use.getOwner();
      if (isa<scf::ForOp, scf::YieldOp, StoreRowsOp, vector::ShapeCastOp,
              vector::MultiDimReductionOp>(u)) {
        row = true;
      } else if (auto m = dyn_cast<TileMmaOp>(u)) {
        col |= m.getKScale() == v;
      } else if (auto b = dyn_cast<vector::BroadcastOp>(u)) {
        col = true;
        (void)b;
      } else if (const ValueForm *f = lookup(u->getNumResults() ? u->getResult(0)
                                                                : Value())) {
        row |= f->kind == FormKind::Vec && f->row;
        col |= f->kind == FormKind::Vec && f->col;
      } else {
        row = col = true;
      }
    }
    ValueForm &f = forms[v];
    f.row = row;
    f.col = col;
  });
}

LaneTypeConverter::LaneTypeConverter(MLIRContext *ctx, const LaneForms &forms)
    : laneForms(forms) {
  addConversion([](Type t) { return t; });
  // Added last, so tried first: the values that have a lane form.
  addConversion([this, ctx](Value v, SmallVectorImpl<Type> &out)
                    -> std::optional<LogicalResult> {
    const ValueForm *f = laneForms.lookup(v);
    if (!f)
      return std::nullopt;
    laneForms.typesOf(*f, ctx, out);
    return success();
  });
}
