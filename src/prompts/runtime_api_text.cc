#include "prompts/runtime_api_text.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "prompts/header_declarations.h"
#include "util/files.h"
#include "util/runtime_dir.h"
#include "util/source_text.h"
#include "util/text.h"

namespace cuco {
namespace fs = std::filesystem;
namespace {

// A built-in summary of cuco/harness.h, for when the header cannot be read.
const char* kBuiltinContract =
    "A candidate file includes <cuco/harness.h> and defines, inside its EVOLVE blocks:\n"
    "  cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state);  // once, "
    "untimed, collective\n"
    "  cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io);  // one iteration, "
    "enqueued on ctx.stream / ctx.side_stream(i)\n"
    "  void cuco_candidate_teardown(cuco::RankContext& ctx, void* state);  // frees what setup allocated\n"
    "cuco::RankContext: const int rank, world_size, local_rank, local_world_size, device, sm_count; const ncclComm_t "
    "comm; const cudaStream_t stream; cudaStream_t side_stream(int i, int priority = 0) (i < 8); void "
    "record_event(int i, cudaStream_t s); void wait_event(cudaStream_t s, int i) (i < 64); cublasLtHandle_t "
    "cublaslt(); Status alloc_symmetric(size_t bytes, Buffer* out) (collective); Status create_dev_comm(const "
    "ncclDevCommRequirements& reqs, ncclDevComm* out) (collective).\n"
    "cuco::IO: const Buffer& in(const char* name) const; const Buffer& out(const char* name) const. cuco::Buffer { "
    "void* ptr; size_t bytes; ncclWindow_t window; }. cuco::Sizes: int64_t get(const char* name) const.\n"
    "cuco::Status::Ok(), cuco::Status::Error(msg); CUCO_CUDA_CHECK(expr), CUCO_NCCL_CHECK(expr), "
    "CUCO_CUBLAS_CHECK(expr), CUCO_CHECK_LAUNCH() return a failing Status.\n";

}  // namespace

std::string BuiltinCandidateContractText() { return kBuiltinContract; }

std::string CandidateContractText(const std::string& harness_header_text) {
  // The leading comment.
  std::string lead;
  for (const auto& l : LinesOf(harness_header_text)) {
    std::string t = Trim(l);
    if (t.rfind("//", 0) != 0) {
      if (t.empty() && lead.empty()) continue;
      break;
    }
    lead += l + "\n";
  }
  DeclarationOptions o;
  o.keep_comments = true;
  o.skip_names = {"cuco_harness", "status_detail", "ContextState"};
  const std::string decls = ExtractDeclarations(harness_header_text, o);
  // Drop what a comment marks as the harness's side, up to the next comment or closing line.
  std::string kept;
  bool skipping = false;
  size_t skip_indent = 0;
  for (const auto& l : LinesOf(decls)) {
    const std::string t = Trim(l);
    const size_t indent = l.find_first_not_of(' ');
    if (t.rfind("// Harness side", 0) == 0) {
      skipping = true;
      skip_indent = indent;
      continue;
    }
    if (skipping && indent == skip_indent && t.rfind("//", 0) != 0 && t != "};" && t != "}") continue;
    skipping = false;
    kept += l + "\n";
  }
  return lead + "\nDeclarations:\n" + kept;
}

Result<std::string> LoadCandidateContract(const std::string& language) {
  const fs::path dir = RuntimeDir();
  const fs::path header = dir / "include" / "cuco" / (language == "cpu" ? "cpu_harness.h" : "harness.h");
  auto text = ReadFile(header);
  if (!text.ok()) return Status::NotFound("the candidate interface " + header.string() + " is unreadable: " +
                                          text.status().message());
  return CandidateContractText(*text);
}

std::string LoadCodesignApiText(size_t max_chars) {
  const fs::path dir = RuntimeDir() / "include" / "cuco" / "codesign";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return "";
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".h") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    // design.h (the dimensions as types) first, then alphabetical.
    if ((a == "design.h") != (b == "design.h")) return a == "design.h";
    return a < b;
  });
  std::string out;
  DeclarationOptions o;
  o.keep_comments = true;
  o.skip_names = {"detail"};
  for (const auto& n : names) {
    auto text = ReadFile(dir / n);
    if (!text.ok()) continue;
    std::string decls = ExtractDeclarations(*text, o);
    if (decls.empty()) continue;
    out += "// ---- <cuco/codesign/" + n + "> ----\n" + decls;
  }
  if (out.empty()) return "";
  return CapText(out, max_chars);
}

}  // namespace cuco
