//===- MemoryPatterns.cpp - Q, O, page ids, descales and K/V on lanes -----===//
//
// - fmha.load_rows: Q straight into MMA operand registers, all k steps of a
//   run in one wide load; rows past the valid count are clamped and zeroed.
// - fmha.store_rows: O per row slot in runs of consecutive columns, lse by
//   one lane per row; both guarded by q < rows.
// - fmha.page_ids: one id per tile (uniform, made wave-uniform where K/V
//   use it): in a KV loop pages[min(start / P, (len - 1) / P)] with no
//   select, outside it pages[start / P] read only when start < len, else
//   -1; or nothing (per-token ids are recomputed per key where used).
// - fmha.gather_descale: from the descale as one flat f32 run at a 32-bit
//   offset (docs/ABI.md); an id < 0 (the prologue's id of a sequence with
//   no key, whose descale is never used) reads row 0; an id a KV loop's
//   page_ids loaded needs no such guard. A scalar, or per column, one load per group of
//   elements whose keys share a page on every lane when tiles are on page
//   boundaries (the config's page_regime), at lane 0's key when the group
//   is one page on every lane (wave-uniform loads); a key past the end
//   takes the last key's page.
// - fmha.gather_kv: the tile staged in its LDS buffer in 16-byte chunks, K
//   row-major, V transposed at the chip's pvKeyPosition (runs of keys it
//   keeps adjacent transposed in registers); keys past the end are zero. A
//   tile in one page is read through the chip's bounded view of its rows
//   (AMDGPU: a raw buffer, zero past the sequence's last key) where the
//   chip has one.
//   On sm_90a the rows are swizzled for the warpgroup MMA
//   (LaneContext::ldsOffset), and Q is staged the same way (the MMA reads
//   both of S = Q K^T's operands from shared memory).
//
//===----------------------------------------------------------------------===//
#include "fmha/Conversion/FmhaToGPU/LanePatterns.h"
#include "fmha/Conversion/OutlineKernel/OutlineKernel.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/ErrorHandling.h"

#include <functional>
#include <map>
#include <vector>

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// pages[valid ? key / P : 0]; slot 0 exists whenever a tile is processed.
Value pageIdOfKey(ImplicitLocOpBuilder &b, const LaneContext &lc, Value pages,
                  int64_t pageSize, Value key, Value valid) {
  Value slot = arith::DivUIOp::create(b, key, laneConstI32(b, pageSize));
  slot = arith::SelectOp::create(b, valid, slot, laneConstI32(b, 0));
  return memref::LoadOp::create(b, lc.readOnly(b, pages),
                                ValueRange{laneToIndex(b, slot)});
}

/// pages[min(slot, (len - 1) / P)]: the page of slot, or the sequence's
/// last page past its end (len >= 1: a KV loop's tile is being processed).
Value loadClampedPageId(ImplicitLocOpBuilder &b, const LaneContext &lc, Value pages,
                        Value slot, Value len, int64_t pageSize) {
  Value last = arith::DivUIOp::create(
      b, arith::SubIOp::create(b, len, laneConstI32(b, 1)), laneConstI32(b, pageSize));
  slot = arith::MinSIOp::create(b, slot, last);
  return memref::LoadOp::create(b, lc.readOnly(b, pages), ValueRange{laneToIndex(b, slot)});
}

struct LoadRowsPattern : LanePattern<LoadRowsOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(LoadRowsOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    VectorType t = op.getResult().getType();
    Value src = a.getSource()[0];
    Value row0 = a.getRow0()[0], head = a.getHead()[0];
    Value nRows = laneToI32(b, a.getNumRows()[0]);
    Value last = arith::SubIOp::create(b, nRows, laneConstI32(b, 1));
    auto load = [&](Value r, Value c, int64_t len) {
      Value q = arith::AddIOp::create(b, lc.waveRow0, r);
      Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, q, nRows);
      Value qc = arith::MinSIOp::create(b, q, last);
      Value row = arith::AddIOp::create(b, row0, laneToIndex(b, qc));
      // Bytes of an fp8 Q; elements of a 16-bit one for an fp8 MMA
      // (fmha.quantize_tile takes it from the operand registers); for a
      // 16-bit MMA (c, len count bytes) len / 2 elements, as bytes.
      Type elemT = cast<MemRefType>(src.getType()).getElementType();
      int64_t eb = lc.layout.atom.elemBytes;
      if (eb == 2)
        c = arith::DivUIOp::create(b, c, laneConstI32(b, 2));
      VectorType vt = VectorType::get({len / eb}, elemT);
      int64_t bytes = (len / eb) * (elemT.getIntOrFloatBitWidth() / 8);
      // c is a multiple of len (LaneForms checked the runs' starts; the
      // staged form takes 16-byte chunks), rows and heads are whole 16-byte
      // multiples (D % 16 == 0) and the base is 16-byte aligned (ABI.md).
      Value v = vector::LoadOp::create(b, vt, src,
                                       ValueRange{row, head, laneToIndex(b, c)},
                                       /*nontemporal=*/false,
                                       llvm::Align(std::min<int64_t>(16, bytes & -bytes)));
      // As integers (bytes, or i16 for a 16-bit Q of an fp8 MMA, which
      // loadOperand* bitcast to the element type at the end): LLVM's x86
      // back end (the lane emulator's host JIT) cannot select the selects
      // and shuffles of 16 bf16 values (v16bf16); the GPU back ends take
      // either.
      if (eb == 2)
        v = vector::BitCastOp::create(b, VectorType::get({len}, b.getI8Type()), v);
      else if (elemT.getIntOrFloatBitWidth() == 16)
        v = vector::BitCastOp::create(b, VectorType::get({len}, b.getI16Type()), v);
      auto it = cast<VectorType>(v.getType());
      Value zero = arith::ConstantOp::create(b, it, b.getZeroAttr(it));
      return Value(arith::SelectOp::create(b, valid, v, zero));
    };
    const ValueForm &f = lc.forms.get(op.getResult());
    LaneValues out;
    if (f.kind == FormKind::KV) {
      // sm_90a: the Q tile staged in its LDS buffer (swizzled, 16-byte
      // chunks, rows past the valid count zero) for the warpgroup MMA; the
      // barrier before the first product makes it visible.
      Value lds = lc.lds.lookup(op);
      int64_t threads = lc.cfg.getWarps() * lc.layout.wave;
      int64_t perRow = f.ldsCols / 16;
      for (int64_t i = 0; i < f.ldsRows * perRow / threads; ++i) {
        Value g = arith::AddIOp::create(b, lc.tidV, laneConstI32(b, i * threads));
        Value r = arith::DivUIOp::create(b, g, laneConstI32(b, perRow));
        Value c16 = arith::MulIOp::create(
            b, arith::RemUIOp::create(b, g, laneConstI32(b, perRow)),
            laneConstI32(b, 16));
        // load() adds the wave's first row: this chunk's row is r overall.
        Value v = load(arith::SubIOp::create(b, r, lc.waveRow0), c16, 16);
        vector::StoreOp::create(b, v, lds,
                                ValueRange{laneToIndex(b, lc.ldsOffset(b, f, r, c16))});
      }
      out.lds = lds;
    } else if (lc.ti.warpgroupMma()) {
      // sm_90a's RS form: K comes from shared memory in its true column
      // order, so each k step's registers hold that step's own columns
      // (loadOperandAllSteps' wider loads permute k, which only a product
      // of two register operands permuted alike allows).
      int64_t k = lc.layout.atom.k;
      for (int64_t c = 0; c < t.getDimSize(1) * lc.layout.atom.elemBytes / k; ++c)
        out.parts.push_back(lc.loadOperand(
            b, lc.layout.qRuns, t.getElementType(),
            [&](Value r, Value col, int64_t len) {
              return load(r, arith::AddIOp::create(b, col, laneConstI32(b, c * k)), len);
            }));
    } else {
      out.parts = lc.loadOperandAllSteps(
          b, lc.layout.qRuns,
          t.getDimSize(1) * lc.layout.atom.elemBytes / lc.layout.atom.k,
          t.getElementType(), load);
    }
    rw.replaceOpWithMultiple(op, {lc.pack(f, out)});
    return success();
  }
};

struct StoreRowsPattern : LanePattern<StoreRowsOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(StoreRowsOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    const LaneLayout &l = lc.layout;
    LaneValues val = lc.unpack(op.getValue(), a.getValue());
    Value dest = a.getDest()[0];
    Value row0 = a.getRow0()[0], head = a.getHead()[0];
    Value nRows = laneToI32(b, a.getNumRows()[0]);
    if (cast<VectorType>(op.getValue().getType()).getRank() == 1) {
      // lse: one lane per row writes.
      Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lc.nLaneV,
                                          laneConstI32(b, 0));
      for (int64_t s = 0; s < l.slots(); ++s) {
        Value q = lc.queryOfSlot(b, s);
        Value ok = arith::AndIOp::create(
            b, first, arith::CmpIOp::create(b, arith::CmpIPredicate::slt, q, nRows));
        auto ifOp = scf::IfOp::create(b, ok, /*withElse=*/false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        memref::StoreOp::create(
            b, val.row[s], dest,
            ValueRange{arith::AddIOp::create(b, row0, laneToIndex(b, q)), head});
      }
      rw.eraseOp(op);
      return success();
    }
    // Runs of consecutive columns in one row slot: one vector store each.
    SmallVector<std::pair<int64_t, int64_t>> runs; // (first reg, len)
    for (int64_t v = 0; v < l.accPerLane();) {
      int64_t len = 1;
      while (v + len < l.accPerLane() && l.slotOfReg[v + len] == l.slotOfReg[v] &&
             l.nReg[v + len] == l.nReg[v] + len)
        ++len;
      runs.push_back({v, len});
      v += len;
    }
    for (int64_t s = 0; s < l.slots(); ++s) {
      Value q = lc.queryOfSlot(b, s);
      Value ok = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, q, nRows);
      auto ifOp = scf::IfOp::create(b, ok, /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      Value row = arith::AddIOp::create(b, row0, laneToIndex(b, q));
      for (size_t j = 0; j < val.parts.size(); ++j) {
        Value part = val.parts[j];
        for (auto [v0, len] : runs) {
          if (l.slotOfReg[v0] != s)
            continue;
          SmallVector<int64_t> mask;
          for (int64_t i = 0; i < len; ++i)
            mask.push_back(v0 + i);
          Value piece = vector::ShuffleOp::create(b, part, part, mask);
          Value col = laneToIndex(b, lc.colOf(b, j, v0));
          vector::StoreOp::create(b, piece, dest, ValueRange{row, head, col});
        }
      }
    }
    rw.eraseOp(op);
    return success();
  }
};

struct PageIdsPattern : LanePattern<PageIdsOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(PageIdsOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    if (isa<VectorType>(op.getIds().getType())) {
      // Per-token: recomputed per key where used (gather_kv, gather_descale).
      rw.replaceOpWithMultiple(op, {ValueRange{}});
      return success();
    }
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value pages = a.getPages()[0];
    Value start = laneToI32(b, a.getTileStart()[0]);
    Value len = laneToI32(b, a.getSeqLen()[0]);
    auto loop = op->getParentOfType<scf::ForOp>();
    if (loop && loop->hasAttr(kKVLoopAttr)) {
      // In the KV loop a tile is being processed, so the sequence owns a
      // page: the id of a tile at or past len (the last iteration's
      // prefetch, never gathered from) is its last page's,
      // pages[min(start / P, (len - 1) / P)]. No select on the loaded
      // value: its first use is the next tile's descale loads (after this
      // tile's K/V loads) or the next iteration, so the scalar load's wait
      // comes after the K/V loads are issued, not right behind it (issue 15
      // item 3; page-ids-uniform_gfx942.test).
      int64_t p = op.getPageSize();
      Value slot = arith::DivUIOp::create(b, start, laneConstI32(b, p));
      rw.replaceOp(op, loadClampedPageId(b, lc, pages, slot, len, p));
      return success();
    }
    // Uniform, outside the KV loop: pages[start / P] when start < len, else
    // -1 (never dereferenced).
    Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, start, len);
    // The prologue of the prefetch: Sk may be 0, and the sequence then owns
    // no page-table entry (with CSR, kv_indptr[b] may be kv_page_indices'
    // end). Read only when the tile exists (a wave-uniform branch).
    auto guarded = scf::IfOp::create(b, TypeRange{b.getI32Type()}, valid,
                                     /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&guarded.getThenRegion().front());
      scf::YieldOp::create(b, pageIdOfKey(b, lc, pages, op.getPageSize(), start, valid));
      b.setInsertionPointToStart(&guarded.getElseRegion().front());
      scf::YieldOp::create(b, laneConstI32(b, -1));
    }
    rw.replaceOp(op, guarded.getResult(0));
    return success();
  }
};

/// The page table, tile start and length of per-token page ids (their op's
/// operands, as the conversion maps them now).
struct TokenIds {
  PageIdsOp op;
  Value pages, start, len;
};
TokenIds tokenIds(ImplicitLocOpBuilder &b, ConversionPatternRewriter &rw,
                  Value ids) {
  auto op = ids.getDefiningOp<PageIdsOp>();
  return {op, rw.getRemappedValue(op.getPages()),
          laneToI32(b, rw.getRemappedValue(op.getTileStart())),
          laneToI32(b, rw.getRemappedValue(op.getSeqLen()))};
}

/// Whether every key of per-token page ids `op`'s tile is before its
/// sequence's end: a gather of its tile from the same start and length
/// states it (fmha-peel-masked-tiles' full tiles, `in_bounds`).
bool idsInBounds(PageIdsOp op) {
  int64_t tokens = cast<VectorType>(op.getIds().getType()).getDimSize(0);
  return llvm::any_of(op.getIds().getUsers(), [&](Operation *u) {
    auto g = dyn_cast<GatherKVOp>(u);
    if (g)
      return g.getInBounds() && g.getTileStart() == op.getTileStart() &&
             g.getSeqLen() == op.getSeqLen() &&
             g.getTile().getType().getDimSize(0) >= tokens;
    // A stage of a full tile (in_bounds, required) whose copies only run
    // when it is enabled; loads into LDS make its page-id reads there too
    // (KVTilePattern), so a disabled stage (the tile after the last) reads
    // none. (NVIDIA's stages read their ids per lane: no run.)
    auto st = dyn_cast<StageKVOp>(u);
    return st && st.getInBounds() && st.getTileStart() == op.getTileStart() &&
           st.getSeqLen() == op.getSeqLen() &&
           cast<VectorType>(st.getTileType()).getDimSize(0) >= tokens;
  });
}

/// Page j of a tile of whole pages: pages[min(start / P + j, (len - 1) / P)]
/// (the tile starts on a page boundary, so that is the page of key start +
/// j P, clamped to the sequence's last page). Loaded once and reused where
/// it dominates (LaneContext::tilePageIds): the K and V gathers' views and
/// the descale groups of one tile read the same ids (page 64: 2 loads a
/// tile where each user's own key expression took 6).
Value tilePageId(ImplicitLocOpBuilder &b, const LaneContext &lc,
                 const TokenIds &ids, int64_t j) {
  PageIdsOp op = ids.op;
  Block *here = b.getInsertionBlock();
  auto dominates = [&](Block *block) {
    for (Block *blk = here; blk; blk = blk->getParentOp() ? blk->getParentOp()->getBlock() : nullptr)
      if (blk == block)
        return true;
    return false;
  };
  for (const LaneContext::TilePageId &t : lc.tilePageIds)
    if (t.ids == op.getOperation() && t.page == j && dominates(t.block))
      return t.id;
  int64_t p = op.getPageSize();
  // A full tile's pages are all the sequence's (no clamp): on a chip that
  // reads a run of uniform words in one instruction, all of them at once
  // (page 16, D 128 on AMDGPU: one s_load_dwordx8 where 8 loads took 4
  // scalar instructions each).
  int64_t tokens = cast<VectorType>(op.getIds().getType()).getDimSize(0);
  int64_t n = tokens % p ? 0 : tokens / p;
  if (lc.ti.uniformWordRuns() && llvm::is_contained({2, 4, 8, 16}, n) &&
      idsInBounds(op)) {
    Value slot0 = arith::DivUIOp::create(b, ids.start, laneConstI32(b, p));
    Value run = vector::LoadOp::create(
        b, VectorType::get({n}, b.getI32Type()), lc.readOnly(b, ids.pages),
        ValueRange{laneToIndex(b, slot0)}, /*nontemporal=*/false, llvm::Align(4));
    for (int64_t k = 0; k < n; ++k)
      lc.tilePageIds.push_back(
          {op.getOperation(), k, here, vector::ExtractOp::create(b, run, k)});
    return lc.tilePageIds[lc.tilePageIds.size() - n + j].id;
  }
  Value slot = arith::AddIOp::create(
      b, arith::DivUIOp::create(b, ids.start, laneConstI32(b, p)), laneConstI32(b, j));
  Value id = loadClampedPageId(b, lc, ids.pages, slot, ids.len, p);
  lc.tilePageIds.push_back({op.getOperation(), j, here, id});
  return id;
}

struct GatherDescalePattern : LanePattern<GatherDescaleOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(GatherDescaleOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    Value ds = a.getDescale()[0], head = a.getHead()[0];
    // The descale as one flat run of f32 from the head's column and a 32-bit
    // element offset row * stride0 in i32 (the 64-bit index arithmetic of a
    // 2-d load with dynamic strides took 7 scalar instructions a load on
    // AMDGPU; the offset form is an SGPR offset of s_load_dword). The offset
    // is masked to 30 bits, so its byte offset is known to fit 32 bits; the
    // ABI limits a descale tensor to 2^30 elements (docs/ABI.md).
    auto md = memref::ExtractStridedMetadataOp::create(b, ds);
    // The head's column as the flat view's start (loop-invariant: one 64-bit
    // base a tensor), the rows after it as its length.
    Value headStart = arith::MulIOp::create(b, head, md.getStrides()[1]);
    Value extent = arith::MaxUIOp::create(
        b, arith::MulIOp::create(b, md.getSizes()[0], md.getStrides()[0]),
        arith::MulIOp::create(b, md.getSizes()[1], md.getStrides()[1]));
    auto flatT = MemRefType::get(
        {ShapedType::kDynamic}, b.getF32Type(),
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}),
        cast<MemRefType>(ds.getType()).getMemorySpace());
    Value flat = memref::ReinterpretCastOp::create(
        b, flatT, ds,
        OpFoldResult(arith::AddIOp::create(b, md.getOffset(), headStart).getResult()),
        ArrayRef<OpFoldResult>{arith::SubIOp::create(b, extent, headStart).getResult()},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    Value stride0 = arith::IndexCastOp::create(b, b.getI32Type(), md.getStrides()[0]);
    // Scalar loads (uniformWordRuns): the stride in bytes, loop-invariant.
    Value stride0x4 = lc.ti.uniformWordRuns()
                          ? Value(arith::ShLIOp::create(b, stride0, laneConstI32(b, 2)))
                          : Value();
    // zeroInvalid: 0 for an id < 0. The kernels never read such a value (a
    // uniform id < 0 is a tile past the sequence, a per-key id is clamped
    // into it), but the select moves the value to a VGPR on AMDGPU (an i1
    // select is v_cndmask there).
    // A per-key id is the sequence's (clamped into it: never -1), so it
    // needs no guard, nor does a uniform one a KV loop loads; the
    // prologue's is -1 for a tile past the sequence.
    auto load = [&](Value id, bool zeroInvalid, bool knownValid = false) {
      Value valid = knownValid && !zeroInvalid
                        ? Value()
                        : Value(arith::CmpIOp::create(b, arith::CmpIPredicate::sge, id,
                                                      laneConstI32(b, 0)));
      Value safe = knownValid ? id
                              : Value(arith::SelectOp::create(b, valid, id,
                                                              laneConstI32(b, 0)));
      // Scalar loads: the byte offset id * (4 * stride0) in 32 bits (a
      // descale tensor holds at most 2^30 elements, docs/ABI.md), then the
      // element index; the target folds index * 4 back into the product
      // (AMDGPU: one s_mul_i32 as s_load_dword's SGPR offset, where
      // lin << 2 took an s_lshl_b32 more a load).
      Value lin;
      if (stride0x4) {
        lin = arith::MulIOp::create(b, safe, stride0x4);
        lin = arith::ShRUIOp::create(b, lin, laneConstI32(b, 2));
      } else {
        lin = arith::MulIOp::create(b, safe, stride0);
        lin = arith::AndIOp::create(b, lin, laneConstI32(b, (1 << 30) - 1));
      }
      Value v = memref::LoadOp::create(
          b, lc.readOnly(b, flat),
          ValueRange{arith::IndexCastUIOp::create(b, b.getIndexType(), lin)});
      if (!zeroInvalid)
        return v;
      Value zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
      return Value(arith::SelectOp::create(b, valid, v, zero));
    };
    if (!isa<VectorType>(op.getResult().getType())) {
      // A uniform id a KV loop's page_ids loads is always one of the
      // sequence's pages (PageIdsPattern clamps it): no guard. Otherwise
      // (the prologue's, carried in) it may be -1; the select keeps the
      // value in a VGPR on AMDGPU where SGPRs are scarce.
      auto ids = op.getIds().getDefiningOp<PageIdsOp>();
      auto loop = ids ? ids->getParentOfType<scf::ForOp>() : scf::ForOp();
      bool inLoop = loop && loop->hasAttr(kKVLoopAttr);
      rw.replaceOp(op, load(a.getIds()[0],
                            !inLoop && lc.ti.uniformValuesInVectorRegs(
                                           op->getParentOfType<gpu::GPUFuncOp>()),
                            inLoop));
      return success();
    }
    const LaneLayout &l = lc.layout;
    TokenIds ids = tokenIds(b, rw, op.getIds());
    int64_t n = cast<VectorType>(op.getResult().getType()).getDimSize(0);
    int64_t p = ids.op.getPageSize();
    const ValueForm &form = lc.forms.get(op.getResult());
    Value always = arith::ConstantIntOp::create(b, b.getI1Type(), 1);
    Value lastKey = arith::SubIOp::create(b, ids.len, laneConstI32(b, 1));
    if (form.spread) {
      // The lane's share of the columns (LaneLayout.h SpreadPlan): one id
      // and one descale load a slot (4 at BlockN 128 on AMDGPU, where the
      // column form took one a group of its 64 elements); a key past the
      // end takes the last key's descale, as below.
      SmallVector<Value> e;
      for (int64_t s = 0; s < lc.forms.spreadSlots(n); ++s) {
        Value key = arith::AddIOp::create(b, ids.start, lc.spreadColumn(b, s));
        key = arith::MinSIOp::create(b, key, lastKey);
        e.push_back(load(pageIdOfKey(b, lc, ids.pages, p, key, always),
                         /*zeroInvalid=*/false,
                         /*knownValid=*/lc.ti.uniformWordRuns()));
      }
      LaneValues out;
      out.spread = vector::FromElementsOp::create(
          b, VectorType::get({static_cast<int64_t>(e.size())}, b.getF32Type()), e);
      rw.replaceOpWithMultiple(op, {lc.pack(form, out)});
      return success();
    }
    // Elements whose keys lie in one page on every lane (tiles on page
    // boundaries: the config's page_regime is not unaligned) share one id
    // and one descale load, taken at the group's smallest key.
    bool aligned = lc.cfg.getPageRegime() != PageRegime::Unaligned;
    int64_t elems = (n / l.atomN) * l.accPerLane();
    auto pagesOf = [&](int64_t elem) {
      std::vector<int64_t> pages;
      for (int64_t lane = 0; lane < l.wave; ++lane)
        pages.push_back(l.columnOf(lane, elem / l.accPerLane(),
                                   elem % l.accPerLane()) / p);
      return pages;
    };
    auto offOf = [&](int64_t elem) {
      return (elem / l.accPerLane()) * l.atomN + l.nReg[elem % l.accPerLane()];
    };
    SmallVector<int64_t> repOf(elems);
    std::map<std::vector<int64_t>, int64_t> groupRep; // pages per lane -> rep
    for (int64_t elem = 0; elem < elems; ++elem) {
      repOf[elem] = elem;
      if (!aligned)
        continue;
      auto [it, inserted] = groupRep.try_emplace(pagesOf(elem), elem);
      if (!inserted && offOf(elem) < offOf(it->second))
        it->second = elem;
    }
    if (aligned)
      for (int64_t elem = 0; elem < elems; ++elem)
        repOf[elem] = groupRep[pagesOf(elem)];
    DenseMap<int64_t, Value> loaded; // representative element -> descale
    LaneValues out;
    for (int64_t j = 0; j < n / l.atomN; ++j) {
      SmallVector<Value> e;
      for (int64_t v = 0; v < l.accPerLane(); ++v) {
        int64_t rep = repOf[j * l.accPerLane() + v];
        if (!loaded.count(rep)) {
          // A key past the end takes the descale of the sequence's last key:
          // every key of a partly filled last page then has its page's
          // descale. The PV product's page groups scale a whole MMA step by
          // the descale one lane holds, and that lane's key may be past the
          // end while the step holds valid keys of other lanes (a zero there
          // dropped the step: docs/REGIMES.md, "page group with a partly
          // filled last page"). Past-the-end keys are masked, so their own
          // descale never matters. A tile is only processed when len >= 1.
          int64_t rj = rep / l.accPerLane(), rv = rep % l.accPerLane();
          // A group in one page on every lane (tiles of whole pages, the
          // page no larger than a lane's run of columns: pages of 8 keys or
          // more on AMDGPU) takes lane 0's key, a constant past the tile's
          // start: the id and descale loads are then wave-uniform (scalar
          // loads on AMDGPU). A past-the-end key of lane 0 clamps into the
          // same page, since the group's other keys share it.
          std::vector<int64_t> pg = pagesOf(rep);
          bool uniform = aligned && llvm::all_equal(pg);
          Value id;
          if (uniform && lc.cfg.getPageRegime() == PageRegime::WholePages) {
            // The tile's page of that column, shared with the gathers.
            id = tilePageId(b, lc, ids, l.columnOf(0, rj, rv) / p);
          } else {
            Value col = uniform ? laneConstI32(b, l.columnOf(0, rj, rv)) : lc.colOf(b, rj, rv);
            Value key = arith::AddIOp::create(b, ids.start, col);
            key = arith::MinSIOp::create(b, key, lastKey);
            id = pageIdOfKey(b, lc, ids.pages, p, key, always);
          }
          // (NVIDIA keeps the guard: its kernels stay the ones the H100
          // ran until a device checks the change.)
          loaded[rep] = load(id, /*zeroInvalid=*/false,
                             /*knownValid=*/lc.ti.uniformWordRuns());
        }
        e.push_back(loaded[rep]);
      }
      out.col.push_back(vector::FromElementsOp::create(
          b, VectorType::get({l.accPerLane()}, b.getF32Type()), e));
    }
    rw.replaceOpWithMultiple(op, {lc.pack(lc.forms.get(op.getResult()), out)});
    return success();
  }
};

/// A descale ring's stages as one f32 buffer (LaneContext::DescaleRing).
Value descaleRingView(ImplicitLocOpBuilder &b, const LaneContext::DescaleRing &ring) {
  auto bufT = cast<MemRefType>(ring.buffer.getType());
  auto t = MemRefType::get({ring.stages * ring.keys}, b.getF32Type(), AffineMap(),
                           bufT.getMemorySpace());
  return memref::ViewOp::create(b, t, ring.buffer, arith::ConstantIndexOp::create(b, 0),
                                ValueRange{});
}

/// fmha.stage_descale (the producer): when enabled, key k of the tile
/// (k = thread + i x role threads) reads its page's id and that page's
/// descale for the head, and stores it at stage `slot`, entry k.
struct StageDescalePattern : LanePattern<StageDescaleOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(StageDescaleOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    auto it = lc.descaleRings.find(op.getRing());
    if (it == lc.descaleRings.end() || !lc.roleThreads)
      return rw.notifyMatchFailure(op, "no descale ring (LowerTiles) or no roles");
    const LaneContext::DescaleRing &ring = it->second;
    TokenIds ids = tokenIds(b, rw, op.getIds());
    int64_t p = ids.op.getPageSize();
    Value view = descaleRingView(b, ring);
    Value ds = lc.readOnly(b, a.getDescale()[0]);
    Value head = a.getHead()[0];
    Value base = arith::MulIOp::create(b, laneToI32(b, a.getSlot()[0]),
                                       laneConstI32(b, ring.keys));
    Value always = arith::ConstantIntOp::create(b, b.getI1Type(), 1);
    for (int64_t k0 = 0; k0 < ring.keys; k0 += lc.roleThreads) {
      Value k = arith::AddIOp::create(b, lc.tidV, laneConstI32(b, k0));
      Value go = a.getEnabled()[0];
      if (k0 + lc.roleThreads > ring.keys)
        go = arith::AndIOp::create(
            b, go,
            arith::CmpIOp::create(b, arith::CmpIPredicate::slt, k, laneConstI32(b, ring.keys)));
      auto guard = scf::IfOp::create(b, go, /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(guard.thenBlock());
      Value key = arith::AddIOp::create(b, ids.start, k);
      Value id = pageIdOfKey(b, lc, ids.pages, p, key, always);
      Value v = memref::LoadOp::create(b, ds, ValueRange{laneToIndex(b, id), head});
      // The form the ring holds, by the instruction the consumers' own
      // log2 or 1 / d would have taken (Log2Pattern; an arith.divf, which
      // the chip makes approximate where it does that for the kernel).
      if (op.getForm() == DescaleForm::Log2)
        v = lc.ti.log2(b, b.getLoc(), v);
      else if (op.getForm() == DescaleForm::Reciprocal)
        v = arith::DivFOp::create(b, arith::ConstantOp::create(b, b.getF32FloatAttr(1.0f)), v);
      memref::StoreOp::create(b, v, view,
                              ValueRange{laneToIndex(b, arith::AddIOp::create(b, base, k))});
    }
    rw.eraseOp(op);
    return success();
  }
};

/// fmha.staged_descale (a consumer, after the fill's stage_wait): the column
/// form of the tile's per-key descales, one shared-memory read a group of
/// a lane's elements whose keys lie in one page on every lane (tiles of
/// whole pages), else one an element.
struct StagedDescalePattern : LanePattern<StagedDescaleOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(StagedDescaleOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    auto it = lc.descaleRings.find(op.getRing());
    if (it == lc.descaleRings.end())
      return rw.notifyMatchFailure(op, "no descale ring (LowerTiles)");
    const LaneContext::DescaleRing &ring = it->second;
    const LaneLayout &l = lc.layout;
    int64_t n = op.getResult().getType().getDimSize(0);
    int64_t p = op.getPageSize();
    Value view = descaleRingView(b, ring);
    Value base = arith::MulIOp::create(b, laneToI32(b, a.getSlot()[0]),
                                       laneConstI32(b, ring.keys));
    bool aligned = lc.cfg.getPageRegime() != PageRegime::Unaligned;
    int64_t elems = (n / l.atomN) * l.accPerLane();
    auto pagesOf = [&](int64_t elem) {
      std::vector<int64_t> pages;
      for (int64_t lane = 0; lane < l.wave; ++lane)
        pages.push_back(l.columnOf(lane, elem / l.accPerLane(), elem % l.accPerLane()) / p);
      return pages;
    };
    std::map<std::vector<int64_t>, int64_t> groupRep;
    SmallVector<int64_t> repOf(elems);
    for (int64_t elem = 0; elem < elems; ++elem)
      repOf[elem] = aligned ? groupRep.try_emplace(pagesOf(elem), elem).first->second : elem;
    DenseMap<int64_t, Value> loaded;
    LaneValues out;
    for (int64_t j = 0; j < n / l.atomN; ++j) {
      SmallVector<Value> e;
      for (int64_t v = 0; v < l.accPerLane(); ++v) {
        int64_t rep = repOf[j * l.accPerLane() + v];
        if (!loaded.count(rep)) {
          Value col = lc.colOf(b, rep / l.accPerLane(), rep % l.accPerLane());
          loaded[rep] = memref::LoadOp::create(
              b, view, ValueRange{laneToIndex(b, arith::AddIOp::create(b, base, col))});
        }
        e.push_back(loaded[rep]);
      }
      out.col.push_back(vector::FromElementsOp::create(
          b, VectorType::get({l.accPerLane()}, b.getF32Type()), e));
    }
    rw.replaceOpWithMultiple(op, {lc.pack(lc.forms.get(op.getResult()), out)});
    return success();
  }
};

/// Where the chunks of one K/V tile come from (emitKVTile).
struct KVTileSource {
  /// The `bytes`-byte chunk (16, or 8 for V^T words of half chunks) at
  /// byte column c16 of tile row r, through `view` at row `inView` when a
  /// view is given.
  std::function<Value(Value r, Value c16, Value view, Value inView, int64_t bytes)> load;
  /// K only: instead of load and store, start a copy of the chunk to LDS
  /// byte `at` (fmha.stage_kv's asynchronous copies).
  std::function<void(Value r, Value c16, Value at)> copy;
  /// Row-major tiles read through a view: instead of load and store, the
  /// chunk at byte column c16 of `view`'s row `inView` written straight
  /// into LDS byte `at` (TargetInfo::loadToLds); null where the chip has
  /// no such load.
  std::function<void(Value r, Value view, Value inView, Value c16, Value at)> loadToLds;
  /// The tile's bounded view of its rows, or null.
  Value view;
  /// V^T of a register stage (fmha.stage_kv of a ring whose V tiles are
  /// transposed at their staged read, LaneContext::Ring::viaRegisters):
  /// each step's loads are issued here, its permutes and LDS stores
  /// appended instead, to run into the buffer their closure is given.
  SmallVector<std::function<void(ImplicitLocOpBuilder &, Value)>> *deferTranspose = nullptr;
  /// For per-token ids, the bounded view of the rows from key `first` to
  /// the end of its page (page `page` of the tile when that is known at
  /// compile time; else the one of the tile's pages `candidates` that holds
  /// first); null when the chip has no bounded views.
  std::function<Value(Value first, std::optional<int64_t> page,
                      ArrayRef<int64_t> candidates)>
      waveView;
  /// The tile's first key, and the cache's page size (for waveView).
  Value start;
  int64_t pageSize = 0;
};

/// A K/V tile of bn rows (in form f) staged in `lds`: each lane's 16-byte
/// chunks (8-byte ones for V^T words where 16-byte words are half as many
/// as the threads), K row-major (swizzled where the chip swizzles), V transposed at
/// the chip's pvKeyPosition, the keys of one word transposed in registers.
/// deferStores: the chunks' LDS stores go to lc.deferredKStores instead
/// (a K tile whose V follows); a tile emitted with a deferred K pending
/// emits it once its own first loads are issued.
void emitKVTile(ImplicitLocOpBuilder &b, const LaneContext &lc, const ValueForm &f,
                int64_t bn, Value lds, KVTileSource &src, bool deferStores = false) {
  int64_t threads = lc.cfg.getWarps() * lc.layout.wave;
  int64_t eb = lc.layout.atom.elemBytes;
  // V^T (the lanes transpose it) or row-major (K, and V read by
  // transpose loads).
  bool vt = f.transposedInLds();
  int64_t chunk = 16, perRow = (vt ? f.ldsRows : f.ldsCols / eb) * eb / chunk;
  auto loadChunk = [&](Value r, Value c16, Value view, Value inView) {
    return src.load(r, c16, view, inView, chunk);
  };
  Value rows = src.view, start = src.start;
  // V: the keys of one word of V^T's key axis (LaneLayout.h, planVWords:
  // 4 keys on AMDGPU and sm_90) are transposed in registers and written as
  // one word per d.
  VWordPlan words;
  std::optional<BitLinear> pos;
  if (vt) {
    pos = fitBits(bn, [&](int64_t key) {
      int64_t p = lc.ti.pvKeyPosition(key);
      return f.bankSwizzle ? lc.layout.vtPairColumn(p * eb) / eb : p;
    });
    words = planVWords(lc.ti, bn, f.ldsCols, perRow, threads);
    // Fewer words of 16-byte chunks than threads (gfx942 D 64: 128 for
    // 256): words of 8-byte chunks, one a thread (4 row loads of 8 bytes,
    // 16 permutes, 8 dword stores), where every group of 128 threads took
    // all 128 words of 16 bytes (32 permutes and 16 stores a thread, half
    // of them storing what the other half stored).
    int64_t keys16 = words.keys;
    if (keys16 == 4 && eb == 1 && (bn / keys16) * perRow * 2 == threads &&
        lc.ti.hasBytePermute()) {
      VWordPlan half = planVWords(lc.ti, bn, f.ldsCols, perRow * 2, threads);
      if (half.keys == 4) {
        chunk = 8;
        perRow *= 2;
        words = half;
      }
    }
  }
  int64_t keysPer = words.keys;
  bool byKeyGroup = vt && lc.ti.transposeByKeyGroups();
  int64_t groups = (bn / keysPer) * perRow;
  // A V^T of fewer words than threads (planVWords allows it when the
  // words are whole waves; gfx942 D 64, the case it was built for, now
  // takes words of 8-byte chunks above) is
  // transposed by every group of `active` threads alike: thread t takes the
  // word of t % active, and the threads of one word store the same bytes
  // to the same places. No branch (a guard on t < active put the
  // transpose in a block of its own and left half the waves idle while
  // the others worked), and each wave does one word's transpose, where
  // words of 2 keys (no byte permutes) cost about 80 instructions a tile.
  // Else every thread takes groups / threads words.
  int64_t active = std::min(threads, groups);
  assert((active == threads || vt) && "only V^T words are shared by threads");
  // Per-token ids on tiles of whole pages: the rows one wave loads in one
  // step (wave / perRow * keysPer of them, from a multiple of that) lie in
  // one page when the page holds a whole number of such runs, so their
  // page id is wave-uniform and they are read through a bounded view from
  // the wave's first key (K at pages of 8 keys or more for D 128, V at 32).
  int64_t waveRows = lc.layout.wave / perRow * keysPer;
  bool waveUniform = src.waveView && !byKeyGroup &&
                     lc.layout.wave % perRow == 0 && active % perRow == 0 &&
                     src.pageSize % waveRows == 0;
  // A chunk-major K (ValueForm::bankSwizzle): a wave's lanes take its
  // rows first (lane l row l % R, chunk l / R, R = wave / perRow rows a
  // wave), so that the 8 lanes of a 16-byte LDS store write 8 rows of one
  // chunk, 128 contiguous bytes (in row order they wrote one row's 8
  // chunks, 8 x rows x 16 bytes apart: the same banks). The wave reads the
  // same rows either way.
  int64_t wave = lc.layout.wave;
  bool rowsFirst = f.bankSwizzle && !vt && !byKeyGroup && keysPer == 1 &&
                   wave % perRow == 0 && active % wave == 0;
  Value laneRow; // the lane's first row in its wave's run
  if (waveUniform)
    laneRow = arith::MulIOp::create(
        b,
        rowsFirst ? Value(arith::RemUIOp::create(b, lc.laneV, laneConstI32(b, wave / perRow)))
                  : Value(arith::DivUIOp::create(b, lc.laneV, laneConstI32(b, perRow))),
        laneConstI32(b, keysPer));
  // K: every chunk's load before the first LDS store, with a scheduling
  // fence between, so that the loads are in flight together (LLVM
  // otherwise pairs each load with its store to save registers, and the
  // wave waits for each load in turn: on gfx950 four waits of the full
  // load latency per tile).
  SmallVector<std::pair<Value, Value>> staged; // (chunk, LDS offset)
  auto storeChunks = [&lc, lds, chunk](ImplicitLocOpBuilder &b,
                                       ArrayRef<std::pair<Value, Value>> staged) {
    if (staged.size() > 1)
      lc.ti.schedulingFence(b, b.getLoc());
    for (auto [v, at] : staged)
      vector::StoreOp::create(b, v, lds, ValueRange{laneToIndex(b, at)},
                              /*nontemporal=*/false, llvm::Align(chunk));
  };
  // An earlier K tile's stores, once this tile's first loads are issued.
  auto flushDeferred = [&] {
    if (auto k = std::move(lc.deferredKStores)) {
      lc.deferredKStores = nullptr;
      k(b);
    }
  };
  auto storeStaged = [&] {
    if (!deferStores) {
      flushDeferred();
      storeChunks(b, staged);
      return;
    }
    SmallVector<std::pair<Value, Value>> held(staged);
    lc.deferredKStores = [storeChunks, held](ImplicitLocOpBuilder &b) {
      storeChunks(b, held);
    };
  };
  Value tid = active < threads
                  ? Value(arith::RemUIOp::create(b, lc.tidV, laneConstI32(b, active)))
                  : lc.tidV;
  Value waveOfTid = active < threads
                        ? Value(arith::RemUIOp::create(
                              b, lc.waveV, laneConstI32(b, active / lc.layout.wave)))
                        : lc.waveV;
  // The steps whose rows of every wave lie in one page (the tile starts on a
  // page boundary: whole pages) read through the view of that whole page,
  // at the wave's row in it, built at the page's first step: the steps of
  // one page share one view (on AMDGPU one buffer resource a page, where a
  // view from each step's first key built one a step). (Building every
  // page's view before the first load, so that the id reads are in flight
  // together, changed nothing: LLVM's scheduler puts each id's wait back
  // before the next id's read.)
  int64_t steps = groups / active;
  auto roundOffOf = [&](int64_t i) { return i * (active / perRow) * keysPer; };
  auto pageOf = [&](int64_t i) -> std::optional<int64_t> {
    int64_t off = roundOffOf(i), waves = active / lc.layout.wave;
    if (off % src.pageSize + waves * waveRows <= src.pageSize)
      return off / src.pageSize;
    return std::nullopt;
  };
  llvm::SmallDenseMap<int64_t, Value> pageViews;
  for (int64_t i = 0; i < steps; ++i) {
    Value g = arith::AddIOp::create(b, tid, laneConstI32(b, i * active));
    // Share g: word q of chunk c (by key group: q = g % words, else
    // q = g / chunks per row); r0 is the word's base key.
    int64_t nq = bn / keysPer;
    Value q = byKeyGroup ? Value(arith::RemUIOp::create(b, g, laneConstI32(b, nq)))
                         : Value(arith::DivUIOp::create(b, g, laneConstI32(b, perRow)));
    Value ci = byKeyGroup ? Value(arith::DivUIOp::create(b, g, laneConstI32(b, nq)))
                          : Value(arith::RemUIOp::create(b, g, laneConstI32(b, perRow)));
    if (rowsFirst) {
      int64_t rw = wave / perRow;
      Value inWave = arith::RemUIOp::create(b, g, laneConstI32(b, wave));
      q = arith::AddIOp::create(
          b,
          arith::MulIOp::create(b, arith::DivUIOp::create(b, g, laneConstI32(b, wave)),
                                laneConstI32(b, rw)),
          arith::RemUIOp::create(b, inWave, laneConstI32(b, rw)));
      ci = arith::DivUIOp::create(b, inWave, laneConstI32(b, rw));
    }
    bool adjacent = llvm::all_of(llvm::enumerate(words.offsets), [](auto e) {
      return e.value() == int64_t(e.index());
    });
    Value r0 = adjacent ? Value(arith::MulIOp::create(b, q, laneConstI32(b, keysPer)))
                        : laneEmitBits(b, words.base, q);
    Value c16 = arith::MulIOp::create(b, ci, laneConstI32(b, chunk));
    // The view this step reads through, and the lane's row in it.
    Value view = rows, inView = r0;
    if (waveUniform) {
      int64_t roundOff = roundOffOf(i);
      // The wave's first row of this step, from the tile's start.
      Value waveOff = arith::AddIOp::create(
          b, laneConstI32(b, roundOff),
          arith::MulIOp::create(b, waveOfTid, laneConstI32(b, waveRows)));
      if (std::optional<int64_t> page = pageOf(i)) {
        Value &pv = pageViews[*page];
        if (!pv) {
          Value pageKey =
              arith::AddIOp::create(b, start, laneConstI32(b, *page * src.pageSize));
          pv = src.waveView(pageKey, page, {});
        }
        view = pv;
        inView = arith::AddIOp::create(
            b, laneRow,
            arith::SubIOp::create(b, waveOff, laneConstI32(b, *page * src.pageSize)));
      } else {
        // Else from the wave's own first key, in one of the pages the
        // step's waves cover (their ids the tile's, read once a tile and
        // shared with the descale gathers).
        Value first = arith::AddIOp::create(b, start, waveOff);
        int64_t waves = active / lc.layout.wave;
        SmallVector<int64_t> candidates;
        for (int64_t pg = roundOff / src.pageSize;
             pg <= (roundOff + (waves - 1) * waveRows) / src.pageSize; ++pg)
          candidates.push_back(pg);
        view = src.waveView(first, std::nullopt, candidates);
        inView = laneRow;
      }
    }
    auto rowAt = [&](int64_t k) {
      return k ? Value(arith::AddIOp::create(b, inView, laneConstI32(b, k))) : inView;
    };
    if (!vt) {
      if (src.copy)
        src.copy(r0, c16, lc.ldsOffset(b, f, r0, c16));
      else if (src.loadToLds && view) {
        // The load writes the wave's run from its first lane's index: give
        // every lane that index, 16 x (the wave's first thread + step x
        // threads), uniform (an SGPR: M0) where the lane's own would be
        // read back from a VGPR. Row-major with rows of whole chunks (no
        // padding or swizzle on AMDGPU): chunk g is at byte 16 g.
        assert(f.ldsCols == perRow * chunk && !f.bankSwizzle &&
               "an LDS load needs unpadded, unswizzled rows");
        Value g0 = arith::AddIOp::create(
            b, arith::MulIOp::create(b, lc.waveV, laneConstI32(b, lc.layout.wave)),
            laneConstI32(b, i * active));
        Value run = arith::MulIOp::create(b, g0, laneConstI32(b, chunk));
        int64_t w = lc.ti.ldsLoadBytes();
        if (w == chunk) {
          src.loadToLds(r0, view, inView, c16, run);
        } else {
          // Loads of w < 16 bytes a lane (gfx942: 4): the wave's run of
          // chunks in chunk / w loads. Load j's lane l writes byte
          // run + j wave w + w l, byte (w l) % 16 of the run's chunk
          // l' = (j wave w + w l) / 16, whose row and column the lane reads
          // (g - l is a multiple of perRow: chunk l' is row
          // r0 - l / perRow + l' / perRow, column 16 (l' % perRow)).
          if (keysPer != 1 || chunk % w || (lc.layout.wave * w) % chunk ||
              lc.layout.wave % perRow || active != threads)
            llvm::reportFatalInternalError(
                "emitKVTile: loads into LDS of fewer than 16 bytes a lane need K "
                "rows of whole chunks, a wave of whole rows and every thread active");
          Value ownRow = arith::DivUIOp::create(b, lc.laneV, laneConstI32(b, perRow));
          Value wl = arith::MulIOp::create(b, lc.laneV, laneConstI32(b, w));
          for (int64_t j = 0; j < chunk / w; ++j) {
            Value o = arith::AddIOp::create(b, wl, laneConstI32(b, j * lc.layout.wave * w));
            Value other = arith::DivUIOp::create(b, o, laneConstI32(b, chunk));
            Value dRow = arith::SubIOp::create(
                b, arith::DivUIOp::create(b, other, laneConstI32(b, perRow)), ownRow);
            Value col = arith::AddIOp::create(
                b,
                arith::MulIOp::create(
                    b, arith::RemUIOp::create(b, other, laneConstI32(b, perRow)),
                    laneConstI32(b, chunk)),
                arith::RemUIOp::create(b, o, laneConstI32(b, chunk)));
            src.loadToLds(arith::AddIOp::create(b, r0, dRow), view,
                          arith::AddIOp::create(b, inView, dRow), col,
                          arith::AddIOp::create(
                              b, run, laneConstI32(b, j * lc.layout.wave * w)));
          }
        }
      }
      else
        staged.push_back({loadChunk(r0, c16, view, inView), lc.ldsOffset(b, f, r0, c16)});
      continue;
    }
    SmallVector<Value> rowsK;
    for (int64_t k : words.offsets)
      rowsK.push_back(loadChunk(arith::AddIOp::create(b, r0, laneConstI32(b, k)), c16,
                                view, rowAt(k)));
    flushDeferred();
    // The permutes and LDS stores of this step's words, into `lds` (the
    // tile's V^T buffer); a register stage's (src.deferTranspose) run at
    // its staged read, after its barrier.
    auto transposeStep = [&lc, f, pos, r0, c16, rowsK, eb, keysPer,
                          chunk](ImplicitLocOpBuilder &b, Value lds) {
      // The word's first key's place on V^T's key axis, in bytes.
      Value p = laneEmitBits(b, *pos, r0);
      if (eb > 1)
        p = arith::MulIOp::create(b, p, laneConstI32(b, eb));
      if (eb == 1 && keysPer == 4 && chunk % 4 == 0 && lc.ti.hasBytePermute()) {
        // 4 keys x 4 bytes per dword column: a 4 x 4 byte transpose in two
        // rounds of byte permutes, {k0.j, k1.j, k2.j, k3.j} for j = 0..3.
        auto i32v = VectorType::get({chunk / 4}, b.getI32Type());
        SmallVector<Value> dw;
        for (Value r : rowsK)
          dw.push_back(vector::BitCastOp::create(b, i32v, r));
        auto permute = [&](Value x, Value y, uint32_t sel) {
          return lc.ti.permuteBytes(b, b.getLoc(), x, y, sel);
        };
        auto bytes4 = VectorType::get({4}, b.getI8Type());
        for (int64_t c = 0; c < chunk / 4; ++c) {
          Value w[4];
          for (int k = 0; k < 4; ++k)
            w[k] = vector::ExtractOp::create(b, dw[k], c);
          // {x0, y0, x1, y1} and {x2, y2, x3, y3} of two keys' dwords.
          Value lo01 = permute(w[0], w[1], 0x05010400), hi01 = permute(w[0], w[1], 0x07030602);
          Value lo23 = permute(w[2], w[3], 0x05010400), hi23 = permute(w[2], w[3], 0x07030602);
          Value out[4] = {permute(lo01, lo23, 0x05040100), permute(lo01, lo23, 0x07060302),
                          permute(hi01, hi23, 0x05040100), permute(hi01, hi23, 0x07060302)};
          for (int j = 0; j < 4; ++j) {
            Value word = vector::BitCastOp::create(
                b, bytes4, vector::BroadcastOp::create(
                               b, VectorType::get({1}, b.getI32Type()), out[j]));
            Value dd = arith::AddIOp::create(b, c16, laneConstI32(b, 4 * c + j));
            Value at = lc.ldsOffset(b, f, dd, p);
            vector::StoreOp::create(b, word, lds, ValueRange{laneToIndex(b, at)},
                                    /*nontemporal=*/false, llvm::Align(4));
          }
        }
        return;
      }
      // Element e of the chunk (its eb bytes) of each key: one word of
      // keysPer x eb bytes at V^T row c16 / eb + e.
      Value all = laneConcat(b, rowsK);
      Value d0 = eb > 1 ? Value(arith::DivUIOp::create(b, c16, laneConstI32(b, eb))) : c16;
      for (int64_t e = 0; e < chunk / eb; ++e) {
        SmallVector<int64_t> mask;
        for (int64_t k = 0; k < keysPer; ++k)
          for (int64_t h = 0; h < eb; ++h)
            mask.push_back(k * chunk + e * eb + h);
        Value word = vector::ShuffleOp::create(b, all, all, mask);
        Value dd = arith::AddIOp::create(b, d0, laneConstI32(b, e));
        Value at = lc.ldsOffset(b, f, dd, p);
        vector::StoreOp::create(b, word, lds, ValueRange{laneToIndex(b, at)},
                                /*nontemporal=*/false, llvm::Align(keysPer * eb));
      }
    };
    if (src.deferTranspose)
      src.deferTranspose->push_back(transposeStep);
    else
      transposeStep(b, lds);
  }
  storeStaged();
}

/// fmha.gather_kv (loads and stores by the lanes) and fmha.stage_kv (the
/// same chunks as asynchronous copies into a ring stage, K's row-major
/// layout for both K and V: a staged V is transposed by fmha.staged_kv).
template <typename OpT> struct KVTilePattern : LanePattern<OpT> {
  using LanePattern<OpT>::LanePattern;
  using LanePattern<OpT>::lc;
  using OneToNOpAdaptor = typename LanePattern<OpT>::OneToNOpAdaptor;
  static constexpr bool kStage = std::is_same_v<OpT, StageKVOp>;
  /// The rows of page `id` from key `start` (slot start % P) to the page's
  /// end, for head `head`, as the chip's bounded view (bytes valid up to the
  /// sequence's last key, every row of the view when in_bounds); null when
  /// the chip has none or the cache's row stride is not static. `start` is
  /// the tile's first key (one page per tile) or a wave's first key.
  Value tileRowsView(ImplicitLocOpBuilder &b, Value cache, MemRefType cacheT,
                     bool nhd, int64_t pageSize, Value id, Value head,
                     Value start, Value len, bool inBounds) const {
    if (!lc.ti.hasBoundedViews())
      return {};
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(cacheT.getStridesAndOffset(strides, offset)))
      return {};
    int64_t rowStride = strides[nhd ? 1 : 2];
    if (ShapedType::isDynamic(rowStride))
      return {};
    Value slot0 = arith::RemUIOp::create(b, start, laneConstI32(b, pageSize));
    Value rows = arith::SubIOp::create(b, laneConstI32(b, pageSize), slot0);
    Value valid = rows;
    if (!inBounds) {
      // max(min(len, start + rows) - start, 0): the rows before the
      // sequence's end. Not a clamp of len - start by two constants (rows
      // is one where the tile starts on a page boundary): LLVM makes that
      // v_med3_i32 on AMDGPU, a VGPR in the view's descriptor and a
      // waterfall loop around each of its loads.
      Value end = arith::MinSIOp::create(b, len, arith::AddIOp::create(b, start, rows));
      valid = arith::MaxSIOp::create(b, arith::SubIOp::create(b, end, start),
                                     laneConstI32(b, 0));
    }
    int64_t eb = cacheT.getElementTypeBitWidth() / 8;
    Value bytes = arith::MulIOp::create(
        b, arith::ExtUIOp::create(b, b.getI64Type(), valid),
        arith::ConstantIntOp::create(b, b.getI64Type(), rowStride * eb));
    OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
    OpFoldResult d = b.getIndexAttr(cacheT.getDimSize(3));
    Value pageIx = laneToIndex(b, id), slotIx = laneToIndex(b, slot0),
          rowsIx = laneToIndex(b, rows);
    SmallVector<OpFoldResult> offs =
        nhd ? SmallVector<OpFoldResult>{pageIx, slotIx, head, zero}
            : SmallVector<OpFoldResult>{pageIx, head, slotIx, zero};
    SmallVector<OpFoldResult> sizes =
        nhd ? SmallVector<OpFoldResult>{one, rowsIx, one, d}
            : SmallVector<OpFoldResult>{one, one, rowsIx, d};
    Value view = memref::SubViewOp::create(b, cache, offs, sizes,
                                           SmallVector<OpFoldResult>(4, one));
    return lc.ti.boundedView(b, b.getLoc(), view, bytes);
  }

  /// Whether a gathered K tile's LDS stores wait for its V tile's loads
  /// (TargetInfo::batchKVLoads): the next op with effects in its block is
  /// the gather of V with the same page ids; page-id and descale reads and
  /// pure ops may lie between.
  bool deferUntilV(OpT op, const ValueForm &f) const {
    if constexpr (kStage) {
      return false;
    } else {
      if (f.isV || !lc.ti.batchKVLoads())
        return false;
      for (Operation *n = op->getNextNode(); n; n = n->getNextNode()) {
        if (auto g = dyn_cast<GatherKVOp>(n))
          return g.getIds() == op.getIds() && lc.forms.get(g.getTile()).isV;
        if (!isPure(n) && !isa<PageIdsOp, GatherDescaleOp>(n))
          return false;
      }
      return false;
    }
  }

  /// fmha.stage_kv by TMA (fmha-outline-kernel's `fmha.tma`): when enabled,
  /// the role's first thread expects the tile's bytes on the stage's
  /// "landed" mbarrier and starts one box a column group and run of
  /// box_rows keys (never across a page: box_rows divides the page size and
  /// the tile's start), at (column, slot in the page, head, page id) of the
  /// cache's tensor map, into the stage's swizzled rows as the lanes'
  /// copies would write them (the map's swizzle is the layout's).
  LogicalResult tmaStage(OpT op, OneToNOpAdaptor a, ConversionPatternRewriter &rw,
                         ImplicitLocOpBuilder &b, const ValueForm &f, int64_t bn,
                         Value lds, DictionaryAttr tma) const {
    auto kernel = op->template getParentOfType<gpu::GPUFuncOp>();
    int64_t argNo = tma.getAs<IntegerAttr>("arg") ? tma.getAs<IntegerAttr>("arg").getInt() : -1;
    if (!kernel || argNo < 0 || argNo >= static_cast<int64_t>(kernel.getNumArguments()) ||
        !lc.tma)
      return op.emitOpError("fmha.tma names no tensor-map argument of the kernel "
                            "(fmha-outline-kernel tma gives it one)");
    Value map = kernel.getArgument(argNo);
    auto rowsAttr = tma.getAs<IntegerAttr>("box_rows");
    auto colsAttr = tma.getAs<IntegerAttr>("box_cols");
    if (!rowsAttr || !colsAttr)
      return op.emitOpError("fmha.tma needs integer box_rows and box_cols");
    int64_t rows = rowsAttr.getInt(), cols = colsAttr.getInt();
    auto cacheT = cast<MemRefType>(op.getCache().getType());
    int64_t eb = cacheT.getElementTypeBitWidth() / 8;
    int64_t w = cols * eb, rowBytes = cacheT.getDimSize(3) * eb;
    // The boxes tile the stage exactly, in the swizzled rows the warpgroup
    // MMA reads (the map's swizzle is the layout's).
    if (rows < 8 || rows % 8 || bn % rows || w <= 0 || rowBytes % w ||
        w != lc.ti.ldsSwizzleBytes(f.ldsCols) || f.bankSwizzle || f.transposedInLds())
      return op.emitOpError("fmha.tma box of ")
             << rows << " rows x " << w << " bytes does not tile the stage's "
             << bn << " swizzled rows of " << rowBytes << " bytes";
    bool nhd = op.getKvLayout() == KVLayout::NHD;
    int64_t pageSize = cacheT.getDimSize(nhd ? 1 : 2);
    Value start = laneToI32(b, a.getTileStart()[0]);
    Value head = laneToI32(b, a.getHead()[0]);
    std::optional<TokenIds> ids;
    Value uniformId;
    if (isa<VectorType>(op.getIds().getType()))
      ids = tokenIds(b, rw, op.getIds());
    else
      uniformId = a.getIds()[0];
    Value first = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, lc.tidV, laneConstI32(b, lc.roleThreads)),
        laneConstI32(b, 0));
    Value go = arith::AndIOp::create(b, a.getEnabled()[0], first);
    auto guard = scf::IfOp::create(b, go, /*withElse=*/false);
    b.setInsertionPointToStart(guard.thenBlock());
    Value slot = a.getSlot()[0];
    Value mbar = lc.landedBarrier(b, slot);
    lc.ti.mbarrierArriveExpectTx(b, b.getLoc(), mbar, bn * rowBytes);
    Value base = lc.ldsAddress(b, lds);
    auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
    Value always = arith::ConstantIntOp::create(b, 1, 1);
    for (int64_t r0 = 0; r0 < bn; r0 += rows) {
      Value key = arith::AddIOp::create(b, start, laneConstI32(b, r0));
      Value id = uniformId ? uniformId
                           : pageIdOfKey(b, lc, ids->pages, ids->op.getPageSize(), key, always);
      Value inPage = arith::RemUIOp::create(b, key, laneConstI32(b, pageSize));
      for (int64_t c = 0; c < rowBytes; c += w) {
        Value at = arith::AddIOp::create(
            b, base,
            arith::ConstantIntOp::create(b, b.getI64Type(), lc.ldsTileOffset(f, r0, c)));
        Value dst = LLVM::IntToPtrOp::create(b, ptr3, at);
        lc.ti.tmaLoad(b, b.getLoc(), dst, map,
                      ValueRange{laneConstI32(b, c / eb), inPage, head, id}, mbar);
      }
    }
    rw.eraseOp(op);
    return success();
  }

  LogicalResult matchAndRewrite(OpT op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    VectorType t;
    ValueForm f;
    Value lds;
    if constexpr (kStage) {
      t = cast<VectorType>(op.getTileType());
      const LaneContext::Ring &ring = lc.rings.at(op.getRing());
      f = ring.form;
      lds = lc.ringStage(b, ring, a.getSlot()[0]);
    } else {
      t = op.getTile().getType();
      f = lc.forms.get(op.getTile());
      lds = lc.lds.lookup(op);
    }
    int64_t bn = t.getDimSize(0);
    if constexpr (kStage)
      if (auto tma = op->template getAttrOfType<DictionaryAttr>(kTmaAttr))
        return tmaStage(op, a, rw, b, f, bn, lds, tma);
    // Loads into LDS: the stage's views and page-id reads too only when it
    // is enabled (the prologue of a loop that runs no tile has page id -1,
    // and not even a view of that page is made). (NVIDIA's copies keep
    // their guard below: its kernels stay the ones the H100 ran.)
    scf::IfOp guard;
    // A register stage (Ring::viaRegisters) keeps its loaded chunks for its
    // staged read: no `if` around them (LaneForms: always enabled).
    bool viaRegisters = false;
    if constexpr (kStage) {
      viaRegisters = lc.rings.at(op.getRing()).viaRegisters;
      if (viaRegisters && !matchPattern(op.getEnabled(), m_One()))
        return op.emitOpError("a V stage loaded into registers (a one-stage ring "
                              "the lanes transpose) must always be enabled");
    }
    if constexpr (kStage) {
      if (lc.ti.ldsLoadBytes() && !viaRegisters) {
        guard = scf::IfOp::create(b, a.getEnabled()[0], /*withElse=*/false);
        b.setInsertionPointToStart(guard.thenBlock());
      }
    }
    // Rows of d elements, eb bytes each, staged as 16-byte chunks.
    int64_t eb = lc.layout.atom.elemBytes;
    int64_t chunk = 16;
    Value cache = a.getCache()[0], head = a.getHead()[0];
    auto cacheT = cast<MemRefType>(op.getCache().getType());
    bool nhd = op.getKvLayout() == KVLayout::NHD;
    int64_t pageSize = cacheT.getDimSize(nhd ? 1 : 2);
    Value start = laneToI32(b, a.getTileStart()[0]);
    Value len = laneToI32(b, a.getSeqLen()[0]);
    Value uniformId;
    std::optional<TokenIds> ids;
    if (isa<VectorType>(op.getIds().getType()))
      ids = tokenIds(b, rw, op.getIds());
    else // wave-uniform page id: an SGPR on AMDGPU
      uniformId = lc.ti.broadcastFirstLane(b, b.getLoc(), a.getIds()[0]);
    VectorType vt = VectorType::get({chunk}, b.getI8Type());
    Value zero = arith::ConstantOp::create(b, vt, b.getZeroAttr(vt));
    // A chunk as the cache holds it (16 fp8 bytes, 8 16-bit values) at byte
    // column c16, as bytes.
    VectorType et = VectorType::get({chunk / eb}, cacheT.getElementType());
    auto loadBytes = [&](Value mem, SmallVector<Value> ix, int64_t bytes) {
      if (eb == 1)
        return Value(vector::LoadOp::create(b, VectorType::get({bytes}, b.getI8Type()), mem,
                                            ix, /*nontemporal=*/false, llvm::Align(bytes)));
      assert(bytes == chunk && "16-bit caches load whole chunks");
      ix.back() = arith::DivUIOp::create(b, ix.back(), arith::ConstantIndexOp::create(b, eb));
      Value v = vector::LoadOp::create(b, et, mem, ix, /*nontemporal=*/false,
                                       llvm::Align(chunk));
      return Value(vector::BitCastOp::create(b, vt, v));
    };
    // A tile in one page, on a chip with bounded views: its rows from the
    // tile's first key as one view (a wave-uniform base; a lane's offset
    // r * row stride + c16 stays the same every tile), bounded at the
    // sequence's last key, so a key past the end reads zero without a
    // compare and select per chunk.
    Value rows;
    if (uniformId)
      rows = this->tileRowsView(b, cache, cacheT, nhd, pageSize, uniformId, head,
                          start, len, op.getInBounds());
    // Per-token ids on tiles of a few whole pages, on a chip where selects
    // over uniform values beat a lane's own page-table read (gfx942's V^T:
    // a wave's lanes span the tile's 8 pages at page 16): each lane picks
    // its page's id from the tile's.
    int64_t tilePages = ids && bn % pageSize == 0 ? bn / pageSize : 0;
    bool laneSelectsId = ids && lc.ti.selectsOverLaneLoads() &&
                         lc.cfg.getPageRegime() == PageRegime::WholePages &&
                         tilePages >= 2 && tilePages <= 8;
    // The cache indices of the row chunk of key start + r at byte column
    // c16, and whether that key is before the sequence's end.
    auto chunkIndex = [&](Value r, Value c16, Value *validOut = nullptr) {
      Value key = arith::AddIOp::create(b, start, r);
      // A full tile (in_bounds) has no key past the sequence: no zero-fill.
      Value valid = op.getInBounds()
                        ? arith::ConstantIntOp::create(b, 1, 1).getResult()
                        : arith::CmpIOp::create(b, arith::CmpIPredicate::slt, key, len)
                              .getResult();
      if (validOut)
        *validOut = valid;
      Value id = uniformId;
      if (!id && laneSelectsId) {
        // The lane's page among the tile's (read once a tile, uniform): r
        // is the key's place in the tile. A key past the end takes the last
        // page's id (the tile's ids clamp) and reads zero below.
        // A tree of selects on the bits of r / P where the tile holds a
        // power of two of pages: log2(pages) lane masks (loop-invariant,
        // an SGPR pair each on AMDGPU) instead of one a page, for the same
        // pages - 1 selects.
        SmallVector<Value> level;
        for (int64_t j = 0; j < tilePages; ++j)
          level.push_back(tilePageId(b, lc, *ids, j));
        if (llvm::isPowerOf2_64(tilePages) && llvm::isPowerOf2_64(pageSize)) {
          for (int64_t bit = pageSize; level.size() > 1; bit *= 2) {
            Value set = arith::CmpIOp::create(
                b, arith::CmpIPredicate::ne,
                arith::AndIOp::create(b, r, laneConstI32(b, bit)), laneConstI32(b, 0));
            SmallVector<Value> next;
            for (size_t k = 0; k + 1 < level.size(); k += 2)
              next.push_back(arith::SelectOp::create(b, set, level[k + 1], level[k]));
            level = std::move(next);
          }
          id = level.front();
        } else {
          id = level.front();
          for (int64_t j = 1; j < tilePages; ++j)
            id = arith::SelectOp::create(
                b,
                arith::CmpIOp::create(b, arith::CmpIPredicate::sge, r,
                                      laneConstI32(b, j * pageSize)),
                level[j], id);
        }
      }
      if (!id)
        id = pageIdOfKey(b, lc, ids->pages, ids->op.getPageSize(), key, valid);
      // 64-bit page base: the memref's index arithmetic is i64.
      Value slot = arith::RemUIOp::create(b, key, laneConstI32(b, pageSize));
      return nhd ? SmallVector<Value>{laneToIndex(b, id), laneToIndex(b, slot), head,
                                      laneToIndex(b, c16)}
                 : SmallVector<Value>{laneToIndex(b, id), head, laneToIndex(b, slot),
                                      laneToIndex(b, c16)};
    };
    // One row chunk of `bytes` bytes (16, or 8 for V^T words of half
    // chunks) of key start + r (zero past the sequence), through `view` at
    // row `inView` when there is one.
    auto loadChunk = [&](Value r, Value c16, Value view, Value inView, int64_t bytes) {
      if (view) {
        Value c0 = arith::ConstantIndexOp::create(b, 0);
        Value ri = laneToIndex(b, inView), ci = laneToIndex(b, c16);
        SmallVector<Value> ix = nhd ? SmallVector<Value>{c0, ri, c0, ci}
                                    : SmallVector<Value>{c0, c0, ri, ci};
        return loadBytes(view, ix, bytes);
      }
      Value valid;
      Value v = loadBytes(cache, chunkIndex(r, c16, &valid), bytes);
      Value none = bytes == chunk ? zero
                                  : Value(arith::ConstantOp::create(
                                        b, b.getZeroAttr(VectorType::get({bytes}, b.getI8Type()))));
      return Value(arith::SelectOp::create(b, valid, v, none));
    };
    // Per-token ids on tiles of whole pages: the rows one wave loads in one
    // step lie in one page when the page holds a whole number of such runs
    // (emitKVTile): their id is wave-uniform and they are read through a
    // bounded view from the wave's first key.
    KVTileSource src;
    src.load = loadChunk;
    src.view = rows;
    // One-stage rings on a chip with loads into LDS (gfx950 16 bytes a
    // lane, gfx942 4): a row-major tile's chunks go straight from the view
    // into LDS (no register, no ds_write). The lanes' LDS bytes of one step
    // are the run 16 x (thread + step x threads) (row-major, no padding or
    // swizzle on AMDGPU), as the loads write them. (A step without a view,
    // per-token ids below whole pages, loads and stores.)
    if (kStage && lc.ti.ldsLoadBytes() && !f.transposedInLds() &&
        cacheT.getElementTypeBitWidth() == 8)
      src.loadToLds = [&](Value r, Value view, Value inView, Value c16, Value at) {
        Value c0 = arith::ConstantIndexOp::create(b, 0);
        Value ri = laneToIndex(b, inView), ci = laneToIndex(b, c16);
        SmallVector<Value> ix = nhd ? SmallVector<Value>{c0, ri, c0, ci}
                                    : SmallVector<Value>{c0, c0, ri, ci};
        lc.ti.loadToLds(b, b.getLoc(), view, ix, lds, laneToIndex(b, at));
      };
    if (ids && lc.ti.hasBoundedViews() &&
        lc.cfg.getPageRegime() == PageRegime::WholePages)
      src.waveView = [&, ids](Value first, std::optional<int64_t> page,
                              ArrayRef<int64_t> candidates) -> Value {
        // The sequence owns first's page when first < len (rows past len
        // read zero through the view, so a page past the end may take any
        // page of the sequence: the tile's ids clamp to the last).
        Value id;
        if (page) {
          id = tilePageId(b, lc, *ids, *page);
        } else if (lc.ti.uniformWordRuns() && candidates.size() > 1 &&
                   (candidates.size() > 2 || !op.getInBounds())) {
          // first's page read from the table, the tile's first slot plus
          // the wave's (loop-invariant) page in it: one scalar add and load
          // a step. The select chain below keeps a loop-invariant compare a
          // candidate live (an SGPR pair each on AMDGPU): with more than
          // two, or in the masked tiles' loop (SGPRs are scarcest there),
          // they spilled (gfx942 8 waves page 16: 15; eighteenth session).
          // Full tiles with two candidates keep the chain: reading every
          // step's id took the 4-wave page-16 steady loops 913 -> 925.5
          // (gfx942) and 540 -> 565.5 (gfx950) modelled cycles a tile.
          Value slot = arith::AddIOp::create(
              b, arith::DivUIOp::create(b, start, laneConstI32(b, pageSize)),
              arith::DivUIOp::create(b, arith::SubIOp::create(b, first, start),
                                     laneConstI32(b, pageSize)));
          id = op.getInBounds()
                   ? Value(memref::LoadOp::create(b, lc.readOnly(b, ids->pages),
                                                  ValueRange{laneToIndex(b, slot)}))
                   : loadClampedPageId(b, lc, ids->pages, slot, ids->len, pageSize);
        } else {
          // first's page among the tile's candidates (wave-uniform selects;
          // first - start is the wave's offset in this tile).
          assert(!candidates.empty() && "a wave's first key needs its candidate pages");
          Value off = arith::SubIOp::create(b, first, start);
          id = tilePageId(b, lc, *ids, candidates.front());
          for (int64_t c : candidates.drop_front())
            id = arith::SelectOp::create(
                b,
                arith::CmpIOp::create(b, arith::CmpIPredicate::sge, off,
                                      laneConstI32(b, c * pageSize)),
                tilePageId(b, lc, *ids, c), id);
        }
        return this->tileRowsView(b, cache, cacheT, nhd, pageSize, id, head, first, len,
                            op.getInBounds());
      };
    src.start = start;
    src.pageSize = pageSize;
    if constexpr (kStage) {
      // The copies when enabled; the group ends either way, so that every
      // iteration commits the same number (fmha.staged_kv's `pending`).
      // Loads into LDS have no groups: a one-stage ring's read waits for
      // all of them.
      if (viaRegisters) {
        SmallVector<std::function<void(ImplicitLocOpBuilder &, Value)>> steps;
        src.deferTranspose = &steps;
        emitKVTile(b, lc, f, bn, lds, src);
        // The loads stay in front of what follows (S = Q K^T's MFMAs, which
        // touch no memory: LLVM's scheduler sank the loads below them,
        // leaving them nothing to run behind).
        lc.ti.scheduleBoundary(b, b.getLoc());
        lc.pendingTranspose[op.getRing()] = [steps](ImplicitLocOpBuilder &b, Value lds) {
          for (const auto &step : steps)
            step(b, lds);
        };
        rw.eraseOp(op);
        return success();
      }
      if (!src.loadToLds)
        src.copy = [&](Value r, Value c16, Value at) {
          lc.ti.asyncCopy16(b, b.getLoc(), lds, laneToIndex(b, at), cache,
                            chunkIndex(r, c16));
        };
      if (!guard) {
        guard = scf::IfOp::create(b, a.getEnabled()[0], /*withElse=*/false);
        b.setInsertionPointToStart(guard.thenBlock());
      }
      emitKVTile(b, lc, f, bn, lds, src);
      b.setInsertionPointAfter(guard);
      if (!src.loadToLds)
        lc.ti.asyncCommit(b, b.getLoc());
      rw.eraseOp(op);
      return success();
    } else {
      emitKVTile(b, lc, f, bn, lds, src, deferUntilV(op, f));
      LaneValues out;
      out.lds = lds;
      rw.replaceOpWithMultiple(op, {lc.pack(f, out)});
      return success();
    }
  }
};

/// The V tile of rows bn in `stage` (a ring stage in K's row-major form
/// `from`) transposed into `vt` (form f), as a gathered V is.
void transposeStagedV(ImplicitLocOpBuilder &b, const LaneContext &lc, const ValueForm &f,
                      int64_t bn, const ValueForm &from, Value stage, Value vt) {
  KVTileSource src;
  src.load = [&](Value r, Value c16, Value, Value, int64_t bytes) {
    Value at = lc.ldsOffset(b, from, r, c16);
    return Value(vector::LoadOp::create(b, VectorType::get({bytes}, b.getI8Type()), stage,
                                        ValueRange{laneToIndex(b, at)},
                                        /*nontemporal=*/false, llvm::Align(bytes)));
  };
  emitKVTile(b, lc, f, bn, vt, src);
}

/// fmha.staged_kv: waits for its stage's copies. K is the stage itself (a
/// view of the ring); V is transposed from the stage into the tile's V^T
/// buffer as fmha.gather_kv transposes it, after a barrier (the stage holds
/// every lane's copies). A `by_barrier` stage (a consumer of warp roles)
/// was waited for by its fmha.stage_wait: no wait and no barrier here.
struct StagedKVPattern : LanePattern<StagedKVOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(StagedKVOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    const ValueForm &f = lc.forms.get(op.getTile());
    const LaneContext::Ring &ring = lc.rings.at(op.getRing());
    Value stage = lc.ringStage(b, ring, a.getSlot()[0]);
    // by_barrier: the fmha.stage_wait before it saw every producer
    // thread's copies land (warp roles); the consumer started none.
    // A one-stage ring (fmha-pipeline-kv-stages' single-stage schedule):
    // every load of the wave landed, then the workgroup's barrier (LowerTiles'
    // LdsBarriers counts on it), after which a stage op may refill the
    // buffers every wave has read.
    bool oneStage = ring.stages == 1 && !op.getByBarrier();
    if (ring.viaRegisters) {
      // A register stage: its tile's chunks, loaded by its fmha.stage_kv
      // (LLVM waits for them), permuted into the stage with no wait or
      // barrier of its own: the stage was last read by the previous tile's
      // P V, which every wave finished before the barrier of this tile's
      // K read; LowerTiles' barrier plan fences the stores. Behind a
      // scheduling barrier nothing crosses: LLVM otherwise hoists the
      // permutes, and the wait for the loads, above the products before
      // (measured: one MFMA between V's loads and their wait, where S's 32
      // were).
      lc.ti.scheduleBoundary(b, b.getLoc());
      auto it = lc.pendingTranspose.find(op.getRing());
      if (it == lc.pendingTranspose.end())
        return rw.notifyMatchFailure(op, "a register stage read before its fmha.stage_kv");
      it->second(b, stage);
      lc.pendingTranspose.erase(it);
    } else if (oneStage) {
      if (lc.ldsLoads)
        lc.ti.waitLdsLoads(b, b.getLoc());
      else
        lc.ti.asyncWait(b, b.getLoc(), 0);
      lc.ti.barrierAfterLdsWrites(b, b.getLoc());
    } else if (!op.getByBarrier()) {
      lc.ti.asyncWait(b, b.getLoc(), op.getPending());
    }
    LaneValues out;
    out.lds = stage;
    // A V of a ring fmha.stage_transpose fills is the stage itself, as is
    // a V read by transpose loads (row-major, as staged).
    if (f.isV && !ring.transposed && f.transposedInLds()) {
      if (!op.getByBarrier() && !oneStage)
        lc.ti.barrier(b, b.getLoc());
      out.lds = lc.lds.lookup(op);
      transposeStagedV(b, lc, f, op.getTile().getType().getDimSize(0), ring.form, stage,
                       out.lds);
    }
    rw.replaceOpWithMultiple(op, {lc.pack(f, out)});
    return success();
  }
};

/// fmha.stage_transpose (the producer of warp roles): its copies landed
/// (all but `pending` groups) in every producer thread (a barrier of the
/// producer's warpgroup: each thread transposes chunks other threads
/// copied), or with TMA the fill's phase of the stage's landed mbarrier,
/// then the V stage transposed into the V^T ring's stage.
struct StageTransposePattern : LanePattern<StageTransposeOp> {
  using LanePattern::LanePattern;
  LogicalResult matchAndRewrite(StageTransposeOp op, OneToNOpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rw);
    const LaneContext::Ring &from = lc.rings.at(op.getFrom());
    const LaneContext::Ring &to = lc.rings.at(op.getRing());
    if (lc.tma) {
      // TMA: the fill's boxes (K's and V's) counted on the stage's landed
      // mbarrier; each thread waits there itself.
      Value fill = arith::IndexCastUIOp::create(b, b.getI32Type(), a.getFill()[0]);
      lc.ti.mbarrierWait(b, b.getLoc(), lc.landedBarrier(b, a.getSlot()[0]),
                         arith::AndIOp::create(b, fill, laneConstI32(b, 1)));
    } else {
      lc.ti.asyncWait(b, b.getLoc(), op.getPending());
      lc.ti.groupBarrier(b, b.getLoc(), laneConstI32(b, lc.producerBarrierId()),
                         lc.roleThreads);
    }
    Value src = lc.ringStage(b, from, a.getSlot()[0]);
    Value dst = lc.ringStage(b, to, a.getSlot()[0]);
    transposeStagedV(b, lc, to.form, cast<VectorType>(op.getTileType()).getDimSize(0),
                     from.form, src, dst);
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::fmha::populateLaneMemoryPatterns(const TypeConverter &tc,
                                            RewritePatternSet &patterns,
                                            const TargetInfo &,
                                            const LaneContext &lc,
                                            PatternBenefit benefit) {
  patterns.add<LoadRowsPattern, StoreRowsPattern, PageIdsPattern,
               GatherDescalePattern, KVTilePattern<GatherKVOp>,
               KVTilePattern<StageKVOp>, StagedKVPattern, StageTransposePattern,
               StageDescalePattern, StagedDescalePattern>(tc, patterns.getContext(),
                                                          lc, benefit);
}
