//===- MiniJson.h - a small JSON reader for fmha-cuda-run -------*- C++ -*-===//
//
// fmha-cuda-run must build on a machine with only a C++17 compiler (no LLVM),
// so it cannot use llvm::json. This is a strict RFC 8259 reader of one
// document: objects (key order kept, duplicate keys rejected), arrays,
// strings (all escapes, \uXXXX with surrogate pairs, to UTF-8), numbers,
// true, false and null. Errors carry line:column. No exceptions are thrown.
//
//===----------------------------------------------------------------------===//
#ifndef FMHA_TOOLS_FMHA_CUDA_RUN_MINIJSON_H
#define FMHA_TOOLS_FMHA_CUDA_RUN_MINIJSON_H

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fmha::minijson {

class Value;
using Array = std::vector<Value>;
using Member = std::pair<std::string, Value>;

/// A JSON object: members in document order.
class Object {
public:
  const Value *get(std::string_view key) const;
  const Object *getObject(std::string_view key) const;
  const Array *getArray(std::string_view key) const;
  const std::vector<Member> &members() const { return m; }
  std::vector<Member> &members() { return m; }

private:
  std::vector<Member> m;
};

class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;
  Kind kind() const { return k; }

  std::optional<bool> getAsBoolean() const {
    return k == Kind::Bool ? std::optional<bool>(b) : std::nullopt;
  }
  std::optional<double> getAsNumber() const {
    return k == Kind::Number ? std::optional<double>(num) : std::nullopt;
  }
  /// An integer: a number written without fraction or exponent that fits
  /// int64, or any number whose value is integral and in int64's range (as
  /// llvm::json reads "128.0").
  std::optional<int64_t> getAsInteger() const {
    if (k != Kind::Number)
      return std::nullopt;
    if (isInt)
      return i;
    double ip;
    if (std::modf(num, &ip) == 0.0 && num >= -9223372036854775808.0 &&
        num < 9223372036854775808.0)
      return static_cast<int64_t>(num);
    return std::nullopt;
  }
  std::optional<std::string_view> getAsString() const {
    return k == Kind::String ? std::optional<std::string_view>(str)
                             : std::nullopt;
  }
  const Array *getAsArray() const {
    return k == Kind::Array ? arr.get() : nullptr;
  }
  const Object *getAsObject() const {
    return k == Kind::Object ? obj.get() : nullptr;
  }

private:
  friend class Parser;
  Kind k = Kind::Null;
  bool b = false;
  bool isInt = false;
  int64_t i = 0;
  double num = 0;
  std::string str;
  std::shared_ptr<Array> arr;
  std::shared_ptr<Object> obj;
};

inline const Value *Object::get(std::string_view key) const {
  for (const Member &e : m)
    if (e.first == key)
      return &e.second;
  return nullptr;
}
inline const Object *Object::getObject(std::string_view key) const {
  const Value *v = get(key);
  return v ? v->getAsObject() : nullptr;
}
inline const Array *Object::getArray(std::string_view key) const {
  const Value *v = get(key);
  return v ? v->getAsArray() : nullptr;
}

class Parser {
public:
  explicit Parser(std::string_view text) : s(text) {}

  /// Parses the whole text as one value; false with error() set otherwise.
  bool parse(Value &out) {
    skipSpace();
    if (!value(out, 0))
      return false;
    skipSpace();
    if (at < s.size())
      return fail("unexpected text after the JSON value");
    return true;
  }
  /// "line L, column C: what".
  const std::string &error() const { return err; }

private:
  static constexpr int kMaxDepth = 256;
  std::string_view s;
  size_t at = 0;
  std::string err;

  bool fail(const std::string &what) {
    if (!err.empty())
      return false;
    size_t line = 1, col = 1;
    for (size_t j = 0; j < at && j < s.size(); ++j) {
      if (s[j] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    err = "line " + std::to_string(line) + ", column " + std::to_string(col) +
          ": " + what;
    return false;
  }
  void skipSpace() {
    while (at < s.size() &&
           (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r'))
      ++at;
  }
  bool literal(std::string_view word) {
    if (s.substr(at, word.size()) != word)
      return false;
    at += word.size();
    return true;
  }

  bool value(Value &v, int depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than " + std::to_string(kMaxDepth));
    if (at >= s.size())
      return fail("unexpected end of input, expected a value");
    char c = s[at];
    if (c == '{')
      return object(v, depth);
    if (c == '[')
      return array(v, depth);
    if (c == '"') {
      v.k = Value::Kind::String;
      return string(v.str);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return number(v);
    if (literal("true")) {
      v.k = Value::Kind::Bool;
      v.b = true;
      return true;
    }
    if (literal("false")) {
      v.k = Value::Kind::Bool;
      v.b = false;
      return true;
    }
    if (literal("null")) {
      v.k = Value::Kind::Null;
      return true;
    }
    return fail(std::string("unexpected character '") + c +
                "', expected a value");
  }

  bool object(Value &v, int depth) {
    ++at; // '{'
    std::unordered_set<std::string> keys;
    v.k = Value::Kind::Object;
    v.obj = std::make_shared<Object>();
    skipSpace();
    if (at < s.size() && s[at] == '}') {
      ++at;
      return true;
    }
    while (true) {
      skipSpace();
      if (at >= s.size() || s[at] != '"')
        return fail("expected a string key");
      std::string key;
      size_t keyAt = at;
      if (!string(key))
        return false;
      // A hash set, so an object of n keys parses in O(n), not O(n^2).
      if (!keys.insert(key).second) {
        at = keyAt;
        return fail("duplicate key \"" + key + "\"");
      }
      skipSpace();
      if (at >= s.size() || s[at] != ':')
        return fail("expected ':' after a key");
      ++at;
      skipSpace();
      Value child;
      if (!value(child, depth + 1))
        return false;
      v.obj->members().emplace_back(std::move(key), std::move(child));
      skipSpace();
      if (at < s.size() && s[at] == ',') {
        ++at;
        continue;
      }
      if (at < s.size() && s[at] == '}') {
        ++at;
        return true;
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  bool array(Value &v, int depth) {
    ++at; // '['
    v.k = Value::Kind::Array;
    v.arr = std::make_shared<Array>();
    skipSpace();
    if (at < s.size() && s[at] == ']') {
      ++at;
      return true;
    }
    while (true) {
      skipSpace();
      Value child;
      if (!value(child, depth + 1))
        return false;
      v.arr->push_back(std::move(child));
      skipSpace();
      if (at < s.size() && s[at] == ',') {
        ++at;
        continue;
      }
      if (at < s.size() && s[at] == ']') {
        ++at;
        return true;
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }
  bool hex4(uint32_t &cp) {
    if (at + 4 > s.size())
      return fail("truncated \\u escape");
    cp = 0;
    for (int j = 0; j < 4; ++j) {
      char c = s[at + j];
      uint32_t d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        return fail("bad hex digit in a \\u escape");
      cp = cp * 16 + d;
    }
    at += 4;
    return true;
  }

  bool string(std::string &out) {
    ++at; // opening quote
    out.clear();
    while (true) {
      if (at >= s.size())
        return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(s[at]);
      if (c == '"') {
        ++at;
        return true;
      }
      if (c < 0x20)
        return fail("control character in a string");
      if (c != '\\') {
        out += char(c);
        ++at;
        continue;
      }
      ++at;
      if (at >= s.size())
        return fail("unterminated string");
      char e = s[at++];
      switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!hex4(cp))
          return false;
        if (cp >= 0xD800 && cp < 0xDC00) {
          uint32_t lo = 0;
          if (s.substr(at, 2) != "\\u")
            return fail("unpaired surrogate in a \\u escape");
          at += 2;
          if (!hex4(lo))
            return false;
          if (lo < 0xDC00 || lo >= 0xE000)
            return fail("unpaired surrogate in a \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp < 0xE000) {
          return fail("unpaired surrogate in a \\u escape");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --at;
        return fail(std::string("bad escape '\\") + e + "' in a string");
      }
    }
  }

  bool number(Value &v) {
    size_t start = at;
    auto digits = [&] {
      size_t b = at;
      while (at < s.size() && s[at] >= '0' && s[at] <= '9')
        ++at;
      return at - b;
    };
    if (s[at] == '-')
      ++at;
    if (at < s.size() && s[at] == '0') {
      ++at;
    } else if (digits() == 0) {
      return fail("bad number");
    }
    bool integral = true;
    if (at < s.size() && s[at] == '.') {
      ++at;
      integral = false;
      if (digits() == 0)
        return fail("bad number: no digits after '.'");
    }
    if (at < s.size() && (s[at] == 'e' || s[at] == 'E')) {
      ++at;
      integral = false;
      if (at < s.size() && (s[at] == '+' || s[at] == '-'))
        ++at;
      if (digits() == 0)
        return fail("bad number: no digits in the exponent");
    }
    std::string text(s.substr(start, at - start));
    v.k = Value::Kind::Number;
    v.num = std::strtod(text.c_str(), nullptr);
    if (integral) {
      // Exact int64 when it fits; otherwise only the double is kept.
      bool neg = text[0] == '-';
      uint64_t mag = 0;
      bool fits = true;
      for (size_t j = neg ? 1 : 0; j < text.size(); ++j) {
        uint64_t d = uint64_t(text[j] - '0');
        if (mag > (UINT64_MAX - d) / 10) {
          fits = false;
          break;
        }
        mag = mag * 10 + d;
      }
      uint64_t limit = neg ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX);
      if (fits && mag <= limit) {
        v.isInt = true;
        v.i = neg ? int64_t(0 - mag) : int64_t(mag);
      }
    }
    return true;
  }
};

/// Parses `text`; on failure returns false and sets `error`.
inline bool parse(std::string_view text, Value &out, std::string &error) {
  Parser p(text);
  if (p.parse(out))
    return true;
  error = p.error();
  return false;
}

/// `s` as a JSON string literal, quotes included.
inline std::string quote(std::string_view s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      o += "\\\"";
      break;
    case '\\':
      o += "\\\\";
      break;
    case '\n':
      o += "\\n";
      break;
    case '\r':
      o += "\\r";
      break;
    case '\t':
      o += "\\t";
      break;
    default:
      if (c < 0x20) {
        static const char *hex = "0123456789abcdef";
        o += "\\u00";
        o += hex[c >> 4];
        o += hex[c & 15];
      } else {
        o += char(c);
      }
    }
  }
  return o + "\"";
}

} // namespace fmha::minijson

#endif // FMHA_TOOLS_FMHA_CUDA_RUN_MINIJSON_H
