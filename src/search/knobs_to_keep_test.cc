#include "search/knobs_to_keep.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

SearchCandidate Cand(const std::string& status, const std::string& graph, const std::string& feedback) {
  SearchCandidate c;
  c.rec.status = status;
  c.rec.time_ms = status == "ok" ? 1.0 : -1;
  c.rec.feedback = feedback;
  c.knobs = {{"backend", "nccl"}, {"graph", graph}};
  return c;
}

const std::vector<Knob> kKnobs = {{"backend", {"nccl", "lsa", "ce"}, "nccl", "", true},
                                  {"graph", {"off", "on"}, "off", "", true}};
const std::string kCapture =
    "runtime_error: verify: ... the iteration called exit(1) (the program's own error check); it ran inside the graph "
    "knob's capture, where a call the program checks failed (...): ...; keep graph = \"off\" [change: knobs: graph off -> on]";

TEST(KnobsToKeep, ACaptureTheProgramCannotMakeKeepsTheGraphOff) {
  Population pop(4);
  pop.all()[1] = Cand("ok", "off", "ok 1.0 ms");
  pop.all()[2] = Cand("runtime_error", "on", kCapture);
  const auto keep = KnobsToKeep(pop, kKnobs);
  EXPECT_EQ(keep, (std::map<std::string, std::string>{{"graph", "off"}}));
  // Every island keeps it; an island restricted elsewhere keeps its own restriction.
  EXPECT_EQ(WithKeptKnobs({}, keep), (std::map<std::string, std::vector<std::string>>{{"graph", {"off"}}}));
  EXPECT_EQ(WithKeptKnobs({{"graph", {"on", "off"}}, {"backend", {"ce"}}}, keep),
            (std::map<std::string, std::vector<std::string>>{{"graph", {"off"}}, {"backend", {"ce"}}}));
  EXPECT_EQ(WithKeptKnobs({{"graph", {"on"}}}, keep), (std::map<std::string, std::vector<std::string>>{{"graph", {"on"}}}));
}

TEST(KnobsToKeep, WhatPassedOrWasNotDeclaredIsNotRuledOut) {
  Population pop(4);
  pop.all()[2] = Cand("runtime_error", "on", kCapture);
  pop.all()[3] = Cand("ok", "on", "ok 0.9 ms");  // graph on has worked: the reason does not hold
  EXPECT_TRUE(KnobsToKeep(pop, kKnobs).empty());
  Population other(4);
  other.all()[2] = Cand("runtime_error", "on", "keep tiles = \"4\"; keep graph = \"sideways\"");  // no such knob, value
  other.all()[4] = Cand("runtime_error", "off", "keep graph = \"off\"");  // its own value: says nothing of the other
  EXPECT_TRUE(KnobsToKeep(other, kKnobs).empty());
}

// cuco's copy-engine collectives refusing the graph knob's capture (iteration_graph.h's reason for it)
// rule out the pair, not graph "on": lsa/on may be the best (tp_mlp_mpi at W=2, 2x H200).
TEST(KnobsToKeep, ACollectiveOfCucosRefusingTheCaptureDoesNotKeepTheGraphOff) {
  Population pop(4);
  pop.all()[1] = Cand("ok", "off", "ok 1.0 ms");
  pop.all()[2] = Cand("runtime_error", "on",
                      "runtime_error: verify: ... (the program's own error check); it ran inside the graph knob's "
                      "capture, where cuco's copy-engine ncclAllReduce (backend \"ce\") refused to run (cannot be captured "
                      "into a CUDA graph): graph \"on\" does not go with that knob value [change: knobs: backend lsa -> ce]");
  EXPECT_TRUE(KnobsToKeep(pop, kKnobs).empty());
}

}  // namespace
}  // namespace cuco
