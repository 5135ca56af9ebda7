//===- AtomicOutput.h - all-or-nothing file output for the tools -*- C++ -*-===//
//
// Every tool writes its files through an OutputSet: each file goes to a
// temporary beside its target (same folder, so the rename is atomic), every
// write and close is checked, and commit() renames the temporaries onto their
// targets only when all of them were written. A failure leaves the targets as
// they were (an earlier NAME.hsaco stays) and no partial or temporary file;
// the set's destructor removes what was not committed.
//
// Plain C++17 and POSIX, no LLVM: fmha-cuda-run and fmha-hip-run build
// without it. A full disk (ENOSPC, or EFBIG under `ulimit -f` with SIGXFSZ
// ignored) is an ordinary write error here.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TOOLS_COMMON_ATOMICOUTPUT_H
#define FMHA_TOOLS_COMMON_ATOMICOUTPUT_H

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fmha_tools {

class OutputSet {
public:
  OutputSet() = default;
  OutputSet(const OutputSet &) = delete;
  OutputSet &operator=(const OutputSet &) = delete;
  ~OutputSet() { discard(); }

  /// Writes `n` bytes to a new temporary for `path` (its name in *tmpPath
  /// when given). Returns "" or the error, which names the target ("cannot
  /// write k.json: No space left on device").
  std::string add(const std::string &path, const void *data, size_t n,
                  std::string *tmpPath = nullptr) {
    std::string tmp = path + ".tmp-XXXXXX";
    std::vector<char> name(tmp.begin(), tmp.end());
    name.push_back('\0');
    int fd = ::mkstemp(name.data());
    if (fd < 0)
      return error(path, errno);
    pending.push_back({path, std::string(name.data())});
    if (tmpPath)
      *tmpPath = pending.back().tmp;
    // mkstemp makes 0600; the target gets what open(2) would give it.
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    const char *p = static_cast<const char *>(data);
    while (n > 0) {
      ssize_t w = ::write(fd, p, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        int e = w < 0 ? errno : ENOSPC;
        ::close(fd);
        return error(path, e);
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    if (::close(fd) != 0)
      return error(path, errno);
    return "";
  }
  std::string add(const std::string &path, const std::string &bytes,
                  std::string *tmpPath = nullptr) {
    return add(path, bytes.data(), bytes.size(), tmpPath);
  }

  /// Renames every temporary onto its target, in the order added; "" or the
  /// error. Only a failing rename itself (not a write) can leave the set
  /// partly renamed.
  std::string commit() {
    // A target that is a folder would fail its rename after the others
    // were renamed: refuse before any.
    for (const Pending &p : pending) {
      struct stat st;
      if (::stat(p.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        std::string err = error(p.path, EISDIR);
        discard();
        return err;
      }
    }
    for (size_t i = 0; i < pending.size(); ++i)
      if (::rename(pending[i].tmp.c_str(), pending[i].path.c_str()) != 0) {
        std::string err = error(pending[i].path, errno);
        pending.erase(pending.begin(), pending.begin() + i);
        discard();
        return err;
      }
    pending.clear();
    return "";
  }

  /// Removes the temporaries; the targets stay as they were.
  void discard() {
    for (const Pending &p : pending)
      ::unlink(p.tmp.c_str());
    pending.clear();
  }

private:
  struct Pending {
    std::string path, tmp;
  };
  std::vector<Pending> pending;

  static std::string error(const std::string &path, int e) {
    return "cannot write " + path + ": " + std::strerror(e);
  }
};

/// One file, all or nothing: "" or the error.
inline std::string writeFileAtomically(const std::string &path,
                                       const std::string &bytes) {
  OutputSet set;
  if (std::string err = set.add(path, bytes); !err.empty())
    return err;
  return set.commit();
}

} // namespace fmha_tools

#endif // FMHA_TOOLS_COMMON_ATOMICOUTPUT_H
