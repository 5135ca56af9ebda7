//===- WarpSpecialize.cpp - fmha-warp-specialize ---------------------------===//
//
// A pipelined grid point split by warp role: one producer warpgroup that
// stages the K/V tiles and `consumers` warpgroups that compute, one query
// head each, sharing every staged tile. The rewrite and its rules are on
// the pass (Passes.td).
//
//===----------------------------------------------------------------------===//
#include "fmha/Dialect/Fmha/IR/FmhaOps.h"
#include "fmha/Dialect/Fmha/Transforms/Passes.h"

#include "Dependence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <map>


namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAWARPSPECIALIZE
#include "fmha/Dialect/Fmha/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// The ops of `root` that the stage handoff needs: the stage ops, what
/// their operands are computed from (through loop-carried values), and the
/// loops and ifs that hold them. Everything else of the producer's copy of
/// the grid point goes.
class Needed {
public:
  explicit Needed(Block &root) : root(root) {}

  void op(Operation *op) {
    if (!ops.insert(op).second)
      return;
    // A loop's carried values are needed one by one (carried()): only its
    // bounds with it.
    if (!isa<scf::ForOp>(op))
      for (Value v : op->getOperands())
        value(v);
    // An if's results are yielded on both branches: all of them stay (its
    // yields cannot lose operands).
    if (auto i = dyn_cast<scf::IfOp>(op))
      for (Region &reg : i->getRegions())
        if (!reg.empty())
          for (Value y : reg.front().getTerminator()->getOperands())
            value(y);
    if (auto f = dyn_cast<scf::ForOp>(op)) {
      value(f.getLowerBound());
      value(f.getUpperBound());
      value(f.getStep());
    }
    if (Operation *parent = op->getParentOp(); parent && parent->getBlock() &&
                                                 root.getParentOp()->isProperAncestor(parent))
      this->op(parent);
  }

  void value(Value v) {
    if (auto r = dyn_cast<OpResult>(v)) {
      Operation *def = r.getOwner();
      op(def);
      if (auto f = dyn_cast<scf::ForOp>(def))
        carried(f, r.getResultNumber());
      if (auto i = dyn_cast<scf::IfOp>(def))
        for (Region &reg : i->getRegions())
          if (!reg.empty())
            value(reg.front().getTerminator()->getOperand(r.getResultNumber()));
      return;
    }
    auto arg = cast<BlockArgument>(v);
    if (auto f = dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp())) {
      op(f);
      if (arg.getArgNumber() > 0)
        carried(f, arg.getArgNumber() - 1);
    }
  }

  bool has(Operation *op) const { return ops.contains(op); }
  bool has(scf::ForOp f, unsigned i) const { return slots.contains({f, i}); }

private:
  void carried(scf::ForOp f, unsigned i) {
    if (!slots.insert({f, i}).second)
      return;
    value(f.getInitArgs()[i]);
    value(f.getBody()->getTerminator()->getOperand(i));
  }

  Block &root;
  llvm::DenseSet<Operation *> ops;
  llvm::DenseSet<std::pair<Operation *, unsigned>> slots;
};

struct WarpSpecializePass
    : public fmha::impl::FmhaWarpSpecializeBase<WarpSpecializePass> {
  using Base::Base;

  void runOnOperation() override {
    if (consumers < 1) {
      mlir::emitError(getOperation()->getLoc())
          << "fmha-warp-specialize: consumers must be at least 1, got "
          << static_cast<int64_t>(consumers);
      return signalPassFailure();
    }
    SmallVector<scf::ForallOp> grids;
    getOperation()->walk([&](scf::ForallOp g) {
      if (g->hasAttr(kGridConfigAttr))
        grids.push_back(g);
    });
    for (scf::ForallOp g : grids)
      specialize(g);
  }

  /// The loop fmha-pipeline-kv-stages pipelined in `grid`, when there is
  /// exactly one and the grid can be split; else null.
  scf::ForOp splittable(scf::ForallOp grid) {
    scf::ForOp loop;
    int64_t loops = 0;
    bool quantizes = false, nested = false;
    grid.getBody()->walk([&](Operation *op) {
      if (auto f = dyn_cast<scf::ForOp>(op); f && f->hasAttr(kPipelinedAttr)) {
        loop = f;
        ++loops;
      }
      quantizes |= isa<QuantizeTileOp>(op);
      nested |= isa<WarpRolesOp>(op);
    });
    if (loops != 1 || quantizes || nested || grid.getRank() != 3)
      return {};
    int64_t heads = grid.getStaticUpperBound()[1];
    if (ShapedType::isDynamic(heads) || heads % consumers)
      return {};
    // The producer passes unneeded carried values through with a zero of
    // their type: scalars and vectors only.
    bool zeroable = true;
    grid.getBody()->walk([&](scf::ForOp f) {
      for (Type t : f.getResultTypes())
        zeroable &= isa<IntegerType, IndexType, FloatType, VectorType>(t);
    });
    if (!zeroable)
      return {};
    // Each tile's stage ops in one run (one stage_filled a tile): before
    // the loop and in it.
    int64_t runsIn = 0, runsOut = 0;
    Operation *prev = nullptr;
    grid.getBody()->walk([&](StageKVOp s) {
      bool in = s->getParentOp() == loop.getOperation();
      if (!prev || prev->getNextNode() != s.getOperation())
        ++(in ? runsIn : runsOut);
      prev = s;
    });
    if (runsIn != 1 || runsOut > 1)
      return {};
    // Every stage op's head: the query head over a group size that
    // `consumers` divides, so the consumers' heads share the staged tiles.
    Value h = grid.getInductionVar(1);
    // The producer runs the loop for head n h, consumer c for n h + c: the
    // loop's bounds, the stage ops' conditions and tiles, and the ifs around
    // the loop must not depend on the head (they do not today; a per-head
    // bound would leave a stage's free barrier short of arrivals).
    auto onHead = [&](Value v) { return dependsOn(v, h, grid.getRegion()); };
    SmallVector<Value> fixed{loop.getLowerBound(), loop.getUpperBound()};
    for (Operation *p = loop->getParentOp(); p && p != grid.getOperation();
         p = p->getParentOp())
      if (auto i = dyn_cast<scf::IfOp>(p))
        fixed.push_back(i.getCondition());
    grid.getBody()->walk([&](StageKVOp s) {
      fixed.append({s.getEnabled(), s.getTileStart(), s.getSeqLen(), s.getSlot()});
    });
    if (llvm::any_of(fixed, onHead))
      return {};
    bool shared = true;
    grid.getBody()->walk([&](StageKVOp s) {
      auto div = s.getHead().getDefiningOp<arith::DivUIOp>();
      std::optional<int64_t> group =
          div ? getConstantIntValue(div.getRhs()) : std::nullopt;
      shared &= div && div.getLhs() == h && group && *group % consumers == 0;
    });
    return shared ? loop : scf::ForOp();
  }

  void specialize(scf::ForallOp grid) {
    scf::ForOp loop = splittable(grid);
    if (!loop)
      return;
    Location loc = grid.getLoc();
    Block *body = grid.getBody();
    Value h = grid.getInductionVar(1);
    int64_t n = consumers;
    int64_t stages = 0;
    body->walk([&](StageKVOp s) { stages = s.getStages(); });

    // The grid takes n heads a point.
    SmallVector<int64_t> ubs(grid.getStaticUpperBound());
    ubs[1] /= n;
    grid.setStaticUpperBound(ubs);

    OpBuilder b = OpBuilder::atBlockBegin(body);
    auto roles = WarpRolesOp::create(b, loc, b.getI64IntegerAttr(n),
                                     b.getI64IntegerAttr(4),
                                     b.getI64IntegerAttr(producerRegs),
                                     b.getI64IntegerAttr(consumerRegs));
    Block &prod = roles.getProducer().emplaceBlock();
    Block &cons = roles.getConsumer().emplaceBlock();
    Value c = cons.addArgument(b.getIndexType(), loc);
    Value nIdx = arith::ConstantIndexOp::create(b, loc, n);
    // (roles is the first op now; the grid point's ops follow it.)
    OpBuilder pb = OpBuilder::atBlockBegin(&prod);
    Value h0 = arith::MulIOp::create(pb, loc, h, nIdx);
    OpBuilder cb = OpBuilder::atBlockBegin(&cons);
    Value hc = arith::AddIOp::create(cb, loc, arith::MulIOp::create(cb, loc, h, nIdx), c);

    // The producer: a copy of the grid point, head n h.
    IRMapping map;
    map.map(h, h0);
    SmallVector<Operation *> point;
    for (Operation &op : llvm::make_range(std::next(roles->getIterator()),
                                          body->without_terminator().end()))
      point.push_back(&op);
    for (Operation *op : point)
      pb.clone(*op, map);
    // The consumer: the grid point itself, head n h + c.
    for (Operation *op : point)
      op->moveBefore(&cons, cons.end());
    h.replaceUsesWithIf(hc, [&](OpOperand &use) {
      return roles.getConsumer().isAncestor(use.getOwner()->getParentRegion()) &&
             use.getOwner() != hc.getDefiningOp() &&
             use.getOwner() != hc.getDefiningOp()->getOperand(0).getDefiningOp();
    });
    nIdx.getDefiningOp()->moveBefore(roles);
    // The ring of V tiles and, with transpose-v, the ring the producer
    // writes them into transposed.
    std::optional<int64_t> vRing, vtRing;
    int64_t maxRing = -1;
    for (StagedKVOp s : loop.getBody()->getOps<StagedKVOp>()) {
      maxRing = std::max<int64_t>(maxRing, s.getRing());
      if (llvm::any_of(s.getTile().getUsers(), [](Operation *u) {
            auto m = dyn_cast<TileMmaOp>(u);
            return m && !m.getTransposeRhs();
          }))
        vRing = s.getRing();
    }
    if (transposeV && vRing)
      vtRing = maxRing + 1;
    consumer(roles, loop, stages, vRing, vtRing);
    producer(roles, stages, vRing, vtRing);
    if (stageDescales && vtRing)
      stageTheDescales(roles, loop, stages, *vtRing + 1);
  }

  /// stage-descales: each per-key fmha.gather_descale of the consumers'
  /// pipelined loop (per-token ids, of the staged tile) becomes an
  /// fmha.staged_descale of a descale ring of its own (from `firstRing`),
  /// after the loop's fmha.stage_wait; the producer writes the ring with an
  /// fmha.stage_descale after each run of its stage ops (the first tile's
  /// before the loop, tile t + 1's in it), with that run's ids, head, slot
  /// and condition.
  void stageTheDescales(WarpRolesOp roles, scf::ForOp loop, int64_t stages,
                        int64_t firstRing) {
    StageWaitOp wait;
    Value slot;
    for (Operation &op : loop.getBody()->getOperations())
      if (auto w = dyn_cast<StageWaitOp>(op)) {
        wait = w;
        slot = w.getSlot();
      }
    if (!wait)
      return;
    // The gathers of the staged tile's descales: per-token ids of the tile
    // from t x BlockN (the one fmha.staged_kv reads), every use after the
    // wait (where the staged read goes).
    auto ofThisTile = [&](GatherDescaleOp g) {
      auto ids = g.getIds().getDefiningOp<PageIdsOp>();
      auto idsT = dyn_cast<VectorType>(g.getIds().getType());
      if (!ids || !idsT)
        return false;
      auto mul = ids.getTileStart().getDefiningOp<arith::MulIOp>();
      if (!mul)
        return false;
      for (int side = 0; side < 2; ++side)
        if (mul->getOperand(side) == loop.getInductionVar() &&
            getConstantIntValue(mul->getOperand(1 - side)) == idsT.getDimSize(0))
          return llvm::all_of(g->getUsers(), [&](Operation *u) {
            while (u->getBlock() != loop.getBody())
              u = u->getParentOp();
            return wait->isBeforeInBlock(u);
          });
      return false;
    };
    SmallVector<GatherDescaleOp> gathers;
    for (Operation &op : loop.getBody()->getOperations())
      if (auto g = dyn_cast<GatherDescaleOp>(op); g && ofThisTile(g))
        gathers.push_back(g);
    if (gathers.empty())
      return;
    // The producer's runs of stage ops: each run's last fmha.stage_kv with
    // per-token ids of the gathers' key count.
    SmallVector<StageKVOp> runEnds;
    roles.getProducer().walk([&](StageKVOp s) {
      auto ids = dyn_cast<VectorType>(s.getIds().getType());
      if (!ids)
        return;
      if (!runEnds.empty() && runEnds.back()->getNextNode() == s.getOperation())
        runEnds.back() = s;
      else
        runEnds.push_back(s);
    });
    // Tiles of whole pages of at least 8 keys: a lane's keys then fall in a
    // few pages, one shared-memory read each (StagedDescalePattern).
    auto grid = roles->getParentOfType<scf::ForallOp>();
    auto cfg = grid ? dyn_cast_or_null<ConfigAttr>(grid->getAttr(kGridConfigAttr)) : ConfigAttr();
    int64_t page = gathers.front().getIds().getDefiningOp<PageIdsOp>().getPageSize();
    if (!cfg || cfg.getPageRegime() != PageRegime::WholePages || page < 8 ||
        (stageDescalesMaxPage > 0 && page > stageDescalesMaxPage))
      return;
    int64_t keys = cast<VectorType>(gathers.front().getIds().getType()).getDimSize(0);
    if (runEnds.empty() ||
        llvm::any_of(runEnds, [&](StageKVOp s) {
          return cast<VectorType>(s.getIds().getType()).getDimSize(0) != keys;
        }))
      return;
    int64_t ring = firstRing;
    for (GatherDescaleOp g : gathers) {
      // The descale tensor is the function's (captured by both roles).
      Value descale = g.getDescale();
      if (!descale.getParentRegion()->isProperAncestor(&roles.getProducer()))
        continue;
      // What the consumers take of it: where every use is log2(d) or 1 / d
      // (exp2_bias's vd), the producer stages those instead, a ring each,
      // and the consumers' per-page log2 and reciprocal go.
      std::map<DescaleForm, SmallVector<Operation *>> forms;
      for (Operation *u : g->getUsers())
        forms[descaleFormOf(u, g.getResult())].push_back(u);
      if (forms.count(DescaleForm::Value))
        forms = {{DescaleForm::Value, {}}};
      for (auto &[form, users] : forms) {
        for (StageKVOp s : runEnds) {
          OpBuilder b(s->getNextNode());
          StageDescaleOp::create(b, s.getLoc(), descale, s.getIds(), s.getHead(), s.getSlot(),
                                 s.getEnabled(), b.getI64IntegerAttr(ring),
                                 b.getI64IntegerAttr(stages),
                                 DescaleFormAttr::get(b.getContext(), form));
        }
        OpBuilder b(wait->getNextNode());
        Value staged = StagedDescaleOp::create(
            b, g.getLoc(), g.getResult().getType(), slot, b.getI64IntegerAttr(ring),
            b.getI64IntegerAttr(stages),
            b.getI64IntegerAttr(g.getIds().getDefiningOp<PageIdsOp>().getPageSize()));
        if (form == DescaleForm::Value)
          g.getResult().replaceAllUsesWith(staged);
        for (Operation *u : users) {
          u->getResult(0).replaceAllUsesWith(staged);
          u->erase();
        }
        ++ring;
      }
      g.erase();
    }
  }

  /// The form a use of descale `d` takes: log2 for `math.log2 d`,
  /// reciprocal for `1.0 / d` (a splat 1 divided by it), else the value.
  static DescaleForm descaleFormOf(Operation *u, Value d) {
    if (auto l = dyn_cast<math::Log2Op>(u); l && l.getOperand() == d)
      return DescaleForm::Log2;
    if (auto div = dyn_cast<arith::DivFOp>(u); div && div.getRhs() == d) {
      auto one = div.getLhs().getDefiningOp<arith::ConstantOp>();
      auto splat = one ? dyn_cast<SplatElementsAttr>(one.getValue()) : SplatElementsAttr();
      if (splat && splat.getSplatValue<APFloat>().isExactlyValue(1.0))
        return DescaleForm::Reciprocal;
    }
    return DescaleForm::Value;
  }

  /// The consumer's stage waits and releases; its stage ops go.
  void consumer(WarpRolesOp roles, scf::ForOp loop, int64_t stages,
                std::optional<int64_t> vRing, std::optional<int64_t> vtRing) {
    SmallVector<StageKVOp> stageOps;
    roles.getConsumer().walk([&](StageKVOp s) { stageOps.push_back(s); });
    for (StageKVOp s : stageOps)
      s.erase();
    SmallVector<StagedKVOp> staged(loop.getBody()->getOps<StagedKVOp>());
    if (staged.empty())
      return;
    Location loc = loop.getLoc();
    Value slot = staged.front().getSlot();
    OpBuilder b(staged.front());
    Value fill = arith::DivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), loop.getLowerBound()),
        arith::ConstantIndexOp::create(b, loc, stages));
    StageWaitOp::create(b, loc, slot, fill, b.getI64IntegerAttr(stages));
    // The last read of the stage: a staged op (V is transposed out of its
    // stage there, into a buffer of the consumer's own), or an MMA that
    // reads the stage (S = Q K^T on K; P V on V when the producer
    // transposed it: the consumers read V^T from its ring), and the waits
    // of that MMA.
    Operation *last = staged.back();
    auto later = [&](Operation *op) {
      while (op->getBlock() != loop.getBody())
        op = op->getParentOp();
      if (last->isBeforeInBlock(op))
        last = op;
    };
    for (StagedKVOp s : staged) {
      s.setByBarrier(true);
      s.setPending(0);
      bool transposed = vtRing && s.getRing() == *vRing;
      if (transposed)
        s.setRing(*vtRing);
      for (Operation *user : s.getTile().getUsers())
        if (auto m = dyn_cast<TileMmaOp>(user); m && (m.getTransposeRhs() || transposed)) {
          later(m);
          for (Operation *w : m.getResult().getUsers())
            if (isa<MmaWaitOp>(w))
              later(w);
        }
    }
    b.setInsertionPointAfter(last);
    StageReleaseOp::create(b, loc, slot, b.getI64IntegerAttr(stages));
  }

  /// The producer keeps what its stage ops need, each tile's stage ops
  /// between a stage_free and a stage_filled.
  void producer(WarpRolesOp roles, int64_t stages, std::optional<int64_t> vRing,
                std::optional<int64_t> vtRing) {
    Block &prod = roles.getProducer().front();
    // Each run of stage ops (the first tile's before the loop, tile t + 1's
    // in it) with its slot, its condition and its fill.
    SmallVector<SmallVector<StageKVOp>> runs;
    prod.walk([&](StageKVOp s) {
      if (!runs.empty() && runs.back().back()->getNextNode() == s.getOperation())
        runs.back().push_back(s);
      else
        runs.push_back({s});
    });
    for (ArrayRef<StageKVOp> run : runs) {
      StageKVOp first = run.front(), lastOp = run.back();
      Location loc = first.getLoc();
      OpBuilder b(first);
      Value fill;
      if (auto f = dyn_cast<scf::ForOp>(first->getParentOp());
          f && f->hasAttr(kPipelinedAttr)) {
        // Tile t + 1 of iteration t: fill (t + 1 - lb) / stages.
        Value t1 = arith::AddIOp::create(b, loc, f.getInductionVar(), f.getStep());
        fill = arith::DivUIOp::create(
            b, loc, arith::SubIOp::create(b, loc, t1, f.getLowerBound()),
            arith::ConstantIndexOp::create(b, loc, stages));
      } else {
        fill = arith::ConstantIndexOp::create(b, loc, 0);
      }
      auto st = b.getI64IntegerAttr(stages);
      auto f = dyn_cast<scf::ForOp>(first->getParentOp());
      if (vtRing && f && f->hasAttr(kPipelinedAttr)) {
        // transpose-v: tile t (its copies started in the iteration before,
        // or before the loop) transposed early in iteration t, once
        // its copies landed, and its fill complete; only then the wait for
        // a free stage and tile t + 1's copies, so that the consumers,
        // which release tile t - 1 and then wait for tile t, do not wait
        // for the transpose.
        Value slot = arith::RemUIOp::create(b, loc, f.getInductionVar(),
                                            arith::ConstantIndexOp::create(b, loc, stages));
        Type tile;
        for (StageKVOp s : run)
          if (static_cast<int64_t>(s.getRing()) == *vRing)
            tile = s.getTileType();
        Value vFill = arith::DivUIOp::create(
            b, loc, arith::SubIOp::create(b, loc, f.getInductionVar(), f.getLowerBound()),
            arith::ConstantIndexOp::create(b, loc, stages));
        StageTransposeOp::create(b, loc, slot, vFill, b.getI64IntegerAttr(*vRing),
                                 b.getI64IntegerAttr(*vtRing), st,
                                 b.getI64IntegerAttr(0), TypeAttr::get(tile));
        Value always = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
        StageFilledOp::create(b, loc, slot, always, st, b.getUnitAttr());
      }
      StageFreeOp::create(b, loc, first.getSlot(), fill, first.getEnabled(), st);
      b.setInsertionPointAfter(lastOp);
      if (!vtRing)
        StageFilledOp::create(b, loc, first.getSlot(), first.getEnabled(), st,
                              /*written=*/nullptr);
    }
    // Prune: keep the handoff and what it needs.
    Needed need(prod);
    prod.walk([&](Operation *op) {
      if (isa<StageKVOp, StageFreeOp, StageFilledOp, StageTransposeOp>(op))
        need.op(op);
    });
    SmallVector<Operation *> all; // (before the zeros below, which stay)
    prod.walk<WalkOrder::PreOrder>([&](Operation *op) { all.push_back(op); });
    // A loop-carried value nothing needs is passed through (canonicalize
    // then drops it), so that its computation can go.
    prod.walk([&](scf::ForOp f) {
      if (!need.has(f))
        return;
      Operation *yield = f.getBody()->getTerminator();
      OpBuilder b(f);
      for (unsigned i = 0; i < f.getNumRegionIterArgs(); ++i)
        if (!need.has(f, i)) {
          yield->setOperand(i, f.getRegionIterArgs()[i]);
          // (its init may go: a zero of its type instead)
          Type t = f.getRegionIterArgs()[i].getType();
          f.getInitArgsMutable()[i].set(
              arith::ConstantOp::create(b, f.getLoc(), cast<TypedAttr>(b.getZeroAttr(t))));
        }
    });
    for (Operation *op : llvm::reverse(all))
      if (!need.has(op) && !op->hasTrait<OpTrait::IsTerminator>()) {
        op->dropAllUses();
        op->erase();
      }
  }
};

} // namespace
