#include "transform/annotation_check.h"
#include "util/testutil.h"

#include <gtest/gtest.h>

#include <string>

namespace cuco {
using testutil::Has;
using testutil::Replaced;
namespace {

TEST(AnnotationCheckTest, AnnotationMayOnlyAddMarkerLines) {
  const std::string original = "int a;\nvoid f() {\n  a = 1;\n}\nint main() { f(); }\n";
  const std::string good = "int a;\n// EVOLVE-BLOCK-START\nvoid f() {\n  a = 1;\n}\n// EVOLVE-BLOCK-END\nint main() { f(); }\n";
  EXPECT_TRUE(CheckAnnotationOnly(original, good).ok()) << CheckAnnotationOnly(original, good).ToString();
  Status changed = CheckAnnotationOnly(original, Replaced(good, "a = 1;", "a = 2;"), "p.cu");
  EXPECT_TRUE(Has(changed.message(), "p.cu:4")) << changed.ToString();
  Status unbalanced = CheckAnnotationOnly(original, Replaced(good, "// EVOLVE-BLOCK-END\n", ""));
  EXPECT_FALSE(unbalanced.ok());
  Status not_comment = CheckAnnotationOnly(original, Replaced(good, "// EVOLVE-BLOCK-START", "int b; // EVOLVE-BLOCK-START"));
  EXPECT_TRUE(Has(not_comment.message(), "comment line of its own")) << not_comment.ToString();
  Status dropped = CheckAnnotationOnly(original, Replaced(good, "int main() { f(); }\n", ""));
  EXPECT_TRUE(Has(dropped.message(), "missing")) << dropped.ToString();
  EXPECT_FALSE(CheckAnnotationOnly(original, original).ok());  // no block at all
}

}  // namespace
}  // namespace cuco
