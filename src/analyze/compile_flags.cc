#include "analyze/compile_flags.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "util/files.h"
#include "util/language_standard.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

std::string Absolute(const std::string& path, const std::string& directory) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(directory.empty() ? fs::current_path().string() : directory) / p;
  return p.lexically_normal().string();
}

// The flags with a value: clang spelling -> nvcc long spellings that mean the same.
struct ValueFlag {
  const char* clang;                // "-I"
  std::vector<const char*> aliases;  // "--include-path"
  bool is_path;
};

const std::vector<ValueFlag>& ValueFlags() {
  static const std::vector<ValueFlag> k = {
      {"-I", {"--include-path"}, true},
      {"-isystem", {"--system-include"}, true},
      {"-include", {"--pre-include"}, true},
      {"-D", {"--define-macro"}, false},
      {"-U", {"--undefine-macro"}, false},
  };
  return k;
}

void Add(CompileFlags* out, const std::string& clang, const std::string& value, bool is_path,
         const std::string& directory) {
  std::string v = is_path ? Absolute(value, directory) : value;
  // A pre-included header that is not in the folder stays a name, for the include search.
  if (clang == "-include" && fs::path(value).is_relative() && PreIncludedFile(value, Absolute(".", directory)) == value)
    v = value;
  out->flags.push_back(clang + v);
  if (clang == "-I" || clang == "-isystem") {
    out->include_dirs.push_back(v);
    if (!value.empty() && value[0] != '/') out->own_include_dirs.push_back(v);
  }
}

// A C, C++ or CUDA source by its extension (what a compile command compiles, not links).
bool IsSourceFile(const std::string& word) {
  static const std::set<std::string> kExtensions = {".cu", ".cc", ".cpp", ".cxx", ".c", ".C", ".c++"};
  return kExtensions.count(fs::path(word).extension().string()) > 0;
}

// A flag whose matter cuco's own build decides (the output, optimisation, debug info, the GPU
// architecture, the host compiler, linking, warnings): the number of words after it that are its
// value (0 or 1); -1 for any other flag.
int DecidedByCuco(const std::string& a) {
  static const std::set<std::string> with_value = {"-o", "-ccbin", "--compiler-bindir", "-arch", "--gpu-architecture",
                                                   "-gencode", "--generate-code", "-code", "--gpu-code", "-L",
                                                   "--library-path", "-Xlinker", "--linker-options", "-MF", "-MT",
                                                   "-x", "-Xptxas", "-maxrregcount", "-t", "--threads", "-Xcudafe"};
  static const std::vector<std::string> prefixes = {"-O", "-g", "-W", "-L", "-arch=", "--gpu-architecture=",
                                                    "-gencode=", "--generate-code=", "-code=", "-ccbin=", "-Wl,", "-f",
                                                    "-m", "-M", "-Xptxas=", "-maxrregcount=", "--threads=", "-t=",
                                                    "-diag-suppress", "--diag-suppress", "-Xcudafe="};
  static const std::set<std::string> bare = {"-c", "-lineinfo", "-G", "-shared", "-rdynamic", "-pthread", "-v",
                                             "--use_fast_math", "-use_fast_math", "-pipe", "-static",
                                             "--generate-line-info", "-dlto", "--dlto"};
  if (with_value.count(a)) return 1;
  if (bare.count(a)) return 0;
  for (const std::string& p : prefixes)
    if (a.rfind(p, 0) == 0) return 0;
  return -1;
}

// A file of more arguments, named by nvcc's `--options-file FILE` / `-optf FILE` or a compiler's
// `@FILE` (CMake writes a CUDA target's include folders to includes_CUDA.rsp and names it in
// compile_commands.json): its words in place of the flag, relative to `directory`, to a depth of 8.
Result<std::vector<std::string>> ExpandOptionFiles(const std::vector<std::string>& argv, const std::string& directory,
                                                   int depth = 0) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    std::string file;
    if (a == "--options-file" || a == "-optf") {
      if (i + 1 >= argv.size()) return Status::InvalidArgument("'" + a + "' needs a value");
      file = argv[++i];
    } else if (a.rfind("--options-file=", 0) == 0 || a.rfind("-optf=", 0) == 0) {
      file = a.substr(a.find('=') + 1);
    } else if (i > 0 && a.size() > 1 && a[0] == '@') {
      file = a.substr(1);
    } else {
      out.push_back(a);
      continue;
    }
    if (depth >= 8) return Status::InvalidArgument("options file " + file + ": nested more than 8 deep");
    const std::string path = Absolute(file, directory);
    std::ifstream in(path);
    if (!in) return Status::NotFound("options file " + path + " (named by '" + a + "'): cannot read it");
    std::stringstream text;
    text << in.rdbuf();
    Result<std::vector<std::string>> inner = ExpandOptionFiles(SplitShellWords(text.str()), directory, depth + 1);
    if (!inner.ok()) return inner.status();
    out.insert(out.end(), inner->begin(), inner->end());
  }
  return out;
}

}  // namespace

std::vector<std::string> SplitShellWords(const std::string& command) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < command.size()) cur += command[++i];
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      cur += command[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

Result<CompileFlags> FlagsFromCommand(const std::vector<std::string>& argv_in, const std::string& directory) {
  Result<std::vector<std::string>> expanded = ExpandOptionFiles(argv_in, directory);
  if (!expanded.ok()) return expanded.status();
  const std::vector<std::string>& argv = *expanded;
  CompileFlags out;
  size_t i = (!argv.empty() && !argv[0].empty() && argv[0][0] != '-') ? 1 : 0;
  out.nvcc = i == 1 && fs::path(argv[0]).filename() == "nvcc";
  for (; i < argv.size(); ++i) {
    std::string a = argv[i];
    if (a == "-Xcompiler" || a == "--compiler-options") {  // nvcc: host-compiler flags, comma separated
      if (i + 1 >= argv.size()) return Status::InvalidArgument("'" + a + "' needs a value");
      std::vector<std::string> inner = {"-"};
      std::stringstream ss(argv[++i]);
      for (std::string part; std::getline(ss, part, ',');) inner.push_back(part);
      Result<CompileFlags> sub = FlagsFromCommand(inner, directory);
      if (!sub.ok()) return sub.status();
      out = MergeFlags(out, *sub);
      continue;
    }
    if (a.rfind("-std=", 0) == 0 || a.rfind("--std=", 0) == 0) {
      out.flags.push_back("-std=" + a.substr(a.find('=') + 1));
      continue;
    }
    if (a == "--default-stream" || a == "-default-stream" || a.rfind("--default-stream=", 0) == 0 ||
        a.rfind("-default-stream=", 0) == 0) {  // nvcc: per-thread default streams are this macro
      std::string v;
      if (a.find('=') != std::string::npos) v = a.substr(a.find('=') + 1);
      else if (i + 1 < argv.size()) v = argv[++i];
      else return Status::InvalidArgument("'" + a + "' needs a value");
      if (v == "per-thread") out.flags.push_back("-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1");
      continue;
    }
    // Libraries; nvcc's -lineinfo, -lib and -link are not (nor anything without a name).
    if (a == "-l" || a == "--library") {
      if (i + 1 >= argv.size()) return Status::InvalidArgument("'" + a + "' needs a value");
      out.libraries.push_back(argv[++i]);
      continue;
    }
    if (a.rfind("--library=", 0) == 0 || (a.size() > 2 && a.rfind("-l", 0) == 0 && a != "-lineinfo" && a != "-lib" &&
                                          a != "-link")) {
      out.libraries.push_back(a.substr(a[1] == '-' ? std::string("--library=").size() : 2));
      continue;
    }
    if (a == "-fopenmp" || a == "-fopenmp=libgomp") {  // OpenMP (_OPENMP, `#pragma omp`; links its runtime)
      out.flags.push_back("-fopenmp");
      continue;
    }
    if (a == "-std" || a == "--std") {
      if (i + 1 >= argv.size()) return Status::InvalidArgument("'" + a + "' needs a value");
      out.flags.push_back("-std=" + argv[++i]);
      continue;
    }
    if (IsNvccLanguageFlag(a)) {
      out.nvcc_flags.push_back(a);
      continue;
    }
    bool matched = false;
    for (const ValueFlag& f : ValueFlags()) {
      std::vector<std::string> names = {f.clang};
      for (const char* al : f.aliases) names.push_back(al);
      for (const std::string& name : names) {
        if (a == name) {  // value in the next word
          if (i + 1 >= argv.size()) return Status::InvalidArgument("'" + a + "' needs a value");
          Add(&out, f.clang, argv[++i], f.is_path, directory);
          matched = true;
        } else if (a.rfind(name + "=", 0) == 0) {  // -I=dir, --include-path=dir
          Add(&out, f.clang, a.substr(name.size() + 1), f.is_path, directory);
          matched = true;
        } else if (name.size() == 2 && a.size() > 2 && a.rfind(name, 0) == 0) {  // -Idir, -DX=1
          Add(&out, f.clang, a.substr(2), f.is_path, directory);
          matched = true;
        }
        if (matched) break;
      }
      if (matched) break;
    }
    if (!matched && !a.empty() && a[0] != '-' && IsSourceFile(a)) {
      out.sources.push_back((fs::path(directory) / a).lexically_normal().string());
      continue;
    }
    if (!matched && a.size() > 1 && a[0] == '-') {
      const int values = DecidedByCuco(a);
      if (values < 0) out.unused.push_back(a);
      i += static_cast<size_t>(std::max(values, 0));
    }
  }
  return out;
}

Result<CompileFlags> FlagsFromCompileCommands(const std::string& json_path, const std::string& source_file) {
  fs::path p(json_path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) p /= "compile_commands.json";
  std::ifstream in(p);
  if (!in) return Status::NotFound(p.string() + ": cannot read (want a compile_commands.json or its folder)");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::parse_error& e) {
    return Status::InvalidArgument(p.string() + ": not JSON (" + e.what() + ")");
  }
  if (!j.is_array()) return Status::InvalidArgument(p.string() + ": must be a JSON array of {directory, file, command|arguments}");
  const fs::path want = fs::weakly_canonical(fs::absolute(source_file), ec);
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("file") || !e["file"].is_string()) continue;
    const std::string dir = e.value("directory", std::string());
    const fs::path file = fs::weakly_canonical(fs::path(Absolute(e["file"].get<std::string>(), dir)), ec);
    if (file != want) continue;
    std::vector<std::string> argv;
    if (e.contains("arguments") && e["arguments"].is_array()) {
      for (const auto& w : e["arguments"])
        if (w.is_string()) argv.push_back(w.get<std::string>());
    } else if (e.contains("command") && e["command"].is_string()) {
      argv = SplitShellWords(e["command"].get<std::string>());
    }
    Result<CompileFlags> f = FlagsFromCommand(argv, dir);
    if (!f.ok()) return Status::InvalidArgument(p.string() + ": entry for " + source_file + ": " + f.status().message());
    f->source = p.string();
    f->own_include_dirs.clear();  // a build system writes every folder absolute: the project's are outside /usr, /opt
    for (const auto& d : f->include_dirs)
      if (d.rfind("/usr/", 0) != 0 && d.rfind("/opt/", 0) != 0) f->own_include_dirs.push_back(d);
    return f;
  }
  return Status::NotFound(p.string() + ": no entry for " + want.string() +
                          " (its \"file\" entries, made absolute against \"directory\", name other files)");
}

CompileFlags MergeFlags(const CompileFlags& a, const CompileFlags& b) {
  CompileFlags out;
  std::set<std::string> seen, seen_dirs, seen_own, seen_libs, seen_nvcc, seen_unused, seen_sources;
  for (const CompileFlags* c : {&a, &b}) {
    for (const auto& f : c->nvcc_flags)
      if (seen_nvcc.insert(f).second) out.nvcc_flags.push_back(f);
    for (const auto& f : c->unused)
      if (seen_unused.insert(f).second) out.unused.push_back(f);
    for (const auto& f : c->flags)
      if (seen.insert(f).second) out.flags.push_back(f);
    for (const auto& d : c->include_dirs)
      if (seen_dirs.insert(d).second) out.include_dirs.push_back(d);
    for (const auto& d : c->own_include_dirs)
      if (seen_own.insert(d).second) out.own_include_dirs.push_back(d);
    for (const auto& l : c->libraries)
      if (seen_libs.insert(l).second) out.libraries.push_back(l);
    for (const auto& f : c->sources)
      if (seen_sources.insert(f).second) out.sources.push_back(f);
  }
  out.source = a.source.empty() ? b.source : (b.source.empty() ? a.source : a.source + ", " + b.source);
  out.nvcc = a.nvcc || b.nvcc;
  return out;
}

}  // namespace cuco
