#include "scaffold/input_files.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <system_error>

#include <fmt/format.h>

#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

namespace fs = std::filesystem;

constexpr char kEmptyFolder[] = "cuco runs the program in an empty folder of each run, where it finds nothing";

// `arg`'s path part: after `--name=` where it has one.
std::string PathPart(const std::string& arg) {
  if (arg.rfind("-", 0) != 0) return arg;
  const size_t eq = arg.find('=');
  return eq == std::string::npos ? "" : arg.substr(eq + 1);
}

// Whether the text at `at` of `code` lies on a preprocessor line (an #include's path), or in a
// statement that calls one of `calls` before it (a print's text).
bool OnDirectiveOrAfter(const std::string& code, size_t at, const std::regex& calls) {
  const size_t line_start = code.rfind('\n', at) == std::string::npos ? 0 : code.rfind('\n', at) + 1;
  const size_t statement = code.find_last_of(";{}", at);
  const size_t from = statement == std::string::npos ? 0 : statement + 1;
  return Trim(code.substr(line_start, at - line_start)).rfind("#", 0) == 0 ||
         std::regex_search(code.substr(from, at - from), calls);
}

// The first relative path literal in `code` outside a print, with its line; {"", 0} when none.
std::pair<std::string, int> RelativePathLiteral(const std::string& code) {
  static const std::regex literal(
      R"re("((?:\.{1,2}/)?[A-Za-z0-9_][\w.-]*(?:/[\w.-]+)+/?|[\w-]+\.(?:bin|txt|mtx|dat|csv|npy|raw|h5|json|mm))")re");
  static const std::regex print(R"(\b(?:printf|fprintf|puts|cout|cerr|clog|perror|sprintf|snprintf)\b)");
  const std::string blanked = BlankComments(code);
  for (auto it = std::sregex_iterator(blanked.begin(), blanked.end(), literal); it != std::sregex_iterator(); ++it) {
    const size_t at = static_cast<size_t>(it->position(0));
    if (OnDirectiveOrAfter(blanked, at, print)) continue;
    return {(*it)[1].str(), LineOf(blanked, at)};
  }
  return {"", 0};
}

}  // namespace

std::vector<std::string> RelativeInputPaths(const ProgramFacts& f, const std::string& from_dir) {
  std::vector<std::string> out;
  for (const std::string& arg : f.program_args) {
    const std::string path = PathPart(arg);
    std::error_code ec;
    if (path.empty() || path[0] == '/' || (path.find('/') == std::string::npos && path.find('.') == std::string::npos) ||
        !fs::exists(fs::path(from_dir) / path, ec))
      continue;
    out.push_back(fmt::format("--args gives `{}`, a path relative to where cuco init ran: {}; give `{}`", path,
                              kEmptyFolder, fs::weakly_canonical(fs::absolute(fs::path(from_dir) / path), ec).string()));
  }
  if (!out.empty()) return out;
  static const std::regex opens(R"(\b(?:fopen|freopen|open)\s*\(|\bifstream\b)");
  std::vector<std::pair<std::string, const std::string*>> files = {{f.file, &f.code}};
  for (const auto& [name, code] : f.other_code) files.push_back({name, &code});
  bool reads = false;
  for (const auto& [name, code] : files) reads = reads || std::regex_search(*code, opens);
  if (!reads) return out;
  for (const auto& [name, code] : files) {
    const auto [path, line] = RelativePathLiteral(*code);
    if (path.empty()) continue;
    out.push_back(fmt::format("{}:{}: the program opens files, and `{}` is a path relative to where it runs: {}; "
                              "make it absolute (an argument with --args, where the program takes one)",
                              name, line, path, kEmptyFolder));
    break;
  }
  return out;
}

namespace {

// The absolute paths `args` names, each once, with whether an output option names it (`-o PATH`,
// `--out=PATH`, `--save PATH`, ...: the program writes it).
std::vector<std::pair<std::string, bool>> AbsolutePaths(const std::vector<std::string>& args) {
  static const std::regex output_option(
      R"(--?(o|out|output|outfile|out[-_]file|output[-_]file|out[-_]dir|output[-_]dir|save|save[-_]to|dump|log|log[-_]?file|results?|write))");
  std::vector<std::pair<std::string, bool>> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const size_t eq = a.rfind('=', a.find('/'));
    const bool option_value = a.rfind("--", 0) == 0 && eq != std::string::npos;
    const std::string value = option_value ? a.substr(eq + 1) : a;
    const bool written = option_value ? std::regex_match(a.substr(0, eq), output_option)
                                      : i > 0 && std::regex_match(args[i - 1], output_option);
    if (value.size() < 2 || value[0] != '/') continue;
    const auto seen = std::find_if(paths.begin(), paths.end(), [&](const auto& p) { return p.first == value; });
    if (seen == paths.end()) paths.push_back({value, written});
    else seen->second = seen->second || written;
  }
  return paths;
}

}  // namespace

std::vector<std::string> WrittenFolders(const ProgramFacts& f) {
  static const std::regex writes(
      R"re(\bofstream\b|\bfopen\s*\([^;]*"[wa]\+?b?"|\bopen\s*\([^;]*O_(?:WRONLY|RDWR|CREAT))re");
  static const std::regex literal(R"re("(?:\./)?((?:[A-Za-z0-9_][\w.-]*/)+)([\w.%-]*)")re");
  static const std::regex print(R"(\b(?:printf|fprintf|puts|cout|cerr|clog|perror)\b)");
  std::vector<std::string> folders;
  std::vector<const std::string*> codes = {&f.code};
  for (const auto& [name, code] : f.other_code) codes.push_back(&code);
  for (const std::string* code : codes) {
    if (!std::regex_search(*code, writes)) continue;
    for (auto it = std::sregex_iterator(code->begin(), code->end(), literal); it != std::sregex_iterator(); ++it) {
      const std::string folder = (*it)[1].str().substr(0, (*it)[1].length() - 1), last = (*it)[2].str();
      if (!last.empty() && last.find_first_of(".%") == std::string::npos) continue;  // "bytes/s", "GB/s"
      if (folder.find("..") != std::string::npos) continue;
      if (OnDirectiveOrAfter(*code, static_cast<size_t>(it->position(0)), print)) continue;
      if (std::find(folders.begin(), folders.end(), folder) == folders.end()) folders.push_back(folder);
    }
  }
  return folders;
}

std::vector<std::string> AbsoluteInputPaths(const std::vector<std::string>& args) {
  std::vector<std::string> paths;
  for (const auto& [path, written] : AbsolutePaths(args))
    if (!written) paths.push_back(path);
  return paths;
}

std::vector<std::string> WrittenPathTodos(const std::vector<std::string>& args) {
  std::vector<std::string> todos;
  for (const auto& [path, written] : AbsolutePaths(args))
    if (written && path.rfind("/tmp/", 0) != 0)
      todos.push_back(fmt::format("--args names `{}` after an output option: the program writes it, and candidates run "
                                  "in a sandbox where only their own /tmp takes writes (the rest is read-only); give a "
                                  "path under /tmp/, which each candidate has to itself",
                                  path));
  return todos;
}

}  // namespace cuco::scaffold_internal
