//===- Parallel.h - A tiny parallel-for over independent work items -------===//
//
// Private to the library. Items write disjoint outputs, so results do not
// depend on the thread count.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_LIB_REFERENCE_PARALLEL_H
#define FMHA_LIB_REFERENCE_PARALLEL_H

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fmha::ref::detail {

/// threads <= 0: one per hardware thread.
inline int resolveThreads(int threads) {
  if (threads > 0)
    return threads;
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? static_cast<int>(hw) : 1;
}

/// Calls fn(item) for item in [0, n) on up to `threads` threads.
template <typename Fn> void parallelFor(int64_t n, int threads, Fn fn) {
  const int t = static_cast<int>(
      std::min<int64_t>(std::max(1, resolveThreads(threads)), n));
  if (t <= 1) {
    for (int64_t i = 0; i < n; ++i)
      fn(i);
    return;
  }
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::mutex errorMutex;
  auto worker = [&] {
    for (int64_t i; (i = next.fetch_add(1)) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!error)
          error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int k = 1; k < t; ++k)
    pool.emplace_back(worker);
  worker();
  for (auto &th : pool)
    th.join();
  if (error)
    std::rethrow_exception(error);
}

} // namespace fmha::ref::detail

#endif
