#include "search/meta_summary.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace cuco {
namespace {

struct Tally {
  int tried = 0, ok = 0;
  double best_ms = -1;
  int64_t best_id = 0;
  std::map<std::string, int> failures;  // status -> count

  void Add(const SummaryItem& it) {
    ++tried;
    if (it.status == "ok" && it.time_ms > 0) {
      ++ok;
      if (best_ms < 0 || it.time_ms < best_ms) {
        best_ms = it.time_ms;
        best_id = it.id;
      }
    } else if (it.status != "ok") {
      ++failures[it.status];
    }
  }
  std::string Text(double reference_ms) const {
    std::string s = fmt::format("{} tried, {} ok", tried, ok);
    if (best_ms > 0) {
      s += fmt::format(", best {:.4g} ms (#{}", best_ms, best_id);
      if (reference_ms > 0) s += fmt::format(", {:.2f}x", reference_ms / best_ms);
      s += ")";
    }
    if (!failures.empty()) {
      s += "; failures:";
      for (const auto& [k, n] : failures) s += fmt::format(" {} {}", k, n);
    }
    return s;
  }
};

std::string ConfigText(const std::map<std::string, std::string>& c) {
  std::string s;
  for (const auto& [k, v] : c) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s.empty() ? "(no knobs)" : s;
}

}  // namespace

std::string MetaSummary(const std::vector<SummaryItem>& items, const std::vector<Knob>& knobs, double reference_ms,
                        int through_generation) {
  std::string out = fmt::format("Meta-summary through generation {}: {} candidates evaluated", through_generation, items.size());
  Tally all;
  for (const auto& it : items) all.Add(it);
  out += fmt::format(" ({}).\n", all.Text(reference_ms));
  if (reference_ms > 0) out += fmt::format("Seed (reference) time: {:.4g} ms.\n", reference_ms);
  const SummaryItem* best = nullptr;
  for (const auto& it : items)
    if (it.status == "ok" && it.time_ms > 0 && (!best || it.time_ms < best->time_ms)) best = &it;
  if (best) out += fmt::format("Best so far: #{} {:.4g} ms, {}.\n", best->id, best->time_ms, ConfigText(best->knobs));
  else out += "No candidate has passed yet.\n";

  std::vector<std::string> untried;
  if (!knobs.empty()) {
    out += "Per knob value:\n";
    for (const auto& k : knobs) {
      for (const auto& v : k.values) {
        Tally t;
        for (const auto& it : items) {
          auto kv = it.knobs.find(k.name);
          if (kv != it.knobs.end() && kv->second == v) t.Add(it);
        }
        if (t.tried == 0) {
          untried.push_back(k.name + "=" + v);
          out += fmt::format("  {}={}: never tried\n", k.name, v);
        } else {
          out += fmt::format("  {}={}: {}\n", k.name, v, t.Text(reference_ms));
        }
      }
    }
  }
  std::map<std::string, Tally> by_kind;
  for (const auto& it : items) by_kind[it.mutation_kind.empty() ? "?" : it.mutation_kind].Add(it);
  out += "Per mutation kind:\n";
  for (const auto& [kind, t] : by_kind) out += fmt::format("  {}: {}\n", kind, t.Text(reference_ms));

  // Failure classes with the latest reason of each.
  std::map<std::string, std::string> last_reason;
  for (const auto& it : items)
    if (it.status != "ok" && !it.reason.empty()) last_reason[it.status] = fmt::format("#{}: {}", it.id, it.reason);
  if (!last_reason.empty()) {
    out += "Latest failure of each class:\n";
    for (const auto& [status, r] : last_reason) out += fmt::format("  {}: {}\n", status, r.substr(0, 300));
  }

  // Try next: untried values, then untried one-knob neighbours of the best.
  std::vector<std::string> next;
  for (const auto& u : untried) next.push_back("set " + u + " (never tried)");
  if (best) {
    std::set<std::map<std::string, std::string>> tried;
    for (const auto& it : items) tried.insert(it.knobs);
    for (const auto& k : knobs) {
      auto cur = best->knobs.find(k.name);
      if (cur == best->knobs.end()) continue;
      for (const auto& v : k.values) {
        if (v == cur->second) continue;
        auto c = best->knobs;
        c[k.name] = v;
        if (!tried.count(c)) next.push_back(fmt::format("from the best (#{}), set {}={}", best->id, k.name, v));
      }
    }
  }
  if (next.empty()) {
    out += "Try next: every knob value and every one-knob neighbour of the best has been tried; change the code "
           "itself (diff or rewrite).\n";
  } else {
    out += "Try next:\n";
    for (size_t i = 0; i < next.size() && i < 12; ++i) out += "  - " + next[i] + "\n";
    if (next.size() > 12) out += fmt::format("  ... and {} more\n", next.size() - 12);
  }
  return out;
}

}  // namespace cuco
