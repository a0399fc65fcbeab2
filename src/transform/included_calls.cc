#include "transform/included_calls.h"

#include <filesystem>

#include "analyze/compile_flags.h"
#include "transform/host_calls.h"
#include "util/own_includes.h"

namespace cuco::transform_internal {

std::vector<IncludedFile> IncludedFiles(const std::string& seed_path, const std::vector<std::string>& build_flags) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path seed = fs::absolute(seed_path, ec);
  const fs::path dir = seed.parent_path();
  // The folders its includes resolve in: the seed's, and its build's include folders inside it.
  std::vector<std::string> dirs = {dir.string()};
  if (Result<CompileFlags> flags = FlagsFromCommand(build_flags, dir.string()); flags.ok())
    for (const std::string& d : flags->include_dirs) {
      const std::string rel = fs::path(d).lexically_normal().lexically_relative(dir).string();
      if (!rel.empty() && rel.rfind("..", 0) != 0) dirs.push_back(d);
    }
  std::vector<IncludedFile> out;
  for (OwnInclude& inc : OwnIncludes({seed.string()}, dirs))
    out.push_back({fs::path(inc.path).lexically_normal().lexically_relative(dir).string(), std::move(inc.text)});
  return out;
}

std::vector<IncludedCall> IncludedCommunication(const std::vector<IncludedFile>& files) {
  std::vector<IncludedCall> out;
  for (const IncludedFile& f : files)
    for (const CallSite& c : FindCalls(f.text, HostCommunicationApis())) out.push_back({f.file, c.line, c.name});
  return out;
}

std::string IncludedCallList(const std::vector<IncludedCall>& calls, size_t max) {
  std::string s;
  for (size_t i = 0; i < calls.size() && i < max; ++i)
    s += (i ? ", " : "") + calls[i].name + " at " + calls[i].file + ":" + std::to_string(calls[i].line);
  if (calls.size() > max) s += ", and " + std::to_string(calls.size() - max) + " more";
  return s;
}

}  // namespace cuco::transform_internal
