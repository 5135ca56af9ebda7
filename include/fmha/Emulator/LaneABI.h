//===- LaneABI.h - the calls between emulated lanes and the runtime -*- C++ -*-===//
//
// What fmha-lanes-to-host emits and the lane runtime (LaneRuntime.h)
// implements: the names of the runtime's entry points and the encoding of
// their integer arguments. No MLIR or LLVM dependency.
//
// Every entry point has C linkage and scalar (or pointer) arguments only, so
// the JIT's calls need no vector calling convention:
//
//   void    fmha_lane_launch(void (*lanes)(int64_t *args), i64 gx, gy, gz,
//                            i64 bx, by, bz, int64_t *args, i64 waveSize)
//   int64_t fmha_lane_id(i32 which)            // LaneId
//   void   *fmha_lane_shared(i32 index, i64 bytes)
//   void    fmha_lane_barrier(i32 site)
//   int64_t fmha_lane_shuffle(i32 site, i32 mode, i32 value, i32 offset,
//                             i32 width)       // value | valid << 32
//   int32_t fmha_lane_readfirstlane(i32 site, i32 value)
//   int64_t fmha_lane_transpose8(i32 site, i64 bytes)
//                                              // the data movement of a
//                                              // transpose load: `bytes`,
//                                              // the 8 bytes this lane
//                                              // addresses (it read them
//                                              // itself), in, the lane's
//                                              // transposed 8 out
//   void    fmha_lane_mma(i32 site, i32 kind, void *a, void *b, void *c,
//                         void *d)             // kind: mmaKind()
//   void    fmha_lane_wgmma(i32 site, i32 kind, i32 n, i32 scaleD, void *a,
//                           i64 descA, i64 descB, void *c, void *d)
//                                              // a warpgroup op: the 4
//                                              // waves of a warpgroup meet
//   int32_t fmha_lane_cvt_pk_fp8(f32 a, f32 b, i32 old, i32 wordSel, i32 fmt)
//   int32_t fmha_lane_cvt_fp8x2(f32 hi, f32 lo, i32 fmt) // NVIDIA order
//   int32_t fmha_lane_perm_b32(i32 s0, i32 s1, i32 sel)  // v_perm_b32
//   float   fmha_lane_exp2(f32 x)
//   float   fmha_lane_log2(f32 x)
//   void    fmha_lane_out_of_bounds(i32 site, i64 index, i64 bound, i32 dim)
//                                              // check-bounds: a memory
//                                              // access with index outside
//                                              // [0, bound) on dim `dim`;
//                                              // dim kStraddle: a load
//                                              // through a bounded view
//                                              // (amdgpu.fat_raw_buffer_cast)
//                                              // from byte `index` across
//                                              // its valid bytes `bound`
//   void    fmha_lane_mbarrier_init(i32 site, i64 addr, i32 count)
//                                              // nvvm.mbarrier.init: the
//                                              // 8-byte mbarrier at host
//                                              // address `addr` (in a
//                                              // workgroup buffer): phase
//                                              // 0, count arrivals pending
//   int64_t fmha_lane_mbarrier_arrive(i32 site, i64 addr, i32 count)
//                                              // pending -= count; at 0
//                                              // the phase completes;
//                                              // returns the phase before
//                                              // (count 0: only checks
//                                              // the mbarrier: a
//                                              // cp.async.mbarrier.arrive
//                                              // without noinc)
//   void    fmha_lane_mbarrier_wait(i32 site, i64 addr, i32 parity)
//                                              // try_wait.parity (blocking):
//                                              // back once the phase of
//                                              // that parity completed
//   void    fmha_lane_named_barrier(i32 site, i32 id, i32 n, i32 wait)
//                                              // bar.sync id, n (wait 1)
//                                              // or bar.arrive id, n
//                                              // (wait 0); n 0: all threads;
//                                              // id 0 with all threads (and
//                                              // wait) is the workgroup
//                                              // barrier (fmha_lane_barrier)
//   int32_t fmha_lane_elect(i32 site)          // elect.sync: a wave op, 1 in
//                                              // the wave's first lane
//   void    fmha_lane_lds_load(i64 at, i64 lo, i64 hi, i64 bytes)
//                                              // a load of 16 or 4 bytes
//                                              // into LDS address at
//                                              // (buffer_load ... lds of
//                                              // gfx950 / gfx942): in
//                                              // flight until a wait
//   void    fmha_lane_lds_load_wait(i32 site, i32 n)
//                                              // s_waitcnt vmcnt(n), a wave
//                                              // op: once every lane of the
//                                              // wave is at it, all but each
//                                              // lane's newest n land
//   int64_t fmha_lane_mbarrier_arrive_expect_tx(i32 site, i64 addr, i32 bytes)
//                                              // mbarrier.arrive.expect_tx:
//                                              // the phase also waits for
//                                              // `bytes` of TMA copies
//   int64_t fmha_lane_tensor_map(i64 base, i64 element bytes, i64 swizzle,
//                                i64 rank, i64 dims[5], i64 strides[5]
//                                (elements), i64 box[5])
//                                              // host side of a launch: the
//                                              // emulator's own tensor map
//                                              // (not CUDA's), its address
//   void    fmha_lane_tma_load(i32 site, i64 map, i64 dst, i64 mbar,
//                              i32 rank, i32 coords[5])
//                                              // cp.async.bulk.tensor: the
//                                              // box copied (swizzled, zeros
//                                              // outside the tensor) at once,
//                                              // its bytes completed on mbar
//
// A "site" is the id of the op that made the call; the lanes of a wave must
// meet at the same site. The sites of a kernel's wave ops and
// synchronization (barriers, mbarriers) come first, then those of its
// checked memory accesses.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_EMULATOR_LANEABI_H
#define FMHA_EMULATOR_LANEABI_H

#include <cstdint>

namespace fmha::lane {

inline constexpr const char *kLaunch = "fmha_lane_launch";
inline constexpr const char *kId = "fmha_lane_id";
inline constexpr const char *kShared = "fmha_lane_shared";
inline constexpr const char *kBarrier = "fmha_lane_barrier";
inline constexpr const char *kShuffle = "fmha_lane_shuffle";
inline constexpr const char *kReadFirstLane = "fmha_lane_readfirstlane";
inline constexpr const char *kTranspose8 = "fmha_lane_transpose8";
inline constexpr const char *kMma = "fmha_lane_mma";
inline constexpr const char *kWgmma = "fmha_lane_wgmma";
inline constexpr const char *kCvtPkFp8 = "fmha_lane_cvt_pk_fp8";
inline constexpr const char *kCvtFp8x2 = "fmha_lane_cvt_fp8x2";
inline constexpr const char *kPermB32 = "fmha_lane_perm_b32";
inline constexpr const char *kExp2 = "fmha_lane_exp2";
inline constexpr const char *kLog2 = "fmha_lane_log2";
inline constexpr const char *kOutOfBounds = "fmha_lane_out_of_bounds";
inline constexpr const char *kMBarrierInit = "fmha_lane_mbarrier_init";
inline constexpr const char *kMBarrierArrive = "fmha_lane_mbarrier_arrive";
inline constexpr const char *kMBarrierWait = "fmha_lane_mbarrier_wait";
inline constexpr const char *kNamedBarrier = "fmha_lane_named_barrier";
inline constexpr const char *kElect = "fmha_lane_elect";
inline constexpr const char *kLdsLoad = "fmha_lane_lds_load";
inline constexpr const char *kLdsLoadWait = "fmha_lane_lds_load_wait";
inline constexpr const char *kLdsAccess = "fmha_lane_lds_access";
inline constexpr const char *kMBarrierArriveExpectTx = "fmha_lane_mbarrier_arrive_expect_tx";
inline constexpr const char *kTensorMap = "fmha_lane_tensor_map";
inline constexpr const char *kTmaLoad = "fmha_lane_tma_load";
/// fmha_lane_out_of_bounds's dim for a load across a bounded view's end.
inline constexpr int32_t kStraddle = -1;

/// fmha_lane_id's argument.
enum LaneId : int32_t {
  ThreadX = 0, ThreadY = 1, ThreadZ = 2,
  BlockX = 3, BlockY = 4, BlockZ = 5,
};

/// gpu.shuffle's modes.
enum ShuffleMode : int32_t { Xor = 0, Up = 1, Down = 2, Idx = 3 };

/// 8-bit float formats of MMA operands and fp8 packs.
enum Fp8Format : int32_t { E4M3FN = 0, E4M3FNUZ = 1, E5M2 = 2, E5M2FNUZ = 3 };

/// MMA instructions the runtime knows, with their operand bytes per lane.
enum MmaShape : int32_t {
  /// v_mfma_f32_32x32x16_fp8_fp8 (gfx942, gfx950): A, B 8 bytes, C 16 f32.
  Mfma32x32x16 = 0,
  /// v_mfma_f32_32x32x64_f8f6f4 with fp8 operands (gfx950): A, B 32 bytes.
  Mfma32x32x64 = 1,
  /// mma.sync.aligned.m16n8k32.row.col.f32.{e4m3,e5m2} (sm_89+): A 16
  /// bytes (4 x b32), B 8 bytes (2 x b32), C 4 f32.
  MmaSyncM16N8K32 = 2,
  /// wgmma.mma_async.sync.aligned.m64n<N>k32.f32.{e4m3,e5m2} (sm_90a), by
  /// a warpgroup of 4 warps: A 16 bytes (4 x b32) per lane or a shared
  /// memory descriptor, B a descriptor, C / D N/2 f32 per lane.
  WgmmaM64NK32 = 3,
  /// 16-bit operands (the kind's format fields are Format16): 
  /// v_mfma_f32_32x32x8_{bf16,f16} (gfx942, gfx950; bf16 is CDNA's
  /// bf16_1k): A, B 4 values (8 bytes) per lane.
  Mfma32x32x8F16 = 4,
  /// v_mfma_f32_32x32x16_{bf16,f16} (gfx950): A, B 8 values per lane.
  Mfma32x32x16F16 = 5,
  /// mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}: A 8 values (4 x
  /// b32), B 4 values (2 x b32), C 4 f32.
  MmaSyncM16N8K16 = 6,
  /// wgmma.mma_async.sync.aligned.m64n<N>k16.f32.{bf16,f16} (sm_90a): A 8
  /// values (4 x b32) per lane or a descriptor, B a descriptor.
  WgmmaM64NK16 = 7,
};

/// 16-bit float formats of the 16-bit MMA shapes' operands.
enum Format16 : int32_t { BF16 = 0, F16 = 1 };

/// Whether a shape takes 16-bit operands (its formats are Format16).
constexpr bool isMma16(MmaShape s) { return s >= Mfma32x32x8F16; }

constexpr int32_t mmaKind(MmaShape s, Fp8Format a, Fp8Format b) {
  return static_cast<int32_t>(s) * 16 + static_cast<int32_t>(a) * 4 +
         static_cast<int32_t>(b);
}
constexpr MmaShape mmaKindShape(int32_t kind) {
  return static_cast<MmaShape>(kind / 16);
}
constexpr Fp8Format mmaKindA(int32_t kind) {
  return static_cast<Fp8Format>((kind / 4) % 4);
}
constexpr Fp8Format mmaKindB(int32_t kind) {
  return static_cast<Fp8Format>(kind % 4);
}

} // namespace fmha::lane

/// The entry points themselves (lib/Emulator/LaneRuntime.cpp defines them;
/// declared here so the definitions and every C++ caller are checked
/// against one signature).
extern "C" {
void fmha_lane_launch(void (*lanes)(int64_t *args), int64_t gx, int64_t gy,
                      int64_t gz, int64_t bx, int64_t by, int64_t bz,
                      int64_t *args, int64_t waveSize);
int64_t fmha_lane_id(int32_t which);
void *fmha_lane_shared(int32_t index, int64_t bytes);
void fmha_lane_barrier(int32_t site);
int64_t fmha_lane_shuffle(int32_t site, int32_t mode, int32_t value,
                          int32_t offset, int32_t width);
int32_t fmha_lane_readfirstlane(int32_t site, int32_t value);
int64_t fmha_lane_transpose8(int32_t site, int64_t bytes);
void fmha_lane_mma(int32_t site, int32_t kind, void *a, void *b, void *c,
                   void *d);
void fmha_lane_wgmma(int32_t site, int32_t kind, int32_t n, int32_t scaleD,
                     void *a, int64_t descA, int64_t descB, void *c, void *d);
int32_t fmha_lane_cvt_pk_fp8(float a, float b, int32_t old, int32_t wordSel,
                             int32_t fmt);
int32_t fmha_lane_cvt_fp8x2(float hi, float lo, int32_t fmt);
int32_t fmha_lane_perm_b32(int32_t s0, int32_t s1, int32_t sel);
float fmha_lane_exp2(float x);
float fmha_lane_log2(float x);
void fmha_lane_out_of_bounds(int32_t site, int64_t index, int64_t bound,
                             int32_t dim);
void fmha_lane_mbarrier_init(int32_t site, int64_t addr, int32_t count);
int64_t fmha_lane_mbarrier_arrive(int32_t site, int64_t addr, int32_t count);
void fmha_lane_mbarrier_wait(int32_t site, int64_t addr, int32_t parity);
void fmha_lane_named_barrier(int32_t site, int32_t id, int32_t n, int32_t wait);
int32_t fmha_lane_elect(int32_t site);
void fmha_lane_lds_load(int64_t at, int64_t lo, int64_t hi, int64_t bytes);
void fmha_lane_lds_load_wait(int32_t site, int32_t pending);
void fmha_lane_lds_access(int32_t site, int64_t at, int32_t bytes, int32_t store);
}

#endif // FMHA_EMULATOR_LANEABI_H
