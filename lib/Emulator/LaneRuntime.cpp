//===- LaneRuntime.cpp - lanes as coroutines, waves meeting at their ops ---===//
//
// The lane emulator's runtime (docs/LANE_EMULATOR.md). One workgroup at a
// time, on the calling thread: each lane is a ucontext coroutine on its own
// stack (with a guard page). The scheduler resumes every runnable lane, in
// thread order, until it waits (at a wave op, a barrier, a named barrier, an
// mbarrier wait) or returns; then each wave whose lanes all wait at the same
// wave op has it computed, mbarrier waiters whose phase completed go on,
// and when every lane that has not returned waits at the same workgroup
// barrier the workgroup passes it. A named barrier (bar.sync / bar.arrive
// id, n) lets its waiters go when its n-th thread arrives. The waves of one
// workgroup may be at different ops (warp specialization); the lanes of one
// wave must meet at its wave ops. Lanes of one wave at different sites, a
// barrier that some lanes never reach, or a deadlock (nothing can go on) is
// an error (a GPU would hang or compute garbage) that stops the launch. An
// out-of-bounds memory access (fmha_lane_out_of_bounds, from the kernel's
// check-bounds guards) is recorded too, but the lane goes on (the access was
// skipped) and so does the launch, which counts them all.
//
// The semantics of the wave ops are written from the vendors' documents,
// independently of the compiler's TargetInfo (which they check):
// - v_mfma_f32_32x32x16_fp8_fp8 (CDNA3 ISA, "matrix fused multiply add"):
//   A[i][k] in lane i + 32(k/8), byte k%8; B[k][j] in lane j + 32(k/8),
//   byte k%8; D[i][j] in lane j + 32((i/4)%2), register 4(i/8) + i%4.
// - v_mfma_f32_32x32x64_f8f6f4 with fp8 (CDNA4 ISA, the double-rate
//   layout): A[i][k] in lane i + 32((k/16)%2), byte 16(k/32) + k%16; B the
//   same with j; D as above.
// - mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 (PTX ISA, "Matrix
//   fragments for mma.m16n8k32"): with g = lane/4, t = lane%4, A byte e at
//   (g + 8((e/4)%2), 4t + e%4 + 16(e/8)), B byte e at (4t + e%4 + 16(e/4),
//   g), C/D register v at (g + 8(v/2), 2t + v%2).
// - wgmma.mma_async.sync.aligned.m64n<N>k32.f32 with e4m3/e5m2 (PTX ISA,
//   "Asynchronous Warpgroup Level Matrix Multiply-Accumulate", "Matrix
//   Descriptor Format", "Shared Memory Matrix Layout"): 4 warps; warp w,
//   lane l: A byte e (register form) at (16w + l/4 + 8((e/4)%2), 4(l%4) +
//   e%4 + 16(e/8)); D register v at (16w + l/4 + 8((v/2)%2), 8(v/4) +
//   2(l%4) + v%2). A descriptor: start address bits 0-13 (>> 4), stride
//   byte offset bits 32-45 (>> 4), swizzle mode bits 62-63 (1: 128B, 2:
//   64B, 3: 32B); element (row r, byte k) of a K-major swizzled matrix at
//   u = start + (r / 8) * SBO + (r % 8) * W + k, stored at u ^ (((u >> 7) &
//   (W/16 - 1)) << 4). The workgroup's shared buffers lie in one
//   2^18-aligned arena, so the descriptor's 18 address bits name a byte of
//   it.
// - The 16-bit shapes, element e of a lane's operand registers (two bytes,
//   little-endian; g = lane/4, t = lane%4): v_mfma_f32_32x32x8_{bf16,f16}
//   (CDNA3 ISA): A[i][k] in lane i + 32(k/4), element k%4, B[k][j] in lane
//   j + 32(k/4), element k%4; v_mfma_f32_32x32x16_{bf16,f16} (CDNA4 ISA):
//   lane i + 32(k/8), element k%8; D as the fp8 32x32 ones.
//   mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16} (PTX ISA, "Matrix
//   fragments for mma.m16n8k16 with floating point type"): A element e at
//   (g + 8((e/2)%2), 2t + e%2 + 8(e/4)), B element e at (2t + e%2 +
//   8(e/2), g), C/D as m16n8k32. wgmma ... m64n<N>k16.f32.{bf16,f16}: the
//   register A of m16n8k16 per warp (rows + 16w); a descriptor's element
//   (row r, k) at the byte u of (r, 2k) above, two bytes.
// Products of fp8 values are exact. An fp8 wgmma step sums them as Hopper
// does (fmha/Reference/MmaSum.h: terms aligned to the largest and cut to
// 13 bits after it, the sum to 14 significant bits; measured on the H200
// and replayed bit for bit by unittests/Reference/MmaSumTest.cpp). The
// other MMAs sum in double and add C before one rounding to f32 (their
// internal precision is not modelled; mma.sync's fp8 sum measured nearly
// exact on the same probe).
//
//===----------------------------------------------------------------------===//
#include "fmha/Emulator/LaneRuntime.h"
#include "fmha/Emulator/LaneABI.h"
#include "fmha/Reference/FloatCodec.h"
#include "fmha/Reference/MmaSum.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>
#include <map>
#include <memory>

namespace fmha::lane {
namespace {

using ref::DType;

DType dtypeOf(int32_t fmt) {
  switch (fmt) {
  case E4M3FNUZ:
    return DType::F8E4M3FNUZ;
  case E5M2:
    return DType::F8E5M2;
  case E5M2FNUZ:
    return DType::F8E5M2FNUZ;
  default:
    return DType::F8E4M3FN;
  }
}

/// AtBarrier: the workgroup barrier (gpu.barrier, bar.sync 0 of all
/// threads); AtNamedBarrier: bar.sync id, n; AtMBarrier: an mbarrier wait;
/// Stopped: a lane whose runtime call failed (the launch stops).
enum class State {
  Runnable, AtWaveOp, AtBarrier, AtNamedBarrier, AtMBarrier, Stopped, Done
};
enum class WaveOp { None, Shuffle, ReadFirstLane, Transpose8, Mma, Wgmma, Elect, LdsWait, LdsAccess };

struct Lane {
  ucontext_t ctx;
  char *stack = nullptr; // base of the mapping (guard page first)
  int64_t linear = 0;    // thread index in the workgroup
  State state = State::Runnable;
  WaveOp op = WaveOp::None;
  int32_t site = -1;
  // Operands of the op it waits at, and its result.
  int32_t mode = 0, value = 0, offset = 0, width = 0, kind = 0;
  void *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
  int64_t descA = 0, descB = 0;
  int64_t result = 0;
  // AtMBarrier: the mbarrier's address, the parity waited for and the
  // barrier's completed phases when the wait began. AtNamedBarrier: its id.
  uint64_t mbar = 0;
  int32_t parity = 0, barrierId = 0;
  int64_t waitPhase = 0;
  /// Loads into LDS (fmha_lane_lds_load) not yet landed, oldest first:
  /// they land at the lane's waits (fmha_lane_lds_load_wait), never at a
  /// barrier, as on the hardware.
  struct LdsLoad {
    uint8_t *at;
    uint8_t bytes[16];
    int64_t size; // 16 (gfx950) or 4 (gfx942)
    uint8_t before[16];
  };
  std::vector<LdsLoad> ldsLoads;
};

/// An mbarrier object (8 bytes of workgroup memory, named by its address):
/// `phase` counts the completed phases (the current one's parity is phase
/// & 1); `pending` arrivals complete the current one.
struct MBarrier {
  int64_t expected = 0, pending = 0, phase = 0;
  /// Bytes of asynchronous copies (TMA) the current phase still waits for
  /// (expect_tx raises it, each copy's complete_tx lowers it); the phase
  /// completes when both this and `pending` are 0.
  int64_t tx = 0;
};

/// The phase completes once no arrival and no byte of its copies is
/// pending: the next phase expects the init count again.
void completePhaseIfDone(MBarrier &m) {
  if (m.pending || m.tx)
    return;
  ++m.phase;
  m.pending = m.expected;
}

/// The lane emulator's tensor map (fmha_lane_tensor_map; not CUDA's opaque
/// CUtensorMap): what cuTensorMapEncodeTiled is given, kept as it is.
struct TensorMap {
  uint64_t base = 0;
  int64_t rank = 0, elementBytes = 0, swizzle = 0;
  int64_t dims[5] = {}, strides[5] = {}, box[5] = {}; // strides in bytes
};

/// One of the 16 named barriers (bar.sync / bar.arrive id, n): the current
/// generation's thread count (0 before its first arrival), its arrivals,
/// and the arrivals of each wave (which must come whole).
struct NamedBarrier {
  int64_t n = 0, arrived = 0;
  std::vector<int64_t> perWave;
};
inline constexpr int32_t kNamedBarriers = 16;

constexpr size_t kStackBytes = 1 << 20; // per lane; only what is touched is committed
constexpr size_t kArenaBytes = size_t(1) << 18; // 256 KiB of shared memory

struct Launch {
  void (*entry)(int64_t *) = nullptr;
  int64_t *args = nullptr;
  int64_t block[3] = {1, 1, 1}, grid[3] = {1, 1, 1}, blockId[3] = {0, 0, 0};
  int64_t waveSize = 1;
  std::vector<Lane> lanes;
  /// The workgroup buffers: (offset, bytes) in `arena`, one 2^18-aligned
  /// block of kArenaBytes (the wgmma descriptors' address space).
  std::vector<std::pair<size_t, size_t>> shared;
  uint8_t *arena = nullptr;
  size_t arenaUsed = 0;
  ucontext_t scheduler;
  Lane *current = nullptr;
  size_t page = 4096;
  /// The workgroup's mbarriers (by address) and named barriers; reset for
  /// each workgroup, as its shared memory is.
  std::map<uint64_t, MBarrier> mbarriers;
  NamedBarrier named[kNamedBarriers];

  int64_t threads() const { return block[0] * block[1] * block[2]; }

  ~Launch() {
    std::free(arena);
    for (Lane &l : lanes)
      if (l.stack)
        munmap(l.stack, kStackBytes + page);
  }
};

thread_local Launch *tLaunch = nullptr;
thread_local std::string tError;  // the first error of any kind
thread_local bool tFatal = false; // an error that stops the launch
thread_local bool tFirstIsOutOfBounds = false;
thread_local int64_t tOutOfBounds = 0; // since the last takeLaneRuntimeError
thread_local LaneRuntimeStats tStats;
thread_local int64_t tGridPad[3] = {0, 0, 0}; // setLaneGridPadding
thread_local bool tReverseLanes = false;        // setLaneScheduleReversed
thread_local bool tLdsLoadsAtIssue = false;     // setLdsLoadsLandAtIssue
thread_local int64_t tLdsBanks = 0;             // setLdsBankModel
thread_local bool tWavesInTurn = false;         // setLaneWavesInTurn

/// An error the launch cannot go on after (divergence, deadlock, bad launch).
void setError(const std::string &msg) {
  if (tError.empty())
    tError = msg;
  tFatal = true;
}

std::string workgroup(const Launch &L) {
  return "workgroup (" + std::to_string(L.blockId[0]) + ", " +
         std::to_string(L.blockId[1]) + ", " + std::to_string(L.blockId[2]) + ")";
}

std::string where(const Launch &L, const Lane &l) {
  return workgroup(L) + " lane " + std::to_string(l.linear);
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

/// One LDS access of the n lanes of a wave under the bank model
/// (setLdsBankModel): in pieces of at most 16 bytes (the widest LDS
/// instruction), each in groups of banks * 4 / bytes consecutive lanes a
/// cycle, each group as many cycles as the most distinct words one bank
/// holds.
void countLdsAccess(Lane **wave, int64_t n) {
  int64_t width = std::max<int64_t>(1, wave[0]->width);
  int64_t banks = tLdsBanks;
  int64_t cycles = 0, ideal = 0;
  std::vector<std::vector<int64_t>> words(banks);
  // An access wider than 16 bytes is issued as 16-byte instructions
  // (ds_read_b128): each piece is an access of its own.
  for (int64_t at = 0; at < width; at += 16) {
    int64_t bytes = std::min<int64_t>(16, width - at);
    int64_t group = std::max<int64_t>(1, banks * 4 / bytes);
    for (int64_t g0 = 0; g0 < n; g0 += group) {
      for (auto &w : words)
        w.clear();
      for (int64_t i = g0; i < std::min(n, g0 + group); ++i) {
        int64_t a = wave[i]->descA + at;
        for (int64_t w = a >> 2; w <= (a + bytes - 1) >> 2; ++w) {
          auto &ws = words[w % banks];
          if (std::find(ws.begin(), ws.end(), w) == ws.end())
            ws.push_back(w);
        }
      }
      size_t most = 0;
      for (auto &w : words)
        most = std::max(most, w.size());
      cycles += static_cast<int64_t>(most);
    }
    ideal += (n * bytes + banks * 4 - 1) / (banks * 4);
  }
  if (wave[0]->mode) {
    ++tStats.ldsWrites, tStats.ldsWriteCycles += cycles, tStats.ldsWriteIdeal += ideal;
  } else {
    ++tStats.ldsReads, tStats.ldsReadCycles += cycles, tStats.ldsReadIdeal += ideal;
  }
}

/// Lands the oldest of `l`'s loads into LDS, all but the newest `keep`. A
/// load whose bytes changed since it was issued, other than by the lane's
/// own earlier loads (a store, or another lane's load, wrote them while it
/// was in flight: on the hardware the order of the two is undefined), is
/// an error, returned.
std::string landLdsLoads(Lane &l, size_t keep) {
  size_t n = l.ldsLoads.size() > keep ? l.ldsLoads.size() - keep : 0;
  std::string err;
  for (size_t i = 0; i < n; ++i) {
    const Lane::LdsLoad &d = l.ldsLoads[i];
    if (err.empty() && std::memcmp(d.at, d.before, d.size))
      err = "a load into LDS lands on bytes written while it was in flight (at " +
            hex(reinterpret_cast<uint64_t>(d.at)) + ", " + std::to_string(d.size) +
            " bytes, loaded by lane " + std::to_string(l.linear) + ")";
    std::memcpy(d.at, d.bytes, d.size);
    // The lane's later loads land after this one (in issue order): what
    // they find is what it wrote.
    for (size_t k = i + 1; k < l.ldsLoads.size(); ++k) {
      Lane::LdsLoad &e = l.ldsLoads[k];
      for (int64_t b = 0; b < e.size; ++b)
        if (e.at + b >= d.at && e.at + b < d.at + d.size)
          e.before[b] = e.at[b];
    }
  }
  l.ldsLoads.erase(l.ldsLoads.begin(), l.ldsLoads.begin() + n);
  return err;
}

void trampoline() {
  Launch *L = tLaunch;
  Lane *l = L->current;
  L->entry(L->args);
  // A lane that ends with loads into LDS in flight never waited for them:
  // the kernel may have read or refilled their buffer before they landed.
  if (!l->ldsLoads.empty())
    setError(std::to_string(l->ldsLoads.size()) + " loads into LDS still in flight at the end "
             "of " + where(*L, *l) + " (no s_waitcnt vmcnt for them)");
  l->state = State::Done;
  // uc_link returns to the scheduler.
}

/// The calling lane waits at a wave op or barrier; back when it is done.
void suspend(State s, WaveOp op, int32_t site) {
  Launch *L = tLaunch;
  Lane *l = L->current;
  l->state = s;
  l->op = op;
  l->site = site;
  ++tStats.switches;
  swapcontext(&l->ctx, &L->scheduler);
}

/// The calling lane's runtime call failed: the error stops the launch and
/// the lane never resumes.
void stop(const std::string &msg) {
  setError(msg);
  suspend(State::Stopped, WaveOp::None, -1);
}

//===----------------------------------------------------------------------===//
// Wave ops
//===----------------------------------------------------------------------===//

void runShuffle(Lane *const *w, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    Lane &l = *w[i];
    int64_t width = l.width > 0 ? l.width : n;
    int64_t seg = (i / width) * width, li = i - seg, src = li;
    switch (l.mode) {
    case Xor: src = li ^ l.offset; break;
    case Up: src = li - l.offset; break;
    case Down: src = li + l.offset; break;
    default: src = l.offset; break;
    }
    bool valid = src >= 0 && src < width && seg + src < n;
    int32_t v = valid ? w[seg + src]->value : l.value;
    l.result = static_cast<int64_t>(static_cast<uint32_t>(v)) |
               (static_cast<int64_t>(valid) << 32);
  }
}

/// A wave's 8-byte transpose loads (AMDGPU ds_read_b64_tr_b8): each lane
/// gave the 8 bytes it addresses (descA, little-endian); in each group of 16
/// lanes (base G), byte j of lane L's result is byte L % 8 of lane
/// G + ((L / 8) % 2) + 2j's. The CDNA4 rule as AMD's rocjitsu simulator
/// (emulation/rocjitsu, ds_transpose.h) and Triton's AMD lowering state it;
/// not run on an MI355 here (docs/LANE_EMULATOR.md).
void runTranspose8(Lane *const *w, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t g = i & ~int64_t(15), h = (i >> 3) & 1, byte = i & 7;
    uint64_t r = 0;
    for (int64_t j = 0; j < 8; ++j) {
      int64_t src = g + h + 2 * j;
      uint64_t v = src < n ? static_cast<uint64_t>(w[src]->descA) : 0;
      r |= ((v >> (8 * byte)) & 0xFF) << (8 * j);
    }
    w[i]->result = static_cast<int64_t>(r);
  }
}

struct Frag {
  int64_t row, col;
};

DType operandType(MmaShape shape, int32_t fmt) {
  if (isMma16(shape))
    return fmt == F16 ? DType::F16 : DType::BF16;
  return dtypeOf(fmt);
}

/// Element e of an operand of type t (fp8: byte e; 16-bit: bytes 2e, 2e+1
/// little-endian): the reference's element decode.
double operandAt(DType t, const uint8_t *p, int64_t e) {
  return ref::loadElement(t, p, static_cast<size_t>(e));
}

/// One MMA over the wave's lanes, from the documented fragment layouts.
bool runMma(Lane *const *w, int64_t n, std::string &err) {
  int32_t kind = w[0]->kind;
  MmaShape shape = mmaKindShape(kind);
  DType ta = operandType(shape, mmaKindA(kind)), tb = operandType(shape, mmaKindB(kind));
  // aBytes, bBytes: operand elements per lane (bytes for fp8).
  int64_t M = 0, N = 0, K = 0, aBytes = 0, bBytes = 0, accRegs = 0, lanes = 0;
  switch (shape) {
  case Mfma32x32x16:
    M = 32, N = 32, K = 16, aBytes = bBytes = 8, accRegs = 16, lanes = 64;
    break;
  case Mfma32x32x64:
    M = 32, N = 32, K = 64, aBytes = bBytes = 32, accRegs = 16, lanes = 64;
    break;
  case MmaSyncM16N8K32:
    M = 16, N = 8, K = 32, aBytes = 16, bBytes = 8, accRegs = 4, lanes = 32;
    break;
  case Mfma32x32x8F16:
    M = 32, N = 32, K = 8, aBytes = bBytes = 4, accRegs = 16, lanes = 64;
    break;
  case Mfma32x32x16F16:
    M = 32, N = 32, K = 16, aBytes = bBytes = 8, accRegs = 16, lanes = 64;
    break;
  case MmaSyncM16N8K16:
    M = 16, N = 8, K = 16, aBytes = 8, bBytes = 4, accRegs = 4, lanes = 32;
    break;
  default:
    err = "unknown MMA kind " + std::to_string(kind);
    return false;
  }
  if (n != lanes) {
    err = "MMA kind " + std::to_string(kind) + " needs a wave of " +
          std::to_string(lanes) + " lanes, got " + std::to_string(n);
    return false;
  }
  for (int64_t l = 0; l < n; ++l)
    if (w[l]->kind != kind) {
      err = "lanes of one wave issued different MMA kinds at one site";
      return false;
    }
  auto aAt = [&](int64_t l, int64_t e) -> Frag {
    if (shape == Mfma32x32x16)
      return {l % 32, 8 * (l / 32) + e};
    if (shape == Mfma32x32x64)
      return {l % 32, 16 * (l / 32) + 32 * (e / 16) + e % 16};
    if (shape == Mfma32x32x8F16)
      return {l % 32, 4 * (l / 32) + e};
    if (shape == Mfma32x32x16F16)
      return {l % 32, 8 * (l / 32) + e};
    if (shape == MmaSyncM16N8K16)
      return {l / 4 + 8 * ((e / 2) % 2), 2 * (l % 4) + e % 2 + 8 * (e / 4)};
    return {l / 4 + 8 * ((e / 4) % 2), 4 * (l % 4) + e % 4 + 16 * (e / 8)};
  };
  auto bAt = [&](int64_t l, int64_t e) -> Frag { // (k, col)
    if (shape == Mfma32x32x16)
      return {8 * (l / 32) + e, l % 32};
    if (shape == Mfma32x32x64)
      return {16 * (l / 32) + 32 * (e / 16) + e % 16, l % 32};
    if (shape == Mfma32x32x8F16)
      return {4 * (l / 32) + e, l % 32};
    if (shape == Mfma32x32x16F16)
      return {8 * (l / 32) + e, l % 32};
    if (shape == MmaSyncM16N8K16)
      return {2 * (l % 4) + e % 2 + 8 * (e / 2), l / 4};
    return {4 * (l % 4) + e % 4 + 16 * (e / 4), l / 4};
  };
  auto accAt = [&](int64_t l, int64_t v) -> Frag {
    if (shape == MmaSyncM16N8K32 || shape == MmaSyncM16N8K16)
      return {l / 4 + 8 * (v / 2), 2 * (l % 4) + v % 2};
    return {8 * (v / 4) + 4 * (l / 32) + v % 4, l % 32};
  };
  std::vector<double> A(M * K), B(K * N), C(M * N);
  for (int64_t l = 0; l < n; ++l) {
    auto *a = static_cast<const uint8_t *>(w[l]->a);
    auto *b = static_cast<const uint8_t *>(w[l]->b);
    auto *c = static_cast<const float *>(w[l]->c);
    for (int64_t e = 0; e < aBytes; ++e) {
      Frag f = aAt(l, e);
      A[f.row * K + f.col] = operandAt(ta, a, e);
    }
    for (int64_t e = 0; e < bBytes; ++e) {
      Frag f = bAt(l, e);
      B[f.row * N + f.col] = operandAt(tb, b, e);
    }
    for (int64_t v = 0; v < accRegs; ++v) {
      Frag f = accAt(l, v);
      C[f.row * N + f.col] = c[v];
    }
  }
  for (int64_t l = 0; l < n; ++l) {
    auto *d = static_cast<float *>(w[l]->d);
    for (int64_t v = 0; v < accRegs; ++v) {
      Frag f = accAt(l, v);
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += A[f.row * K + k] * B[k * N + f.col];
      d[v] = static_cast<float>(s + C[f.row * N + f.col]);
    }
  }
  ++tStats.mmas;
  return true;
}

/// One warpgroup MMA over the 128 lanes of a warpgroup (4 waves of 32).
bool runWgmma(const Launch &L, Lane *const *g, std::string &err) {
  const Lane &f = *g[0];
  int64_t n = f.width;
  if (n < 8 || n > 256 || n % 8) {
    err = "wgmma with N = " + std::to_string(n);
    return false;
  }
  for (int64_t i = 0; i < 128; ++i) {
    const Lane &l = *g[i];
    if (l.kind != f.kind || l.width != f.width || l.mode != f.mode ||
        l.descA != f.descA || l.descB != f.descB || (l.a == nullptr) != (f.a == nullptr)) {
      err = "lanes of one warpgroup issued different wgmma operands at one site";
      return false;
    }
  }
  MmaShape shape = mmaKindShape(f.kind);
  if (shape != WgmmaM64NK32 && shape != WgmmaM64NK16) {
    err = "unknown wgmma kind " + std::to_string(f.kind);
    return false;
  }
  DType ta = operandType(shape, mmaKindA(f.kind)), tb = operandType(shape, mmaKindB(f.kind));
  // Bytes per element: 1 (fp8, k32) or 2 (bf16 / f16, k16).
  const int64_t eb = shape == WgmmaM64NK16 ? 2 : 1;
  // The byte a descriptor names at (row r, byte k), or null.
  auto at = [&](int64_t desc, int64_t r, int64_t k) -> const uint8_t * {
    uint64_t d = static_cast<uint64_t>(desc);
    uint64_t start = (d & 0x3FFF) << 4, sbo = ((d >> 32) & 0x3FFF) << 4;
    uint64_t mode = d >> 62, w = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 0;
    if (!w || !L.arena)
      return nullptr; // the interleaved (no swizzle) layout is not modelled
    uint64_t u = start + (r / 8) * sbo + (r % 8) * w + k;
    u ^= ((u >> 7) & (w / 16 - 1)) << 4;
    return u < kArenaBytes ? L.arena + u : nullptr;
  };
  const int64_t M = 64, K = 32 / eb;
  // Element (r, k) through a descriptor: its eb bytes (a 16-byte chunk
  // never splits an element, so they stay adjacent after the swizzle).
  auto elemAt = [&](int64_t desc, int64_t r, int64_t k, DType t, double &out) {
    uint8_t bytes[2];
    for (int64_t h = 0; h < eb; ++h) {
      const uint8_t *p = at(desc, r, eb * k + h);
      if (!p)
        return false;
      bytes[h] = *p;
    }
    out = operandAt(t, bytes, 0);
    return true;
  };
  std::vector<double> A(M * K), B(K * n), C(M * n, 0.0);
  for (int64_t m = 0; m < M && !f.a; ++m)
    for (int64_t k = 0; k < K; ++k)
      if (!elemAt(f.descA, m, k, ta, A[m * K + k])) {
        err = "wgmma A descriptor outside the workgroup's shared memory";
        return false;
      }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < K; ++k)
      if (!elemAt(f.descB, j, k, tb, B[k * n + j])) {
        err = "wgmma B descriptor outside the workgroup's shared memory";
        return false;
      }
  auto accAt = [](int64_t w, int64_t l, int64_t v) -> Frag {
    return {16 * w + l / 4 + 8 * ((v / 2) % 2), 8 * (v / 4) + 2 * (l % 4) + v % 2};
  };
  for (int64_t i = 0; i < 128; ++i) {
    int64_t w = i / 32, l = i % 32;
    if (f.a && eb == 1) {
      auto *a = static_cast<const uint8_t *>(g[i]->a);
      for (int64_t e = 0; e < 16; ++e)
        A[(16 * w + l / 4 + 8 * ((e / 4) % 2)) * K + 4 * (l % 4) + e % 4 + 16 * (e / 8)] =
            ref::decodeFp8(ta, a[e]);
    } else if (f.a) { // m16n8k16's A per warp
      auto *a = static_cast<const uint8_t *>(g[i]->a);
      for (int64_t e = 0; e < 8; ++e)
        A[(16 * w + l / 4 + 8 * ((e / 2) % 2)) * K + 2 * (l % 4) + e % 2 + 8 * (e / 4)] =
            operandAt(ta, a, e);
    }
    if (f.mode) {
      auto *c = static_cast<const float *>(g[i]->c);
      for (int64_t v = 0; v < n / 2; ++v) {
        Frag p = accAt(w, l, v);
        C[p.row * n + p.col] = c[v];
      }
    }
  }
  // fp8: Hopper's own sum (ref::wgmmaFp8Step, measured on the H200);
  // 16-bit: exact products summed in double, one rounding.
  std::vector<float> Af, Bf;
  if (eb == 1) {
    Af.assign(A.begin(), A.end());
    Bf.assign(B.begin(), B.end());
  }
  for (int64_t i = 0; i < 128; ++i) {
    int64_t w = i / 32, l = i % 32;
    auto *d = static_cast<float *>(g[i]->d);
    for (int64_t v = 0; v < n / 2; ++v) {
      Frag p = accAt(w, l, v);
      const float c = static_cast<float>(C[p.row * n + p.col]);
      if (eb == 1) {
        d[v] = ref::wgmmaFp8Step(c, &Af[p.row * K], ta, &Bf[p.col], n, tb, K);
        continue;
      }
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += A[p.row * K + k] * B[k * n + p.col];
      d[v] = static_cast<float>(s + c);
    }
  }
  ++tStats.mmas;
  return true;
}

//===----------------------------------------------------------------------===//
// The scheduler of one workgroup
//===----------------------------------------------------------------------===//

const char *opName(WaveOp op) {
  switch (op) {
  case WaveOp::Shuffle: return "shuffle";
  case WaveOp::ReadFirstLane: return "readfirstlane";
  case WaveOp::Transpose8: return "transpose load";
  case WaveOp::Mma: return "MMA";
  case WaveOp::Wgmma: return "wgmma";
  case WaveOp::Elect: return "elect.sync";
  case WaveOp::LdsWait: return "s_waitcnt vmcnt";
  case WaveOp::LdsAccess: return "LDS access (bank model)";
  default: return "?";
  }
}

const char *stateName(const Lane &l) {
  switch (l.state) {
  case State::AtWaveOp: return opName(l.op);
  case State::AtBarrier: return "barrier";
  case State::AtNamedBarrier: return "named barrier";
  case State::AtMBarrier: return "mbarrier wait";
  case State::Done: return "return";
  default: return "running";
  }
}

/// Where a lane stands, with the state of what it waits at (a deadlock's
/// message).
std::string standsAt(const Launch &L, const Lane &l) {
  std::string site = " at site " + std::to_string(l.site);
  switch (l.state) {
  case State::AtWaveOp:
    return opName(l.op) + site;
  case State::AtBarrier:
    return "barrier" + site;
  case State::AtNamedBarrier: {
    const NamedBarrier &b = L.named[l.barrierId];
    return "named barrier " + std::to_string(l.barrierId) + site + " (" +
           std::to_string(b.arrived) + " of " + std::to_string(b.n) + " threads arrived)";
  }
  case State::AtMBarrier: {
    std::string s = "mbarrier " + hex(l.mbar) + " parity " + std::to_string(l.parity) + site;
    auto it = L.mbarriers.find(l.mbar);
    if (it != L.mbarriers.end())
      s += " (phase " + std::to_string(it->second.phase) + ", " +
           std::to_string(it->second.pending) + " of " + std::to_string(it->second.expected) +
           " arrivals pending)";
    return s;
  }
  case State::Done: return "return";
  default: return "running";
  }
}

/// No lane can go on: the first lane that waits, and every lane's state
/// (runs of lanes in the same one together).
std::string deadlock(const Launch &L) {
  int64_t threads = L.threads();
  const Lane *first = nullptr;
  for (const State s : {State::AtMBarrier, State::AtNamedBarrier})
    for (int64_t i = 0; i < threads && !first; ++i)
      if (L.lanes[i].state == s)
        first = &L.lanes[i];
  for (int64_t i = 0; i < threads && !first; ++i)
    if (L.lanes[i].state != State::Done)
      first = &L.lanes[i];
  std::string m = "deadlock in " + workgroup(L) + ": lane " + std::to_string(first->linear) +
                  " waits at " + standsAt(L, *first) + "; lane states:";
  for (int64_t i = 0; i < threads;) {
    std::string s = standsAt(L, L.lanes[i]);
    int64_t j = i + 1;
    while (j < threads && standsAt(L, L.lanes[j]) == s)
      ++j;
    m += (i ? "; " : " ") + std::string(j - i > 1 ? "lanes " : "lane ") + std::to_string(i) +
         (j - i > 1 ? "-" + std::to_string(j - 1) : std::string()) + ": " + s;
    i = j;
  }
  return m;
}

bool runWorkgroup(Launch &L) {
  int64_t threads = L.threads();
  for (auto [off, bytes] : L.shared)
    std::memset(L.arena + off, 0x7F, bytes); // unwritten bytes read as 0x7F
  for (int64_t i = 0; i < threads; ++i) {
    Lane &l = L.lanes[i];
    l.linear = i;
    l.state = State::Runnable;
    l.op = WaveOp::None;
    getcontext(&l.ctx);
    l.ctx.uc_stack.ss_sp = l.stack + L.page;
    l.ctx.uc_stack.ss_size = kStackBytes;
    l.ctx.uc_link = &L.scheduler;
    makecontext(&l.ctx, trampoline, 0);
  }
  tStats.lanes += threads;
  ++tStats.workgroups;
  int64_t W = L.waveSize, waves = (threads + W - 1) / W;
  L.mbarriers.clear();
  for (NamedBarrier &b : L.named) {
    b.n = b.arrived = 0;
    b.perWave.assign(waves, 0);
  }
  std::vector<Lane *> wave(W);
  for (;;) {
    bool ran = false;
    // Waves in turn: only the first wave (in the schedule's order) with a
    // runnable lane runs this round, so it goes on to its next barrier
    // before any other wave moves.
    int64_t turn = -1;
    if (tWavesInTurn)
      for (int64_t j = 0; j < threads && turn < 0; ++j) {
        int64_t i = tReverseLanes ? threads - 1 - j : j;
        if (L.lanes[i].state == State::Runnable)
          turn = i / W;
      }
    for (int64_t j = 0; j < threads; ++j) {
      Lane &l = L.lanes[tReverseLanes ? threads - 1 - j : j];
      if (l.state != State::Runnable || (turn >= 0 && l.linear / W != turn))
        continue;
      L.current = &l;
      ++tStats.switches;
      swapcontext(&L.scheduler, &l.ctx);
      ran = true;
      if (tFatal)
        return false;
    }
    bool progressed = false;
    // mbarrier waiters whose phase completed (the barrier's completed
    // phases moved on since the wait began).
    for (int64_t i = 0; i < threads; ++i) {
      Lane &l = L.lanes[i];
      if (l.state == State::AtMBarrier && L.mbarriers[l.mbar].phase != l.waitPhase) {
        l.state = State::Runnable;
        progressed = true;
      }
    }
    // Waves whose lanes all wait at one wave op.
    for (int64_t w = 0; w < waves; ++w) {
      int64_t n = std::min(W, threads - w * W);
      for (int64_t i = 0; i < n; ++i)
        wave[i] = &L.lanes[w * W + i];
      Lane *at = nullptr; // the wave's first lane at a wave op
      for (int64_t i = 0; i < n && !at; ++i)
        if (wave[i]->state == State::AtWaveOp)
          at = wave[i];
      if (!at)
        continue;
      Lane &first = *at;
      // A lane elsewhere that cannot come to this op (at another wave op,
      // the workgroup barrier, or returned) is a divergence; one that runs
      // or waits at a named barrier or an mbarrier may still come.
      bool all = true;
      for (int64_t i = 0; i < n; ++i) {
        Lane &l = *wave[i];
        if (l.state == State::AtWaveOp && l.site == first.site)
          continue;
        if (l.state == State::AtWaveOp || l.state == State::AtBarrier ||
            l.state == State::Done) {
          setError("lanes of one wave diverged in " + where(L, *wave[0]) + ": lane " +
                   std::to_string(first.linear) + " waits at " + opName(first.op) +
                   " (site " + std::to_string(first.site) + "), lane " +
                   std::to_string(l.linear) + " at " + stateName(l) +
                   (l.state != State::Done ? " (site " + std::to_string(l.site) + ")"
                                           : std::string()));
          return false;
        }
        all = false;
      }
      if (!all)
        continue;
      std::string err;
      if (first.op == WaveOp::Wgmma) {
        // A warpgroup op: run once all 4 waves of the warpgroup are at it.
        int64_t w0 = w / 4 * 4;
        if (w != w0 || threads < w0 * W + 128 || W != 32)
          continue;
        bool ready = true;
        for (int64_t i = 0; i < 128 && ready; ++i) {
          const Lane &l = L.lanes[w0 * W + i];
          ready = l.state == State::AtWaveOp && l.op == WaveOp::Wgmma &&
                  l.site == first.site;
        }
        if (!ready)
          continue;
        std::vector<Lane *> group(128);
        for (int64_t i = 0; i < 128; ++i)
          group[i] = &L.lanes[w0 * W + i];
        if (!runWgmma(L, group.data(), err)) {
          setError(err + " (" + where(L, first) + ")");
          return false;
        }
        for (Lane *l : group)
          l->state = State::Runnable;
        progressed = true;
        continue;
      }
      switch (first.op) {
      case WaveOp::Shuffle:
        runShuffle(wave.data(), n);
        break;
      case WaveOp::ReadFirstLane:
        for (int64_t i = 0; i < n; ++i)
          wave[i]->result = first.value;
        break;
      case WaveOp::Elect: // every lane is active: the first one is elected
        for (int64_t i = 0; i < n; ++i)
          wave[i]->result = i == 0;
        break;
      case WaveOp::LdsAccess:
        countLdsAccess(wave.data(), n);
        break;
      case WaveOp::LdsWait: // the wave's loads into LDS land together
        for (int64_t i = 0; i < n && err.empty(); ++i)
          err = landLdsLoads(*wave[i], static_cast<size_t>(wave[i]->value));
        if (!err.empty()) {
          setError(err + " (" + where(L, first) + ")");
          return false;
        }
        break;
      case WaveOp::Transpose8:
        if (n % 16) {
          setError("a transpose load needs whole groups of 16 lanes (" +
                   where(L, first) + ")");
          return false;
        }
        runTranspose8(wave.data(), n);
        break;
      case WaveOp::Mma:
        if (!runMma(wave.data(), n, err)) {
          setError(err + " (" + where(L, first) + ")");
          return false;
        }
        break;
      default:
        break;
      }
      for (int64_t i = 0; i < n; ++i)
        wave[i]->state = State::Runnable;
      progressed = true;
    }
    // The workgroup barrier: passed when every lane that has not returned
    // waits at it, at one site.
    int64_t done = 0, atBarrier = 0;
    const Lane *b0 = nullptr;
    bool oneSite = true;
    for (int64_t i = 0; i < threads; ++i) {
      Lane &l = L.lanes[i];
      done += l.state == State::Done;
      if (l.state != State::AtBarrier)
        continue;
      ++atBarrier;
      if (!b0)
        b0 = &l;
      else if (l.site != b0->site)
        oneSite = false;
    }
    if (done == threads) {
      // Every generation of a named barrier completed: an arrival
      // (bar.arrive) nobody waited for is a protocol out of balance (the
      // compiler's turns and handoffs always match theirs).
      for (int32_t id = 1; id < kNamedBarriers; ++id)
        if (L.named[id].arrived) {
          setError("named barrier " + std::to_string(id) + " has " +
                   std::to_string(L.named[id].arrived) + " of " +
                   std::to_string(L.named[id].n) +
                   " arrivals pending when " + workgroup(L) + " ends");
          return false;
        }
      return true;
    }
    if (atBarrier && oneSite && atBarrier + done == threads) {
      // Returned lanes count only as whole waves (a warp that finished, as
      // a warp-specialized producer does): a wave of which some lanes
      // returned and others wait at the barrier diverged.
      for (int64_t w0 = 0; done && w0 < threads; w0 += L.waveSize) {
        int64_t n = std::min<int64_t>(L.waveSize, threads - w0), gone = 0;
        for (int64_t i = w0; i < w0 + n; ++i)
          gone += L.lanes[i].state == State::Done;
        if (gone && gone != n) {
          setError("lanes of one wave diverged in " + workgroup(L) + ": " +
                   std::to_string(gone) + " of the " + std::to_string(n) +
                   " lanes from " + std::to_string(w0) +
                   " returned while the others wait at barrier site " +
                   std::to_string(b0->site));
          return false;
        }
      }
      if (L.named[0].arrived) {
        setError("barrier 0 passed as the workgroup barrier (site " +
                 std::to_string(b0->site) + ") in " + workgroup(L) + " while " +
                 std::to_string(L.named[0].arrived) +
                 " threads arrived at it with a thread count of " +
                 std::to_string(L.named[0].n));
        return false;
      }
      for (int64_t i = 0; i < threads; ++i)
        if (L.lanes[i].state == State::AtBarrier)
          L.lanes[i].state = State::Runnable;
      ++tStats.barriers;
      continue;
    }
    if (progressed || ran)
      continue;
    // Nothing can go on: a barrier some lanes reach at another site or
    // cannot reach (they wait at a wave op), else a deadlock.
    for (int64_t i = 0; i < threads && b0; ++i) {
      Lane &l = L.lanes[i];
      if (l.state == State::AtWaveOp || (l.state == State::AtBarrier && l.site != b0->site)) {
        setError("barrier not reached by every lane in " + where(L, *b0) +
                 ": lane " + std::to_string(b0->linear) + " waits at barrier site " +
                 std::to_string(b0->site) + ", lane " + std::to_string(l.linear) +
                 " at " + stateName(l) + " site " + std::to_string(l.site));
        return false;
      }
    }
    setError(deadlock(L));
    return false;
  }
}

Lane &self() { return *tLaunch->current; }

//===----------------------------------------------------------------------===//
// Lane-local numerics
//===----------------------------------------------------------------------===//

float flushDenormal(float x) {
  return std::fabs(x) < FLT_MIN ? std::copysign(0.0f, x) : x;
}

//===----------------------------------------------------------------------===//
// Helpers of the synchronization entry points
//===----------------------------------------------------------------------===//

/// Whether a launch runs (the entry points that need one).
bool inLaunch(const char *fn) {
  if (tLaunch && tLaunch->current)
    return true;
  setError(std::string(fn) + " called outside a launch");
  return false;
}

/// " (workgroup (x, y, z) lane L at site S)", for the calling lane.
std::string at(int32_t site) {
  return " (" + where(*tLaunch, self()) + " at site " + std::to_string(site) + ")";
}

/// The mbarrier at `addr`, or null (and the lane stopped) when none was
/// initialised there.
MBarrier *mbarrierAt(int32_t site, int64_t addr, const char *what) {
  auto it = tLaunch->mbarriers.find(static_cast<uint64_t>(addr));
  if (it != tLaunch->mbarriers.end())
    return &it->second;
  stop(std::string(what) + " on mbarrier " + hex(static_cast<uint64_t>(addr)) +
       ", which was never initialised" + at(site));
  return nullptr;
}

} // namespace

extern "C" {

void fmha_lane_launch(void (*entry)(int64_t *), int64_t gx, int64_t gy,
                      int64_t gz, int64_t bx, int64_t by, int64_t bz,
                      int64_t *args, int64_t waveSize) {
  if (tLaunch) {
    setError("fmha_lane_launch called from inside a lane");
    return;
  }
  if (gx < 0 || gy < 0 || gz < 0 || bx < 1 || by < 1 || bz < 1 || waveSize < 1 ||
      bx * by * bz > 1024) {
    setError("invalid launch: grid (" + std::to_string(gx) + ", " +
             std::to_string(gy) + ", " + std::to_string(gz) + "), block (" +
             std::to_string(bx) + ", " + std::to_string(by) + ", " +
             std::to_string(bz) + "), wave " + std::to_string(waveSize));
    return;
  }
  gx += tGridPad[0], gy += tGridPad[1], gz += tGridPad[2];
  auto L = std::make_unique<Launch>();
  L->entry = entry;
  L->args = args;
  L->grid[0] = gx, L->grid[1] = gy, L->grid[2] = gz;
  L->block[0] = bx, L->block[1] = by, L->block[2] = bz;
  L->waveSize = waveSize;
  L->page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  int64_t threads = bx * by * bz;
  L->lanes.resize(threads);
  for (Lane &l : L->lanes) {
    void *m = mmap(nullptr, kStackBytes + L->page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      setError("cannot map lane stacks");
      return;
    }
    l.stack = static_cast<char *>(m);
    mprotect(l.stack, L->page, PROT_NONE); // guard: an overflow faults
  }
  tLaunch = L.get();
  for (int64_t z = 0; z < gz && !tFatal; ++z)
    for (int64_t y = 0; y < gy && !tFatal; ++y)
      for (int64_t x = 0; x < gx && !tFatal; ++x) {
        L->blockId[0] = x, L->blockId[1] = y, L->blockId[2] = z;
        if (!runWorkgroup(*L))
          break;
      }
  tLaunch = nullptr;
}

int64_t fmha_lane_id(int32_t which) {
  Launch &L = *tLaunch;
  int64_t i = self().linear;
  switch (which) {
  case ThreadX: return i % L.block[0];
  case ThreadY: return (i / L.block[0]) % L.block[1];
  case ThreadZ: return i / (L.block[0] * L.block[1]);
  case BlockX: return L.blockId[0];
  case BlockY: return L.blockId[1];
  case BlockZ: return L.blockId[2];
  default: return 0;
  }
}

/// A load of `bytes` (16 or 4; lo, hi: little-endian) into LDS byte
/// address `at`: in flight until the lane waits for it. `at` must lie in
/// one workgroup buffer.
void fmha_lane_lds_load(int64_t at, int64_t lo, int64_t hi, int64_t bytes) {
  Launch &L = *tLaunch;
  auto *p = reinterpret_cast<uint8_t *>(at);
  if (bytes != 16 && bytes != 4)
    return stop("a load into LDS of " + std::to_string(bytes) + " bytes (16 or 4 are "
                "emulated; " + where(L, *L.current) + ")");
  bool inside = false;
  for (auto [off, size] : L.shared)
    inside |= L.arena && p >= L.arena + off && p + bytes <= L.arena + off + size;
  if (!inside)
    return stop("a load into LDS at " + hex(static_cast<uint64_t>(at)) +
                " outside the workgroup buffers (" + where(L, *L.current) + ")");
  Lane::LdsLoad load{p, {}, bytes, {}};
  std::memcpy(load.before, p, bytes);
  std::memcpy(load.bytes, &lo, 8);
  std::memcpy(load.bytes + 8, &hi, 8);
  if (tLdsLoadsAtIssue)
    std::memcpy(load.at, load.bytes, bytes);
  else
    L.current->ldsLoads.push_back(load);
}

/// s_waitcnt vmcnt(pending): all but the newest `pending` of the lane's
/// loads into LDS land. (The hardware's count also takes the wave's other
/// vector loads, which only make it wait for more: counting loads into LDS
/// alone, the emulator lands the fewest the hardware may have landed.)
/// An LDS access of `bytes` at `at` by the lane: counted by the bank model
/// as a wave op when it is on (setLdsBankModel), else nothing.
void fmha_lane_lds_access(int32_t site, int64_t at, int32_t bytes, int32_t store) {
  if (!tLdsBanks)
    return;
  Lane &l = self();
  l.descA = at;
  l.width = bytes;
  l.mode = store;
  suspend(State::AtWaveOp, WaveOp::LdsAccess, site);
}

void fmha_lane_lds_load_wait(int32_t site, int32_t pending) {
  Lane &l = self();
  l.value = pending < 0 ? 0 : pending;
  suspend(State::AtWaveOp, WaveOp::LdsWait, site);
}

void *fmha_lane_shared(int32_t index, int64_t bytes) {
  Launch &L = *tLaunch;
  if (index < 0 || bytes < 0)
    return nullptr;
  if (static_cast<size_t>(index) >= L.shared.size())
    L.shared.resize(index + 1, {0, 0});
  auto &[off, size] = L.shared[index];
  if (!size && bytes) {
    if (!L.arena) {
      L.arena = static_cast<uint8_t *>(std::aligned_alloc(kArenaBytes, kArenaBytes));
      if (!L.arena) {
        setError("cannot allocate the workgroup's shared memory");
        return nullptr;
      }
    }
    off = (L.arenaUsed + 1023) / 1024 * 1024; // buffers 1024-aligned
    if (off + static_cast<size_t>(bytes) > kArenaBytes) {
      setError("workgroup buffers exceed " + std::to_string(kArenaBytes) +
               " bytes of shared memory");
      return nullptr;
    }
    size = static_cast<size_t>(bytes);
    L.arenaUsed = off + size;
    std::memset(L.arena + off, 0x7F, size);
  } else if (static_cast<int64_t>(size) != bytes) {
    setError("workgroup buffer " + std::to_string(index) + " asked with " +
             std::to_string(bytes) + " bytes, has " + std::to_string(size));
  }
  return L.arena + off;
}

void fmha_lane_barrier(int32_t site) { suspend(State::AtBarrier, WaveOp::None, site); }

int64_t fmha_lane_shuffle(int32_t site, int32_t mode, int32_t value,
                          int32_t offset, int32_t width) {
  Lane &l = self();
  l.mode = mode, l.value = value, l.offset = offset, l.width = width;
  suspend(State::AtWaveOp, WaveOp::Shuffle, site);
  return l.result;
}

int32_t fmha_lane_readfirstlane(int32_t site, int32_t value) {
  Lane &l = self();
  l.value = value;
  suspend(State::AtWaveOp, WaveOp::ReadFirstLane, site);
  return static_cast<int32_t>(l.result);
}

int64_t fmha_lane_transpose8(int32_t site, int64_t bytes) {
  Lane &l = self();
  l.descA = bytes;
  suspend(State::AtWaveOp, WaveOp::Transpose8, site);
  return l.result;
}

void fmha_lane_mma(int32_t site, int32_t kind, void *a, void *b, void *c,
                   void *d) {
  Lane &l = self();
  l.kind = kind, l.a = a, l.b = b, l.c = c, l.d = d;
  suspend(State::AtWaveOp, WaveOp::Mma, site);
}

void fmha_lane_wgmma(int32_t site, int32_t kind, int32_t n, int32_t scaleD,
                     void *a, int64_t descA, int64_t descB, void *c, void *d) {
  Lane &l = self();
  l.kind = kind, l.width = n, l.mode = scaleD, l.a = a, l.c = c, l.d = d;
  l.descA = descA, l.descB = descB;
  suspend(State::AtWaveOp, WaveOp::Wgmma, site);
}

int32_t fmha_lane_elect(int32_t site) {
  Lane &l = self();
  suspend(State::AtWaveOp, WaveOp::Elect, site);
  return static_cast<int32_t>(l.result);
}

//===----------------------------------------------------------------------===//
// mbarriers and named barriers (sm_90a warp specialization)
//===----------------------------------------------------------------------===//

void fmha_lane_mbarrier_init(int32_t site, int64_t addr, int32_t count) {
  if (!inLaunch(kMBarrierInit))
    return;
  Launch &L = *tLaunch;
  uint64_t a = static_cast<uint64_t>(addr), base = reinterpret_cast<uintptr_t>(L.arena);
  if (!L.arena || a < base || a + 8 > base + L.arenaUsed || a % 8)
    return stop("mbarrier.init at " + hex(a) +
                ", not 8 aligned bytes of the workgroup's buffers" + at(site));
  if (count < 1 || count > (1 << 20) - 1)
    return stop("mbarrier.init of " + hex(a) + " with count " + std::to_string(count) +
                " (1 to 2^20 - 1)" + at(site));
  for (const Lane &l : L.lanes)
    if (l.state == State::AtMBarrier && l.mbar == a)
      return stop("mbarrier " + hex(a) + " initialised again while lane " +
                  std::to_string(l.linear) + " waits at it" + at(site));
  L.mbarriers[a] = MBarrier{count, count, 0};
}

int64_t fmha_lane_mbarrier_arrive(int32_t site, int64_t addr, int32_t count) {
  if (!inLaunch(kMBarrierArrive))
    return 0;
  MBarrier *m = mbarrierAt(site, addr, "an arrive");
  if (!m)
    return 0;
  int64_t before = m->phase;
  if (count < 0 || count > m->pending) {
    stop("an arrive of " + std::to_string(count) + " on mbarrier " + hex(addr) + " with " +
         std::to_string(m->pending) + " of " + std::to_string(m->expected) +
         " arrivals pending" + at(site));
    return 0;
  }
  m->pending -= count;
  if (count)
    completePhaseIfDone(*m);
  return before;
}

int64_t fmha_lane_mbarrier_arrive_expect_tx(int32_t site, int64_t addr, int32_t bytes) {
  if (!inLaunch(kMBarrierArriveExpectTx))
    return 0;
  MBarrier *m = mbarrierAt(site, addr, "an arrive.expect_tx");
  if (!m)
    return 0;
  if (bytes < 0) {
    stop("an arrive.expect_tx of " + std::to_string(bytes) + " bytes" + at(site));
    return 0;
  }
  m->tx += bytes;
  return fmha_lane_mbarrier_arrive(site, addr, 1);
}

int64_t fmha_lane_tensor_map(int64_t base, int64_t elementBytes, int64_t swizzle,
                             int64_t rank, int64_t d0, int64_t d1, int64_t d2,
                             int64_t d3, int64_t d4, int64_t s0, int64_t s1,
                             int64_t s2, int64_t s3, int64_t s4, int64_t b0,
                             int64_t b1, int64_t b2, int64_t b3, int64_t b4) {
  // Made on the host side of a launch; alive until the process ends (a few
  // per launch).
  static std::mutex mu;
  static std::deque<TensorMap> maps;
  std::lock_guard<std::mutex> lock(mu);
  TensorMap &t = maps.emplace_back();
  t.base = static_cast<uint64_t>(base);
  t.rank = rank;
  t.elementBytes = elementBytes;
  t.swizzle = swizzle;
  int64_t d[5] = {d0, d1, d2, d3, d4}, st[5] = {s0, s1, s2, s3, s4},
          bx[5] = {b0, b1, b2, b3, b4};
  for (int i = 0; i < 5; ++i) {
    t.dims[i] = d[i];
    t.strides[i] = st[i] * elementBytes;
    t.box[i] = bx[i];
  }
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(&t));
}

void fmha_lane_tma_load(int32_t site, int64_t map, int64_t dst, int64_t mbar,
                        int32_t rank, int32_t c0, int32_t c1, int32_t c2,
                        int32_t c3, int32_t c4) {
  if (!inLaunch(kTmaLoad))
    return;
  Launch &L = *tLaunch;
  const auto *t = reinterpret_cast<const TensorMap *>(static_cast<uintptr_t>(map));
  if (!t || t->rank != rank)
    return stop("a TMA load of rank " + std::to_string(rank) + " through a tensor map of rank " +
                std::to_string(t ? t->rank : 0) + at(site));
  MBarrier *m = mbarrierAt(site, mbar, "a TMA load's complete_tx");
  if (!m)
    return;
  int64_t rowBytes = t->box[0] * t->elementBytes, bytes = rowBytes;
  for (int i = 1; i < rank; ++i)
    bytes *= t->box[i];
  uint64_t a = static_cast<uint64_t>(dst), base = reinterpret_cast<uintptr_t>(L.arena);
  // The swizzle permutes 16-byte chunks within a 8-row atom of rows of the
  // swizzle's width: the box must start on such an atom.
  int64_t atom = t->swizzle ? 8 * t->swizzle : 16;
  if (!L.arena || a < base || a + bytes > base + L.arenaUsed || (a - base) % atom)
    return stop("a TMA load of " + std::to_string(bytes) + " bytes to " + hex(a) +
                ", not " + std::to_string(atom) +
                "-aligned bytes of the workgroup's buffers" + at(site));
  if (t->swizzle && rowBytes > t->swizzle)
    return stop("a TMA box row of " + std::to_string(rowBytes) + " bytes wider than its " +
                std::to_string(t->swizzle) + "-byte swizzle" + at(site));
  int32_t c[5] = {c0, c1, c2, c3, c4};
  int64_t rows = bytes / rowBytes;
  for (int64_t r = 0; r < rows; ++r) {
    // Box row r: the outer box coordinates, innermost (dimension 1) first.
    int64_t rest = r, src = 0;
    bool inside = true;
    for (int i = 1; i < rank; ++i) {
      int64_t x = c[i] + rest % t->box[i];
      rest /= t->box[i];
      inside &= x >= 0 && x < t->dims[i];
      src += x * t->strides[i];
    }
    for (int64_t e = 0; e < t->box[0]; ++e) {
      int64_t x = c[0] + e;
      int64_t off = r * rowBytes + e * t->elementBytes;
      // 16-byte chunk bits [4, 4 + log2(W / 16)) xor the row-of-W bits
      // above bit 7 (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B), on the shared
      // address's offset from the buffer (1024-aligned).
      uint64_t at = (a - base) + off;
      if (t->swizzle) {
        uint64_t mask = (t->swizzle / 16 - 1) << 4;
        at ^= ((at >> 7) << 4) & mask;
      }
      uint8_t *to = L.arena + at;
      if (inside && x >= 0 && x < t->dims[0])
        std::memcpy(to, reinterpret_cast<const uint8_t *>(t->base + src + x * t->elementBytes),
                    t->elementBytes);
      else
        std::memset(to, 0, t->elementBytes); // out of the tensor: zeros
    }
  }
  ++tStats.tmaLoads;
  // Landed at issue (the runtime's copies are synchronous): the bytes
  // count now.
  if (bytes > m->tx)
    return stop("a TMA load of " + std::to_string(bytes) + " bytes on mbarrier " + hex(mbar) +
                " expecting " + std::to_string(m->tx) + at(site));
  m->tx -= bytes;
  completePhaseIfDone(*m);
}

void fmha_lane_mbarrier_wait(int32_t site, int64_t addr, int32_t parity) {
  if (!inLaunch(kMBarrierWait))
    return;
  MBarrier *m = mbarrierAt(site, addr, "a wait");
  if (!m)
    return;
  // The current (incomplete) phase has parity phase & 1: a wait for the
  // other parity is for the phase just completed.
  if ((m->phase & 1) != (parity & 1))
    return;
  Lane &l = self();
  l.mbar = static_cast<uint64_t>(addr);
  l.parity = parity & 1;
  l.waitPhase = m->phase;
  ++tStats.mbarrierWaits;
  suspend(State::AtMBarrier, WaveOp::None, site);
}

void fmha_lane_named_barrier(int32_t site, int32_t id, int32_t n, int32_t wait) {
  if (!inLaunch(kNamedBarrier))
    return;
  Launch &L = *tLaunch;
  Lane &l = self();
  int64_t threads = L.threads(), W = L.waveSize, waves = (threads + W - 1) / W;
  std::string op = std::string(wait ? "bar.sync " : "bar.arrive ") + std::to_string(id) +
                   ", " + (n ? std::to_string(n) : std::string("all threads"));
  if (id < 0 || id >= kNamedBarriers)
    return stop(op + ": barrier ids are 0 to 15" + at(site));
  int64_t count = n ? n : threads;
  if (wait && id == 0 && count == threads)
    return fmha_lane_barrier(site); // the workgroup barrier
  if (n && (n < 0 || n % W || n > threads))
    return stop(op + ": the thread count must be a multiple of the wave size " +
                std::to_string(W) + ", at most the workgroup's " + std::to_string(threads) +
                at(site));
  NamedBarrier &b = L.named[id];
  if (b.arrived && b.n != count)
    return stop(op + ": earlier arrivals of this generation (" + std::to_string(b.arrived) +
                ") stated " + std::to_string(b.n) + " threads" + at(site));
  if (id == 0)
    for (const Lane &o : L.lanes)
      if (o.state == State::AtBarrier)
        return stop(op + " while lane " + std::to_string(o.linear) +
                    " waits at barrier 0 as the workgroup barrier (site " +
                    std::to_string(o.site) + ")" + at(site));
  b.n = count;
  ++b.arrived;
  ++b.perWave[l.linear / W];
  if (b.arrived < count) {
    if (wait) {
      l.barrierId = id;
      suspend(State::AtNamedBarrier, WaveOp::None, site);
    }
    return;
  }
  // The generation completes: each wave that arrived must have arrived
  // whole (its lanes once each), as a GPU counts warps.
  for (int64_t w = 0; w < waves; ++w) {
    int64_t size = std::min(W, threads - w * W);
    if (b.perWave[w] && b.perWave[w] != size)
      return stop("lanes of one wave diverged at " + op + ": wave " + std::to_string(w) +
                  " (lanes " + std::to_string(w * W) + "-" + std::to_string(w * W + size - 1) +
                  ") made " + std::to_string(b.perWave[w]) + " of the " +
                  std::to_string(count) + " arrivals that completed it, its " +
                  std::to_string(size) + " lanes once each expected" + at(site));
  }
  for (Lane &o : L.lanes)
    if (o.state == State::AtNamedBarrier && o.barrierId == id)
      o.state = State::Runnable;
  b.n = b.arrived = 0;
  std::fill(b.perWave.begin(), b.perWave.end(), 0);
  ++tStats.namedBarriers;
}

/// v_cvt_pk_fp8_f32: round to nearest even; src a to the low byte of word
/// `wordSel`, b to its high byte; the other word kept from `old`.
int32_t fmha_lane_cvt_pk_fp8(float a, float b, int32_t old, int32_t wordSel,
                             int32_t fmt) {
  DType t = dtypeOf(fmt);
  uint32_t lo = ref::encode(t, a, ref::Overflow::Saturate) & 0xFF;
  uint32_t hi = ref::encode(t, b, ref::Overflow::Saturate) & 0xFF;
  uint32_t word = lo | hi << 8, shift = wordSel ? 16 : 0;
  uint32_t r = (static_cast<uint32_t>(old) & ~(0xFFFFu << shift)) | word << shift;
  return static_cast<int32_t>(r);
}

/// cvt.rn.satfinite.{e4m3,e5m2}x2.f32 d, hi, lo: hi to the upper byte.
int32_t fmha_lane_cvt_fp8x2(float hi, float lo, int32_t fmt) {
  DType t = dtypeOf(fmt);
  uint32_t h = ref::encode(t, hi, ref::Overflow::Saturate) & 0xFF;
  uint32_t l = ref::encode(t, lo, ref::Overflow::Saturate) & 0xFF;
  return static_cast<int32_t>(h << 8 | l);
}

/// v_perm_b32 d, s0, s1, sel: byte i of d is chosen by byte i of sel from the
/// eight bytes {s0 (bytes 7..4), s1 (bytes 3..0)}: 0-7 a byte, 12 zero, 13
/// and above 0xFF. The sign-replicating selectors 8-11 are not used by the
/// kernels: a runtime error.
int32_t fmha_lane_perm_b32(int32_t s0, int32_t s1, int32_t sel) {
  uint64_t bytes = static_cast<uint64_t>(static_cast<uint32_t>(s0)) << 32 |
                   static_cast<uint32_t>(s1);
  uint32_t d = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t s = (static_cast<uint32_t>(sel) >> (8 * i)) & 0xFF, v;
    if (s < 8)
      v = (bytes >> (8 * s)) & 0xFF;
    else if (s == 12)
      v = 0;
    else if (s >= 13)
      v = 0xFF;
    else {
      if (tError.empty())
        tError = "v_perm_b32 selector byte " + std::to_string(s) +
                 " (sign replication) is not modelled";
      v = 0;
    }
    d |= v << (8 * i);
  }
  return static_cast<int32_t>(d);
}

/// v_exp_f32 (denormals flushed, as the kernels' preserve-sign mode) and
/// ex2.approx.ftz.f32: modelled as correctly rounded with denormal inputs
/// and outputs flushed to zero.
float fmha_lane_exp2(float x) {
  return flushDenormal(static_cast<float>(std::exp2(static_cast<double>(flushDenormal(x)))));
}

/// v_log_f32 / lg2.approx.ftz.f32, modelled the same way.
float fmha_lane_log2(float x) {
  return flushDenormal(static_cast<float>(std::log2(static_cast<double>(flushDenormal(x)))));
}

/// check-bounds: the access at `site` had `index` outside [0, bound) on dim
/// `dim` of its memref. The kernel skips the access; the first one is the
/// error, and the launch goes on (counting them).
void fmha_lane_out_of_bounds(int32_t site, int64_t index, int64_t bound,
                             int32_t dim) {
  ++tOutOfBounds;
  ++tStats.outOfBounds;
  if (!tError.empty())
    return;
  std::string at = tLaunch && tLaunch->current ? "in " + where(*tLaunch, self())
                                               : std::string("outside a launch");
  if (dim == kStraddle)
    tError = "load across the end of a bounded view " + at + " at site " +
             std::to_string(site) + ": from byte " + std::to_string(index) +
             ", valid bytes " + std::to_string(bound) +
             " (the hardware's result is neither the data nor zero)";
  else
    tError = "out-of-bounds memory access " + at + " at site " + std::to_string(site) +
             ": index " + std::to_string(index) + " on dim " + std::to_string(dim) +
             ", bound " + std::to_string(bound);
  tFirstIsOutOfBounds = true;
}

} // extern "C"

std::vector<std::pair<const char *, void *>> laneRuntimeSymbols() {
  return {{kLaunch, reinterpret_cast<void *>(&fmha_lane_launch)},
          {kId, reinterpret_cast<void *>(&fmha_lane_id)},
          {kShared, reinterpret_cast<void *>(&fmha_lane_shared)},
          {kBarrier, reinterpret_cast<void *>(&fmha_lane_barrier)},
          {kShuffle, reinterpret_cast<void *>(&fmha_lane_shuffle)},
          {kReadFirstLane, reinterpret_cast<void *>(&fmha_lane_readfirstlane)},
          {kTranspose8, reinterpret_cast<void *>(&fmha_lane_transpose8)},
          {kMma, reinterpret_cast<void *>(&fmha_lane_mma)},
          {kWgmma, reinterpret_cast<void *>(&fmha_lane_wgmma)},
          {kCvtPkFp8, reinterpret_cast<void *>(&fmha_lane_cvt_pk_fp8)},
          {kCvtFp8x2, reinterpret_cast<void *>(&fmha_lane_cvt_fp8x2)},
          {kPermB32, reinterpret_cast<void *>(&fmha_lane_perm_b32)},
          {kExp2, reinterpret_cast<void *>(&fmha_lane_exp2)},
          {kLog2, reinterpret_cast<void *>(&fmha_lane_log2)},
          {kOutOfBounds, reinterpret_cast<void *>(&fmha_lane_out_of_bounds)},
          {kMBarrierInit, reinterpret_cast<void *>(&fmha_lane_mbarrier_init)},
          {kMBarrierArrive, reinterpret_cast<void *>(&fmha_lane_mbarrier_arrive)},
          {kMBarrierWait, reinterpret_cast<void *>(&fmha_lane_mbarrier_wait)},
          {kNamedBarrier, reinterpret_cast<void *>(&fmha_lane_named_barrier)},
          {kElect, reinterpret_cast<void *>(&fmha_lane_elect)},
          {kLdsLoad, reinterpret_cast<void *>(&fmha_lane_lds_load)},
          {kLdsLoadWait, reinterpret_cast<void *>(&fmha_lane_lds_load_wait)},
          {kLdsAccess, reinterpret_cast<void *>(&fmha_lane_lds_access)},
          {kMBarrierArriveExpectTx,
           reinterpret_cast<void *>(&fmha_lane_mbarrier_arrive_expect_tx)},
          {kTensorMap, reinterpret_cast<void *>(&fmha_lane_tensor_map)},
          {kTmaLoad, reinterpret_cast<void *>(&fmha_lane_tma_load)}};
}

std::string takeLaneRuntimeError() {
  std::string e;
  std::swap(e, tError);
  if (tFirstIsOutOfBounds && tOutOfBounds > 1)
    e += " (the first of " + std::to_string(tOutOfBounds) + " out-of-bounds accesses)";
  tFatal = tFirstIsOutOfBounds = false;
  tOutOfBounds = 0;
  return e;
}

LaneRuntimeStats takeLaneRuntimeStats() {
  LaneRuntimeStats s = tStats;
  tStats = {};
  return s;
}

void setLaneGridPadding(int64_t x, int64_t y, int64_t z) {
  tGridPad[0] = x, tGridPad[1] = y, tGridPad[2] = z;
}

void setLaneScheduleReversed(bool reversed) {
  tReverseLanes = reversed;
}

void setLdsLoadsLandAtIssue(bool atIssue) {
  tLdsLoadsAtIssue = atIssue;
}

void setLaneWavesInTurn(bool inTurn) {
  tWavesInTurn = inTurn;
}

void setLdsBankModel(int64_t banks) {
  tLdsBanks = banks < 0 ? 0 : banks;
}

} // namespace fmha::lane
