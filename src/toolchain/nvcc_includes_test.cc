#include "toolchain/nvcc_includes.h"

#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

namespace cuco {
namespace {

namespace fs = std::filesystem;

// CUDA 13's nvcc --dryrun: CUB and Thrust live under include/cccl, which nvcc adds as -isystem.
const char* kDryrun13 = R"(#$ _NVVM_BRANCH_=nvvm
#$ TOP=/usr/local/cuda/bin/..
#$ INCLUDES="-I/usr/local/cuda/bin/../targets/x86_64-linux/include"  
#$ SYSTEM_INCLUDES="-isystem" "/usr/local/cuda/bin/../targets/x86_64-linux/include/cccl"  
#$ LIBRARIES=  "-L/usr/local/cuda/bin/../targets/x86_64-linux/lib/stubs"
#$ gcc -E -x c++ "-I/usr/local/cuda/bin/../targets/x86_64-linux/include" -isystem /elsewhere
)";

TEST(NvccIncludes, ReadsIncludesAndSystemIncludesOfTheDryrun) {
  EXPECT_EQ(ParseNvccDryrun(kDryrun13),
            (std::vector<std::string>{"-I/usr/local/cuda/targets/x86_64-linux/include",
                                      "-isystem/usr/local/cuda/targets/x86_64-linux/include/cccl"}));
  EXPECT_TRUE(ParseNvccDryrun("nvcc fatal: no input\n").empty());
}

// Asked once per nvcc: a second call reads the cache.
TEST(NvccIncludes, CachedPerNvcc) {
  const fs::path dir = fs::temp_directory_path() / ("cuco_nvcc_includes_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path nvcc = dir / "nvcc";
  std::ofstream(nvcc) << "#!/bin/sh\necho '#$ SYSTEM_INCLUDES=\"-isystem\" \"/a/cccl\"'\necho x >> " << (dir / "calls").string()
                      << "\n";
  fs::permissions(nvcc, fs::perms::owner_all);
  const std::vector<std::string> want = {"-isystem/a/cccl"};
  EXPECT_EQ(NvccIncludeFlags(nvcc.string(), dir / "cache"), want);
  EXPECT_EQ(NvccIncludeFlags(nvcc.string(), dir / "cache"), want);
  std::ifstream calls(dir / "calls");
  int n = 0;
  for (std::string line; std::getline(calls, line);) ++n;
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(NvccIncludeFlags((dir / "absent").string(), dir / "cache").empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cuco
