#include "search/run_config.h"

#include <gtest/gtest.h>

#include "workload/workload_config.h"

namespace cuco {
namespace {

// The example of docs/search.md.
const char* kFull = R"(seed = 7

[budget]
max_generations = 20
max_candidates = 200
max_wall_s = 7200
max_dollars = 25.0
gain_check_rounds = 5

[islands]
count = 3
seed_offset = 101
[islands.1]
knobs = { backend = ["ce"] }
prompt = "Use copy-engine transfers only."
[islands.2]
knobs = { backend = "lsa", chunks = [2, 4] }

[migration]
interval = 3
kind = "graph"
edges = [[0, 1], [1, 2], [2, 0]]
migrants = 2

[selection]
kind = "fitness_weighted"
exploitation = 1.5
lambda = 8.0
beam_width = 3

[archive]
features = ["backend", "chunks"]
top_k = 4
cell_picks = 1

[mutation]
exploit_from = 0.6
[mutation.explore]
knobs = 0.5
diff = 0.3
rewrite = 0.1
crossover = 0.1
temperature = 1.0
[mutation.exploit]
knobs = 0.2
diff = 0.6
rewrite = 0.0
crossover = 0.2
temperature = 0.3

[novelty]
threshold = 0.95
measure = "jaccard"
shingle = 5
apply_to = ["diff", "rewrite", "crossover"]

[proposer]
name = "builtin"
max_attempts = 4
[proposer.llm]
models = ["a", "b"]
endpoint = { url = "http://x" }

[parallelism]
evaluations = 4
per_generation = 8
compiles = 3
overlap_generations = true

[meta]
summary_interval = 2
recent_failures = 5
)";

Result<RunConfig> Parse(const std::string& text) { return ParseRunConfig(text, "/r/run.toml"); }

std::string Err(const std::string& text) {
  auto c = Parse(text);
  return c.ok() ? "(parsed)" : c.status().message();
}

TEST(RunConfig, EmptyFileGivesDefaults) {
  auto c = Parse("");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->seed, 1u);
  EXPECT_EQ(c->max_generations, 0);  // the candidates bound a default search
  EXPECT_EQ(c->max_candidates, 50);
  EXPECT_EQ(c->islands, 2);
  EXPECT_EQ(c->proposer, "builtin");
  EXPECT_EQ(c->selection, "power_law");
  EXPECT_EQ(c->migration_kind, "elitist");
  EXPECT_EQ(c->evaluations, 0);
  EXPECT_GT(c->explore.knobs, 0);
}

TEST(RunConfig, FullExample) {
  auto c = Parse(kFull);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->seed, 7u);
  EXPECT_EQ(c->max_candidates, 200);
  EXPECT_DOUBLE_EQ(c->max_wall_s, 7200);
  EXPECT_DOUBLE_EQ(c->max_dollars, 25);
  EXPECT_EQ(c->gain_check_rounds, 5);
  EXPECT_EQ(c->islands, 3);
  EXPECT_EQ(c->island_seed_offset, 101u);
  ASSERT_EQ(c->island_specs.size(), 2u);
  EXPECT_EQ(c->island_specs.at(1).knobs.at("backend"), std::vector<std::string>{"ce"});
  EXPECT_EQ(c->island_specs.at(1).prompt, "Use copy-engine transfers only.");
  EXPECT_EQ(c->island_specs.at(2).knobs.at("backend"), std::vector<std::string>{"lsa"});
  EXPECT_EQ(c->island_specs.at(2).knobs.at("chunks"), (std::vector<std::string>{"2", "4"}));
  EXPECT_EQ(c->migration_kind, "graph");
  EXPECT_EQ(c->migration_edges.size(), 3u);
  EXPECT_EQ(c->migrants, 2);
  EXPECT_EQ(c->selection, "fitness_weighted");
  EXPECT_DOUBLE_EQ(c->fitness_lambda, 8);
  EXPECT_EQ(c->feature_knobs, (std::vector<std::string>{"backend", "chunks"}));
  EXPECT_EQ(c->top_k, 4);
  EXPECT_DOUBLE_EQ(c->exploit_from, 0.6);
  EXPECT_FALSE(c->exploit_from_is_generation);
  EXPECT_DOUBLE_EQ(c->exploit.diff, 0.6);
  EXPECT_DOUBLE_EQ(c->exploit.temperature, 0.3);
  EXPECT_EQ(c->shingle_tokens, 5);
  EXPECT_EQ(c->novelty_kinds.size(), 3u);
  EXPECT_EQ(c->max_attempts, 4);
  ASSERT_TRUE(c->proposer_options.count("llm"));
  EXPECT_EQ(c->proposer_options.at("llm")["endpoint"]["url"], "http://x");
  EXPECT_EQ(c->proposer_option_lines.at("llm.models"), 61);
  EXPECT_EQ(c->evaluations, 4);
  EXPECT_EQ(c->per_generation, 8);
  EXPECT_TRUE(c->overlap_generations);
  EXPECT_EQ(c->summary_interval, 2);
}

TEST(RunConfig, ErrorsNameFileAndLine) {
  EXPECT_EQ(Err("seed = 1\nbogus = 2\n"), "/r/run.toml:2: unknown key 'bogus'");
  EXPECT_EQ(Err("[budget]\nmax_candidates = 5\nmax_candidtes = 6\n"), "/r/run.toml:3: unknown key 'budget.max_candidtes'");
  EXPECT_EQ(Err("[budget]\nmax_candidates = \"many\"\n"), "/r/run.toml:2: 'budget.max_candidates' must be an integer");
  EXPECT_EQ(Err("[selection]\nkind = \"roulette\"\n"),
            "/r/run.toml:2: 'selection.kind' must be one of: power_law, fitness_weighted, beam (got 'roulette')");
  EXPECT_EQ(Err("[islands]\ncount = 2\n[islands.2]\nprompt = \"x\"\n"),
            "/r/run.toml:3: [islands.2]: there are only 2 islands (islands.count), numbered from 0");
  EXPECT_EQ(Err("[islands]\nwhat = 1\n"), "/r/run.toml:2: unknown key 'islands.what' (per-island settings go in [islands.N], N an island number)");
  EXPECT_EQ(Err("[islands.0]\nknobz = {}\n"), "/r/run.toml:2: unknown key 'islands.0.knobz'");
  EXPECT_EQ(Err("[migration]\nkind = \"graph\"\nedges = [[0, 5]]\n"),
            "/r/run.toml:3: 'migration.edges': island numbers run from 0 to 1 (islands.count)");
  EXPECT_EQ(Err("[migration]\nedges = [[0, 1]]\n"), "/r/run.toml:2: 'migration.edges' is only used with kind = \"graph\"");
  EXPECT_EQ(Err("[mutation]\nexploit_from = 1.5\n"),
            "/r/run.toml:2: 'mutation.exploit_from' as a fraction of the budget must be in [0, 1] (an integer names a generation)");
  EXPECT_EQ(Err("[mutation.explore]\nknobs = 0\ndiff = 0\nrewrite = 0\ncrossover = 0\n"),
            "/r/run.toml:1: [mutation.explore]: the weights of knobs, diff, rewrite and crossover must not all be 0");
  EXPECT_EQ(Err("[mutation.exploit]\ntemperature = 3\n"), "/r/run.toml:2: 'mutation.exploit.temperature' must be in [0, 2]");
  EXPECT_EQ(Err("[novelty]\nmeasure = \"embedding\"\n").substr(0, 47), "/r/run.toml:2: 'novelty.measure = \"embedding\"' ");
  EXPECT_NE(Err("[novelty]\nmeasure = \"embedding\"\n").find("needs a [novelty.embedding] table"), std::string::npos);
  EXPECT_NE(Err("[novelty]\nmeasure = \"embedding\"\n[novelty.embedding]\nprovider = \"anthropic\"\nmodel = \"m\"\n")
                .find("provider must be openai"), std::string::npos);
  EXPECT_EQ(Err("[novelty]\napply_to = [\"diff\", \"magic\"]\n"),
            "/r/run.toml:2: 'novelty.apply_to': 'magic' is not one of: knobs, diff, rewrite, crossover");
  EXPECT_EQ(Err("[proposer]\nname = \"llm\"\nmodel = \"x\"\n"),
            "/r/run.toml:3: unknown key 'proposer.model' (a proposer's own settings go in [proposer.model])");
  EXPECT_EQ(Err("[budget]\nmax_generations = 0\nmax_candidates = 0\n"),
            "/r/run.toml:1: [budget]: max_generations and max_candidates cannot both be 0 (no limit)");
  EXPECT_EQ(Err("[parallelism]\ncompiles = 0\n"), "/r/run.toml:2: 'parallelism.compiles' must be in [1, 1024]");
  EXPECT_EQ(Err("[parallelism]\noverlap_generations = 1\n"),
            "/r/run.toml:2: 'parallelism.overlap_generations' must be true or false");
  EXPECT_EQ(Err("budget = 3\n"), "/r/run.toml:1: 'budget' must be a table ([budget])");
  EXPECT_EQ(Err("[budget\n").substr(0, 14), "/r/run.toml:1:");
}

TEST(RunConfig, WrittenBackAsToml) {
  // Found by fuzzing: a string with a form feed (written raw, TOML rejects it) and a dotted key
  // deeper than TOML readers nest inline tables (written as nested `{ }`, it no longer read).
  std::string deep = "[proposer.llm]\n";
  for (int i = 0; i < 300; ++i) deep += i ? ".k" : "k";
  deep += " = 1\nempty = {}\n[slurm]\npartition = \"a\\fe\\u0007\"\n";
  for (std::string text : {std::string(""), std::string(kFull),
                           std::string("[mutation]\nexploit_from = 4\n[proposer.llm]\n\"odd key\" = [1.5, true]\n"), deep}) {
    auto c = Parse(text);
    ASSERT_TRUE(c.ok()) << c.status().message();
    const std::string toml = RunConfigToToml(*c);
    auto again = Parse(toml);
    ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << toml;
    EXPECT_EQ(RunConfigToToml(*again), toml);
    EXPECT_EQ(again->island_specs.size(), c->island_specs.size());
    EXPECT_EQ(again->proposer_options, c->proposer_options);
    EXPECT_EQ(again->exploit_from_is_generation, c->exploit_from_is_generation);
  }
}

TEST(RunConfig, SlurmLauncher) {
  auto c = Parse("launcher = \"slurm\"\n[slurm]\nmode = \"jobs\"\npartition = \"gpu\"\naccount = \"a1\"\nqos = \"q\"\n"
                 "constraint = \"h100\"\nreservation = \"r\"\nsbatch_args = [\"--mem=0\"]\nmax_jobs = 8\n"
                 "time_margin_s = 30\npending_limit_s = 120\nretries = 1\npoll_s = 0.5\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->launcher, "slurm");
  EXPECT_EQ(c->slurm.mode, "jobs");
  EXPECT_EQ(c->slurm.partition, "gpu");
  EXPECT_EQ(c->slurm.sbatch_args, std::vector<std::string>{"--mem=0"});
  EXPECT_EQ(c->slurm.max_jobs, 8);
  EXPECT_EQ(c->slurm.retries, 1);
  auto again = Parse(RunConfigToToml(*c));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->slurm.reservation, "r");
  EXPECT_EQ(again->launcher, "slurm");
  EXPECT_EQ(Parse("")->launcher, "local");
  EXPECT_EQ(Err("launcher = \"ray\"\n"), "/r/run.toml:1: 'launcher' must be one of: local, slurm (got 'ray')");
  EXPECT_EQ(Err("[slurm]\nmax_jobs = 0\n"), "/r/run.toml:2: 'slurm.max_jobs' must be in [1, 100000]");
  EXPECT_EQ(Err("[slurm]\npartion = \"x\"\n"), "/r/run.toml:2: unknown key 'slurm.partion'");
}

TEST(RunConfig, ExploitFrom) {
  auto gen = Parse("[budget]\nmax_generations = 10\n[mutation]\nexploit_from = 4\n");
  ASSERT_TRUE(gen.ok());
  EXPECT_TRUE(gen->exploit_from_is_generation);
  EXPECT_EQ(gen->PhaseAt(3, 0), "explore");
  EXPECT_EQ(gen->PhaseAt(4, 0), "exploit");
  auto frac = Parse("[budget]\nmax_generations = 10\nmax_candidates = 100\n[mutation]\nexploit_from = 0.5\n");
  ASSERT_TRUE(frac.ok());
  EXPECT_EQ(frac->PhaseAt(4, 10), "explore");
  EXPECT_EQ(frac->PhaseAt(5, 10), "exploit");   // half the generations
  EXPECT_EQ(frac->PhaseAt(1, 50), "exploit");   // half the candidates
}

TEST(RunConfig, CheckedAgainstTheWorkload) {
  WorkloadConfig w;
  w.name = "w";
  w.knobs = {{"backend", {"lsa", "ce"}, "lsa", ""}, {"chunks", {"1", "2", "4"}, "1", ""}};
  auto ok = Parse(kFull);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(CheckRunConfigAgainst(*ok, w).ok()) << CheckRunConfigAgainst(*ok, w).message();
  auto bad_feature = Parse("[archive]\nfeatures = [\"backend\", \"colour\"]\n");
  ASSERT_TRUE(bad_feature.ok());
  EXPECT_EQ(CheckRunConfigAgainst(*bad_feature, w).message().substr(0, 51), "/r/run.toml:2: 'archive.features': 'colour' is not ");
  auto bad_value = Parse("[islands.1]\nknobs = { chunks = [8] }\n");
  ASSERT_TRUE(bad_value.ok());
  EXPECT_EQ(CheckRunConfigAgainst(*bad_value, w).message(), "/r/run.toml:2: [islands.1]: '8' is not a value of knob 'chunks'");
}

TEST(RunConfig, WorkloadWorldSizeAndSizes) {
  WorkloadConfig w;
  w.name = "w";
  w.toml_path = "/w/workload.toml";
  w.world_sizes = {1, 2, 4};
  w.bench_sizes = {{"T", 4096}, {"SKEW", 0}};
  auto c = Parse("[workload]\nworld_size = 1\nsizes = { T = 1024, SKEW = 1 }\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->world_size, 1);
  EXPECT_EQ(SizeSettings(*c), (std::vector<std::string>{"SKEW=1", "T=1024"}));
  EXPECT_TRUE(CheckRunConfigAgainst(*c, w).ok());
  auto again = Parse(RunConfigToToml(*c));  // a resumed run reads them back from its config.toml
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->world_size, 1);
  EXPECT_EQ(again->sizes, c->sizes);

  auto bad_world = Parse("seed = 2\n[workload]\nworld_size = 8\n");
  ASSERT_TRUE(bad_world.ok());
  EXPECT_EQ(CheckRunConfigAgainst(*bad_world, w).message(),
            "/r/run.toml:3: 'workload.world_size' = 8 is not among the world_sizes of /w/workload.toml");
  auto bad_size = Parse("[workload]\nsizes = { Q = 3 }\n");
  ASSERT_TRUE(bad_size.ok());
  EXPECT_EQ(CheckRunConfigAgainst(*bad_size, w).message(),
            "/r/run.toml:2: 'workload.sizes': 'Q' is not a bench size of /w/workload.toml (SKEW, T)");
  EXPECT_EQ(Err("[workload]\nsizes = { T = \"big\" }\n"), "/r/run.toml:2: 'workload.sizes.T' must be an integer");
  EXPECT_EQ(Err("[workload]\nworld = 2\n"), "/r/run.toml:2: unknown key 'workload.world'");
}

}  // namespace
}  // namespace cuco

namespace cuco {
namespace {

TEST(RunConfig, NoveltyByAnEmbeddingEndpoint) {
  auto c = ParseRunConfig("[novelty]\nmeasure = \"embedding\"\n[novelty.embedding]\nprovider = \"openai\"\n"
                          "base_url = \"http://127.0.0.1:8000/v1\"\nmodel = \"nomic-embed-text\"\napi_key_env = \"\"\n",
                          "/r/run.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(c->novelty_embedding.has_value());
  EXPECT_EQ(c->novelty_embedding->model, "nomic-embed-text");
  EXPECT_EQ(c->novelty_embedding->base_url, "http://127.0.0.1:8000/v1");
}

}  // namespace
}  // namespace cuco
