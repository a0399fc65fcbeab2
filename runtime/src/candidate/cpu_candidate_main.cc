// The CPU candidate runtime: main() of a CPU workload's candidate executable (candidate code plus
// this file). It runs inside the sandbox, one process per rank, and is as untrusted as the
// candidate it carries: nothing it says is believed without a check the supervisor makes itself.
// It maps the buffers the supervisor shares (memfds), calls the candidate's three functions when
// told to, and reports what they returned (cuco/protocol.h).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <string>

#include "common/channel.h"
#include "cuco/cpu_harness.h"

namespace {

using namespace cuco::protocol;

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "cuco candidate runtime: %s\n", why.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

void Send(const Message& m) {
  const std::string err = SendMessage(kCandidateFd, m);
  if (!err.empty()) Die("cannot talk to the supervisor: " + err);
}

Received Receive(MsgType type) {
  Received got;
  std::string err;
  const RecvStatus st = RecvMessage(kCandidateFd, -1, &got, &err);
  if (st != RecvStatus::kOk) Die("the supervisor went away or sent garbage: " + err);
  if (got.msg.type != static_cast<uint32_t>(type) && type != MsgType::kIter)
    Die("unexpected message type " + std::to_string(got.msg.type));
  return got;
}

template <typename F>
std::string Guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return std::string("exception thrown by the candidate: ") + e.what();
  } catch (...) {
    return "unknown exception thrown by the candidate";
  }
}

}  // namespace

int main() {
  Send(MakeMessage(MsgType::kHello, kVersion, ::getpid()));
  Received cfg_msg = Receive(MsgType::kConfig);
  if (cfg_msg.payload.size() != sizeof(WireConfig)) Die("bad config");
  WireConfig cfg;
  std::memcpy(&cfg, cfg_msg.payload.data(), sizeof cfg);
  std::map<std::string, int64_t> sizes;
  for (int i = 0; i < cfg.n_sizes && i < kMaxSizes; ++i)
    sizes[std::string(cfg.sizes[i].name, strnlen(cfg.sizes[i].name, kMaxName))] = cfg.sizes[i].value;
  int inputs = 0, outputs = 0;
  for (int i = 0; i < cfg.n_buffers; ++i) (cfg.buffers[i].is_output ? outputs : inputs) += 1;
  if (static_cast<int>(cfg_msg.fds.size()) != inputs + outputs * cfg.output_sets) Die("wrong number of buffer fds");
  cuco::cpu::IO io[kMaxOutputSets];
  size_t fd_index = 0;
  auto map_buffer = [&](const WireBuffer& w) {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t mapped = std::max<size_t>(1, (w.bytes + page - 1) / page) * page;
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, cfg_msg.fds[fd_index++], 0);
    if (p == MAP_FAILED) Die("cannot map a buffer");
    return cuco::cpu::Buffer{p, static_cast<size_t>(w.bytes)};
  };
  for (int i = 0; i < cfg.n_buffers; ++i) {
    if (cfg.buffers[i].is_output) continue;
    const auto b = map_buffer(cfg.buffers[i]);
    const std::string name(cfg.buffers[i].name, strnlen(cfg.buffers[i].name, kMaxName));
    for (int set = 0; set < kMaxOutputSets; ++set) io[set].inputs[name] = b;
  }
  for (int set = 0; set < cfg.output_sets; ++set)
    for (int i = 0; i < cfg.n_buffers; ++i)
      if (cfg.buffers[i].is_output)
        io[set].outputs[std::string(cfg.buffers[i].name, strnlen(cfg.buffers[i].name, kMaxName))] =
            map_buffer(cfg.buffers[i]);

  cuco::cpu::Sizes sz(sizes);
  cuco::cpu::RankContext ctx;
  ctx.rank = cfg.rank;
  ctx.world_size = cfg.world;
  void* state = nullptr;
  std::string err = Guarded([&] {
    return cuco_candidate_setup(ctx, sz, &state) ? std::string() : "returned false: " + ctx.error;
  });
  Send(MakeMessage(MsgType::kReady, 0, 0, err));
  if (!err.empty()) return 3;
  for (;;) {
    Received m = Receive(MsgType::kIter);
    if (m.msg.type == static_cast<uint32_t>(MsgType::kTeardown)) break;
    if (m.msg.type != static_cast<uint32_t>(MsgType::kIter)) Die("unexpected message");
    const int set = static_cast<int>(m.msg.b);
    if (set < 0 || set >= cfg.output_sets) Die("bad output set");
    err = Guarded([&] {
      return cuco_candidate_run(ctx, state, io[set]) ? std::string() : "returned false: " + ctx.error;
    });
    Send(MakeMessage(MsgType::kIterDone, m.msg.a, 0, err));
  }
  err = Guarded([&] {
    cuco_candidate_teardown(ctx, state);
    return std::string();
  });
  Send(MakeMessage(MsgType::kBye, 0, 0, err));
  return 0;
}
