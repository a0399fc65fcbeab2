#include "analyze/macro_calls.h"

#include <gtest/gtest.h>

namespace cuco::analyze_internal {
namespace {

const char* kLaunch =
    "#define LAUNCH(k, n, ...) k<<<((n) + 127) / 128, 128, 0, \\\n  stream>>>(__VA_ARGS__)\n"
    "#define LAUNCH_ALL(k) k<<<1, 1>>>()\n"
    "void f() { LAUNCH(sgd_k, ss, shard, gshard + 2 * (i, j), ss, lr); }\n";

TEST(MacroCalls, AKernelLaunchedThroughAMacroHasTheUsesArguments) {
  const std::string text = kLaunch;
  const size_t use = text.find("LAUNCH(sgd_k");
  std::string macro;
  std::vector<std::string> config, args;
  ASSERT_TRUE(MacroExpandedCall(text, use, "sgd_k", &macro, &config, &args));
  EXPECT_EQ(macro, "LAUNCH");
  EXPECT_EQ(config, (std::vector<std::string>{"((ss) + 127) / 128", "128", "0", "stream"}));
  EXPECT_EQ(args, (std::vector<std::string>{"shard", "gshard + 2 * (i, j)", "ss", "lr"}));
  EXPECT_FALSE(MacroExpandedCall(text, use, "relu_k", &macro, &config, &args));  // the replacement makes no such call
  macro.clear();
  EXPECT_FALSE(MacroExpandedCall(text, text.find("sgd_k, ss"), "sgd_k", &macro, &config, &args));  // no macro's use
  EXPECT_EQ(macro, "");  // untouched
}

TEST(MacroCalls, ACallWithoutArgumentsInAMacrosReplacement) {
  const std::string text = "#define GROUP(body) start(); body end()\nvoid f() { GROUP({ g(x); }); }\n";
  const size_t use = text.find("GROUP({");
  EXPECT_EQ(MacroBodyCallWithoutArguments(text, use, "start"), use);                      // before its argument
  EXPECT_EQ(MacroBodyCallWithoutArguments(text, use, "end"), text.find("); }\n", use));  // after it
  EXPECT_EQ(MacroBodyCallWithoutArguments(text, use, "g"), std::string::npos);
}

}  // namespace
}  // namespace cuco::analyze_internal
