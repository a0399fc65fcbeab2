// util/own_includes.h: the program's own headers, found as the compiler looks, each once, with the
// listed file whose compile reaches it.
#include "util/own_includes.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace cuco {
namespace {

namespace fs = std::filesystem;

TEST(OwnIncludes, FollowedTransitivelyFirstFolderWinsSystemHeadersLeftOut) {
  const fs::path dir = fs::temp_directory_path() / ("cuco_own_includes_" + std::to_string(::getpid()));
  fs::create_directories(dir / "app/common");
  fs::create_directories(dir / "shared");
  std::ofstream(dir / "app/main.cu") << "#include <vector>\n#include \"common/ring.cu\"\n// #include \"gone.h\"\n"
                                        "#include \"util.h\"\n";
  std::ofstream(dir / "app/common/ring.cu") << "#include \"../kernels.cuh\"\n#include <comm.h>\n";
  std::ofstream(dir / "app/kernels.cuh") << "#pragma once\n#include \"common/ring.cu\"\n";  // a cycle back
  std::ofstream(dir / "app/util.h") << "// main's folder first\n";
  std::ofstream(dir / "shared/util.h") << "// never reached: main's folder has util.h\n";
  std::ofstream(dir / "shared/comm.h") << "// an own include folder's, through <>\n";
  std::ofstream(dir / "app/other.cu") << "#include \"util.h\"\n#include \"only_other.h\"\n";
  std::ofstream(dir / "app/only_other.h") << "\n";
  const std::string main = (dir / "app/main.cu").string(), other = (dir / "app/other.cu").string();
  const std::vector<OwnInclude> found = OwnIncludes({main, other}, {(dir / "shared").string()});
  std::vector<std::string> names, includers;
  for (const auto& f : found) {
    names.push_back(fs::relative(f.path, dir).string());
    includers.push_back(fs::path(f.includer).filename().string());
  }
  // Breadth first, the listed files first (as the workload lists them: program_files.h).
  EXPECT_EQ(names, (std::vector<std::string>{"app/common/ring.cu", "app/util.h", "app/only_other.h", "app/kernels.cuh",
                                             "shared/comm.h"}));
  EXPECT_EQ(includers, (std::vector<std::string>{"main.cu", "main.cu", "other.cu", "main.cu", "main.cu"}));
  EXPECT_EQ(found[0].text, "#include \"../kernels.cuh\"\n#include <comm.h>\n");  // read once, kept
  // A listed file is never its own include, even when another listed file includes it; it is compiled
  // in the unit of the first listed file that reaches it, followed to one that none reaches.
  const std::string ring = (dir / "app/common/ring.cu").string(), kernels = (dir / "app/kernels.cuh").string();
  std::vector<std::string> units;
  const std::vector<OwnInclude> with_ring = OwnIncludes({other, main, ring}, {}, &units);
  for (const auto& f : with_ring) EXPECT_NE(fs::path(f.path).filename(), "ring.cu");
  EXPECT_EQ(units, (std::vector<std::string>{other, main, main}));
  // kernels.cuh and ring.cu include each other: the cycle's lowest listed file is the unit of both.
  OwnIncludes({ring, kernels}, {}, &units);
  EXPECT_EQ(units, (std::vector<std::string>{ring, ring}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cuco
