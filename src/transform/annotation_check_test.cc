#include "transform/annotation_check.h"

#include <gtest/gtest.h>

#include <string>

namespace cuco {
namespace {

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// `s` with its first `from` replaced by `to` (`from` must occur).
std::string Replaced(std::string s, const std::string& from, const std::string& to) {
  const size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return p == std::string::npos ? s : s.replace(p, from.size(), to);
}

TEST(AnnotationCheckTest, AnnotationMayOnlyAddMarkerLines) {
  const std::string original = "int a;\nvoid f() {\n  a = 1;\n}\nint main() { f(); }\n";
  const std::string good = "int a;\n// EVOLVE-BLOCK-START\nvoid f() {\n  a = 1;\n}\n// EVOLVE-BLOCK-END\nint main() { f(); }\n";
  EXPECT_TRUE(CheckAnnotationOnly(original, good).ok()) << CheckAnnotationOnly(original, good).ToString();
  Status changed = CheckAnnotationOnly(original, Replaced(good, "a = 1;", "a = 2;"), "p.cu");
  EXPECT_TRUE(Contains(changed.message(), "p.cu:4")) << changed.ToString();
  Status unbalanced = CheckAnnotationOnly(original, Replaced(good, "// EVOLVE-BLOCK-END\n", ""));
  EXPECT_FALSE(unbalanced.ok());
  Status not_comment = CheckAnnotationOnly(original, Replaced(good, "// EVOLVE-BLOCK-START", "int b; // EVOLVE-BLOCK-START"));
  EXPECT_TRUE(Contains(not_comment.message(), "comment line of its own")) << not_comment.ToString();
  Status dropped = CheckAnnotationOnly(original, Replaced(good, "int main() { f(); }\n", ""));
  EXPECT_TRUE(Contains(dropped.message(), "missing")) << dropped.ToString();
  EXPECT_FALSE(CheckAnnotationOnly(original, original).ok());  // no block at all
}

}  // namespace
}  // namespace cuco
