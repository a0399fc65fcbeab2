// The analysis as text: `cuco analyze`'s listing, its JSON, and the summary prompts carry.
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analyze/analysis.h"

namespace cuco {

namespace {

std::string OpSummary(const AnalyzedOp& op) {
  std::string s = op.api;
  if (op.kind == "kernel") {
    s += fmt::format("<<<{}, {}{}>>>({})", op.grid, op.block, op.smem.empty() ? "" : ", " + op.smem,
                     fmt::join(op.args, ", "));
  } else if (op.kind == "collective" || op.kind == "p2p") {
    std::vector<std::string> parts;
    if (!op.send.empty()) parts.push_back("send=" + op.send);
    if (!op.recv.empty()) parts.push_back("recv=" + op.recv);
    if (!op.count.empty()) parts.push_back("count=" + op.count);
    if (!op.datatype.empty()) parts.push_back("type=" + op.datatype);
    if (!op.red_op.empty()) parts.push_back("op=" + op.red_op);
    if (!op.root.empty()) parts.push_back("root=" + op.root);
    if (!op.peer.empty()) parts.push_back("peer=" + op.peer);
    if (!op.comm.empty()) parts.push_back("comm=" + op.comm);
    s += " " + fmt::format("{}", fmt::join(parts, " "));
  } else if (op.kind == "gemm" || op.kind == "copy") {
    s += fmt::format(" reads={} writes={}", fmt::join(op.reads, ","), fmt::join(op.writes, ","));
  } else if (op.kind == "call") {
    s += fmt::format("({}) reads={} writes={}{}", fmt::join(op.args, ", "), fmt::join(op.reads, ","), fmt::join(op.writes, ","),
                     op.contains_comm ? " (issues NCCL inside)" : "");
  } else {
    if (!op.assigns.empty()) s += " -> " + op.assigns;
    if (!op.buffer.empty()) s += " " + op.buffer;
  }
  if (!op.stream.empty()) s += " [stream " + op.stream + "]";
  return s;
}

}  // namespace

std::string FormatAnalysis(const Analysis& a) {
  std::string out = fmt::format("{}: parsed with {}\n", a.path, a.parse_path);
  for (const auto& w : a.warnings) out += "warning: " + w + "\n";
  for (const auto& f : a.functions) {
    bool any = false;
    for (const auto& op : a.ops) any |= op.function == f.name;
    if (!any) continue;
    out += fmt::format("\nfunction {} (line {})\n", f.name, f.line);
    for (const auto& op : a.ops) {
      if (op.function != f.name) continue;
      out += fmt::format("  #{:<3} {}:{:<5} {:<11} {}{}\n", op.index, std::filesystem::path(op.file).filename().string(),
                         op.line, op.kind, OpSummary(op), op.group >= 0 ? fmt::format("  (group {})", op.group) : "");
    }
  }
  if (!a.groups.empty()) {
    out += "\ngroups\n";
    for (size_t i = 0; i < a.groups.size(); ++i) {
      const auto& g = a.groups[i];
      out += fmt::format("  group {}: {} lines {}-{}: {} ({} ops)\n", i, g.function, g.start_line, g.end_line,
                         g.pattern, g.ops.size());
    }
  }
  out += "\ncommunication dependency graph\n";
  bool any_comm = false;
  for (const auto& c : a.ops) {
    if (c.kind != "collective" && c.kind != "p2p" && !(c.kind == "call" && c.contains_comm)) continue;
    any_comm = true;
    std::vector<std::string> prod, cons;
    for (const auto& e : a.edges) {
      if (e.to == c.index && e.role == "producer")
        prod.push_back(fmt::format("#{} {}:{} ({}, stream {}, ordered by {})", e.from, a.ops[e.from].api,
                                   a.ops[e.from].line, e.buffer, a.ops[e.from].stream, e.via));
      if (e.from == c.index && e.role == "consumer")
        cons.push_back(fmt::format("#{} {}:{} ({}, stream {}, ordered by {})", e.to, a.ops[e.to].api, a.ops[e.to].line,
                                   e.buffer, a.ops[e.to].stream, e.via));
    }
    out += fmt::format("  [{}] -> #{} {}:{} (stream {}) -> [{}]\n", prod.empty() ? "none found" : fmt::format("{}", fmt::join(prod, "; ")),
                       c.index, c.api, c.line, c.stream, cons.empty() ? "none found" : fmt::format("{}", fmt::join(cons, "; ")));
  }
  if (!any_comm) out += "  (no NCCL communication found)\n";
  out += fmt::format("\nstreams: {}\n", a.streams.empty() ? "(none)" : fmt::format("{}", fmt::join(a.streams, ", ")));
  return out;
}

nlohmann::json AnalysisToJson(const Analysis& a) {
  // Schema (version 1):
  // { "schema": "cuco.analysis/1", "path", "parse_path": "clang"|"clang-stub"|"lexical",
  //   "files": [str], "warnings": [str], "functions": [{"name","file","line","params":[str]}],
  //   "ops": [{"index","kind","api","function","file","line","args":[str], and where present: "send","recv",
  //            "count","datatype","op","root","peer","comm","stream","buffer","assigns","grid","block",
  //            "smem","group","contains_comm" (kind call), plus "reads":[str],"writes":[str] (buffer
  //            base variables)}],
  //   "groups": [{"function","start_line","end_line","ops":[int],"pattern"}],
  //   "edges": [{"from","to","buffer","role":"producer"|"consumer","via"}], "streams": [str] }
  nlohmann::json j;
  j["schema"] = "cuco.analysis/1";
  j["path"] = a.path;
  j["parse_path"] = a.parse_path;
  j["warnings"] = a.warnings;
  j["functions"] = nlohmann::json::array();
  j["files"] = a.files;
  for (const auto& f : a.functions)
    j["functions"].push_back({{"name", f.name}, {"file", f.file}, {"line", f.line}, {"params", f.params}});
  j["ops"] = nlohmann::json::array();
  for (const auto& op : a.ops) {
    nlohmann::json o = {{"index", op.index}, {"kind", op.kind}, {"api", op.api}, {"function", op.function},
                        {"file", op.file},   {"line", op.line},   {"args", op.args}, {"reads", op.reads}, {"writes", op.writes}};
    auto put = [&](const char* k, const std::string& v) {
      if (!v.empty()) o[k] = v;
    };
    put("send", op.send), put("recv", op.recv), put("count", op.count), put("datatype", op.datatype);
    put("op", op.red_op), put("root", op.root), put("peer", op.peer), put("comm", op.comm), put("stream", op.stream);
    put("buffer", op.buffer), put("assigns", op.assigns), put("grid", op.grid), put("block", op.block);
    put("smem", op.smem);
    if (op.group >= 0) o["group"] = op.group;
    if (op.kind == "call") o["contains_comm"] = op.contains_comm;
    j["ops"].push_back(o);
  }
  j["groups"] = nlohmann::json::array();
  for (const auto& g : a.groups)
    j["groups"].push_back({{"function", g.function}, {"start_line", g.start_line}, {"end_line", g.end_line},
                           {"ops", g.ops}, {"pattern", g.pattern}});
  j["edges"] = nlohmann::json::array();
  for (const auto& e : a.edges)
    j["edges"].push_back({{"from", e.from}, {"to", e.to}, {"buffer", e.buffer}, {"role", e.role}, {"via", e.via}});
  j["streams"] = a.streams;
  // Names and expressions come from the source text, which need not be UTF-8: bytes that are not
  // become U+FFFD, so that dump() of the result never throws.
  return nlohmann::json::parse(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string AnalysisPromptText(const Analysis& a) {
  std::string out = fmt::format("Program analysis ({}, {}):\n", std::filesystem::path(a.path).filename().string(), a.parse_path);
  for (const auto& op : a.ops) {
    if (op.kind == "sync" || op.kind == "mpi" || op.kind == "comm_setup" || op.kind == "alloc" || op.kind == "stream" ||
        op.kind == "event" || op.kind == "window" || op.kind == "device_comm" || op.kind == "group" || op.kind == "kernel" ||
        op.kind == "gemm" || op.kind == "copy" || op.kind == "collective" || op.kind == "p2p" || op.kind == "call")
      out += fmt::format("#{} {}:{} {}\n", op.index, op.function, op.line, OpSummary(op));
  }
  for (size_t i = 0; i < a.groups.size(); ++i)
    out += fmt::format("group {} ({}:{}-{}): {}\n", i, a.groups[i].function, a.groups[i].start_line, a.groups[i].end_line,
                       a.groups[i].pattern);
  for (const auto& e : a.edges)
    out += fmt::format("edge #{} {} -> #{} {} via {} (ordered by {})\n", e.from, a.ops[e.from].api, e.to, a.ops[e.to].api,
                       e.buffer, e.via);
  return out;
}

}  // namespace cuco
