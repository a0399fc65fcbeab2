#include "transform/llm_transform.h"
#include "util/text.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "analyze/analysis.h"
#include "edit/block_edits.h"
#include "prompts/design_space_text.h"
#include "propose/prompt_builder.h"
#include "util/files.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace fs = std::filesystem;
namespace {

constexpr const char* kMarkerText = "EVOLVE-BLOCK-";

// ---------------------------------------------------------------------------------------------
// Text helpers

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string NormalizeNewlines(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')) out += s[i];
  return out;
}

// Lines without their '\n'; a final newline does not start an empty line.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

// The last `max` characters, from a line start when one is near.
std::string TailChars(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t from = s.size() - max;
  size_t nl = s.find('\n', from);
  if (nl != std::string::npos && nl < from + 200) from = nl + 1;
  return "[... " + std::to_string(from) + " characters before]\n" + s.substr(from);
}

std::string Fence(const std::string& lang, const std::string& code) {
  std::string s = "```" + lang + "\n" + code;
  if (!code.empty() && code.back() != '\n') s += '\n';
  return s + "```\n";
}

std::string Money(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.4f", d);
  return buf;
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `text` with comments and string/character literals (raw strings included) replaced by
// blanks; newlines kept, so offsets and lines stay.
std::string BlankCommentsAndLiterals(const std::string& text) {
  std::string t = text;
  const size_t n = t.size();
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < n; ++k)
      if (t[k] != '\n') t[k] = ' ';
  };
  size_t i = 0;
  while (i < n) {
    const char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      size_t e = text.find('\n', i);
      if (e == std::string::npos) e = n;
      blank(i, e);
      i = e;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      size_t e = text.find("*/", i + 2);
      e = e == std::string::npos ? n : e + 2;
      blank(i, e);
      i = e;
    } else if (c == '"' && i > 0 && text[i - 1] == 'R' && (i < 2 || !IsIdent(text[i - 2]) || text[i - 2] == 'u' ||
                                                           text[i - 2] == 'U' || text[i - 2] == 'L' || text[i - 2] == '8')) {
      size_t open = text.find('(', i + 1);
      if (open == std::string::npos || open - i > 17) {  // not a raw string after all
        ++i;
        continue;
      }
      const std::string close = ")" + text.substr(i + 1, open - i - 1) + "\"";
      size_t e = text.find(close, open + 1);
      e = e == std::string::npos ? n : e + close.size();
      blank(i, e);
      i = e;
    } else if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(text[i - 1])) &&
                                           i + 1 < n && std::isxdigit(static_cast<unsigned char>(text[i + 1]))))) {
      // A string or character literal ('\'' between hex digits is a digit separator).
      size_t e = i + 1;
      while (e < n && text[e] != c && text[e] != '\n') e += text[e] == '\\' ? 2 : 1;
      e = std::min(n, e + 1);
      blank(i, e);
      i = e;
    } else {
      ++i;
    }
  }
  return t;
}

// Line ranges strictly inside EVOLVE blocks (1-based, inclusive); empty when none or malformed.
std::vector<std::pair<int, int>> BlockInteriors(const std::string& code) {
  std::vector<std::pair<int, int>> out;
  auto split = SplitEvolveBlocks(code, "code", /*require_blocks=*/false);
  if (!split.ok()) return out;
  for (const EvolveBlock& b : split->blocks) out.emplace_back(b.start_line + 1, b.end_line - 1);
  return out;
}

bool HasEvolveBlocks(const std::string& code) {
  auto split = SplitEvolveBlocks(code, "code", /*require_blocks=*/false);
  return split.ok() && !split->blocks.empty();
}

std::string CallList(const std::vector<CallSite>& calls, size_t max = 8) {
  std::string s;
  for (size_t i = 0; i < calls.size() && i < max; ++i)
    s += (i ? ", " : "") + calls[i].name + " at line " + std::to_string(calls[i].line);
  if (calls.size() > max) s += ", and " + std::to_string(calls.size() - max) + " more";
  return s;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

bool CutOff(const std::string& finish_reason) {
  std::string f = finish_reason;
  std::transform(f.begin(), f.end(), f.begin(), [](unsigned char c) { return std::tolower(c); });
  return f == "length" || f == "max_tokens" || f == "max_output_tokens";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Calls and checks

const std::vector<std::string>& HostCommunicationApis() {
  static const std::vector<std::string> v = {"ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclBroadcast",
                                             "ncclBcast",     "ncclReduce",    "ncclAlltoAll",      "ncclGather",
                                             "ncclScatter",   "ncclSend",      "ncclRecv"};
  return v;
}

const std::vector<std::string>& DeviceSetupApis() {
  static const std::vector<std::string> v = {"ncclMemAlloc",    "ncclCommWindowRegister", "ncclDevCommCreate",
                                             "alloc_symmetric", "create_dev_comm",        "alloc_peers"};
  return v;
}

std::vector<CallSite> FindCalls(const std::string& code, const std::vector<std::string>& names,
                                bool inside_blocks_only) {
  std::vector<CallSite> out;
  std::vector<std::pair<int, int>> interiors;
  if (inside_blocks_only) {
    interiors = BlockInteriors(code);
    if (interiors.empty()) return out;
  }
  const std::string t = BlankCommentsAndLiterals(code);
  int line = 1;
  for (size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (!IsIdentStart(c) || (i > 0 && IsIdent(t[i - 1]))) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < t.size() && IsIdent(t[e])) ++e;
    const std::string word = t.substr(i, e - i);
    size_t p = e;  // newlines skipped here are counted when the scan reaches them
    while (p < t.size() && std::isspace(static_cast<unsigned char>(t[p]))) ++p;
    if (p < t.size() && t[p] == '(' && std::find(names.begin(), names.end(), word) != names.end()) {
      bool keep = !inside_blocks_only;
      for (const auto& [from, to] : interiors) keep = keep || (line >= from && line <= to);
      if (keep) out.push_back({word, line});
    }
    i = e;
  }
  return out;
}

Status CheckAnnotationOnly(const std::string& original, const std::string& annotated, const std::string& path) {
  const std::string ann = NormalizeNewlines(annotated);
  auto split = SplitEvolveBlocks(ann, path, /*require_blocks=*/true);
  if (!split.ok()) return Status::InvalidArgument("the EVOLVE-BLOCK markers are malformed: " + split.status().message());
  bool holds_code = false;
  for (const EvolveBlock& b : split->blocks)
    for (const std::string& l : Lines(b.body)) {
      const std::string t = Trim(l);
      if (!t.empty() && t.rfind("//", 0) != 0) holds_code = true;
    }
  if (!holds_code) return Status::InvalidArgument(path + ": no EVOLVE block holds code: put the markers around the code a search may change");

  const std::vector<std::string> orig = Lines(NormalizeNewlines(original));
  const std::vector<std::string> lines = Lines(ann);
  size_t o = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const std::string where = path + ":" + std::to_string(i + 1);
    if (l.find(kMarkerText) != std::string::npos) {
      if (Trim(l).rfind("//", 0) != 0)
        return Status::InvalidArgument(where + ": a marker must be a comment line of its own (\"// EVOLVE-BLOCK-START\"), not \"" +
                                       Trim(l).substr(0, 120) + "\"");
      continue;
    }
    if (o >= orig.size())
      return Status::InvalidArgument(where + ": the line \"" + Trim(l).substr(0, 120) +
                                     "\" is not in the original file: only marker lines may be added");
    if (l != orig[o])
      return Status::InvalidArgument(where + ": \"" + Trim(l).substr(0, 120) + "\" differs from the original's line " +
                                     std::to_string(o + 1) + " \"" + Trim(orig[o]).substr(0, 120) +
                                     "\": only marker lines may be added, nothing else may change");
    ++o;
  }
  if (o < orig.size())
    return Status::InvalidArgument(path + ": the original's line " + std::to_string(o + 1) + " \"" +
                                   Trim(orig[o]).substr(0, 120) + "\" and the " + std::to_string(orig.size() - o - 1) +
                                   " after it are missing: only marker lines may be added");
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// LineDiff

std::string LineDiff(const std::string& from, const std::string& to, const std::string& from_label,
                     const std::string& to_label, int context, size_t max_chars) {
  if (from == to) return "";
  const std::vector<std::string> a = Lines(NormalizeNewlines(from)), b = Lines(NormalizeNewlines(to));
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  const size_t n = a.size() - pre - suf, m = b.size() - pre - suf;

  struct Op {
    char kind;     // ' ', '-', '+'
    size_t ai, bi;  // line indices (the one that applies)
  };
  std::vector<Op> ops;
  for (size_t k = 0; k < pre; ++k) ops.push_back({' ', k, k});
  if (n > 0 && m > 0 && static_cast<double>(n) * static_cast<double>(m) <= 4e6) {
    // Longest common subsequence of the middles; lcs[i][j] for suffixes a[pre+i..], b[pre+j..].
    std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        lcs[i][j] = a[pre + i] == b[pre + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        ops.push_back({' ', pre + i++, pre + j++});
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        ops.push_back({'-', pre + i++, pre + j});  // deletions before insertions, as diff -u
      } else {
        ops.push_back({'+', pre + i, pre + j++});
      }
    }
  } else {
    for (size_t k = 0; k < n; ++k) ops.push_back({'-', pre + k, pre + m});
    for (size_t k = 0; k < m; ++k) ops.push_back({'+', pre + n, pre + k});
  }
  for (size_t k = 0; k < suf; ++k) ops.push_back({' ', a.size() - suf + k, b.size() - suf + k});

  std::string out = "--- " + from_label + "\n+++ " + to_label + "\n";
  const size_t ctx = static_cast<size_t>(std::max(0, context));
  size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].kind == ' ') ++k;
    if (k == ops.size()) break;
    // A hunk: from `ctx` lines before this change to `ctx` lines after the last change that is
    // at most 2*ctx equal lines away from the next.
    size_t start = k >= ctx ? k - ctx : 0;
    size_t end = k;
    for (size_t q = k; q < ops.size(); ++q) {
      if (ops[q].kind != ' ') {
        end = q;
        continue;
      }
      if (q - end > 2 * ctx) break;
    }
    const size_t stop = std::min(ops.size(), end + 1 + ctx);
    size_t a_start = 0, b_start = 0, a_count = 0, b_count = 0;
    bool a_set = false, b_set = false;
    std::string body;
    for (size_t q = start; q < stop; ++q) {
      const Op& op = ops[q];
      if (op.kind != '+') {
        if (!a_set) a_start = op.ai, a_set = true;
        ++a_count;
      }
      if (op.kind != '-') {
        if (!b_set) b_start = op.bi, b_set = true;
        ++b_count;
      }
      body += op.kind;
      body += op.kind == '+' ? b[op.bi] : a[op.ai];
      body += '\n';
    }
    if (!a_set) a_start = ops[start].ai;
    if (!b_set) b_start = ops[start].bi;
    out += "@@ -" + std::to_string(a_count ? a_start + 1 : a_start) + "," + std::to_string(a_count) + " +" +
           std::to_string(b_count ? b_start + 1 : b_start) + "," + std::to_string(b_count) + " @@\n" + body;
    k = stop;
  }
  return CapText(out, max_chars);
}

// ---------------------------------------------------------------------------------------------
// Stages

std::vector<LlmStage> DefaultLlmStages(const WorkloadConfig& workload, const std::string& code) {
  const bool cuda = workload.language != "cpu";
  const bool harness = workload.mode == "harness";
  const bool blocks = HasEvolveBlocks(code);
  const std::string where = blocks ? "inside the EVOLVE blocks" : "in the file";
  std::vector<LlmStage> stages;

  LlmStage a;
  a.id = "A";
  a.name = "infrastructure";
  LlmStage b;
  b.id = "B";
  b.name = "replace";
  if (cuda) {
    a.task =
        "Add the device-side communication infrastructure that the device-initiated version will need, while KEEPING "
        "every host NCCL communication call and the results unchanged. Allocate the buffers that are communicated in "
        "NCCL symmetric memory registered in windows and create the device communicator: " +
        std::string(harness ? "in harness mode use ctx.create_dev_comm(...) for the ncclDevComm and "
                              "cuco::codesign::alloc_peers(ctx, dev_comm, bytes, &buf) (or ctx.alloc_symmetric) for "
                              "the buffers, in cuco_candidate_setup, and release them in cuco_candidate_teardown"
                            : "ncclMemAlloc + ncclCommWindowRegister for the buffers and ncclDevCommCreate for the "
                              "device communicator, after the communicator exists, released before it is destroyed") +
        ". The host collectives now read and write the symmetric buffers. The program must still compile, run and "
        "verify exactly as before.";
    a.rules = {"Keep every host NCCL collective and send/recv call (" + where +
                   "); replace none yet: the next stage does that.",
               "Set-up is collective: every rank allocates the same buffers in the same order with the same sizes, "
               "once (set-up), never per iteration.",
               "Never use NVLink multicast (multimem / NVLS): leave lsaMultimem off in ncclDevCommRequirements.",
               "Keep the computation as it is."};
    if (harness)
      a.rules.push_back("The harness owns the communicator, streams, events and timing: use ctx.comm, ctx.stream and "
                        "ctx.side_stream(i); create no stream, event or communicator of your own.");
    b.task =
        "Replace every host NCCL communication call (" + where +
        ") with device-initiated communication built on the stage-A infrastructure and the cuco/codesign blocks: "
        "peers' buffers through LSA pointers (alloc_peers) moved by transfer kernels (launch_transfers) or copy-engine "
        "copies (ce_copy), ordered with lsa_barrier or epoch flags (signal_flag / wait_flag). Stay sequential: each "
        "transfer runs after the compute it depends on, in the same stream order as the collective it replaces. "
        "Correctness first: overlap comes later, in the search.";
    b.rules = {"No host NCCL collective or send/recv call may remain " + where + ".",
               "Before reading a peer's buffer, make sure the peer finished writing it (lsa_barrier or a flag); before "
               "overwriting a buffer peers read, make sure they finished reading it.",
               "Flags hold epochs (count the iterations) and are never reset; kernels that signal or spin are loaded "
               "before the first iteration (preload_transfer_kernels / preload_flag_kernels).",
               "Never use NVLink multicast (multimem / NVLS).",
               "The results must match the reference within the workload's tolerance on every rank."};
  } else {
    a.task =
        "Stage A of a CPU test workload (no NCCL here): make the preparatory change the instructions and feedback "
        "ask for, keeping the results correct.";
    a.rules = {"Keep the results within the workload's tolerance."};
    b.task = "Stage B of a CPU test workload (no NCCL here): make the main change, keeping the results correct.";
    b.rules = {"Keep the results within the workload's tolerance."};
  }
  if (cuda) {
    const std::vector<std::string>& host = HostCommunicationApis();
    const std::vector<std::string>& setup = DeviceSetupApis();
    a.skip = [blocks, host](const std::string& in) -> std::string {
      if (FindCalls(in, host, blocks).empty()) return "no host communication call to prepare for";
      // Symmetric buffers alone may serve host collectives; the device communicator is what
      // device-initiated code needs.
      auto dev_comm = FindCalls(in, {"ncclDevCommCreate", "create_dev_comm"});
      if (!dev_comm.empty()) return "the code creates a device communicator already (" + CallList(dev_comm, 3) + ")";
      return "";
    };
    a.check = [blocks, host, setup, where](const std::string& in, const std::string& out) -> Status {
      for (const std::string& api : host) {
        auto before = FindCalls(in, {api}, blocks);
        if (!before.empty() && FindCalls(out, {api}, blocks).empty())
          return Status::InvalidArgument("stage A must keep the host communication, but " + api + " (line " +
                                         std::to_string(before[0].line) + " of the input) is no longer called " +
                                         where + "; stage B replaces it");
      }
      if (FindCalls(out, setup).size() <= FindCalls(in, setup).size())
        return Status::InvalidArgument("no device-side set-up was added: expected a call of one of " +
                                       JoinNames(setup));
      return Status::Ok();
    };
    b.skip = [blocks, host](const std::string& in) -> std::string {
      return FindCalls(in, host, blocks).empty() ? "no host communication call left" : "";
    };
    b.check = [blocks, host, where](const std::string&, const std::string& out) -> Status {
      auto left = FindCalls(out, host, blocks);
      if (left.empty()) return Status::Ok();
      return Status::InvalidArgument("host communication calls remain " + where + ": " + CallList(left) +
                                     "; stage B must replace every one with device-initiated communication");
    };
  }
  stages.push_back(std::move(a));
  stages.push_back(std::move(b));

  if (!blocks) {
    LlmStage c;
    c.id = "C";
    c.name = "annotate";
    c.annotate = true;
    c.evaluate = false;
    c.task =
        "Mark the code a performance search may change with EVOLVE-BLOCK marker lines: the communication (kernels, "
        "transfers, synchronisation), the computation it overlaps with, and the code that launches them. Leave outside "
        "the blocks (frozen) what defines correctness and timing: input generation, the reference and the check, the "
        "timer and what it prints, argument parsing, process and communicator set-up.";
    c.rules = {"Add only lines `// EVOLVE-BLOCK-START` and `// EVOLVE-BLOCK-END`, each on a line of its own; change, "
               "add or remove nothing else, not even whitespace.",
               "Blocks balance and do not nest; each holds whole declarations or statements, so that its body can be "
               "rewritten on its own.",
               "Answer with the whole annotated file in one fenced code block."};
    stages.push_back(std::move(c));
  }
  return stages;
}

// ---------------------------------------------------------------------------------------------
// Prompts

namespace {

std::string FenceLanguage(const WorkloadConfig& w) { return w.language == "cpu" ? "cpp" : "cuda"; }

std::string AnswerFormat(const LlmStage& stage, bool blocks, const std::string& lang) {
  if (stage.annotate)
    return "Begin with one line `SUMMARY: <which code you put in blocks>`. Then the whole annotated file in one "
           "fenced block:\n```" +
           lang + "\n<the whole file with the marker lines added>\n```\n";
  std::string s =
      "Begin with one line `SUMMARY: <what you changed>`. Then give the change in ONE of two forms (only the code is "
      "read):\n"
      "1. SEARCH/REPLACE edits, one or more, each exactly:\n"
      "<<<<<<< SEARCH\n<lines copied exactly from the current code>\n=======\n<the lines that replace them>\n"
      ">>>>>>> REPLACE\n"
      "   The SEARCH lines must match the current code exactly and in one place (add surrounding lines to make them "
      "unique); edits apply in order, each to the result of the previous one. To add code, replace a line with itself "
      "plus the new lines.\n"
      "2. The whole new file in one fenced block (```" +
      lang + " ... ```), complete: nothing elided, no placeholders.\n";
  if (blocks)
    s += "Only lines strictly between an EVOLVE-BLOCK-START line and the next EVOLVE-BLOCK-END line may change. "
         "Everything else, the marker lines included, is frozen and must stay byte for byte; SEARCH text must not "
         "include a marker or frozen line, and a whole file must reproduce the frozen text exactly.\n";
  else
    s += "Add no EVOLVE-BLOCK marker lines in this stage.\n";
  return s;
}

std::string AttemptOutcomeText(const LlmTransformAttempt& a) {
  std::string s = a.failure_kind.empty() ? std::string("passed") : a.failure_kind + " failure";
  if (a.record) s += " (" + std::string(EvalStatusName(a.record->status)) + ")";
  if (!a.reason.empty()) s += ": " + a.reason;
  return s;
}

// What went wrong, for the judge: the record's stages that failed, with their log tails.
std::string FailureDetails(const LlmTransformAttempt& a, size_t max_log_chars) {
  std::string s = "Failure kind: " + a.failure_kind + "\n";
  if (a.record) s += "Status: " + std::string(EvalStatusName(a.record->status)) + "\n";
  s += "Reason: " + a.reason + "\n";
  if (a.record) {
    for (const StageRecord& st : a.record->stages) {
      if (st.status == EvalStatus::kOk || st.status == EvalStatus::kPending) continue;
      s += "\nStage " + st.name + ": " + EvalStatusName(st.status);
      if (!st.detail.empty()) s += ": " + st.detail;
      s += "\n";
      if (!Trim(st.log_tail).empty()) s += "Log tail:\n" + Fence("", TailChars(st.log_tail, max_log_chars));
    }
    const ErrorFigures& e = a.record->verify_errors;
    if (a.record->status == EvalStatus::kWrongResult && e.checks > 0) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "Verify errors (worst over ranks): rel L2 %.3g, max abs %.3g, non-finite %lld, poison left %lld of "
                    "%lld elements\n",
                    e.rel_l2, e.max_abs, e.nonfinite, e.poison_left, e.elements);
      s += buf;
    }
  }
  return s;
}

std::string WorkloadHeader(const WorkloadConfig& w) {
  std::string s = "Workload: " + (w.name.empty() ? std::string("(unnamed)") : w.name);
  if (!w.description.empty()) s += " — " + w.description;
  s += "\nMode: " + w.mode + " (" +
       (w.mode == "harness" ? std::string("the trusted harness calls the candidate's functions")
                            : std::string("a whole program that checks and times itself")) +
       "); language: " + w.language + "; ranks: " + std::to_string(w.world_size) + "\n";
  return s;
}

std::string StageText(const LlmStage& stage, size_t index, size_t count) {
  std::string s = "## Stage " + stage.id + " (" + stage.name + ")";
  if (count > 0) s += ", " + std::to_string(index) + " of " + std::to_string(count);
  s += "\n" + stage.task + "\nRules:\n";
  for (size_t i = 0; i < stage.rules.size(); ++i) s += std::to_string(i + 1) + ". " + stage.rules[i] + "\n";
  return s;
}

}  // namespace

std::vector<ChatMessage> BuildWriterMessages(const LlmTransformInputs& inputs, const LlmTransformPromptState& state,
                                             const LlmTransformOptions& options) {
  static const LlmStage kNoStage;
  const LlmStage& stage = state.stage ? *state.stage : kNoStage;
  const WorkloadConfig& w = inputs.workload;
  const bool cuda = w.language != "cpu";
  const bool blocks = HasEvolveBlocks(inputs.code);
  const std::string lang = FenceLanguage(w);

  std::string sys =
      "You are an expert in CUDA, NCCL (its host API and its device API: symmetric memory, windows, LSA, GIN) and "
      "multi-GPU programming. You turn a host-driven program into one whose communication is device-initiated, in "
      "verified stages. Every answer is compiled, run and verified against a reference; a failing answer comes back "
      "to you with the failure and a reviewer's feedback.\n";
  if (!cuda) sys += "This workload runs on the CPU (cuco's own tests): there is no GPU or NCCL in it.\n";
  auto section = [](const std::string& title, const std::string& body) {
    return Trim(body).empty() ? std::string() : "\n## " + title + "\n" + body + (body.back() == '\n' ? "" : "\n");
  };
  if (cuda && w.mode == "harness") sys += section("Harness rules", HarnessRulesText());
  sys += section("The candidate interface (frozen)", inputs.contract_text);
  sys += section("Design space", inputs.design_space_text);
  sys += section("Building blocks (cuco/codesign)", CapText(inputs.api_text, options.max_api_chars));
  sys += section("Hardware", inputs.hardware_text);

  std::string user = WorkloadHeader(w) + "\n" + StageText(stage, 0, 0);
  if (blocks)
    user += "\n## Frozen code\nOnly the code between EVOLVE-BLOCK-START and EVOLVE-BLOCK-END lines may change; "
            "everything outside them (the marker lines included) is frozen interface and must stay byte for byte.\n";
  user += section("What the original host program does (cuco analyze)", inputs.analysis_text);
  if (cuda) {
    auto host = FindCalls(state.base, HostCommunicationApis(), blocks);
    auto setup = FindCalls(state.base, DeviceSetupApis());
    user += "\n## In the current code\nHost communication calls" + std::string(blocks ? " inside the EVOLVE blocks" : "") +
            ": " + (host.empty() ? std::string("none") : CallList(host, 16)) +
            "\nDevice-side set-up calls: " + (setup.empty() ? std::string("none") : CallList(setup, 16)) + "\n";
  }
  if (state.base != state.stage_input) {
    user += "\n## Your previous attempt\nThe current code below is your previous attempt at this stage, which failed "
            "(see below); edit it. Its change from the code the stage started from:\n" +
            Fence("diff", LineDiff(state.stage_input, state.base, "stage input", "previous attempt", 3,
                                   options.max_diff_chars));
  }
  user += "\n## The current code\n" + Fence(lang, state.base);
  if (!state.history.empty()) {
    user += "\n## Failed attempts of this stage (fix what they got wrong)\n";
    const size_t first = state.history.size() > static_cast<size_t>(std::max(0, options.history))
                             ? state.history.size() - static_cast<size_t>(std::max(0, options.history))
                             : 0;
    for (size_t i = first; i < state.history.size(); ++i) {
      const LlmTransformAttempt& a = *state.history[i];
      user += "### Attempt " + std::to_string(a.iteration) + ": " + CapText(AttemptOutcomeText(a), 2000) + "\n";
      if (!a.judge_feedback.empty()) user += "Reviewer's feedback:\n" + CapText(a.judge_feedback, 4000) + "\n";
    }
  }
  user += "\n## Answer format\n" + AnswerFormat(stage, blocks, lang);
  return {{"system", sys}, {"user", user}};
}

std::vector<ChatMessage> BuildJudgeMessages(const LlmTransformInputs& inputs, const LlmStage& stage,
                                            const std::string& base, const LlmTransformAttempt& failed,
                                            const LlmTransformOptions& options) {
  const std::string sys =
      "You review a failed step of a code transformation. A writer model rewrote a program for the stage described "
      "below and the rewrite failed. Read the failure and write corrective feedback for the writer's next attempt: "
      "the root cause (quote the offending line), the exact fix, and what to keep. Be specific and brief (at most "
      "15 lines). Do not write the whole file.\n";
  std::string user = WorkloadHeader(inputs.workload) + "\n" + StageText(stage, 0, 0);
  user += "\n## The failure\n" + FailureDetails(failed, options.max_log_chars);
  if (!failed.code.empty()) {
    // KeyLines reads "file:LINE:"; nvcc writes "file(LINE): ".
    const std::string named = std::regex_replace(failed.reason + "\n" + FailureDetails(failed, options.max_log_chars),
                                                 std::regex(R"(\(([0-9]+)\): )"), ":$1: ");
    const std::string key = KeyLines(failed.code, named, base, 4000);
    if (!Trim(key).empty()) user += "\n## Lines of the rewrite involved\n" + key;
    user += "\n## The rewrite, as a diff from the code it started from\n" +
            Fence("diff", failed.diff.empty() ? std::string("(no change)") : failed.diff);
  }
  if (!failed.answer_summary.empty()) user += "\nThe writer's summary: " + failed.answer_summary + "\n";
  user += "\nAnswer with the feedback only.\n";
  return {{"system", sys}, {"user", user}};
}

// ---------------------------------------------------------------------------------------------
// Answers

namespace {

// ApplySearchReplace's messages speak of "the parent"; here it is the current code.
std::string Reword(std::string msg) {
  static const std::pair<const char*, const char*> kWords[] = {{"the parent's", "the current code's"},
                                                               {"the parent", "the current code"}};
  for (const auto& [from, to] : kWords)
    for (size_t p = msg.find(from); p != std::string::npos; p = msg.find(from, p + std::string(to).size()))
      msg.replace(p, std::string(from).size(), to);
  return msg;
}

// Diffs applied to a file without EVOLVE blocks: the whole file is wrapped in one block, so the
// diff matcher of block_edits.h applies; its line numbers are shifted back.
Result<std::string> ApplyDiffsToWholeFile(const std::string& base, const std::string& answer) {
  auto edits = ParseSearchReplace(answer);
  if (!edits.ok()) return edits.status();
  const bool newline = !base.empty() && base.back() == '\n';
  const std::string head = "// EVOLVE-BLOCK-START\n", tail = "// EVOLVE-BLOCK-END\n";
  auto applied = ApplySearchReplace(head + base + (newline ? "" : "\n") + tail, *edits);
  if (!applied.ok()) {
    std::string msg = applied.status().message();
    static const std::pair<const char*, const char*> kPlaces[] = {{" in the EVOLVE blocks", " in the file"},
                                                                  {" the EVOLVE blocks", " the file"}};
    for (const auto& [from, to] : kPlaces)
      for (size_t p = msg.find(from); p != std::string::npos; p = msg.find(from)) msg.replace(p, std::string(from).size(), to);
    // "at line N" and "starting at lines N, M" name wrapped-file lines: one more than the file's.
    std::string fixed;
    std::regex number_list(R"((at lines? )([0-9][0-9, ]*))");
    std::sregex_iterator it(msg.begin(), msg.end(), number_list), end;
    size_t last = 0;
    for (; it != end; ++it) {
      fixed += msg.substr(last, it->position(0) - last) + (*it)[1].str();
      const std::string nums = (*it)[2].str();
      for (size_t i = 0; i < nums.size();) {
        if (std::isdigit(static_cast<unsigned char>(nums[i]))) {
          size_t j = i;
          while (j < nums.size() && std::isdigit(static_cast<unsigned char>(nums[j]))) ++j;
          fixed += std::to_string(std::max(1L, std::stol(nums.substr(i, j - i)) - 1));
          i = j;
        } else {
          fixed += nums[i++];
        }
      }
      last = it->position(0) + it->length(0);
    }
    fixed += msg.substr(last);
    return Status::InvalidArgument(fixed);
  }
  std::string code = *applied;
  if (code.rfind(head, 0) != 0 || code.size() < head.size() + tail.size() ||
      code.compare(code.size() - tail.size(), tail.size(), tail) != 0)
    return Status::Internal("the whole-file wrapper was not kept");
  code = code.substr(head.size(), code.size() - head.size() - tail.size());
  if (!newline && !code.empty() && code.back() == '\n') code.pop_back();
  return code;
}

// The longest fenced block of `answer` for which `accept` holds; nullopt when none.
std::optional<std::string> LongestFence(const std::string& answer,
                                        const std::function<bool(const std::string&)>& accept) {
  std::optional<std::string> best;
  for (const std::string& f : FencedCodeBlocks(answer))
    if (accept(f) && (!best || f.size() > best->size())) best = f;
  return best;
}

// Fills the texts a caller left empty.
LlmTransformInputs Resolve(const LlmTransformInputs& in, const LlmTransformOptions& options) {
  LlmTransformInputs r = in;
  const bool cuda = r.workload.language != "cpu";
  if (r.stages.empty()) r.stages = DefaultLlmStages(r.workload, r.code);
  if (cuda && r.design_space_text.empty()) r.design_space_text = DesignSpaceText();
  if (cuda && r.api_text.empty()) r.api_text = LoadCodesignApiText(options.max_api_chars);
  if (r.workload.mode == "harness" && r.contract_text.empty()) {
    auto c = LoadCandidateContract(r.workload.language);
    if (c.ok()) r.contract_text = *c;
  }
  if (cuda && r.analysis_text.empty()) {
    std::error_code ec;
    Result<Analysis> analysis = Status::NotFound("");
    if (!r.code_path.empty() && fs::is_regular_file(r.code_path, ec)) {
      analysis = AnalyzeFile(r.code_path);
    } else {
      static std::atomic<int> counter{0};
      const fs::path tmp = fs::temp_directory_path(ec) /
                           ("cuco-llm-transform-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + ".cu");
      if (WriteFileAtomic(tmp, r.code).ok()) {
        analysis = AnalyzeFile(tmp.string());
        fs::remove(tmp, ec);
      }
    }
    r.analysis_text = analysis.ok() ? AnalysisPromptText(*analysis)
                                    : "(analysis unavailable: " + analysis.status().message() + ")";
  }
  return r;
}

struct Spending {
  int calls = 0;
  int64_t in = 0, out = 0;
  double dollars = 0;
};

std::string BudgetSpent(const Spending& s, const LlmTransformOptions& o) {
  if (o.max_llm_calls > 0 && s.calls >= o.max_llm_calls)
    return "LLM call budget spent: " + std::to_string(s.calls) + " of " + std::to_string(o.max_llm_calls) + " calls";
  if (o.max_dollars > 0 && s.dollars >= o.max_dollars)
    return "dollar budget spent: " + Money(s.dollars) + " of " + Money(o.max_dollars);
  return "";
}

void Charge(const ChatResponse& r, Spending* total, LlmTransformAttempt* a) {
  total->in += r.usage.input_tokens;
  total->out += r.usage.output_tokens;
  total->dollars += r.usage.dollars;
  a->input_tokens += r.usage.input_tokens;
  a->output_tokens += r.usage.output_tokens;
  a->dollars += r.usage.dollars;
}

}  // namespace

Result<StageAnswer> ParseStageAnswer(const LlmStage& stage, bool blocks, const std::string& frozen_ref,
                                      const std::string& base, const std::string& answer, const std::string& path) {
  const std::string a = NormalizeNewlines(answer);
  if (Trim(a).empty()) return Status::InvalidArgument("the answer is empty");
  if (stage.annotate) {
    auto file = LongestFence(a, [](const std::string& f) { return f.find("EVOLVE-BLOCK-START") != std::string::npos; });
    if (!file)
      return Status::InvalidArgument(
          "the answer has no fenced code block with EVOLVE-BLOCK-START / EVOLVE-BLOCK-END lines: give the whole "
          "annotated file in one fence");
    return StageAnswer{*file, "file"};
  }
  if (blocks) {
    auto applied = ApplyLlmAnswer(frozen_ref, base, a, path);
    if (!applied.ok()) return Status::InvalidArgument(Reword(applied.status().message()));
    return StageAnswer{applied->code, applied->format == "diff" ? "diff" : "file"};
  }
  StageAnswer out;
  if (HasSearchReplace(a)) {
    auto code = ApplyDiffsToWholeFile(base, a);
    if (!code.ok()) return Status::InvalidArgument(Reword(code.status().message()));
    out = {*code, "diff"};
  } else {
    auto file = LongestFence(a, [](const std::string&) { return true; });
    if (!file)
      return Status::InvalidArgument(
          "the answer has neither SEARCH/REPLACE edits nor the whole file in a fenced code block");
    const size_t base_lines = Lines(base).size(), file_lines = Lines(*file).size();
    if (base_lines > 20 && file_lines * 2 < base_lines)
      return Status::InvalidArgument("the fenced code has " + std::to_string(file_lines) + " lines and the file " +
                                     std::to_string(base_lines) +
                                     ": it looks like a fragment; give the whole file or SEARCH/REPLACE edits");
    out = {*file, "file"};
  }
  if (out.code.find(kMarkerText) != std::string::npos && base.find(kMarkerText) == std::string::npos)
    return Status::InvalidArgument("the rewrite adds EVOLVE-BLOCK marker lines: add none in this stage");
  if (out.code == base) return Status::InvalidArgument("the answer changes nothing: the new code equals the current code");
  return out;
}


// ---------------------------------------------------------------------------------------------
// The loop

Result<LlmTransformResult> RunLlmTransform(const LlmTransformInputs& raw_inputs, LlmClient& writer, LlmClient& judge,
                                           const EvaluateFn& evaluate, const RecordAttemptFn& record,
                                           const LlmTransformOptions& options) {
  if (Trim(raw_inputs.code).empty()) return Status::InvalidArgument("llm transform: the code to transform is empty");
  if (!evaluate) return Status::InvalidArgument("llm transform: no evaluate callback");
  if (!record) return Status::InvalidArgument("llm transform: no record callback");
  if (options.max_iterations < 1) return Status::InvalidArgument("llm transform: max_iterations must be at least 1");
  const std::string path = raw_inputs.code_path.empty() ? std::string("input") : raw_inputs.code_path;
  if (raw_inputs.code.find(kMarkerText) != std::string::npos) {
    auto split = SplitEvolveBlocks(raw_inputs.code, path, /*require_blocks=*/false);
    if (!split.ok()) return Status::InvalidArgument("llm transform: " + split.status().message());
  }
  const LlmTransformInputs inputs = Resolve(raw_inputs, options);
  if (inputs.stages.empty()) return Status::InvalidArgument("llm transform: no stages");
  const bool blocks = HasEvolveBlocks(inputs.code);
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };

  LlmTransformResult result;
  Spending spent;
  std::string current = inputs.code;
  std::optional<EvalRecord> current_record;  // the passing evaluation of `evaluated_code`
  std::string evaluated_code;
  bool stopped = false;

  for (const LlmStage& stage : inputs.stages) {
    LlmStageOutcome outcome;
    outcome.id = stage.id;
    outcome.name = stage.name;
    outcome.status = "not_run";
    if (stopped) {
      result.stages.push_back(outcome);
      continue;
    }
    const std::string stage_title = "stage " + stage.id + " (" + stage.name + ")";
    std::string skip = stage.annotate && blocks ? "the file has EVOLVE blocks already" : "";
    if (skip.empty() && stage.skip) skip = stage.skip(current);
    if (!skip.empty()) {
      outcome.status = "skipped";
      outcome.reason = skip;
      outcome.code = current;
      progress(stage_title + ": skipped: " + skip);
      result.stages.push_back(outcome);
      continue;
    }

    const std::string stage_input = current;
    std::string base = current;
    std::vector<LlmTransformAttempt> history;
    history.reserve(static_cast<size_t>(options.max_iterations));
    bool passed = false;
    std::string last_failure;

    for (int it = 1; it <= options.max_iterations; ++it) {
      if (std::string b = BudgetSpent(spent, options); !b.empty()) {
        last_failure = b;
        result.stop_reason = b + " (" + stage_title + ", before attempt " + std::to_string(it) + ")";
        stopped = true;
        break;
      }
      LlmTransformAttempt a;
      a.stage = stage.name;
      a.stage_id = stage.id;
      a.iteration = it;
      a.label = options.label_prefix + "-" + stage.id + "-" + stage.name + "-" + std::to_string(it);
      const std::string attempt_title =
          stage_title + " attempt " + std::to_string(it) + "/" + std::to_string(options.max_iterations);

      LlmTransformPromptState state;
      state.stage = &stage;
      state.stage_input = stage_input;
      state.base = base;
      state.iteration = it;
      for (const auto& h : history) state.history.push_back(&h);
      ChatRequest req;
      req.model = options.writer_model;
      req.messages = BuildWriterMessages(inputs, state, options);
      req.temperature = options.writer_temperature;
      req.max_tokens = options.writer_max_tokens;
      progress(attempt_title + ": asking the writer");
      Result<ChatResponse> answer = writer.Complete(req);
      ++spent.calls;
      ++a.llm_calls;

      bool judge_it = false;
      if (!answer.ok()) {
        a.failure_kind = "call";
        a.reason = "the writer's call failed: " + answer.status().message();
      } else {
        Charge(*answer, &spent, &a);
        a.answer_excerpt = CapText(answer->text, options.max_excerpt_chars);
        a.answer_summary = AnswerSummary(answer->text);
        auto parsed = ParseStageAnswer(stage, blocks, inputs.code, base, answer->text, path);
        if (!parsed.ok()) {
          a.failure_kind = "format";
          a.reason = parsed.status().message();
          if (CutOff(answer->finish_reason))
            a.reason += " (the answer was cut off at the " + std::to_string(options.writer_max_tokens) + "-token limit)";
          judge_it = options.judge_format_errors;
        } else {
          a.code = parsed->code;
          a.diff = LineDiff(base, a.code, "current", "attempt " + std::to_string(it), 3, options.max_diff_chars);
          Status check = stage.annotate ? CheckAnnotationOnly(stage_input, a.code, path) : Status::Ok();
          if (check.ok() && stage.check) check = stage.check(stage_input, a.code);
          if (!check.ok()) {
            a.failure_kind = "check";
            a.reason = check.message();
            judge_it = true;
          } else if (stage.evaluate) {
            progress(attempt_title + ": evaluating " + a.label);
            a.record = evaluate(a.code, a.label);
            if (options.passing.count(a.record->status)) {
              a.passed = true;
            } else {
              a.failure_kind = "evaluation";
              a.reason = std::string(EvalStatusName(a.record->status)) + ": " + a.record->reason;
              judge_it = true;
            }
          } else {
            a.passed = true;
          }
        }
      }

      if (!a.passed && judge_it && it < options.max_iterations) {
        if (std::string b = BudgetSpent(spent, options); !b.empty()) {
          a.judge_error = "not asked: " + b;
        } else {
          ChatRequest jreq;
          jreq.model = options.judge_model;
          jreq.messages = BuildJudgeMessages(inputs, stage, base, a, options);
          jreq.temperature = options.judge_temperature;
          jreq.max_tokens = options.judge_max_tokens;
          progress(attempt_title + ": " + a.failure_kind + " failure; asking the judge");
          Result<ChatResponse> verdict = judge.Complete(jreq);
          ++spent.calls;
          ++a.llm_calls;
          if (verdict.ok()) {
            Charge(*verdict, &spent, &a);
            a.judge_feedback = Trim(verdict->text);
          } else {
            a.judge_error = verdict.status().message();
          }
        }
      }
      progress(attempt_title + ": " + (a.passed ? std::string("passed") : AttemptOutcomeText(a)));
      record(a);
      ++result.attempts;

      if (a.passed) {
        passed = true;
        current = a.code;
        if (a.record) {
          current_record = a.record;
          evaluated_code = a.code;
        }
        break;
      }
      last_failure = AttemptOutcomeText(a);
      if (!options.restart_each_attempt && !a.code.empty()) base = a.code;
      history.push_back(std::move(a));
    }

    outcome.attempts = static_cast<int>(history.size()) + (passed ? 1 : 0);
    if (passed) {
      outcome.status = "passed";
      outcome.code = current;
    } else {
      outcome.status = "failed";
      outcome.reason = last_failure;
      if (!stopped)
        result.stop_reason = stage_title + " did not pass in " + std::to_string(options.max_iterations) +
                             " attempt" + (options.max_iterations == 1 ? "" : "s") + "; the last: " + last_failure;
      stopped = true;
    }
    result.stages.push_back(outcome);
  }

  if (!stopped) {
    // The accepted code needs a passing evaluation: of itself, or of the code it annotates.
    const bool covered = current_record && (evaluated_code == current ||
                                            (HasEvolveBlocks(current) && !HasEvolveBlocks(evaluated_code) &&
                                             CheckAnnotationOnly(evaluated_code, current, path).ok()));
    if (!covered) {
      LlmTransformAttempt a;
      a.stage = "final";
      a.stage_id = "final";
      a.iteration = 1;
      a.label = options.label_prefix + "-final";
      a.code = current;
      a.diff = LineDiff(inputs.code, current, "input", "final", 3, options.max_diff_chars);
      progress("final check: evaluating " + a.label);
      a.record = evaluate(current, a.label);
      a.passed = options.passing.count(a.record->status) > 0;
      if (!a.passed) {
        a.failure_kind = "evaluation";
        a.reason = std::string(EvalStatusName(a.record->status)) + ": " + a.record->reason;
      }
      record(a);
      ++result.attempts;
      if (a.passed) {
        current_record = a.record;
      } else {
        result.stop_reason = "the final code did not pass its evaluation: " + a.reason;
        stopped = true;
      }
    }
  }
  if (!stopped) {
    result.accepted = true;
    result.code = current;
    result.record = current_record;
  }
  result.llm_calls = spent.calls;
  result.input_tokens = spent.in;
  result.output_tokens = spent.out;
  result.dollars = spent.dollars;
  progress(result.accepted ? "accepted after " + std::to_string(result.attempts) + " attempt(s), " +
                                 std::to_string(result.llm_calls) + " LLM call(s), " + Money(result.dollars)
                           : "gave up: " + result.stop_reason);
  return result;
}

}  // namespace cuco
