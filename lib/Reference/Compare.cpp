//===- Compare.cpp - Checking kernel outputs against a reference ----------===//

#include "fmha/Reference/Compare.h"
#include "fmha/Reference/FloatCodec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace fmha::ref {

uint32_t poisonBits(DType t) {
  switch (dtypeSize(t)) {
  case 4:
    return 0xFFFFFFFFu;
  case 2:
    return 0xFFFFu;
  default:
    return 0xFFu;
  }
}

void poisonFill(DType t, void *buf, size_t n) {
  std::memset(buf, 0xFF, n * dtypeSize(t));
}

const char *compareModeName(CompareMode m) {
  return m == CompareMode::Oracle ? "oracle" : "emulation";
}

Tolerances Tolerances::forMode(CompareMode m, DataMode d) {
  Tolerances t;
  if (m == CompareMode::Emulation) {
    t.rel_fro = 2e-3;
    t.check_max_abs = false;
  } else if (d == DataMode::Spread) {
    // Issue 12: spread data is judged by the row bar and the emulation bar.
    // The relative Frobenius error is reported, not judged: it is dominated
    // by the largest rows, which carry the same fp8-P rounding (H200 P = 1:
    // 0.024 with the row bar at 0.056 and the emulation at 6.6e-5).
    t.check_max_abs = false;
    t.check_row_rel = true;
    t.check_rel_fro = false;
  }
  return t;
}

CompareResult compareOutputs(DType out_t, const void *out, const double *ref_out,
                             size_t n, const float *lse, const double *ref_lse,
                             size_t n_lse, CompareMode mode,
                             const Tolerances *tol, size_t row_len) {
  CompareResult r;
  r.mode = mode;
  r.tol = tol ? *tol : Tolerances::forMode(mode);
  r.n = static_cast<int64_t>(n);
  r.row_len = static_cast<int64_t>(row_len);
  const uint32_t poison = poisonBits(out_t);
  double diff2 = 0, ref2 = 0;
  double rowAbs = 0, rowRef = 0; // of the current row
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = loadBits(out_t, out, i);
    rowRef = std::max(rowRef, std::fabs(ref_out[i]));
    const double got = decode(out_t, bits);
    if (bits == poison) {
      ++r.poisoned;
    } else if (!std::isfinite(got)) {
      ++r.nonfinite;
    } else {
      const double d = got - ref_out[i];
      if (std::fabs(d) > r.max_abs_err || r.max_abs_index < 0) {
        r.max_abs_err = std::fabs(d);
        r.max_abs_index = static_cast<int64_t>(i);
      }
      rowAbs = std::max(rowAbs, std::fabs(d));
      diff2 += d * d;
      ref2 += ref_out[i] * ref_out[i];
    }
    if (row_len && (i + 1) % row_len == 0) {
      const double rel = rowAbs / std::max(1.0, rowRef);
      if (rel > r.max_row_rel_err || r.max_row_rel_index < 0) {
        r.max_row_rel_err = rel;
        r.max_row_rel_index = static_cast<int64_t>(i / row_len);
        r.max_row_rel_abs = rowAbs;
        r.max_row_rel_ref = rowRef;
      }
      rowAbs = rowRef = 0;
    }
  }
  r.rel_fro_err = ref2 > 0 ? std::sqrt(diff2 / ref2)
                           : (diff2 > 0 ? INFINITY : 0.0);

  if (lse && ref_lse) {
    r.lse_checked = true;
    r.lse_n = static_cast<int64_t>(n_lse);
    for (size_t i = 0; i < n_lse; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &lse[i], 4);
      if (bits == poisonBits(DType::F32)) {
        ++r.lse_poisoned;
        continue;
      }
      const double got = lse[i], ref = ref_lse[i];
      if (std::isinf(ref) && ref < 0) {
        if (!(std::isinf(got) && got < 0))
          ++r.lse_bad;
        continue;
      }
      if (!std::isfinite(got)) {
        ++r.lse_nonfinite;
        continue;
      }
      const double d = std::fabs(got - ref);
      const double scaled = d / std::max(1.0, std::fabs(ref));
      r.lse_max_err = std::max(r.lse_max_err, d);
      r.lse_max_scaled_err = std::max(r.lse_max_scaled_err, scaled);
      if (!(scaled < r.tol.lse_rel))
        ++r.lse_bad;
    }
  }

  std::ostringstream why;
  auto fail = [&](const std::string &s) {
    if (why.tellp() > 0)
      why << "; ";
    why << s;
  };
  if (r.poisoned)
    fail(std::to_string(r.poisoned) + " output elements unwritten (poison)");
  if (r.nonfinite)
    fail(std::to_string(r.nonfinite) + " output elements NaN/inf");
  if (r.tol.check_max_abs && !(r.max_abs_err < r.tol.max_abs)) {
    std::ostringstream s;
    s << "max abs err " << r.max_abs_err << " >= " << r.tol.max_abs;
    fail(s.str());
  }
  if (r.tol.check_row_rel && row_len && !(r.max_row_rel_err < r.tol.max_row_rel)) {
    std::ostringstream s;
    s << "max row-relative err " << r.max_row_rel_err << " >= "
      << r.tol.max_row_rel << " (row " << r.max_row_rel_index << ": max |d| "
      << r.max_row_rel_abs << ", max |ref| " << r.max_row_rel_ref << ")";
    fail(s.str());
  }
  if (r.tol.check_rel_fro && !(r.rel_fro_err < r.tol.rel_fro)) {
    std::ostringstream s;
    s << "rel fro err " << r.rel_fro_err << " >= " << r.tol.rel_fro;
    fail(s.str());
  }
  if (r.lse_poisoned)
    fail(std::to_string(r.lse_poisoned) + " lse elements unwritten (poison)");
  if (r.lse_nonfinite)
    fail(std::to_string(r.lse_nonfinite) + " lse elements NaN/inf");
  if (r.lse_bad) {
    std::ostringstream s;
    s << r.lse_bad << " lse elements off (max |d| " << r.lse_max_err
      << ", max |d|/max(1,|ref|) " << r.lse_max_scaled_err << " vs "
      << r.tol.lse_rel << ")";
    fail(s.str());
  }
  r.reason = why.str();
  r.pass = r.reason.empty();
  return r;
}

std::string CompareResult::toJson() const {
  std::ostringstream os;
  os.precision(9);
  auto num = [&](double v) -> std::string {
    if (std::isnan(v))
      return "null";
    if (std::isinf(v))
      return v > 0 ? "1e999" : "-1e999";
    std::ostringstream s;
    s.precision(9);
    s << v;
    return s.str();
  };
  std::string esc;
  for (char c : reason) {
    if (c == '"' || c == '\\')
      esc.push_back('\\');
    esc.push_back(c);
  }
  os << "{\"mode\":\"" << compareModeName(mode) << "\",\"pass\":"
     << (pass ? "true" : "false") << ",\"n\":" << n
     << ",\"max_abs_err\":" << num(max_abs_err)
     << ",\"max_abs_index\":" << max_abs_index
     << ",\"rel_fro_err\":" << num(rel_fro_err);
  if (row_len)
    os << ",\"row_len\":" << row_len
       << ",\"max_row_rel_err\":" << num(max_row_rel_err)
       << ",\"max_row_rel_index\":" << max_row_rel_index;
  os << ",\"nonfinite\":" << nonfinite
     << ",\"poisoned\":" << poisoned
     << ",\"lse_checked\":" << (lse_checked ? "true" : "false")
     << ",\"lse_n\":" << lse_n << ",\"lse_max_err\":" << num(lse_max_err)
     << ",\"lse_max_scaled_err\":" << num(lse_max_scaled_err)
     << ",\"lse_bad\":" << lse_bad << ",\"lse_nonfinite\":" << lse_nonfinite
     << ",\"lse_poisoned\":" << lse_poisoned
     << ",\"tol_max_abs\":" << (tol.check_max_abs ? num(tol.max_abs) : "null")
     << ",\"tol_max_row_rel\":"
     << (tol.check_row_rel && row_len ? num(tol.max_row_rel) : "null")
     << ",\"tol_rel_fro\":" << (tol.check_rel_fro ? num(tol.rel_fro) : "null")
     << ",\"tol_lse_rel\":" << num(tol.lse_rel) << ",\"reason\":\"" << esc
     << "\"}";
  return os.str();
}

std::string CompareResult::summary() const {
  char buf[512];
  std::string s = std::string(pass ? "PASS" : "FAIL") + " " + compareModeName(mode);
  // The row-relative bar (spread data) names itself first.
  if (tol.check_row_rel && row_len) {
    std::snprintf(buf, sizeof buf, " max_row_rel=%.3g", max_row_rel_err);
    s += buf;
  }
  std::snprintf(buf, sizeof buf,
                " max_abs=%.3g rel_fro=%.3g nonfinite=%lld poisoned=%lld",
                max_abs_err, rel_fro_err, static_cast<long long>(nonfinite),
                static_cast<long long>(poisoned));
  s += buf;
  if (lse_checked) {
    std::snprintf(buf, sizeof buf, " lse_max=%.3g lse_bad=%lld", lse_max_err,
                  static_cast<long long>(lse_bad + lse_nonfinite + lse_poisoned));
    s += buf;
  }
  if (!pass)
    s += " (" + reason + ")";
  return s;
}

std::string CompareResult::errors() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "max_row_rel=%.3g max_abs=%.3g rel_fro=%.3g",
                max_row_rel_err, max_abs_err, rel_fro_err);
  std::string s = buf;
  if (lse_checked) {
    std::snprintf(buf, sizeof buf, " lse_max=%.3g lse_rel=%.3g", lse_max_err,
                  lse_max_scaled_err);
    s += buf;
  }
  return s;
}

CompareResult judgeAgainstOracle(const Inputs &in, const void *out,
                                 const float *lse, int64_t q_tile_rows,
                                 CompareResult *exactQ) {
  OracleOptions o;
  o.q_tile_rows = q_tile_rows;
  CompareResult r = compareWithOracle(in, out, lse, runOracle(in, o));
  if (exactQ && q_tile_rows > 0)
    *exactQ = compareWithOracle(in, out, lse, runOracle(in));
  return r;
}

CompareResult compareWithOracle(const Inputs &in, const void *out,
                                const float *lse, const OracleResult &ref) {
  const Tolerances tol = Tolerances::forMode(CompareMode::Oracle, in.req.data);
  return compareOutputs(in.req.out_dtype, out, ref.out.data(), ref.out.size(),
                        lse, lse ? ref.lse.data() : nullptr, ref.lse.size(),
                        CompareMode::Oracle, &tol,
                        static_cast<size_t>(in.req.headDimV()));
}

CompareResult compareWithEmulation(const Inputs &in, const void *out,
                                   const float *lse, const EmulateResult &ref) {
  const DType t = in.req.out_dtype;
  std::vector<double> o(ref.out_f32.size()), l(ref.lse.size());
  for (size_t i = 0; i < o.size(); ++i)
    o[i] = loadElement(t, ref.out.data(), i);
  for (size_t i = 0; i < l.size(); ++i)
    l[i] = ref.lse[i];
  return compareOutputs(t, out, o.data(), o.size(), lse, lse ? l.data() : nullptr,
                        l.size(), CompareMode::Emulation);
}

} // namespace fmha::ref
