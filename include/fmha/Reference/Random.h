//===- Random.h - Deterministic random numbers for input generation -*- C++ -*-===//
//
// A small fixed generator (xoshiro256** seeded through splitmix64), so the same
// seed gives the same inputs on every platform and standard library (the
// std:: distributions are implementation-defined).
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_REFERENCE_RANDOM_H
#define FMHA_REFERENCE_RANDOM_H

#include <cstdint>

namespace fmha::ref {

/// splitmix64 step: a good 64-bit mix, also used to derive stream seeds.
inline uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Rng {
public:
  explicit Rng(uint64_t seed, uint64_t stream = 0) {
    uint64_t st = seed ^ (stream * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull);
    for (auto &w : s_)
      w = splitmix64(st);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1) with 24 random bits (every value exact in f32).
  float uniform() { return static_cast<float>(next() >> 40) * 0x1.0p-24f; }
  /// Uniform integer in [0, n), n > 0 (modulo bias < n / 2^64: negligible
  /// for the sizes used here).
  uint64_t below(uint64_t n) { return next() % n; }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

} // namespace fmha::ref

#endif // FMHA_REFERENCE_RANDOM_H
