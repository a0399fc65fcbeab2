// A small JSON writer for the metrics files (the runtime depends on nothing outside CUDA, NCCL and
// cuBLASLt, so no JSON library): values in order, strings escaped, non-finite numbers as null.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace cuco::supervisor {

class Json {
 public:
  Json& begin_object() { sep(); out_ += '{'; first_ = true; return *this; }
  Json& end_object() { out_ += '}'; first_ = false; return *this; }
  Json& begin_array() { sep(); out_ += '['; first_ = true; return *this; }
  Json& end_array() { out_ += ']'; first_ = false; return *this; }
  Json& key(const std::string& k) {
    sep();
    quote(k);
    out_ += ':';
    first_ = true;  // the value follows without a comma
    return *this;
  }
  Json& str(const std::string& v) { sep(); quote(v); return *this; }
  Json& i64(int64_t v) { sep(); out_ += std::to_string(v); return *this; }
  Json& boolean(bool v) { sep(); out_ += v ? "true" : "false"; return *this; }
  Json& null() { sep(); out_ += "null"; return *this; }
  Json& num(double v) {
    sep();
    if (!std::isfinite(v)) {
      out_ += "null";
    } else {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.9g", v);
      out_ += buf;
    }
    return *this;
  }
  Json& kv(const std::string& k, const std::string& v) { return key(k).str(v); }
  Json& kv(const std::string& k, const char* v) { return key(k).str(v); }
  Json& kv(const std::string& k, int64_t v) { return key(k).i64(v); }
  Json& kv(const std::string& k, int v) { return key(k).i64(v); }
  Json& kv(const std::string& k, double v) { return key(k).num(v); }
  Json& kv(const std::string& k, bool v) { return key(k).boolean(v); }
  template <typename T>
  Json& array(const std::string& k, const std::vector<T>& v) {
    key(k).begin_array();
    for (const T& x : v) {
      if constexpr (std::is_floating_point_v<T>) num(x);
      else i64(static_cast<int64_t>(x));
    }
    return end_array();
  }
  const std::string& text() const { return out_; }

 private:
  void sep() {
    if (!first_) out_ += ',';
    first_ = false;
  }
  void quote(const std::string& s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20 || c >= 0x7f) {  // control bytes, and non-ASCII (candidate text may be invalid UTF-8)
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }
  std::string out_;
  bool first_ = true;
};

// Percentiles by linear interpolation between closest ranks (numpy's default); NaN when empty.
double Percentile(std::vector<double> v, double q);

}  // namespace cuco::supervisor
