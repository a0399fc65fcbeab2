// The Slurm command lines and scontrol's output (slurm_commands.h).
#include "launch/slurm_commands.h"

#include <cmath>
#include <sstream>

#include <fmt/format.h>

namespace cuco {
namespace {

void Common(const SlurmOptions& o, const SlurmShape& s, std::vector<std::string>* a) {
  a->push_back("--job-name=" + s.job_name);
  a->push_back(fmt::format("--nodes={}", s.nodes));
  a->push_back(fmt::format("--ntasks={}", s.nodes * s.tasks_per_node));
  a->push_back(fmt::format("--ntasks-per-node={}", s.tasks_per_node));
  if (s.gpus_per_node > 0) a->push_back(fmt::format("--gres=gpu:{}", s.gpus_per_node));
  if (s.time_limit_s > 0) a->push_back("--time=" + SlurmMinutes(s.time_limit_s));
  if (!s.output.empty()) a->push_back("--output=" + s.output);
  if (!s.chdir.empty()) a->push_back("--chdir=" + s.chdir);
  if (!o.partition.empty()) a->push_back("--partition=" + o.partition);
  if (!o.account.empty()) a->push_back("--account=" + o.account);
  if (!o.qos.empty()) a->push_back("--qos=" + o.qos);
  if (!o.constraint.empty()) a->push_back("--constraint=" + o.constraint);
  if (!o.reservation.empty()) a->push_back("--reservation=" + o.reservation);
}

}  // namespace

SlurmShape ShapeForWorld(int world, int nodes, bool gpus) {
  SlurmShape s;
  s.nodes = std::max(1, nodes);
  s.tasks_per_node = std::max(1, world / s.nodes);
  s.gpus_per_node = gpus ? s.tasks_per_node : 0;
  return s;
}

std::string SlurmMinutes(double seconds) {
  return std::to_string(std::max<long long>(1, static_cast<long long>(std::ceil(seconds / 60.0))));
}

std::vector<std::string> SbatchArgv(const SlurmOptions& o, const SlurmShape& s, const std::string& script) {
  std::vector<std::string> a = {"sbatch", "--parsable", "--no-requeue"};
  Common(o, s, &a);
  a.insert(a.end(), o.sbatch_args.begin(), o.sbatch_args.end());
  a.push_back(script);
  return a;
}

std::vector<std::string> SrunArgv(const SlurmOptions& o, const SlurmShape& s, const std::vector<std::string>& command) {
  // --exact: the step gets only what it asks for, so steps pack onto the allocation's GPUs side by side.
  std::vector<std::string> a = {"srun", "--exact", "--kill-on-bad-exit=1"};
  Common(o, s, &a);
  a.insert(a.end(), o.srun_args.begin(), o.srun_args.end());
  a.insert(a.end(), command.begin(), command.end());
  return a;
}

std::vector<std::string> ScontrolShowJobArgv(const std::string& job_id) { return {"scontrol", "-o", "show", "job", job_id}; }

std::vector<std::string> ScancelArgv(const std::vector<std::string>& ids) {
  std::vector<std::string> a = {"scancel"};
  a.insert(a.end(), ids.begin(), ids.end());
  return a;
}

SlurmJobInfo ParseScontrolJob(const std::string& text) {
  SlurmJobInfo j;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    j.fields.emplace(word.substr(0, eq), word.substr(eq + 1));
  }
  auto get = [&](const char* k) { auto it = j.fields.find(k); return it == j.fields.end() ? std::string() : it->second; };
  j.state = get("JobState");
  j.known = !j.state.empty() && !get("JobId").empty();
  j.reason = get("Reason");
  j.nodes = get("NodeList");
  std::string ec = get("ExitCode");
  if (auto c = ec.find(':'); c != std::string::npos) {
    j.exit_code = std::atoi(ec.substr(0, c).c_str());
    j.signal = std::atoi(ec.substr(c + 1).c_str());
  }
  return j;
}

std::vector<std::string> SinfoPartitionsArgv() { return {"sinfo", "-h", "-o", "%P|%a|%D|%T|%G"}; }

std::vector<SlurmPartition> ParseSinfoPartitions(const std::string& text) {
  std::vector<SlurmPartition> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream ls(line);
    for (std::string x; std::getline(ls, x, '|');) f.push_back(x);
    if (f.size() != 5) continue;
    SlurmPartition p;
    p.name = f[0];
    if (!p.name.empty() && p.name.back() == '*') {
      p.name.pop_back();
      p.is_default = true;
    }
    p.avail = f[1];
    p.nodes = std::atoi(f[2].c_str());
    p.state = f[3];
    p.gres = f[4];
    out.push_back(p);
  }
  return out;
}

SlurmJobPhase ClassifyJobState(const std::string& state) {
  static const char* waiting[] = {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD"};
  static const char* ended[] = {"COMPLETED", "FAILED", "OUT_OF_MEMORY"};
  for (const char* w : waiting)
    if (state == w) return SlurmJobPhase::kWaiting;
  for (const char* e : ended)
    if (state == e) return SlurmJobPhase::kEnded;
  if (state == "TIMEOUT") return SlurmJobPhase::kTimeLimit;
  if (state == "CANCELLED" || state == "NODE_FAIL" || state == "PREEMPTED" || state == "BOOT_FAIL" ||
      state == "DEADLINE" || state == "REVOKED" || state == "SPECIAL_EXIT")
    return SlurmJobPhase::kInfrastructure;
  return SlurmJobPhase::kRunning;  // RUNNING, COMPLETING, SUSPENDED, STOPPED, RESIZING, SIGNALING, STAGE_OUT
}

}  // namespace cuco
