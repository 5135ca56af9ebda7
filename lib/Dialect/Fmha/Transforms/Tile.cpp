//===- Tile.cpp - fmha-tile: batch_prefill to the tiled form ----------------===//
//
// Writes the kernel algorithm of docs/SPEC.md section 4 before any fold: a
// grid over (q tile, query head, sequence), a KV-tile loop carrying m, l, o,
// natural-exp online softmax with separate dequantization multiplies, and the
// P cast with an explicit 2^SHIFT scale. The fold passes then rewrite it.
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cmath>
#include <limits>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHATILE
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Builds the tiled form of one batch_prefill op at its position.
class TiledFormBuilder {
public:
  TiledFormBuilder(BatchPrefillOp op, ConfigAttr cfg)
      : op(op), cfg(cfg), b(op.getLoc(), op), f32(b.getF32Type()),
        idx(b.getIndexType()), bm(cfg.getBlockM()), bn(cfg.getBlockN()),
        d(op.getHeadDim()), dv(op.getHeadDimV()), pageSize(op.getPageSize()) {}

  void build();

private:
  // Constants and small helpers.
  Value cIdx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value cF32(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(static_cast<float>(v)));
  }
  Value splat(VectorType t, Value s) { return vector::BroadcastOp::create(b, t, s); }
  Value splatF(VectorType t, double v) { return splat(t, cF32(v)); }
  Value loadIdx(Value mem, ValueRange ids) {
    Value v = memref::LoadOp::create(b, mem, ids);
    return arith::IndexCastOp::create(b, idx, v);
  }
  Value loadScalar(Value mem) {
    auto t = cast<MemRefType>(mem.getType());
    SmallVector<Value> zeros(t.getRank(), cIdx(0));
    return memref::LoadOp::create(b, mem, zeros);
  }
  /// Broadcasts a per-row vector<BM> to vector<BM x N>.
  Value rowBcast(Value row, int64_t n) {
    auto t = cast<VectorType>(row.getType());
    auto col = VectorType::get({t.getDimSize(0), 1}, t.getElementType());
    Value c = vector::ShapeCastOp::create(b, col, row);
    return vector::BroadcastOp::create(
        b, VectorType::get({t.getDimSize(0), n}, t.getElementType()), c);
  }
  Value rowReduce(vector::CombiningKind kind, Value v, Value init) {
    return vector::MultiDimReductionOp::create(b, v, init, ArrayRef<bool>{false, true},
                                               kind);
  }

  void buildGridPoint(Value qt, Value h, Value bIdx);
  /// KV length and the sequence's page list for sequence `bIdx`.
  std::pair<Value, Value> sequencePages(Value bIdx);
  /// [lo, hi) of KV tiles some row of this q tile can see.
  std::pair<Value, Value> kvTileRange(Value row0, Value n, Value off, Value sk);

  BatchPrefillOp op;
  ConfigAttr cfg;
  ImplicitLocOpBuilder b;
  Type f32, idx;
  int64_t bm, bn, d, dv, pageSize;
  /// A window's bounds read from runtime_scalars[1..2] (index; -1 =
  /// unbounded), set per grid point; null when they are the mask's constants.
  Value winLeft, winRight;
};

void TiledFormBuilder::build() {
  Value c1 = cIdx(1);
  Value batch = arith::SubIOp::create(
      b, memref::DimOp::create(b, op.getQoIndptr(), 0), c1);

  // Longest query run in the batch: the grid's q-tile extent.
  auto maxLoop = scf::ForOp::create(b, cIdx(0), batch, c1, ValueRange{cIdx(0)});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(maxLoop.getBody());
    Value bi = maxLoop.getInductionVar();
    Value next = arith::AddIOp::create(b, bi, c1);
    Value sq = arith::SubIOp::create(b, loadIdx(op.getQoIndptr(), next),
                                     loadIdx(op.getQoIndptr(), bi));
    Value mx = arith::MaxSIOp::create(b, maxLoop.getRegionIterArgs()[0], sq);
    scf::YieldOp::create(b, mx);
  }
  Value numQTiles =
      arith::CeilDivSIOp::create(b, maxLoop.getResult(0), cIdx(bm));

  // Mapped to the workgroup ids x, y, z: besides saying so, the mapping
  // keeps canonicalize from folding a dimension of one iteration away (one
  // query head), which would leave the kernel a grid of rank 2.
  MLIRContext *ctx = b.getContext();
  ArrayAttr blocks = b.getArrayAttr(
      {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimY),
       gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimZ)});
  auto grid = scf::ForallOp::create(
      b, ArrayRef<OpFoldResult>{numQTiles, b.getIndexAttr(op.getNumQHeads()), batch},
      ValueRange{}, blocks);
  // The GPU conversion outlines this grid as the kernel; the config tells it
  // the chip and the workgroup size.
  grid->setAttr(kGridConfigAttr, cfg);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(grid.getBody());
  buildGridPoint(grid.getInductionVar(0), grid.getInductionVar(1),
                 grid.getInductionVar(2));
}

std::pair<Value, Value> TiledFormBuilder::sequencePages(Value bIdx) {
  Value c0 = cIdx(0), c1 = cIdx(1), p = cIdx(pageSize);
  Value next = arith::AddIOp::create(b, bIdx, c1);
  auto pagesType = MemRefType::get(
      {ShapedType::kDynamic}, b.getI32Type(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}));
  if (op.getPageTable() == PageTableForm::CSR) {
    Value p0 = loadIdx(op.getKvIndptr(), bIdx);
    Value np = arith::SubIOp::create(b, loadIdx(op.getKvIndptr(), next), p0);
    Value last = loadIdx(op.getKvLastPageLen(), bIdx);
    // Sk = (n - 1) * P + last, 0 without pages.
    Value full = arith::MulIOp::create(b, arith::SubIOp::create(b, np, c1), p);
    Value hasPages =
        arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, np, c0);
    Value sk = arith::SelectOp::create(
        b, hasPages, arith::AddIOp::create(b, full, last), c0);
    Value pages = memref::SubViewOp::create(
        b, pagesType, op.getKvPageIndices(), ArrayRef<OpFoldResult>{p0},
        ArrayRef<OpFoldResult>{np}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    return {sk, pages};
  }
  Value sk = loadIdx(op.getKvSeqlen(), bIdx);
  Value np = arith::CeilDivSIOp::create(b, sk, p);
  Value pages = memref::SubViewOp::create(
      b, pagesType, op.getBlockTable(),
      ArrayRef<OpFoldResult>{bIdx, b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), np},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  return {sk, pages};
}

std::pair<Value, Value> TiledFormBuilder::kvTileRange(Value row0, Value n,
                                                      Value off, Value sk) {
  Value c0 = cIdx(0);
  MaskAttr mask = op.getMask();
  // Keys [lo, hi) visible to rows row0 .. row0 + n - 1 (absolute row + off).
  Value lo = c0, hi = sk;
  Value first = arith::AddIOp::create(b, row0, off);
  Value last = arith::AddIOp::create(
      b, arith::AddIOp::create(b, row0, arith::SubIOp::create(b, n, cIdx(1))),
      off);
  if (mask.isCausal())
    hi = arith::MinSIOp::create(b, hi, arith::AddIOp::create(b, last, cIdx(1)));
  if (winRight) {
    // Run-time bounds: each applies when it is >= 0.
    Value c0i = cIdx(0);
    Value capHi = arith::MinSIOp::create(
        b, hi, arith::AddIOp::create(b, last, arith::AddIOp::create(b, winRight, cIdx(1))));
    hi = arith::SelectOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::sge, winRight, c0i), capHi, hi);
    Value capLo = arith::MaxSIOp::create(b, lo, arith::SubIOp::create(b, first, winLeft));
    lo = arith::SelectOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::sge, winLeft, c0i), capLo, lo);
  }
  if (!winRight && mask.isWindow() && mask.getRight() >= 0)
    hi = arith::MinSIOp::create(
        b, hi, arith::AddIOp::create(b, last, cIdx(mask.getRight() + 1)));
  if (!winRight && mask.isWindow() && mask.getLeft() >= 0)
    lo = arith::MaxSIOp::create(
        b, lo, arith::SubIOp::create(b, first, cIdx(mask.getLeft())));
  hi = arith::MaxSIOp::create(b, hi, c0);
  Value tLo = arith::DivSIOp::create(b, lo, cIdx(bn));
  Value tHi = arith::CeilDivSIOp::create(b, hi, cIdx(bn));
  tHi = arith::MaxSIOp::create(b, tHi, tLo);
  return {tLo, tHi};
}

void TiledFormBuilder::buildGridPoint(Value qt, Value h, Value bIdx) {
  Value c1 = cIdx(1);
  // A grid point past the batch (a launch sized for a larger batch, as a
  // captured CUDA / HIP graph is: docs/ABI.md) does nothing, before it reads
  // qo_indptr; the batch is qo_indptr's size - 1, a kernel argument.
  Value batch = arith::SubIOp::create(
      b, memref::DimOp::create(b, op.getQoIndptr(), 0), c1);
  auto inBatch = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::slt, bIdx, batch),
      /*withElseRegion=*/false);
  OpBuilder::InsertionGuard inBatchGuard(b);
  b.setInsertionPointToStart(&inBatch.getThenRegion().front());
  Value qStart = loadIdx(op.getQoIndptr(), bIdx);
  Value next = arith::AddIOp::create(b, bIdx, c1);
  Value sq = arith::SubIOp::create(b, loadIdx(op.getQoIndptr(), next), qStart);
  Value row0 = arith::MulIOp::create(b, qt, cIdx(bm));
  Value active = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, row0, sq);
  auto ifOp = scf::IfOp::create(b, active, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());

  // Run-time scalars (runtime_scalars): sm_scale as f32 bits, window
  // bounds, and with runtime_soft_cap the cap (f32 bits) and 1 / cap.
  Value smScale, rs = op.getRuntimeScalars(), rtCap, rtInvCap;
  winLeft = winRight = Value();
  if (rs && op.getRuntimeSoftCap()) {
    rtCap = arith::BitcastOp::create(
        b, f32, memref::LoadOp::create(b, rs, ValueRange{cIdx(3)}));
    rtInvCap = arith::DivFOp::create(b, cF32(1.0), rtCap);
  }
  if (rs) {
    Value bits = memref::LoadOp::create(b, rs, ValueRange{cIdx(0)});
    smScale = arith::BitcastOp::create(b, f32, bits);
    if (op.getMask().isWindow()) {
      winLeft = loadIdx(rs, cIdx(1));
      winRight = loadIdx(rs, cIdx(2));
    }
  }
  Value n = arith::MinSIOp::create(b, arith::SubIOp::create(b, sq, row0), cIdx(bm));
  Value qRow = arith::AddIOp::create(b, qStart, row0);
  auto [sk, pages] = sequencePages(bIdx);
  Value off = arith::SubIOp::create(b, sk, sq); // bottom-right alignment
  int64_t group = op.getNumQHeads() / op.getNumKVHeads();
  Value kvHead = arith::DivUIOp::create(b, h, cIdx(group));

  Type qElem = cast<MemRefType>(op.getQ().getType()).getElementType();
  Type kvElem = cast<MemRefType>(op.getKCache().getType()).getElementType();
  Value qTile = LoadRowsOp::create(b, VectorType::get({bm, d}, qElem), op.getQ(),
                                   qRow, h, n);

  // Descales outside the KV loop: qd always, kd/vd per tensor.
  QuantMode quant = op.getQuant();
  Value qd = quant == QuantMode::None ? cF32(1.0) : loadScalar(op.getQDescale());
  Value kdT, vdT;
  if (quant == QuantMode::PerTensor) {
    kdT = loadScalar(op.getKDescale());
    vdT = loadScalar(op.getVDescale());
  }
  Value scale = arith::MulFOp::create(
      b, qd, smScale ? smScale : cF32(op.getSmScaleOrDefault()));
  if (cfg.getQScale() == QScale::PerTile) {
    // A 16-bit Q for an fp8 MMA: the tile quantized to the chip's e4m3 (the
    // config's p_type: an e5m2 cache's MMA takes an e4m3 Q as its other
    // operand) with one descale, which joins the scale (fmha-fold-descales
    // puts it in sigma). config q_scale, SPEC section 4.
    auto q8 = QuantizeTileOp::create(b, VectorType::get({bm, d}, cfg.getPType()), f32,
                                     qTile);
    qTile = q8.getResult();
    scale = arith::MulFOp::create(b, scale, q8.getDescale());
  }

  auto rowT = VectorType::get({bm}, f32);
  auto sT = VectorType::get({bm, bn}, f32), oT = VectorType::get({bm, dv}, f32);
  double negInf = -std::numeric_limits<double>::infinity();
  auto [tLo, tHi] = kvTileRange(row0, n, off, sk);
  Value qPos = arith::AddIOp::create(b, row0, off); // row 0's absolute position
  auto loop = scf::ForOp::create(
      b, tLo, tHi, c1,
      ValueRange{splatF(rowT, negInf), splatF(rowT, 0.0), splatF(oT, 0.0)});
  // The fold and prefetch passes find the KV loop by this marker; its
  // iter_args start with m, l, o (kKVLoop* in Passes.h).
  loop->setAttr(kKVLoopAttr, b.getUnitAttr());
  {
    OpBuilder::InsertionGuard lg(b);
    b.setInsertionPointToStart(loop.getBody());
    Value m = loop.getRegionIterArgs()[0], l = loop.getRegionIterArgs()[1],
          o = loop.getRegionIterArgs()[2];
    Value t0 = arith::MulIOp::create(b, loop.getInductionVar(), cIdx(bn));
    // One page id per tile when the tile lies in one page (the config's
    // page_regime, decided by fmha-select-config).
    bool uniform = cfg.getPageRegime() == PageRegime::OnePage;
    Type idsT = uniform ? Type(b.getI32Type())
                        : Type(VectorType::get({bn}, b.getI32Type()));
    Value ids = PageIdsOp::create(b, idsT, pages, t0, sk,
                                  b.getI64IntegerAttr(pageSize));
    auto layout = KVLayoutAttr::get(b.getContext(), op.getKvLayout());
    Value kTile = GatherKVOp::create(b, VectorType::get({bn, d}, kvElem),
                                     op.getKCache(), ids, kvHead, t0, sk, layout);
    Value vTile = GatherKVOp::create(b, VectorType::get({bn, dv}, kvElem),
                                     op.getVCache(), ids, kvHead, t0, sk, layout);

    // S = Q K^T, dequantized: qd * sm_scale, then kd.
    Value s = TileMmaOp::create(b, sT, qTile, kTile, splatF(sT, 0.0), Value(),
                                /*transpose_rhs=*/true);
    s = arith::MulFOp::create(b, s, splat(sT, scale));
    Value vdScalar, vdRows;
    if (quant == QuantMode::PerTensor) {
      s = arith::MulFOp::create(b, s, splat(sT, kdT));
      vdScalar = vdT;
    } else if (quant == QuantMode::KVBlockScale) {
      Type dsT = uniform ? Type(f32) : Type(VectorType::get({bn}, f32));
      Value kd = GatherDescaleOp::create(b, dsT, op.getKDescale(), ids, kvHead);
      Value vd = GatherDescaleOp::create(b, dsT, op.getVDescale(), ids, kvHead);
      s = arith::MulFOp::create(
          b, s, uniform ? splat(sT, kd) : vector::BroadcastOp::create(b, sT, kd));
      (uniform ? vdScalar : vdRows) = vd;
    }
    if (double cap = op.getSoftCapOrZero(); cap > 0.0) {
      // s / cap as a product with 1 / cap (a division per element is a
      // multi-instruction IEEE sequence on NVIDIA).
      Value t = math::TanhOp::create(
          b, arith::MulFOp::create(b, s, splatF(sT, 1.0 / cap)));
      s = arith::MulFOp::create(b, t, splatF(sT, cap));
    } else if (rtCap) {
      // The same with the cap read at run time (1 / cap once, above).
      Value t = math::TanhOp::create(
          b, arith::MulFOp::create(b, s, splat(sT, rtInvCap)));
      s = arith::MulFOp::create(b, t, splat(sT, rtCap));
    }
    // -inf where SPEC section 3 hides the key (fmha-peel-masked-tiles
    // drops it on the tiles where it hides none, fmha-expand-masks writes
    // the rest out).
    SmallVector<Value> window;
    if (winRight)
      window = {winLeft, winRight};
    s = MaskTileOp::create(b, sT, s, qPos, t0, sk, window, op.getMask());

    // Online softmax. A row with nothing visible so far keeps m = -inf and
    // subtracts 0 instead, so exp never sees -inf - -inf. The running max
    // ignores NaN (maxnum), as the GPU lowerings' row max does (docs/SPEC.md:
    // a NaN score reaches its row's output through P, not through m).
    Value mNew = arith::MaxNumFOp::create(
        b, m, rowReduce(vector::CombiningKind::MAXIMUMF, s, splatF(rowT, negInf)));
    Value isEmpty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew,
                                          splatF(rowT, negInf));
    Value mSafe = arith::SelectOp::create(b, isEmpty, splatF(rowT, 0.0), mNew);
    Value p = math::ExpOp::create(
        b, arith::SubFOp::create(b, s, rowBcast(mSafe, bn)));
    Value alpha = math::ExpOp::create(b, arith::SubFOp::create(b, m, mSafe));
    // (A row sum from -0, the exact identity of f32 addition, drops one
    // add a row and tile, but took gfx950's bf16 kernel from 204 VGPRs to
    // 256 and 5 spills through LLVM's scheduling: bench/NOTES.md,
    // 2026-12-06, ninth session.)
    Value lNew = arith::AddFOp::create(
        b, arith::MulFOp::create(b, alpha, l),
        rowReduce(vector::CombiningKind::ADD, p, splatF(rowT, 0.0)));

    // P to the P type, scaled by 2^SHIFT first; then U = P V.
    // A 16-bit P (SHIFT 0) has no scale to multiply by.
    Type pElem = cfg.getPType();
    Value pScaled = p;
    if (cfg.getShift() != 0)
      pScaled = arith::MulFOp::create(
          b, p, splatF(sT, std::ldexp(1.0, cfg.getShift())));
    Value pCast = arith::TruncFOp::create(b, VectorType::get({bm, bn}, pElem),
                                          pScaled);
    Value u = TileMmaOp::create(b, oT, pCast, vTile, splatF(oT, 0.0), vdRows,
                                /*transpose_rhs=*/false);
    if (vdScalar)
      u = arith::MulFOp::create(b, u, splat(oT, vdScalar));
    Value oNew = arith::AddFOp::create(
        b, arith::MulFOp::create(b, rowBcast(alpha, dv), o), u);
    scf::YieldOp::create(b, ValueRange{mNew, lNew, oNew});
  }

  // Epilogue: O = o / (l * 2^SHIFT), 0 where l == 0; lse = m + ln(l).
  Value mF = loop.getResult(0), lF = loop.getResult(1), oF = loop.getResult(2);
  Value lZero = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, lF,
                                      splatF(rowT, 0.0));
  Value denom = lF;
  if (cfg.getShift() != 0)
    denom = arith::MulFOp::create(b, lF,
                                  splatF(rowT, std::ldexp(1.0, cfg.getShift())));
  Value inv = arith::SelectOp::create(
      b, lZero, splatF(rowT, 0.0),
      arith::DivFOp::create(b, splatF(rowT, 1.0), denom));
  Value out = arith::MulFOp::create(b, oF, rowBcast(inv, dv));
  Type outElem = cast<MemRefType>(op.getOut().getType()).getElementType();
  if (outElem != f32)
    out = arith::TruncFOp::create(b, VectorType::get({bm, dv}, outElem), out);
  StoreRowsOp::create(b, out, op.getOut(), qRow, h, n);
  if (Value lse = op.getLse()) {
    Value val = arith::SelectOp::create(
        b, lZero,
        splatF(rowT, negInf),
        arith::AddFOp::create(b, mF, math::LogOp::create(b, lF)));
    StoreRowsOp::create(b, val, lse, qRow, h, n);
  }
}

struct FmhaTilePass : public fmha::impl::FmhaTileBase<FmhaTilePass> {
  void runOnOperation() override {
    SmallVector<BatchPrefillOp> ops;
    getOperation()->walk([&](BatchPrefillOp op) { ops.push_back(op); });
    for (BatchPrefillOp op : ops) {
      ConfigAttr cfg = op.getConfigAttr();
      if (!cfg) {
        op.emitOpError() << "has no #fmha.config; run fmha-select-config first";
        return signalPassFailure();
      }
      if (failed(verifyConfig(op, cfg)))
        return signalPassFailure();
      if (cfg.getPageRegime() == PageRegime::Unset ||
          cfg.getVdRoute() == VdRoute::Unset) {
        op.emitOpError() << "config leaves page_regime or vd_route unset; run "
                            "fmha-select-config first (it takes them)";
        return signalPassFailure();
      }
      TiledFormBuilder(op, cfg).build();
      op.erase();
    }
  }
};

} // namespace
