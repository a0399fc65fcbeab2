// cuco/program/impl/iteration_graph.h: the graph knob of cuco/program/codesign.h. The iteration's
// body captured into a CUDA graph per binding of the harness's buffers, and replayed.
#pragma once

#include <bitset>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include <cuco/harness.h>

namespace cuco_program {
namespace candidate_detail {

// The graph knob: "off", "on", or a value this runtime does not know. set_graph only keeps the
// value: it runs in a static initialiser, where a candidate may call nothing of the C library
// (object_init_check.h), and the builder may hand the value over at run time (codesign.h).
struct GraphKnob {
  bool set = false;
  const char* value = nullptr;
  bool on() const { return set && value != nullptr && std::strcmp(value, "on") == 0; }
  // "" for "off", "on" or no knob; else the value, to name it.
  std::string unknown() const {
    if (!set || (value != nullptr && (std::strcmp(value, "on") == 0 || std::strcmp(value, "off") == 0))) return "";
    return value != nullptr ? value : "(null)";
  }
};
inline GraphKnob& Graph() {
  static GraphKnob knob;
  return knob;
}

class IterationGraphs {
 public:
  // Runs `body` for the binding `key` (the harness buffers the binds handed out): eagerly on the
  // key's first visit, captured into a graph on its second, the graph replayed on ctx.stream
  // from then on. `side_streams`: how many ctx.side_stream(i) the program was given; `events_used`:
  // how many harness events it holds (the capture takes its fork and join events from the top).
  // Returns "" or why the iteration failed. An exception out of the body ends a capture first.
  std::string Run(const std::vector<void*>& key, cuco::RankContext& ctx, int side_streams, int events_used,
                  const std::function<void()>& body) {
    Entry& e = graphs_[key];
    if (e.visits++ == 0) {
      body();
      return "";
    }
    if (e.exec == nullptr) {
      std::string error = Capture(ctx, side_streams, events_used, body, &e.exec);
      if (!error.empty()) return error;
    }
    const cudaError_t r = cudaGraphLaunch(e.exec, ctx.stream);
    return r == cudaSuccess ? "" : std::string("graph knob: cudaGraphLaunch: ") + cudaGetErrorString(r);
  }

  // "" unless the last capture ended by an exception out of the body (the program's own error
  // check, cuco_program::ProgramExit): then why, for the iteration's error; cleared by the call.
  std::string TakeInterruptedCapture() {
    if (interrupted_capture_.empty()) return "";
    const std::string why = interrupted_capture_, refused = refused_;
    interrupted_capture_.clear();
    refused_.clear();
    if (!refused.empty())  // cuco's own call, not the program's: the knob pair, not graph alone, is wrong
      return "; it ran inside the graph knob's capture, where " + refused + " refused to run (cannot be captured into a "
             "CUDA graph): graph \"on\" does not go with that knob value";
    return "; it ran inside the graph knob's capture, where a call the program checks failed (" + why +
           "): a synchronous cudaMemcpy or cudaMemset, a host synchronisation or a launch on the legacy default "
           "stream cannot be captured into a CUDA graph; keep graph = \"off\"";
  }
  // The program's events across captures (the shims of cudaEventRecord and cudaStreamWaitEvent,
  // candidate_shims.h). A wait the shim drops, because it waits for an earlier pass, which what
  // comes next on ctx.stream follows already (the harness joins every stream into ctx.stream after
  // each pass, and a graph's launch is one piece of work on it):
  //   - in a capture, for an event not recorded since the capture began: a capture cannot wait for
  //     work outside it (a double buffer's `cudaStreamWaitEvent(comm, used[next])`);
  //   - outside one, for an event last recorded inside a capture (the graph holds that record; CUDA
  //     refuses the wait: "invalid argument"), as the next binding's eager pass after a replay does.
  void NoteRecord(int event) {
    if (event < 0 || event >= cuco::RankContext::kMaxEvents) return;
    if (capturing_) recorded_.set(event);
    captured_[event] = capturing_;
  }
  bool SkipsWait(int event) const {
    if (event < 0 || event >= cuco::RankContext::kMaxEvents) return false;
    return capturing_ ? !recorded_.test(event) : captured_.test(event);
  }

  // A collective of cuco's own that cannot be captured (the backend knob's "ce") says so before it
  // fails the program's call: the capture's error then names it, not the program.
  void NoteCaptureRefused(std::string what) { refused_ = std::move(what); }

  // At teardown, after the last iteration and before the communicator goes: waits for the device
  // and destroys every graph. NCCL's ncclCommDestroy waits until no graph holds work of the
  // communicator, so a graph left alive hangs the teardown.
  void Clear() {
    if (graphs_.empty()) return;
    cudaDeviceSynchronize();
    for (auto& [key, e] : graphs_)
      if (e.exec != nullptr) cudaGraphExecDestroy(e.exec);
    graphs_.clear();
  }

 private:
  struct Entry {
    int visits = 0;
    cudaGraphExec_t exec = nullptr;
  };
  bool capturing_ = false;                               // the body runs inside Capture
  std::bitset<cuco::RankContext::kMaxEvents> recorded_;  // the program's events recorded since the capture began
  std::bitset<cuco::RankContext::kMaxEvents> captured_;  // the program's events last recorded in a capture

  std::string Capture(cuco::RankContext& ctx, int side_streams, int events_used,
                             const std::function<void()>& body, cudaGraphExec_t* exec) {
    const int fork = cuco::RankContext::kMaxEvents - 1;
    if (events_used + 1 + side_streams > cuco::RankContext::kMaxEvents)
      return "graph knob: the program holds " + std::to_string(events_used) +
             " events; none of the harness's is left to fork its streams into a capture";
    cudaError_t r = cudaStreamBeginCapture(ctx.stream, cudaStreamCaptureModeThreadLocal);
    if (r != cudaSuccess) return std::string("graph knob: cudaStreamBeginCapture: ") + cudaGetErrorString(r);
    refused_.clear();
    ctx.record_event(fork, ctx.stream);
    for (int i = 0; i < side_streams; ++i) ctx.wait_event(ctx.side_stream(i), fork);
    capturing_ = true;
    recorded_.reset();
    try {
      body();
      capturing_ = false;
    } catch (...) {
      capturing_ = false;
      // The program's own check ended the capture (a call in it returned an error): what the
      // capture made of that call, for the iteration's error (TakeInterruptedCapture).
      const cudaError_t last = cudaPeekAtLastError();
      interrupted_capture_ = last != cudaSuccess ? cudaGetErrorString(last) : "the error is not CUDA's";
      cudaGraph_t dropped = nullptr;
      cudaStreamEndCapture(ctx.stream, &dropped);
      if (dropped != nullptr) cudaGraphDestroy(dropped);
      cudaGetLastError();
      throw;
    }
    for (int i = 0; i < side_streams; ++i) {
      ctx.record_event(fork - 1 - i, ctx.side_stream(i));
      ctx.wait_event(ctx.stream, fork - 1 - i);
    }
    cudaGraph_t graph = nullptr;
    r = cudaStreamEndCapture(ctx.stream, &graph);
    if (r != cudaSuccess || graph == nullptr) {
      if (graph != nullptr) cudaGraphDestroy(graph);
      cudaGetLastError();
      return std::string("graph knob: the iteration could not be captured into a CUDA graph (") +
             cudaGetErrorString(r) +
             "): it synchronises with the host, launches on the legacy default stream, or makes a call a capture "
             "forbids; keep graph = \"off\"";
    }
    r = cudaGraphInstantiate(exec, graph, 0);
    cudaGraphDestroy(graph);
    if (r != cudaSuccess) {
      *exec = nullptr;
      return std::string("graph knob: cudaGraphInstantiate: ") + cudaGetErrorString(r);
    }
    return "";
  }

  std::map<std::vector<void*>, Entry> graphs_;
  std::string refused_;  // NoteCaptureRefused, for the capture in progress
  std::string interrupted_capture_;
};

}  // namespace candidate_detail

inline bool set_graph(const char* value) {
  candidate_detail::GraphKnob& g = candidate_detail::Graph();
  g.set = true;
  g.value = value;
  return true;
}

}  // namespace cuco_program
