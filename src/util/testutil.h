// Text checks the unit tests share (test binaries only: it includes GoogleTest).
#pragma once

#include <string>

#include <gtest/gtest.h>

namespace cuco::testutil {

// True when `part` occurs in `text`.
inline bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// How many times `part` occurs in `text` (overlapping occurrences counted).
inline int Count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// `text` with its first `from` replaced by `to`; a test failure when `from` does not occur.
inline std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t p = text.find(from);
  EXPECT_NE(p, std::string::npos) << "not in the text: " << from;
  return p == std::string::npos ? text : text.replace(p, from.size(), to);
}

}  // namespace cuco::testutil
