//===- MmaPatterns.cpp - the two products on lanes ------------------------===//
//
// - S = Q K^T: per atom of S, all k steps of the K operand read from LDS at
//   once (one wide ds_read per run), Q from its operand registers.
// - O += P V: P comes from the score accumulators with no data movement (V
//   was staged at the chip's pvKeyPosition so that the lane's own scores are
//   its P operand), packed to fp8 by the chip's packed convert; V^T from LDS.
//   Per-key V descales take the config's vd_route: page_groups (the MMA
//   steps of one page accumulate apart and are added to o times the page's
//   vd, pv_group steps per page) or scaled_p (p scaled by vd_j / r before
//   the cast, r the row's largest vd in the tile, and o += r * (P x V)).
// - arith.truncf to fp8 of a tile that only feeds the PV product: nothing
//   (P keeps its scores; the PV pattern packs them).
// - sm_90a (TargetInfo::warpgroupMma): each product is chains of warpgroup
//   MMAs over the whole tile, one step per k step, at most
//   warpgroupMmaPromoteSteps (fp8 P V: warpgroupMmaPvPromoteSteps) steps
//   per chain summed in f32: S = Q K^T with
//   both operands staged (SS), P V with P from registers (RS); B (and Q)
//   read by the MMA from the swizzled staged tiles at lc.ldsTileOffset.
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/LanePatterns.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <map>

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The PV product's V operand of d block `bd` and k step `c` from V
/// row-major in LDS (ValueForm::vRowMajor), by transpose loads
/// (TargetInfo::transposeLoad8, AMDGPU gfx950: ds_read_b64_tr_b8). The
/// operand holds, at byte e of lane l, V^T[d][kk] with d = 32 bd + l % 32
/// and kk = 64 c + aFragElem(l, e).k: contraction position kk, whose key is
/// pvKeyPosition^-1(kk) (V^T's key axis was pvKeyPosition-ordered so that
/// P is the lane's own scores; here the order is the read's). Read q of
/// the 4 gives bytes 8q..8q+7, i.e. kk = 64 c + 16 (l / 32) + 8 (q % 2) +
/// 32 (q / 2) + j for j = 0..7: within each 16-lane group (g = l / 16,
/// s = l % 16) lane s reads 8 bytes of key row kk0 + s / 2 at d column
/// 32 bd + 16 (g % 2) + 8 (s % 2), with kk0 = 64 c + 16 (g / 2) + 8 (q % 2)
/// + 32 (q / 2); the transpose gives lane s byte s % 8 of the rows read
/// by lanes 2j + (s / 8) % 2, i.e. d = 32 bd + l % 32 at key j.
Value transposedVOperand(ImplicitLocOpBuilder &b, const LaneContext &lc,
                         Value lds, const ValueForm &kv, int64_t bd, int64_t c) {
  const LaneLayout &l = lc.layout;
  const TargetInfo &ti = lc.ti;
  int64_t eb = l.atom.elemBytes;
  Value lane = lc.laneV;
  auto cst = [&](int64_t v) { return laneConstI32(b, v); };
  Value g = arith::DivUIOp::create(b, lane, cst(16));
  Value s = arith::RemUIOp::create(b, lane, cst(16));
  // The lane's part of its row (s / 2 + 16 (g / 2)) and column.
  Value rowLane = arith::AddIOp::create(
      b, arith::DivUIOp::create(b, s, cst(2)),
      arith::MulIOp::create(b, arith::DivUIOp::create(b, g, cst(2)), cst(16)));
  Value colLane = arith::AddIOp::create(
      b, arith::MulIOp::create(b, arith::RemUIOp::create(b, g, cst(2)), cst(16)),
      arith::MulIOp::create(b, arith::RemUIOp::create(b, s, cst(2)), cst(8)));
  Value col = arith::AddIOp::create(b, colLane, cst(32 * bd * eb));
  // The key at contraction position kk: pvKeyPosition^-1 is bit-linear
  // (LaneForms checked), and the lane's part (bits 0-2 and 4) and the
  // read's constant part (bits 3, 5 and up) have no bit in common, so it
  // splits into the two: key = inv(rowLane) + inv(kk0) - inv(0).
  BitLinear inv = *pvKeyInverse(ti, kv.ldsRows);
  Value keyLane = laneEmitBits(b, inv, rowLane);
  SmallVector<Value> words;
  for (int64_t q = 0; q < 4; ++q) {
    int64_t kk0 = 64 * c + 8 * (q % 2) + 32 * (q / 2);
    Value key = arith::AddIOp::create(b, keyLane, cst(inv.eval(kk0) - inv.c0));
    Value at = lc.ldsOffset(b, kv, key, col);
    Value v = ti.transposeLoad8(b, b.getLoc(), lds, at);
    words.push_back(vector::BitCastOp::create(
        b, VectorType::get({1}, b.getI64Type()), v));
  }
  Value all = laneConcat(b, words);
  Value bytes = vector::BitCastOp::create(b, VectorType::get({32}, b.getI8Type()), all);
  return arith::BitcastOp::create(b, VectorType::get({32}, l.atom.aElem), bytes);
}

struct TileMmaPattern : LanePattern<TileMmaOp> {
  using LanePattern::LanePattern;

  LogicalResult matchAndRewrite(TileMmaOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    const LaneLayout &l = lc.layout;
    const TargetInfo &ti = lc.ti;
    LaneValues lhs = lc.unpack(op.getLhs(), a.getLhs());
    LaneValues rhs = lc.unpack(op.getRhs(), a.getRhs());
    LaneValues out = lc.unpack(op.getAcc(), a.getAcc());
    const ValueForm &kv = lc.forms.get(op.getRhs());
    Value lds = rhs.lds;
    int64_t ldsCols = kv.ldsCols;
    auto ldsLoad = [&](Value r, Value c, int64_t len) {
      if (!kv.bankSwizzle) {
        Value at = arith::AddIOp::create(
            b, arith::MulIOp::create(b, r, laneConstI32(b, ldsCols)), c);
        return Value(vector::LoadOp::create(b, VectorType::get({len}, b.getI8Type()),
                                            lds, ValueRange{laneToIndex(b, at)}));
      }
      // Chunk-major: each 16-byte chunk of the run where ldsOffset puts
      // it (a run starts on a chunk: LaneForms checked it).
      SmallVector<Value> pieces;
      for (int64_t o = 0; o < len; o += 16) {
        int64_t n = std::min<int64_t>(16, len - o);
        Value at = lc.ldsOffset(b, kv, r,
                                o ? Value(arith::AddIOp::create(b, c, laneConstI32(b, o))) : c);
        pieces.push_back(vector::LoadOp::create(b, VectorType::get({n}, b.getI8Type()), lds,
                                                ValueRange{laneToIndex(b, at)},
                                                /*nontemporal=*/false, llvm::Align(n)));
      }
      return laneConcat(b, pieces);
    };
    auto mma = [&](Value kvOp, Value other, Value c) {
      return l.transposed ? ti.mma(b, b.getLoc(), kvOp, other, c)
                          : ti.mma(b, b.getLoc(), other, kvOp, c);
    };
    auto done = [&]() {
      rw.replaceOpWithMultiple(op, {lc.pack(lc.forms.get(op.getResult()), out)});
      return success();
    };
    // sm_90a: the accumulators of all atoms are one wide vector while a
    // chain is in flight.
    Type kvElem = cast<VectorType>(op.getRhs().getType()).getElementType();
    Value ldsBase = ti.warpgroupMma() ? lc.ldsAddress(b, lds) : Value();
    // One chain of steps [c0, c1) from acc (null: from zero). aOf: the RS
    // operand of step c, or null for the staged Q tile (SS). row0: B's
    // first row (a key half of S: scoreInHalves).
    auto wgPiece = [&](Value acc, int64_t c0, int64_t c1,
                       function_ref<Value(int64_t)> aOf, int64_t row0 = 0) {
      TargetInfo::WarpgroupChain ch;
      ch.acc = acc;
      const ValueForm *q = nullptr;
      if (!aOf) {
        q = &lc.forms.get(op.getLhs());
        ch.a.ldsBase = lc.ldsAddress(b, lhs.lds);
        ch.a.rowBytes = q->ldsCols;
      }
      for (int64_t c = c0; c < c1; ++c) {
        if (aOf)
          ch.a.regs.push_back(aOf(c));
        else
          ch.a.offsets.push_back(lc.ldsTileOffset(*q, 0, c * l.atom.k));
        ch.offsets.push_back(lc.ldsTileOffset(kv, row0, c * l.atom.k));
      }
      return ch;
    };
    // Pieces of warpgroupMmaPromoteSteps steps (an fp8 P V chain:
    // warpgroupMmaPvPromoteSteps), each from zero but the first, summed in
    // f32 registers. Two pieces are in flight together (one wait for both:
    // the tensor core runs the second while the first drains); their
    // accumulators are the registers a piece and the running sum took
    // before, so no more are live.
    int64_t promote = !op.getTransposeRhs() && l.atom.elemBytes == 1
                          ? ti.warpgroupMmaPvPromoteSteps()
                          : ti.warpgroupMmaPromoteSteps();
    constexpr int64_t kPiecesInFlight = 2;
    Type aElem = cast<VectorType>(op.getLhs().getType()).getElementType();
    // async: the last batch is left in flight (its pieces returned in
    // `inFlight`, the waited sum before it returned, null if none).
    auto wgChainParts = [&](Value acc, int64_t c0, int64_t c1,
                            function_ref<Value(int64_t)> aOf, bool async,
                            SmallVector<Value> &inFlight) {
      Value sum;
      for (int64_t p0 = c0; p0 < c1; p0 += kPiecesInFlight * promote) {
        SmallVector<TargetInfo::WarpgroupChain> batch;
        for (int64_t q0 = p0; q0 < std::min(c1, p0 + kPiecesInFlight * promote);
             q0 += promote)
          batch.push_back(wgPiece(sum || !batch.empty() ? Value() : acc, q0,
                                  std::min(c1, q0 + promote), aOf));
        bool last = p0 + kPiecesInFlight * promote >= c1;
        ++lc.mmaGroupsCommitted;
        if (async && last) {
          inFlight = ti.warpgroupMmaChainsStart(b, b.getLoc(), batch, aElem, kvElem,
                                                ldsBase, kv.ldsRows, kv.ldsCols);
          break;
        }
        for (Value piece : ti.warpgroupMmaChains(b, b.getLoc(), batch, aElem, kvElem,
                                                 ldsBase, kv.ldsRows, kv.ldsCols))
          sum = sum ? Value(arith::AddFOp::create(b, sum, piece)) : piece;
      }
      return sum;
    };
    auto wgChain = [&](Value acc, int64_t c0, int64_t c1,
                       function_ref<Value(int64_t)> aOf) {
      SmallVector<Value> none;
      return wgChainParts(acc, c0, c1, aOf, /*async=*/false, none);
    };
    if (op.getTransposeRhs() && ti.warpgroupMma()) { // S = Q K^T
      Value init = matchPattern(op.getAcc(), m_AnyZeroFloat())
                       ? Value()
                       : lc.wideAcc(b, out.parts);
      int64_t steps = cast<VectorType>(op.getLhs().getType()).getDimSize(1) *
                      l.atom.elemBytes / l.atom.k;
      // Q staged (SS) or in operand registers, one per k step (RS).
      auto qRegs = [&](int64_t c) { return lhs.parts[c]; };
      bool staged = lc.forms.get(op.getLhs()).kind == FormKind::KV;
      auto aOf = staged ? function_ref<Value(int64_t)>() : qRegs;
      // Waited for by fmha.mma_wait (fmha-overlap-score-mma): the last
      // pieces stay in flight until it. The result's values stand in for
      // the product and are used by nothing (the wait reads inflightMmas).
      bool async = !op->use_empty() &&
                   llvm::all_of(op->getUsers(), llvm::IsaPred<MmaWaitOp>);
      if (async) {
        LaneContext::InflightMma m;
        m.waited = wgChainParts(init, 0, steps, aOf, /*async=*/true, m.pieces);
        m.group = lc.mmaGroupsCommitted;
        out.parts = lc.splitAcc(b, m.pieces.front());
        lc.inflightMmas[op.getResult()] = std::move(m);
        return done();
      }
      // Two promoted pieces of N = 128 keys from zero (fp8 at D 128, the
      // case timed): the tile's key halves in turn (scoreInHalves), so that
      // three 32-register pieces are live at the peak where two of 64 were.
      // An S waited for by fmha.mma_wait (above: fmha-overlap-score-mma and
      // fmha-ping-pong) stays whole.
      int64_t n = kv.ldsRows;
      if (!init && promote > 0 && steps == 2 * promote && n == 128 &&
          l.atom.elemBytes == 1 && ti.scoreInHalves()) {
        auto half = [&](int64_t h, int64_t c0, int64_t c1) {
          return wgPiece(Value(), c0, c1, aOf, h * n / 2);
        };
        auto start = [&](ArrayRef<TargetInfo::WarpgroupChain> chains) {
          ++lc.mmaGroupsCommitted;
          return ti.warpgroupMmaChainsStart(b, b.getLoc(), chains, aElem, kvElem,
                                            ldsBase, n / 2, kv.ldsCols);
        };
        // Group 1: both pieces of the first half; group 2: the second
        // half's first piece. Group 1 waited for (group 2 still running),
        // then the second half's second piece into the registers freed.
        SmallVector<Value> g1 = start({half(0, 0, promote), half(0, promote, steps)});
        SmallVector<Value> g2 = start({half(1, 0, promote)});
        SmallVector<Value> w1 = ti.warpgroupMmaWait(b, b.getLoc(), g1, /*pending=*/1);
        Value s0 = arith::AddFOp::create(b, w1[0], w1[1]);
        SmallVector<Value> g3 = start({half(1, promote, steps)});
        SmallVector<Value> w2 =
            ti.warpgroupMmaWait(b, b.getLoc(), {g2[0], g3[0]}, /*pending=*/0);
        Value s1 = arith::AddFOp::create(b, w2[0], w2[1]);
        out.parts = lc.splitAcc(b, laneConcat(b, {s0, s1}));
        return done();
      }
      out.parts = lc.splitAcc(b, wgChain(init, 0, steps, aOf));
      return done();
    }
    if (op.getTransposeRhs()) { // S = Q K^T
      for (size_t j = 0; j < out.parts.size(); ++j) {
        SmallVector<Value> kOps = lc.loadOperandAllSteps(
            b, l.kvRuns, lhs.parts.size(), l.atom.aElem,
            [&](Value r, Value c, int64_t len) {
              return ldsLoad(arith::AddIOp::create(b, r, laneConstI32(b, j * l.atomN)),
                             c, len);
            });
        for (size_t kk = 0; kk < lhs.parts.size(); ++kk)
          out.parts[j] = mma(kOps[kk], lhs.parts[kk], out.parts[j]);
      }
      if (ti.fenceAfterScoreMmas())
        ti.schedulingFence(b, b.getLoc());
      return done();
    }
    // O += P V.
    // ldsCols and the atom's k and per-lane counts are bytes; P's values
    // are elements (16-bit P: two bytes each).
    int64_t eb = l.atom.elemBytes;
    int64_t bn = kv.vKeyBytes(eb), steps = bn / l.atom.k;
    int64_t pPerLane = (l.transposed ? l.atom.bPerLane : l.atom.aPerLane) / eb;
    auto pElems = l.pvOperandElems(ti, bn / eb, op); // LaneForms checked it
    if (failed(pElems))
      return failure();
    Type fp8 = lc.forms.get(op.getLhs()).fp8;
    int64_t group = steps;
    SmallVector<Value> kscale;
    Value rowScale, rowScaleInv;
    VectorType accT = VectorType::get({l.accPerLane()}, b.getF32Type());
    if (op.getKScale()) {
      kscale = lc.colsOf(b, op.getKScale(), lc.unpack(op.getKScale(), a.getKScale()));
      if (lc.cfg.getVdRoute() == VdRoute::PageGroups) {
        group = lc.cfg.getPvGroup();
      } else { // scaled_p
        group = 0;
        Value mx = kscale[0];
        for (size_t j = 1; j < kscale.size(); ++j)
          mx = ti.maxF(b, b.getLoc(), mx, kscale[j]);
        Value r = vector::ExtractOp::create(b, mx, 0);
        for (int64_t v = 1; v < l.accPerLane(); ++v)
          r = ti.maxF(b, b.getLoc(), r, vector::ExtractOp::create(b, mx, v));
        auto maxF = [&](Value x, Value y) { return ti.maxF(b, b.getLoc(), x, y); };
        for (int64_t mask : ti.rowReduceXorMasks())
          r = ti.combineXor(b, b.getLoc(), r, mask, maxF);
        Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
        Value one = arith::ConstantOp::create(b, b.getF32FloatAttr(1.0f));
        Value pos = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, r, zero);
        rowScale = r;
        rowScaleInv = arith::SelectOp::create(
            b, pos, arith::DivFOp::create(b, one, r), zero);
      }
    }
    SmallVector<Value> pOps;
    for (int64_t c = 0; c < steps; ++c) {
      SmallVector<Value> vals;
      for (int64_t e = 0; e < pPerLane; ++e) {
        auto [j, v] = (*pElems)[c][e];
        Value pv = vector::ExtractOp::create(b, lhs.parts[j], v);
        if (rowScaleInv) {
          Value sj = vector::ExtractOp::create(b, kscale[j], v);
          pv = arith::MulFOp::create(b, pv, arith::MulFOp::create(b, sj, rowScaleInv));
        }
        vals.push_back(pv);
      }
      if (eb == 2) { // 16-bit P: the cast, two values to a register
        Value v = vector::FromElementsOp::create(
            b, VectorType::get({pPerLane}, b.getF32Type()), vals);
        pOps.push_back(arith::TruncFOp::create(b, VectorType::get({pPerLane}, fp8), v));
        continue;
      }
      SmallVector<Value> words;
      for (int64_t w = 0; w < pPerLane / 4; ++w)
        words.push_back(
            ti.packFp8x4(b, b.getLoc(), ArrayRef<Value>(vals).slice(4 * w, 4), fp8));
      Value wv = vector::FromElementsOp::create(
          b, VectorType::get({pPerLane / 4}, b.getI32Type()), words);
      Value bytes = vector::BitCastOp::create(
          b, VectorType::get({pPerLane}, b.getI8Type()), wv);
      pOps.push_back(
          arith::BitcastOp::create(b, VectorType::get({pPerLane}, fp8), bytes));
    }
    // A chunk-major V^T (steps in pairs, LaneLayout::vtPairColumn): both
    // steps of a pair by one 16-byte read, at the pair's first step.
    std::map<std::pair<size_t, int64_t>, SmallVector<Value>> vPairs;
    auto vOperand = [&](size_t bd, int64_t c) {
      if (kv.vRowMajor)
        return transposedVOperand(b, lc, lds, kv, bd, c);
      if (kv.bankSwizzle) {
        SmallVector<Value> &pair = vPairs[{bd, c / 2}];
        if (pair.empty())
          pair = lc.loadOperandAllSteps(
              b, l.kvRuns, 2, l.atom.aElem, [&](Value r, Value col, int64_t len) {
                return ldsLoad(
                    arith::AddIOp::create(b, r, laneConstI32(b, bd * l.atomN)),
                    arith::AddIOp::create(b, col, laneConstI32(b, (c / 2) * 2 * l.atom.k)),
                    len);
              });
        return pair[c % 2];
      }
      return lc.loadOperand(b, l.kvRuns, l.atom.aElem, [&](Value r, Value col, int64_t len) {
        return ldsLoad(arith::AddIOp::create(b, r, laneConstI32(b, bd * l.atomN)),
                       arith::AddIOp::create(b, col, laneConstI32(b, c * l.atom.k)),
                       len);
      });
    };
    if (ti.warpgroupMma()) {
      // Every route: chains from zero, then o += scale * chain after the
      // wait (a chain accumulating into the rescaled o was off by ~0.3%
      // rel. Frobenius on the H200, bench/NOTES.md): scaled_p one chain
      // times r, page_groups one per page times its vd, scalar one times 1.
      auto pOf = [&](int64_t c) { return pOps[c]; };
      int64_t g = group ? group : steps;
      // The scale of the chain of steps [g0, g0 + g): scaled_p's r, a page
      // group's vd, or none (scalar-vd: o + chain).
      auto scaleOf = [&](int64_t g0) -> Value {
        if (rowScale || kscale.empty())
          return rowScale;
        auto [j, v] = (*pElems)[g0][0];
        return vector::ExtractOp::create(b, kscale[j], v);
      };
      // Waited for by fmha.mma_wait (fmha-overlap-softmax): every chain
      // from zero, one commit group, left in flight; o += scale x chain at
      // the wait.
      if (!op->use_empty() && g <= promote &&
          llvm::all_of(op->getUsers(), llvm::IsaPred<MmaWaitOp>)) {
        LaneContext::InflightMma m;
        SmallVector<TargetInfo::WarpgroupChain> batch;
        for (int64_t g0 = 0; g0 < steps; g0 += g) {
          batch.push_back(wgPiece(Value(), g0, g0 + g, pOf));
          m.scales.push_back(scaleOf(g0));
        }
        ++lc.mmaGroupsCommitted;
        m.pieces = ti.warpgroupMmaChainsStart(b, b.getLoc(), batch, aElem, kvElem, ldsBase,
                                              kv.ldsRows, kv.ldsCols);
        m.group = lc.mmaGroupsCommitted;
        m.addTo = out.parts;
        out.parts = lc.splitAcc(b, m.pieces.front());
        lc.inflightMmas[op.getResult()] = std::move(m);
        return done();
      }
      // A wide o on the scalar-vd route (Dv >= 256: one chain from zero
      // would hold Dv / 2 accumulators a lane beside o's Dv / 2): P V in
      // column pieces of kPvColumnPiece, kPvColumnPiecesInFlight of them in
      // flight, each added to o once it lands and the next one started in
      // its registers (TargetInfo::pvInColumnPieces).
      int64_t n = kv.ldsRows;
      if (kscale.empty() && g == steps && g <= promote && eb == 1 &&
          ti.pvInColumnPieces(n)) {
        constexpr int64_t kPvColumnPiece = 64, kPvColumnPiecesInFlight = 2;
        int64_t np = n / kPvColumnPiece, per = out.parts.size() / np;
        int64_t k = std::min(np, kPvColumnPiecesInFlight);
        SmallVector<Value> flying;
        auto start = [&](int64_t q) {
          ++lc.mmaGroupsCommitted;
          flying.push_back(ti.warpgroupMmaChainsStart(
              b, b.getLoc(), {wgPiece(Value(), 0, steps, pOf, q * kPvColumnPiece)}, aElem,
              kvElem, ldsBase, kPvColumnPiece, kv.ldsCols)[0]);
        };
        for (int64_t q = 0; q < k; ++q)
          start(q);
        for (int64_t q = 0; q < np; ++q) {
          // The pieces started after q stay in flight.
          Value landed = ti.warpgroupMmaWait(b, b.getLoc(), {flying[q]},
                                             /*pending=*/std::min(np, q + k) - (q + 1))[0];
          SmallVector<Value> c0 = lc.splitAcc(b, landed);
          for (int64_t i = 0; i < per; ++i)
            out.parts[q * per + i] = arith::AddFOp::create(
                b, out.parts[q * per + i], c0[i], arith::FastMathFlags::contract);
          if (q + k < np)
            start(q + k);
        }
        return done();
      }
      for (int64_t g0 = 0; g0 < steps; g0 += g) {
        SmallVector<Value> c0 = lc.splitAcc(b, wgChain(Value(), g0, g0 + g, pOf));
        Value scale = scaleOf(g0);
        if (!scale) {
          // Scale 1 (the scalar-vd route): o + chain as a contractable add,
          // so LLVM fuses it with o's rescale (o * alpha, also contract)
          // into one fma a lane and accumulator; vector.fma(chain, 1, o)
          // became an add.rn that ptxas may not fuse (bench/NOTES.md
          // 2026-12-05). A zero acc (P V from zero, o * alpha added by
          // the tiled form: exp2_bias) takes the chain as it is; LLVM keeps
          // chain + 0.0 (an add a value: -0 + 0 is +0).
          bool fromZero = matchPattern(op.getAcc(), m_AnyZeroFloat());
          for (size_t bd = 0; bd < out.parts.size(); ++bd)
            out.parts[bd] = fromZero ? c0[bd]
                                     : arith::AddFOp::create(b, out.parts[bd], c0[bd],
                                                             arith::FastMathFlags::contract);
          continue;
        }
        Value sv = vector::BroadcastOp::create(b, accT, scale);
        for (size_t bd = 0; bd < out.parts.size(); ++bd)
          out.parts[bd] = vector::FMAOp::create(b, c0[bd], sv, out.parts[bd]);
      }
      return done();
    }
    if (group == 0) { // scaled_p: one chain, then o += r * chain
      for (size_t bd = 0; bd < out.parts.size(); ++bd) {
        Value c0 = arith::ConstantOp::create(b, accT, b.getZeroAttr(accT));
        for (int64_t c = 0; c < steps; ++c)
          c0 = mma(vOperand(bd, c), pOps[c], c0);
        Value sv = vector::BroadcastOp::create(b, accT, rowScale);
        out.parts[bd] = vector::FMAOp::create(b, c0, sv, out.parts[bd]);
      }
      return done();
    }
    Value zeroAcc = arith::ConstantOp::create(b, accT, b.getZeroAttr(accT));
    // fmha-fold-vd-rescale made the first page's scale exactly 1 (o kept in
    // units of its vd): that group accumulates into o through the MMA's C
    // operand, with no multiply (LaneForms checked the group is that page).
    bool unitFirst = !kscale.empty() && op->hasAttr(kUnitFirstPageAttr);
    // With two groups the unit one goes last: the other chain (from zero)
    // does not wait for o, and it accumulates onto the sum (page 64: 1203
    // modelled cycles on gfx942 where first gives 1215). With more, first:
    // last kept the chains live longer and spilled VGPRs at page 16 (11 on
    // gfx942; docs/AMDGPU_STATIC_REPORT.md).
    SmallVector<int64_t> order;
    bool unitLast = unitFirst && steps / group == 2;
    for (int64_t g0 = unitLast ? group : 0; g0 < steps; g0 += group)
      order.push_back(g0);
    if (unitLast)
      order.push_back(0);
    for (size_t bd = 0; bd < out.parts.size(); ++bd) {
      for (int64_t g0 : order) {
        bool direct = kscale.empty() || (unitFirst && g0 == 0);
        Value c0 = direct ? out.parts[bd] : zeroAcc;
        for (int64_t c = g0; c < g0 + group; ++c)
          c0 = mma(vOperand(bd, c), pOps[c], c0);
        if (direct) {
          out.parts[bd] = c0;
          continue;
        }
        // The group's vd: the lane's own score element of the group's first
        // step (every key of a page has its page's descale).
        auto [j, v] = (*pElems)[g0][0];
        Value s = vector::ExtractOp::create(b, kscale[j], v);
        Value sv = vector::BroadcastOp::create(b, accT, s);
        out.parts[bd] = vector::FMAOp::create(b, c0, sv, out.parts[bd]);
      }
    }
    return done();
  }
};

/// fmha.mma_wait: on warpgroup chips, the wait for the pieces its
/// fmha.tile_mma left in flight, then their sum; elsewhere the product.
struct MmaWaitPattern : LanePattern<MmaWaitOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(MmaWaitOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    auto it = lc.inflightMmas.find(op.getProduct());
    if (it == lc.inflightMmas.end()) {
      rw.replaceOpWithMultiple(op, {a.getProduct()});
      return success();
    }
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    const LaneContext::InflightMma &m = it->second;
    // Groups committed after the product's may stay pending, where the ops
    // between them are straight-line code (so that every group counted was
    // committed on the way here).
    Operation *start = op.getProduct().getDefiningOp();
    bool straight = start->getBlock() == op->getBlock();
    for (Operation *o = start; straight && o != op.getOperation(); o = o->getNextNode())
      straight = o->getNumRegions() == 0;
    int64_t pending = straight ? lc.mmaGroupsCommitted - m.group : 0;
    SmallVector<Value> landed = lc.ti.warpgroupMmaWait(b, b.getLoc(), m.pieces, pending);
    LaneValues out;
    if (m.addTo.empty()) { // S: the sum of its pieces
      Value sum = m.waited;
      for (Value piece : landed)
        sum = sum ? Value(arith::AddFOp::create(b, sum, piece)) : piece;
      out.parts = lc.splitAcc(b, sum);
    } else { // P V: o += scale x chain, a chain at a time, as the synchronous product
      out.parts = m.addTo;
      VectorType accT = VectorType::get({lc.layout.accPerLane()}, b.getF32Type());
      for (auto [piece, scale] : llvm::zip(landed, m.scales)) {
        SmallVector<Value> c = lc.splitAcc(b, piece);
        for (size_t i = 0; i < out.parts.size(); ++i)
          out.parts[i] =
              scale ? Value(vector::FMAOp::create(b, c[i], vector::BroadcastOp::create(b, accT, scale),
                                                  out.parts[i]))
                    // o + chain, contractable: fused with o's rescale.
                    : Value(arith::AddFOp::create(b, out.parts[i], c[i],
                                                  arith::FastMathFlags::contract));
      }
    }
    rw.replaceOpWithMultiple(op, {lc.pack(lc.forms.get(op.getResult()), out)});
    return success();
  }
};

/// The fp8 cast of P: its scores, packed by the PV product.
struct TruncPPattern : LanePattern<arith::TruncFOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    const ValueForm *f = lc.forms.lookup(op);
    if (!f || f->kind != FormKind::P)
      return failure();
    rw.replaceOpWithMultiple(op, {a.getIn()});
    return success();
  }
};

} // namespace

void mlir::fmha::populateLaneMmaPatterns(const TypeConverter &tc,
                                         RewritePatternSet &patterns,
                                         const TargetInfo &, const LaneContext &lc,
                                         PatternBenefit benefit) {
  // The P cast outranks the generic elementwise pattern.
  patterns.add<TileMmaPattern, MmaWaitPattern>(tc, patterns.getContext(), lc, benefit);
  patterns.add<TruncPPattern>(tc, patterns.getContext(), lc,
                              PatternBenefit(benefit.getBenefit() + 1));
}
