#include "analyze/id_bootstrap.h"

#include <filesystem>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "util/source_text.h"

namespace cuco::analyze_internal {

std::vector<std::string> IdOnlyInOwnEnvironment(const std::vector<RawCall>& calls, const std::vector<std::string>& files) {
  static const std::regex address(R"(^\s*&\s*([A-Za-z_][\w.]*(?:->\w+)*)\s*$)");
  static const std::set<std::string> harmless = {
      "ncclGetUniqueId", "ncclCommInitRank", "ncclCommInitRankConfig", "ncclCommInitRankScalable", "sizeof",
      "printf", "fprintf", "snprintf", "sprintf", "puts", "perror"};
  static const std::regex nested(R"(^\s*[A-Za-z_][\w:]*\s*\()");
  static const std::set<std::string> environment = {"setenv", "putenv"};
  std::set<std::string> ids;
  for (const RawCall& c : calls) {
    std::smatch m;
    if (c.callee == "ncclGetUniqueId" && !c.args.empty() && std::regex_match(c.args[0], m, address)) ids.insert(m[1].str());
  }
  std::vector<std::string> out;
  for (const std::string& id : ids) {
    const std::regex mentions("(^|[^\\w.>])" + std::regex_replace(id, std::regex(R"([.\->])"), "\\$&") + "\\b");
    const RawCall* env = nullptr;
    bool handed_on = false;
    for (const RawCall& c : calls) {
      bool uses = false;
      for (const std::string& a : c.args)  // a call in an argument is a call of its own (`CHECK(ncclGetUniqueId(&id))`)
        uses = uses || (!std::regex_search(a, nested) && std::regex_search(BlankCommentsAndLiterals(a), mentions));
      if (!uses || harmless.count(c.callee) > 0) continue;
      if (environment.count(c.callee) > 0)
        env = env != nullptr ? env : &c;
      else
        handed_on = true;
    }
    if (env == nullptr || handed_on) continue;
    const std::string file = env->file_index >= 0 && env->file_index < static_cast<int>(files.size())
                                 ? std::filesystem::path(files[env->file_index]).filename().string()
                                 : std::string("?");
    out.push_back(fmt::format("{}:{}: the ncclUniqueId `{}` is handed on only through {}, which sets this process's own "
                              "environment: ranks in other processes never see it, so their ncclCommInitRank waits or "
                              "fails; pass it through a file, a socket or MPI_Bcast",
                              file, env->line, id, env->callee));
  }
  return out;
}

}  // namespace cuco::analyze_internal
