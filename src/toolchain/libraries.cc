#include "toolchain/libraries.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "toolchain/command.h"
#include "util/files.h"
#include "util/source_text.h"

namespace cuco {
namespace fs = std::filesystem;
using toolchain_internal::FindProgram;
using toolchain_internal::Getenv;
using toolchain_internal::IsFile;
using toolchain_internal::RunCommand;

namespace {



std::string ReadText(const fs::path& p) {
  Result<std::string> r = ReadFile(p);
  return r.ok() ? *r : "";
}

// The value of `#define name value` in header text, quotes removed; "" when absent.
std::string HeaderDefine(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.empty() || t[0] != '#') continue;
    t = Trim(t.substr(1));  // "#  define" is legal too
    if (t.rfind("define", 0) != 0) continue;
    std::istringstream words(t.substr(6));
    std::string macro;
    words >> macro;
    if (macro != name) continue;
    std::string value;
    std::getline(words, value);
    value = Trim(value);
    if (size_t comment = value.find("//"); comment != std::string::npos) value = Trim(value.substr(0, comment));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    return value;
  }
  return "";
}

bool ParseInt(const std::string& s, int* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != '\0') return false;
  *out = static_cast<int>(v);
  return true;
}

// Library folders tried under an install root, in order.
std::vector<fs::path> LibDirsUnder(const fs::path& root) {
  return {root / "lib64", root / "lib", root / "lib/x86_64-linux-gnu", root / "lib/aarch64-linux-gnu",
          root / "targets/x86_64-linux/lib", root / "targets/sbsa-linux/lib"};
}

// The shared object `stem`.so.<N> (the shortest such name: the soname) or else `stem`.so in the
// first of `dirs` that has one; sets *dir. "" when none has it.
std::string FindSharedObject(const std::vector<fs::path>& dirs, const std::string& stem, std::string* dir) {
  for (const fs::path& d : dirs) {
    std::error_code ec;
    std::string versioned, plain;
    for (const fs::directory_entry& e : fs::directory_iterator(d, ec)) {
      const std::string name = e.path().filename().string();
      if (!IsFile(e.path())) continue;
      if (name == stem + ".so") {
        plain = e.path().string();
      } else if (name.rfind(stem + ".so.", 0) == 0 && (versioned.empty() || name.size() < fs::path(versioned).filename().string().size())) {
        versioned = e.path().string();
      }
    }
    std::string chosen = !versioned.empty() ? versioned : plain;
    if (!chosen.empty()) {
      *dir = d.string();
      return chosen;
    }
  }
  return "";
}

// A path to compare installs by: symlinks resolved when possible.
std::string Canonical(const std::string& p) {
  std::error_code ec;
  fs::path c = fs::canonical(p, ec);
  return ec ? p : c.string();
}

std::string DescribeNccl(const NcclInstall& n) {
  std::vector<std::string> parts;
  if (n.device_api) parts.push_back("device API");
  if (n.lsa) parts.push_back("LSA");
  if (n.gin) parts.push_back("GIN");
  std::string features = parts.empty() ? "no device API" : fmt::format("{}", fmt::join(parts, ", "));
  return fmt::format("NCCL {} ({}) from {} at {}", n.version.empty() ? "of unknown version" : n.version, features,
                     n.source, n.include_dir);
}

// "2.28.9" from libnccl.so.2.28.9 that `library` links to; "" when the name carries no full version.
std::string LibraryFileVersion(const std::string& library, const std::string& stem) {
  std::string name = fs::path(Canonical(library)).filename().string();
  std::string prefix = stem + ".so.";
  if (name.rfind(prefix, 0) != 0) return "";
  std::string v = name.substr(prefix.size());
  return std::count(v.begin(), v.end(), '.') >= 2 ? v : "";
}

LibraryInstall ProbeLibrary(const fs::path& include_dir, const std::string& header, const std::vector<fs::path>& lib_dirs,
                            const std::string& stem, const std::string& source) {
  LibraryInstall lib;
  lib.source = source;
  if (!IsFile(include_dir / header)) return lib;
  lib.include_dir = include_dir.string();
  lib.library = FindSharedObject(lib_dirs, stem, &lib.lib_dir);
  lib.found = !lib.library.empty();
  return lib;
}

std::string NvshmemVersion(const fs::path& include_dir) {
  std::error_code ec;
  for (const fs::path& p : {include_dir / "non_abi/nvshmem_version.h", include_dir / "nvshmem_version.h",
                            include_dir / "non_abi/nvshmem_build_options.h"}) {
    std::string text = ReadText(p);
    std::string major = HeaderDefine(text, "NVSHMEM_VENDOR_MAJOR_VERSION");
    if (major.empty()) continue;
    std::string minor = HeaderDefine(text, "NVSHMEM_VENDOR_MINOR_VERSION");
    std::string patch = HeaderDefine(text, "NVSHMEM_VENDOR_PATCH_VERSION");
    std::string v = major;
    if (!minor.empty()) v += "." + minor;
    if (!minor.empty() && !patch.empty()) v += "." + patch;
    return v;
  }
  return "";
}

LibraryInstall ProbeNvshmem(const fs::path& include_dir, const std::vector<fs::path>& lib_dirs, const std::string& source) {
  LibraryInstall lib = ProbeLibrary(include_dir, "nvshmem.h", lib_dirs, "libnvshmem_host", source);
  if (!lib.include_dir.empty()) lib.version = NvshmemVersion(include_dir);
  return lib;
}

}  // namespace

PythonWheels FindPythonWheels() {
  PythonWheels wheels;
  std::string python = FindProgram(Getenv("CUCO_PYTHON").empty() ? "python3" : Getenv("CUCO_PYTHON"));
  if (python.empty()) return wheels;
  // nvidia.* are namespace packages: __file__ is None, __path__ holds the folder.
  const char* script =
      "import importlib\n"
      "for n in ('nccl', 'cublas', 'nvshmem', 'cu13', 'cudnn'):\n"
      "    try:\n"
      "        print(n + '\\t' + list(importlib.import_module('nvidia.' + n).__path__)[0])\n"
      "    except Exception:\n"
      "        pass\n"
      // The frontend wheel's package `cudnn` (found, not imported: importing loads libcudnn)
      // has its C++ headers in the include/ beside it.
      "try:\n"
      "    import importlib.util, os\n"
      "    s = importlib.util.find_spec('cudnn')\n"
      "    print('cudnn_frontend\\t' + os.path.join(os.path.dirname(list(s.submodule_search_locations)[0]), 'include'))\n"
      "except Exception:\n"
      "    pass\n";
  toolchain_internal::CommandOutput out = RunCommand({python, "-c", script});
  if (out.exit_code != 0) return wheels;
  std::istringstream in(out.output);
  std::string line;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::string name = line.substr(0, tab), dir = Trim(line.substr(tab + 1));
    if (name == "nccl") wheels.nccl = dir;
    if (name == "cublas") wheels.cublas = dir;
    if (name == "nvshmem") wheels.nvshmem = dir;
    if (name == "cu13") wheels.cu13 = dir;
    if (name == "cudnn") wheels.cudnn = dir;
    if (name == "cudnn_frontend") wheels.cudnn_frontend = dir;
  }
  return wheels;
}

bool ParseNcclVersion(const std::string& nccl_h, std::string* version, int* version_code) {
  int major = 0, minor = 0, patch = 0;
  if (!ParseInt(HeaderDefine(nccl_h, "NCCL_MAJOR"), &major) || !ParseInt(HeaderDefine(nccl_h, "NCCL_MINOR"), &minor) ||
      !ParseInt(HeaderDefine(nccl_h, "NCCL_PATCH"), &patch)) {
    return false;
  }
  *version = fmt::format("{}.{}.{}{}", major, minor, patch, HeaderDefine(nccl_h, "NCCL_SUFFIX"));
  int code = 0;
  if (!ParseInt(HeaderDefine(nccl_h, "NCCL_VERSION_CODE"), &code)) {
    // nccl.h's NCCL_VERSION(X,Y,Z) rule.
    code = (major <= 2 && minor <= 8) ? major * 1000 + minor * 100 + patch : major * 10000 + minor * 100 + patch;
  }
  *version_code = code;
  return true;
}

NcclInstall ProbeNccl(const std::string& root, const std::string& source) {
  NcclInstall nccl;
  nccl.source = source;
  const fs::path inc = fs::path(root) / "include";
  if (root.empty() || !IsFile(inc / "nccl.h")) return nccl;
  nccl.include_dir = inc.string();
  ParseNcclVersion(ReadText(inc / "nccl.h"), &nccl.version, &nccl.version_code);
  nccl.device_api = IsFile(inc / "nccl_device.h");
  nccl.lsa = IsFile(inc / "nccl_device/lsa_barrier.h");
  nccl.gin = IsFile(inc / "nccl_device/gin.h");
  nccl.library = FindSharedObject(LibDirsUnder(root), "libnccl", &nccl.lib_dir);
  nccl.found = !nccl.library.empty();
  return nccl;
}

NcclInstall ChooseNccl(const std::vector<NcclInstall>& candidates, std::vector<std::string>* notes) {
  std::vector<const NcclInstall*> distinct;  // found installs, first of each (include, lib) pair
  std::vector<std::string> seen;
  for (const NcclInstall& c : candidates) {
    if (!c.found) {
      if (!c.include_dir.empty() && notes != nullptr) {
        notes->push_back(fmt::format("ignored nccl.h in {} ({}): no libnccl.so.2 in a lib folder beside it",
                                     c.include_dir, c.source));
      }
      continue;
    }
    std::string key = Canonical(c.include_dir) + "|" + Canonical(c.lib_dir);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    distinct.push_back(&c);
  }
  if (distinct.empty()) return NcclInstall();
  const NcclInstall* best = distinct[0];
  for (const NcclInstall* c : distinct) {
    if (std::tie(c->device_api, c->version_code) > std::tie(best->device_api, best->version_code)) best = c;
  }
  if (notes != nullptr) {
    for (const NcclInstall* c : distinct) {
      if (c != best) notes->push_back(fmt::format("also found {}; using {} from {}", DescribeNccl(*c), best->version, best->source));
    }
  }
  return *best;
}

NcclInstall DetectNccl(const std::string& cuda_home, const std::string& nccl_wheel, std::vector<std::string>* notes) {
  std::vector<NcclInstall> candidates;
  NcclInstall override_install;
  if (std::string home = Getenv("CUCO_NCCL_HOME"); !home.empty()) {
    override_install = ProbeNccl(home, "env CUCO_NCCL_HOME");
    if (!override_install.found) {
      notes->push_back(fmt::format("CUCO_NCCL_HOME={} holds no NCCL (needs include/nccl.h and lib/libnccl.so.2); ignored", home));
    }
  }
  if (std::string home = Getenv("NCCL_HOME"); !home.empty()) candidates.push_back(ProbeNccl(home, "env NCCL_HOME"));
  if (!nccl_wheel.empty()) candidates.push_back(ProbeNccl(nccl_wheel, "python nvidia.nccl"));
  if (!cuda_home.empty()) candidates.push_back(ProbeNccl(cuda_home, cuda_home));
  candidates.push_back(ProbeNccl("/usr", "/usr"));

  NcclInstall chosen;
  if (override_install.found) {
    chosen = override_install;
    for (const NcclInstall& c : candidates) {
      if (c.found && Canonical(c.include_dir) != Canonical(chosen.include_dir)) {
        notes->push_back(fmt::format("also found {}; CUCO_NCCL_HOME overrides it", DescribeNccl(c)));
      }
    }
  } else {
    chosen = ChooseNccl(candidates, notes);
  }
  if (!chosen.found) {
    notes->push_back("NCCL not found (looked at $CUCO_NCCL_HOME, $NCCL_HOME, python nvidia.nccl, the CUDA toolkit, /usr)");
    return chosen;
  }
  if (std::string lib_version = LibraryFileVersion(chosen.library, "libnccl");
      !lib_version.empty() && !chosen.version.empty() && chosen.version.rfind(lib_version, 0) != 0) {
    notes->push_back(fmt::format("NCCL headers in {} say {} but {} is {}", chosen.include_dir, chosen.version,
                                 chosen.library, lib_version));
  }
  if (!chosen.device_api) {
    notes->push_back(fmt::format("NCCL {} has no device API (nccl_device.h, NCCL >= 2.28): LSA and GIN backends are off",
                                 chosen.version));
  }
  return chosen;
}

LibraryInstall DetectCublas(const std::string& cuda_home, const PythonWheels& wheels, std::vector<std::string>* notes) {
  std::vector<LibraryInstall> tried;
  if (!cuda_home.empty()) {
    tried.push_back(ProbeLibrary(fs::path(cuda_home) / "include", "cublasLt.h", LibDirsUnder(cuda_home), "libcublasLt",
                                 cuda_home));
  }
  if (!wheels.cublas.empty()) {
    tried.push_back(ProbeLibrary(fs::path(wheels.cublas) / "include", "cublasLt.h", {fs::path(wheels.cublas) / "lib"},
                                 "libcublasLt", "python nvidia.cublas"));
  }
  if (!wheels.cu13.empty()) {
    tried.push_back(ProbeLibrary(fs::path(wheels.cu13) / "include", "cublasLt.h", {fs::path(wheels.cu13) / "lib"},
                                 "libcublasLt", "python nvidia.cu13"));
  }
  for (LibraryInstall& lib : tried) {
    if (!lib.found) continue;
    std::string api = ReadText(fs::path(lib.include_dir) / "cublas_api.h");
    std::string major = HeaderDefine(api, "CUBLAS_VER_MAJOR"), minor = HeaderDefine(api, "CUBLAS_VER_MINOR"),
                patch = HeaderDefine(api, "CUBLAS_VER_PATCH");
    if (!major.empty() && !minor.empty()) lib.version = major + "." + minor + (patch.empty() ? "" : "." + patch);
    return lib;
  }
  for (const LibraryInstall& lib : tried) {
    if (!lib.include_dir.empty()) {
      notes->push_back(fmt::format("cublasLt.h in {} but no libcublasLt.so beside it", lib.include_dir));
    }
  }
  return LibraryInstall();
}

LibraryInstall DetectNvshmem(const std::string& cuda_home, const std::string& cuda_version, const PythonWheels& wheels,
                             std::vector<std::string>* notes) {
  std::vector<LibraryInstall> tried;
  for (const char* var : {"CUCO_NVSHMEM_HOME", "NVSHMEM_HOME"}) {
    std::string home = Getenv(var);
    if (home.empty()) continue;
    LibraryInstall lib = ProbeNvshmem(fs::path(home) / "include", LibDirsUnder(home), std::string("env ") + var);
    if (!lib.found) notes->push_back(fmt::format("{}={} holds no NVSHMEM (include/nvshmem.h, lib/libnvshmem_host.so)", var, home));
    tried.push_back(lib);
  }
  if (!wheels.nvshmem.empty()) {
    tried.push_back(ProbeNvshmem(fs::path(wheels.nvshmem) / "include", {fs::path(wheels.nvshmem) / "lib"},
                                 "python nvidia.nvshmem"));
  }
  if (!cuda_home.empty()) tried.push_back(ProbeNvshmem(fs::path(cuda_home) / "include", LibDirsUnder(cuda_home), cuda_home));
  // Debian/Ubuntu packages: /usr/include/nvshmem_<cuda major>/ and /usr/lib/<arch>/nvshmem/<cuda major>/.
  std::vector<fs::path> usr_includes;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator("/usr/include", ec)) {
    if (e.path().filename().string().rfind("nvshmem", 0) == 0 && e.is_directory(ec)) usr_includes.push_back(e.path());
  }
  std::string cuda_major = cuda_version.substr(0, cuda_version.find('.'));
  std::sort(usr_includes.begin(), usr_includes.end(), [&](const fs::path& a, const fs::path& b) {
    bool a_match = a.filename() == "nvshmem_" + cuda_major, b_match = b.filename() == "nvshmem_" + cuda_major;
    return a_match != b_match ? a_match : a < b;
  });
  usr_includes.push_back("/usr/include");
  for (const fs::path& inc : usr_includes) {
    std::string name = inc.filename().string();
    std::string suffix = name.rfind("nvshmem_", 0) == 0 ? name.substr(8) : cuda_major;
    std::vector<fs::path> libs;
    for (const char* arch : {"x86_64-linux-gnu", "aarch64-linux-gnu"}) {
      libs.push_back(fs::path("/usr/lib") / arch / "nvshmem" / suffix);
      libs.push_back(fs::path("/usr/lib") / arch);
    }
    tried.push_back(ProbeNvshmem(inc, libs, inc.string()));
  }
  for (const LibraryInstall& lib : tried) {
    if (!lib.found) continue;
    if (!IsFile(fs::path(lib.lib_dir) / "libnvshmem_device.a") && !IsFile(fs::path(lib.lib_dir) / "libnvshmem_device.bc")) {
      notes->push_back(fmt::format("NVSHMEM in {} has no libnvshmem_device.a: device-side NVSHMEM calls will not link",
                                   lib.lib_dir));
    }
    return lib;
  }
  return LibraryInstall();
}

LibraryInstall DetectCudnn(const std::string& cuda_home, const PythonWheels& wheels, std::vector<std::string>* notes) {
  std::vector<LibraryInstall> tried;
  if (std::string home = Getenv("CUCO_CUDNN_HOME"); !home.empty()) {
    LibraryInstall lib = ProbeLibrary(fs::path(home) / "include", "cudnn.h", LibDirsUnder(home), "libcudnn", "env CUCO_CUDNN_HOME");
    if (!lib.found) notes->push_back(fmt::format("CUCO_CUDNN_HOME={} holds no cuDNN (include/cudnn.h, lib/libcudnn.so.9)", home));
    tried.push_back(lib);
  }
  if (!wheels.cudnn.empty())
    tried.push_back(ProbeLibrary(fs::path(wheels.cudnn) / "include", "cudnn.h", {fs::path(wheels.cudnn) / "lib"}, "libcudnn",
                                 "python nvidia.cudnn"));
  if (!cuda_home.empty())
    tried.push_back(ProbeLibrary(fs::path(cuda_home) / "include", "cudnn.h", LibDirsUnder(cuda_home), "libcudnn", cuda_home));
  tried.push_back(ProbeLibrary("/usr/include", "cudnn.h", LibDirsUnder("/usr"), "libcudnn", "/usr"));
  for (LibraryInstall& lib : tried) {
    if (!lib.found) continue;
    std::string text = ReadText(fs::path(lib.include_dir) / "cudnn_version.h");
    std::string major = HeaderDefine(text, "CUDNN_MAJOR"), minor = HeaderDefine(text, "CUDNN_MINOR"),
                patch = HeaderDefine(text, "CUDNN_PATCHLEVEL");
    if (!major.empty() && !minor.empty()) lib.version = major + "." + minor + (patch.empty() ? "" : "." + patch);
    return lib;
  }
  return LibraryInstall();
}

std::string DetectCudnnFrontend(const PythonWheels& wheels, std::string* version, std::vector<std::string>* notes) {
  std::vector<std::pair<std::string, bool>> dirs;  // (folder, named by the user)
  if (std::string d = Getenv("CUCO_CUDNN_FRONTEND_INCLUDE"); !d.empty()) dirs.push_back({d, true});
  if (!wheels.cudnn_frontend.empty()) dirs.push_back({wheels.cudnn_frontend, false});
  dirs.push_back({"/usr/include", false});
  dirs.push_back({"/usr/local/include", false});
  for (const auto& [d, named] : dirs) {
    if (!IsFile(fs::path(d) / "cudnn_frontend.h")) {
      if (named) notes->push_back(fmt::format("CUCO_CUDNN_FRONTEND_INCLUDE={} holds no cudnn_frontend.h; ignored", d));
      continue;
    }
    std::string text = ReadText(fs::path(d) / "cudnn_frontend_version.h");
    std::string major = HeaderDefine(text, "CUDNN_FRONTEND_MAJOR_VERSION"), minor = HeaderDefine(text, "CUDNN_FRONTEND_MINOR_VERSION"),
                patch = HeaderDefine(text, "CUDNN_FRONTEND_PATCH_VERSION");
    *version = major.empty() ? "" : major + "." + minor + "." + patch;
    return d;
  }
  return "";
}

}  // namespace cuco
