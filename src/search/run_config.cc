#include "search/run_config.h"
#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "util/files.h"
#include "util/toml_reader.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

nlohmann::json ToJson(const toml::node& n, const std::string& key, std::map<std::string, int>* lines) {
  (*lines)[key] = TomlReader::LineOf(n);
  if (const toml::table* t = n.as_table()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : *t) j[std::string(k.str())] = ToJson(v, key + "." + std::string(k.str()), lines);
    return j;
  }
  if (const toml::array* a = n.as_array()) {
    nlohmann::json j = nlohmann::json::array();
    for (size_t i = 0; i < a->size(); ++i) j.push_back(ToJson(*a->get(i), key + "[" + std::to_string(i) + "]", lines));
    return j;
  }
  if (n.is_string()) return *n.value<std::string>();
  if (n.is_integer()) return *n.value<int64_t>();
  if (n.is_floating_point()) return *n.value<double>();
  if (n.is_boolean()) return *n.value<bool>();
  return "(a TOML date or time)";  // proposers take no dates
}

// `launcher = "local" | "slurm"` and the [slurm] table.
Status ParseLauncher(TomlReader& r, const std::string& path, RunConfig* c) {
  CUCO_RETURN_IF_ERROR(r.OneOf("launcher", &c->launcher, {"local", "slurm"}));
  const toml::table* t = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("slurm", &t));
  if (!t) return Status::Ok();
  TomlReader s(*t, path, "slurm");
  SlurmOptions& o = c->slurm;
  CUCO_RETURN_IF_ERROR(s.OneOf("mode", &o.mode, {"auto", "steps", "jobs"}));
  for (auto [key, out] : {std::pair<const char*, std::string*>{"partition", &o.partition}, {"account", &o.account},
                          {"qos", &o.qos}, {"constraint", &o.constraint}, {"reservation", &o.reservation}})
    CUCO_RETURN_IF_ERROR(s.String(key, out));
  CUCO_RETURN_IF_ERROR(s.StringArray("sbatch_args", &o.sbatch_args));
  CUCO_RETURN_IF_ERROR(s.StringArray("srun_args", &o.srun_args));
  CUCO_RETURN_IF_ERROR(s.Integer("max_jobs", &o.max_jobs, 1, 100000));
  CUCO_RETURN_IF_ERROR(s.Number("time_margin_s", &o.time_margin_s, 0, 1e7));
  CUCO_RETURN_IF_ERROR(s.Number("pending_limit_s", &o.pending_limit_s, 1, 1e7));
  CUCO_RETURN_IF_ERROR(s.Integer("retries", &o.retries, 0, 100));
  CUCO_RETURN_IF_ERROR(s.Number("poll_s", &o.poll_s, 0.05, 600));
  return s.RejectUnknown();
}

const std::vector<std::string> kKinds = {"knobs", "diff", "rewrite", "crossover"};

Status ParsePhase(const toml::table& t, const std::string& path, const std::string& name, PhaseMix* mix) {
  TomlReader r(t, path, "mutation." + name);
  CUCO_RETURN_IF_ERROR(r.Number("knobs", &mix->knobs, 0, 1e9));
  CUCO_RETURN_IF_ERROR(r.Number("diff", &mix->diff, 0, 1e9));
  CUCO_RETURN_IF_ERROR(r.Number("rewrite", &mix->rewrite, 0, 1e9));
  CUCO_RETURN_IF_ERROR(r.Number("crossover", &mix->crossover, 0, 1e9));
  CUCO_RETURN_IF_ERROR(r.Number("temperature", &mix->temperature, 0, 2));
  CUCO_RETURN_IF_ERROR(r.RejectUnknown());
  if (!(mix->knobs + mix->diff + mix->rewrite + mix->crossover > 0))
    return r.ErrorAtTable("[mutation." + name + "]: the weights of knobs, diff, rewrite and crossover must not all be 0");
  return Status::Ok();
}

Status ParseIslands(TomlReader& top, const std::string& path, RunConfig* c) {
  const toml::table* t = nullptr;
  CUCO_RETURN_IF_ERROR(top.Table("islands", &t));
  if (!t) return Status::Ok();
  TomlReader r(*t, path, "islands");
  CUCO_RETURN_IF_ERROR(r.Integer("count", &c->islands, 1, 1024));
  int64_t offset = static_cast<int64_t>(c->island_seed_offset);
  CUCO_RETURN_IF_ERROR(r.Integer("seed_offset", &offset, 0));
  c->island_seed_offset = static_cast<uint64_t>(offset);
  for (const auto& [k, v] : *t) {
    const std::string key(k.str());
    if (key == "count" || key == "seed_offset") continue;
    if (key.empty() || !std::all_of(key.begin(), key.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      return r.Error(v, "unknown key 'islands." + key + "' (per-island settings go in [islands.N], N an island number)");
    r.Allow(key);
    const int island = std::stoi(key.size() > 6 ? "999999" : key);
    if (island >= c->islands)
      return r.Error(v, "[islands." + key + "]: there are only " + std::to_string(c->islands) +
                                                 " islands (islands.count), numbered from 0");
    const toml::table* it = v.as_table();
    if (!it) return r.Error(v, "'islands." + key + "' must be a table ([islands." + key + "])");
    TomlReader ir(*it, path, "islands." + key);
    IslandSpec spec;
    CUCO_RETURN_IF_ERROR(ir.String("prompt", &spec.prompt));
    if (const toml::node* kn = ir.Get("knobs")) {
      const toml::table* kt = kn->as_table();
      if (!kt) return ir.Error(*kn, "'islands." + key + ".knobs' must be a table, e.g. { backend = [\"ce\"] }");
      for (const auto& [name, vals] : *kt) {
        std::vector<std::string> allowed;
        if (const toml::array* a = vals.as_array()) {
          for (const toml::node& e : *a) {
            std::string s = TomlScalarText(e);
            if (s.empty()) return ir.Error(e, "island knob values must be strings, integers, floats or booleans");
            allowed.push_back(s);
          }
        } else {
          std::string s = TomlScalarText(vals);
          if (s.empty()) return ir.Error(vals, "'islands." + key + ".knobs." + std::string(name.str()) + "' must be a value or an array of values");
          allowed.push_back(s);
        }
        if (allowed.empty()) return ir.Error(vals, "'islands." + key + ".knobs." + std::string(name.str()) + "' allows no value");
        spec.knobs[std::string(name.str())] = allowed;
        spec.knob_lines[std::string(name.str())] = TomlReader::LineOf(vals);
      }
    }
    CUCO_RETURN_IF_ERROR(ir.RejectUnknown());
    c->island_specs[island] = std::move(spec);
  }
  return r.RejectUnknown();
}

// [migration]: the interval, kind and migrants; a graph's edges (a ring by default).
Status ParseMigrationTable(TomlReader& r, const std::string& path, RunConfig* c) {
  const toml::table* t = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("migration", &t));
  if (t) {
    TomlReader m(*t, path, "migration");
    CUCO_RETURN_IF_ERROR(m.Integer("interval", &c->migration_interval, 0));
    CUCO_RETURN_IF_ERROR(m.OneOf("kind", &c->migration_kind, {"elitist", "graph"}));
    CUCO_RETURN_IF_ERROR(m.Integer("migrants", &c->migrants, 1, 1000));
    if (const toml::node* e = m.Get("edges")) {
      const toml::array* a = e->as_array();
      if (!a) return m.Error(*e, "'migration.edges' must be an array of [from, to] pairs");
      for (const toml::node& pair : *a) {
        const toml::array* p = pair.as_array();
        if (!p || p->size() != 2 || !p->get(0)->is_integer() || !p->get(1)->is_integer())
          return m.Error(pair, "each 'migration.edges' entry must be [from, to], two island numbers");
        const int64_t from = *p->get(0)->value<int64_t>(), to = *p->get(1)->value<int64_t>();
        if (from < 0 || to < 0 || from >= c->islands || to >= c->islands)
          return m.Error(pair, "'migration.edges': island numbers run from 0 to " + std::to_string(c->islands - 1) + " (islands.count)");
        if (from == to) return m.Error(pair, "'migration.edges': an island cannot migrate to itself");
        c->migration_edges.push_back({static_cast<int>(from), static_cast<int>(to)});
      }
      if (c->migration_kind != "graph") return m.Error(*e, "'migration.edges' is only used with kind = \"graph\"");
    }
    CUCO_RETURN_IF_ERROR(m.RejectUnknown());
  }
  if (c->migration_kind == "graph" && c->migration_edges.empty())
    for (int i = 0; i < c->islands && c->islands > 1; ++i) c->migration_edges.push_back({i, (i + 1) % c->islands});
  return Status::Ok();
}

// [mutation]: when the search turns to exploiting, and each phase's settings.
Status ParseMutationTable(TomlReader& r, const std::string& path, RunConfig* c) {
  const toml::table* t = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("mutation", &t));
  if (t) {
    TomlReader m(*t, path, "mutation");
    if (const toml::node* e = m.Get("exploit_from")) {
      if (e->is_integer()) {
        const int64_t g = *e->value<int64_t>();
        if (g < 0) return m.Error(*e, "'mutation.exploit_from' must be >= 0");
        c->exploit_from = static_cast<double>(g);
        c->exploit_from_is_generation = true;
      } else if (e->is_floating_point()) {
        const double f = *e->value<double>();
        if (!(f >= 0 && f <= 1))
          return m.Error(*e, "'mutation.exploit_from' as a fraction of the budget must be in [0, 1] (an integer names a generation)");
        c->exploit_from = f;
        c->exploit_from_is_generation = false;
      } else {
        return m.Error(*e, "'mutation.exploit_from' must be a fraction of the budget (0.5) or a generation number (10)");
      }
    }
    const toml::table* p = nullptr;
    CUCO_RETURN_IF_ERROR(m.Table("explore", &p));
    if (p) CUCO_RETURN_IF_ERROR(ParsePhase(*p, path, "explore", &c->explore));
    CUCO_RETURN_IF_ERROR(m.Table("exploit", &p));
    if (p) CUCO_RETURN_IF_ERROR(ParsePhase(*p, path, "exploit", &c->exploit));
    CUCO_RETURN_IF_ERROR(m.RejectUnknown());
  }
  return Status::Ok();
}

// [novelty]: the threshold, its measure (an embedding endpoint for "embedding") and what it applies to.
Status ParseNoveltyTable(TomlReader& r, const std::string& path, RunConfig* c) {
  const toml::table* t = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("novelty", &t));
  if (t) {
    TomlReader n(*t, path, "novelty");
    CUCO_RETURN_IF_ERROR(n.Number("threshold", &c->novelty_threshold, 0, 1));
    CUCO_RETURN_IF_ERROR(n.OneOf("measure", &c->novelty_measure, {"jaccard", "embedding"}));
    CUCO_RETURN_IF_ERROR(n.Integer("shingle", &c->shingle_tokens, 1, 64));
    CUCO_RETURN_IF_ERROR(n.StringArray("apply_to", &c->novelty_kinds, kKinds));
    const toml::table* emb = nullptr;
    CUCO_RETURN_IF_ERROR(n.Table("embedding", &emb));
    if (emb) {
      auto e = LlmEndpointFromToml(*emb, path);
      if (!e.ok()) return e.status();
      if (e->provider != "openai" && e->provider != "gemini")
        return n.Error(*t->get("embedding"), "'novelty.embedding': provider must be openai (any OpenAI-compatible "
                                             "server) or gemini");
      c->novelty_embedding = *e;
    }
    CUCO_RETURN_IF_ERROR(n.RejectUnknown());
    if (c->novelty_measure == "embedding" && !c->novelty_embedding)
      return n.Error(*t->get("measure"),
                     "'novelty.measure = \"embedding\"' needs a [novelty.embedding] table naming the endpoint "
                     "(provider, base_url, model, api_key_env; docs/search.md), or use \"jaccard\"");
  }
  return Status::Ok();
}

// [proposer]: its name, attempts, and each proposer's own [proposer.<name>] settings.
Status ParseProposerTable(TomlReader& r, const std::string& path, RunConfig* c) {
  const toml::table* t = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("proposer", &t));
  if (t) {
    TomlReader p(*t, path, "proposer");
    if (const toml::node* nm = t->get("name")) c->proposer_line = TomlReader::LineOf(*nm);
    CUCO_RETURN_IF_ERROR(p.String("name", &c->proposer));
    if (c->proposer.empty()) return Status::AtLine(path, c->proposer_line, "'proposer.name' must not be empty");
    CUCO_RETURN_IF_ERROR(p.Integer("max_attempts", &c->max_attempts, 1, 100));
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      if (key == "name" || key == "max_attempts") continue;
      if (!v.is_table())
        return p.Error(v, "unknown key 'proposer." + key + "' (a proposer's own settings go in [proposer." + key + "])");
      p.Allow(key);
      c->proposer_options[key] = ToJson(v, key, &c->proposer_option_lines);
    }
    CUCO_RETURN_IF_ERROR(p.RejectUnknown());
  }
  return Status::Ok();
}

}  // namespace

std::string RunConfig::PhaseAt(int generation, int64_t candidates_so_far) const {
  if (exploit_from_is_generation) return generation >= exploit_from ? "exploit" : "explore";
  double progress = 0;
  if (max_generations > 0) progress = std::max(progress, static_cast<double>(generation) / max_generations);
  if (max_candidates > 0) progress = std::max(progress, static_cast<double>(candidates_so_far) / max_candidates);
  return progress >= exploit_from ? "exploit" : "explore";
}

Result<RunConfig> ParseRunConfig(const std::string& text, const std::string& path) {
  Result<toml::table> parsed = ParseToml(text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& root = *parsed;
  RunConfig c;
  c.path = path;
  TomlReader r(root, path, "");
  int64_t seed = 1;
  CUCO_RETURN_IF_ERROR(r.Integer("seed", &seed, 0));
  c.seed = static_cast<uint64_t>(seed);

  const toml::table* t = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("budget", &t));
  if (t) {
    TomlReader b(*t, path, "budget");
    CUCO_RETURN_IF_ERROR(b.Integer("max_generations", &c.max_generations, 0));
    CUCO_RETURN_IF_ERROR(b.Integer("max_candidates", &c.max_candidates, 0));
    CUCO_RETURN_IF_ERROR(b.Number("max_wall_s", &c.max_wall_s, 0, 1e12));
    CUCO_RETURN_IF_ERROR(b.Number("max_dollars", &c.max_dollars, 0, 1e12));
    CUCO_RETURN_IF_ERROR(b.Integer("gain_check_rounds", &c.gain_check_rounds, 0, 20));
    CUCO_RETURN_IF_ERROR(b.RejectUnknown());
    if (c.max_generations == 0 && c.max_candidates == 0)
      return b.ErrorAtTable("[budget]: max_generations and max_candidates cannot both be 0 (no limit)");
  }

  CUCO_RETURN_IF_ERROR(ParseIslands(r, path, &c));

  CUCO_RETURN_IF_ERROR(ParseMigrationTable(r, path, &c));

  CUCO_RETURN_IF_ERROR(r.Table("selection", &t));
  if (t) {
    TomlReader s(*t, path, "selection");
    CUCO_RETURN_IF_ERROR(s.OneOf("kind", &c.selection, {"power_law", "fitness_weighted", "beam"}));
    CUCO_RETURN_IF_ERROR(s.Number("exploitation", &c.exploitation, 0, 100));
    CUCO_RETURN_IF_ERROR(s.Number("lambda", &c.fitness_lambda, 1e-6, 1e6));
    CUCO_RETURN_IF_ERROR(s.Integer("beam_width", &c.beam_width, 1, 100000));
    CUCO_RETURN_IF_ERROR(s.RejectUnknown());
  }

  CUCO_RETURN_IF_ERROR(r.Table("archive", &t));
  if (t) {
    TomlReader a(*t, path, "archive");
    if (const toml::node* f = t->get("features")) c.feature_knobs_line = TomlReader::LineOf(*f);
    CUCO_RETURN_IF_ERROR(a.StringArray("features", &c.feature_knobs));
    CUCO_RETURN_IF_ERROR(a.Integer("top_k", &c.top_k, 0, 1000));
    CUCO_RETURN_IF_ERROR(a.Integer("cell_picks", &c.cell_picks, 0, 1000));
    CUCO_RETURN_IF_ERROR(a.RejectUnknown());
  }

  CUCO_RETURN_IF_ERROR(ParseMutationTable(r, path, &c));

  CUCO_RETURN_IF_ERROR(ParseNoveltyTable(r, path, &c));

  CUCO_RETURN_IF_ERROR(ParseProposerTable(r, path, &c));

  CUCO_RETURN_IF_ERROR(r.Table("parallelism", &t));
  if (t) {
    TomlReader p(*t, path, "parallelism");
    CUCO_RETURN_IF_ERROR(p.Integer("evaluations", &c.evaluations, 0, 4096));
    CUCO_RETURN_IF_ERROR(p.Integer("per_generation", &c.per_generation, 0, 100000));
    CUCO_RETURN_IF_ERROR(p.Integer("compiles", &c.compiles, 1, 1024));
    CUCO_RETURN_IF_ERROR(p.Bool("overlap_generations", &c.overlap_generations));
    CUCO_RETURN_IF_ERROR(p.RejectUnknown());
  }

  CUCO_RETURN_IF_ERROR(r.Table("workload", &t));
  if (t) {
    TomlReader w(*t, path, "workload");
    if (const toml::node* n = t->get("world_size")) c.world_size_line = TomlReader::LineOf(*n);
    CUCO_RETURN_IF_ERROR(w.Integer("world_size", &c.world_size, 0, 4096));
    if (const toml::node* n = w.Get("sizes")) {
      c.sizes_line = TomlReader::LineOf(*n);
      const toml::table* st = n->as_table();
      if (!st) return w.Error(*n, "'workload.sizes' must be a table of NAME = integer");
      for (const auto& [k, v] : *st) {
        const auto* iv = v.as_integer();
        if (!iv) return w.Error(v, "'workload.sizes." + std::string(k.str()) + "' must be an integer");
        c.sizes[std::string(k.str())] = iv->get();
      }
    }
    CUCO_RETURN_IF_ERROR(w.RejectUnknown());
  }

  CUCO_RETURN_IF_ERROR(r.Table("meta", &t));
  if (t) {
    TomlReader m(*t, path, "meta");
    CUCO_RETURN_IF_ERROR(m.Integer("summary_interval", &c.summary_interval, 1));
    CUCO_RETURN_IF_ERROR(m.Integer("recent_failures", &c.recent_failures, 0, 1000));
    CUCO_RETURN_IF_ERROR(m.RejectUnknown());
  }
  CUCO_RETURN_IF_ERROR(ParseLauncher(r, path, &c));
  CUCO_RETURN_IF_ERROR(r.RejectUnknown());
  return c;
}

Result<RunConfig> LoadRunConfig(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseRunConfig(*text, path);
}

namespace {

std::string StringArray(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + TomlQuoted(v[i]);
  return s + "]";
}

std::string TomlFloat(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  std::string s = os.str();
  if (s.find_first_of(".eE") == std::string::npos && s.find("inf") == std::string::npos) s += ".0";
  return s;
}

std::string TomlKey(const std::string& k) {
  bool bare = !k.empty();
  for (char ch : k) bare &= std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
  return bare ? k : TomlQuoted(k);
}

std::string TomlValue(const nlohmann::json& v);

// The `key = value` pairs of a JSON object, a non-empty nested object as dotted keys
// (`a.b.c = 1`) rather than nested inline tables, which TOML readers cap in depth (toml++: 256)
// while dotted keys of any depth read back.
void AppendPairs(const std::string& prefix, const nlohmann::json& object, std::vector<std::string>* pairs) {
  for (const auto& [k, e] : object.items()) {
    const std::string key = prefix.empty() ? TomlKey(k) : prefix + "." + TomlKey(k);
    if (e.is_object() && !e.empty())
      AppendPairs(key, e, pairs);
    else
      pairs->push_back(key + " = " + TomlValue(e));
  }
}

// A JSON value (as ToJson made it from TOML) written back as a TOML value.
std::string TomlValue(const nlohmann::json& v) {
  if (v.is_string()) return TomlQuoted(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return TomlFloat(v.get<double>());
  std::string s;
  if (v.is_array()) {
    for (const auto& e : v) s += (s.empty() ? "" : ", ") + TomlValue(e);
    return "[" + s + "]";
  }
  std::vector<std::string> pairs;
  AppendPairs("", v, &pairs);
  for (const std::string& p : pairs) s += (s.empty() ? "" : ", ") + p;
  return s.empty() ? "{}" : "{ " + s + " }";
}

std::string PhaseToml(const std::string& name, const PhaseMix& m) {
  return "[mutation." + name + "]\nknobs = " + TomlFloat(m.knobs) + "\ndiff = " + TomlFloat(m.diff) + "\nrewrite = " + TomlFloat(m.rewrite) +
         "\ncrossover = " + TomlFloat(m.crossover) + "\ntemperature = " + TomlFloat(m.temperature) + "\n";
}

}  // namespace

std::string RunConfigToToml(const RunConfig& c) {
  std::ostringstream o;
  o << "# cuco evolve run config (docs/search.md); every key is shown with its value.\n";
  o << "seed = " << c.seed << "\nlauncher = " << TomlQuoted(c.launcher) << "\n\n";
  o << "[budget]\nmax_generations = " << c.max_generations << "\nmax_candidates = " << c.max_candidates
    << "\nmax_wall_s = " << TomlFloat(c.max_wall_s) << "\nmax_dollars = " << TomlFloat(c.max_dollars)
    << "\ngain_check_rounds = " << c.gain_check_rounds << "\n\n";
  o << "[islands]\ncount = " << c.islands << "\nseed_offset = " << c.island_seed_offset << "\n";
  for (const auto& [i, spec] : c.island_specs) {
    o << "[islands." << i << "]\n";
    if (!spec.prompt.empty()) o << "prompt = " << TomlQuoted(spec.prompt) << "\n";
    if (!spec.knobs.empty()) {
      o << "knobs = { ";
      bool first = true;
      for (const auto& [k, vals] : spec.knobs) {
        o << (first ? "" : ", ") << k << " = " << StringArray(vals);
        first = false;
      }
      o << " }\n";
    }
  }
  o << "\n[migration]\ninterval = " << c.migration_interval << "\nkind = " << TomlQuoted(c.migration_kind)
    << "\nmigrants = " << c.migrants << "\n";
  if (c.migration_kind == "graph") {
    o << "edges = [";
    for (size_t i = 0; i < c.migration_edges.size(); ++i)
      o << (i ? ", " : "") << "[" << c.migration_edges[i].first << ", " << c.migration_edges[i].second << "]";
    o << "]\n";
  }
  o << "\n[selection]\nkind = " << TomlQuoted(c.selection) << "\nexploitation = " << TomlFloat(c.exploitation)
    << "\nlambda = " << TomlFloat(c.fitness_lambda) << "\nbeam_width = " << c.beam_width << "\n\n";
  o << "[archive]\nfeatures = " << StringArray(c.feature_knobs) << "\ntop_k = " << c.top_k
    << "\ncell_picks = " << c.cell_picks << "\n\n";
  o << "[mutation]\nexploit_from = "
    << (c.exploit_from_is_generation ? std::to_string(static_cast<int64_t>(c.exploit_from)) : TomlFloat(c.exploit_from)) << "\n";
  o << PhaseToml("explore", c.explore) << PhaseToml("exploit", c.exploit) << "\n";
  o << "[novelty]\nthreshold = " << TomlFloat(c.novelty_threshold) << "\nmeasure = " << TomlQuoted(c.novelty_measure)
    << "\nshingle = " << c.shingle_tokens << "\napply_to = " << StringArray(c.novelty_kinds) << "\n\n";
  o << "[proposer]\nname = " << TomlQuoted(c.proposer) << "\nmax_attempts = " << c.max_attempts << "\n";
  for (const auto& [name, j] : c.proposer_options) {
    o << "[proposer." << name << "]\n";
    std::vector<std::string> pairs;
    AppendPairs("", j, &pairs);
    for (const std::string& p : pairs) o << p << "\n";
  }
  o << "\n[parallelism]\nevaluations = " << c.evaluations << "\nper_generation = " << c.per_generation
    << "\ncompiles = " << c.compiles << "\noverlap_generations = " << (c.overlap_generations ? "true" : "false")
    << "\n\n";
  const SlurmOptions& so = c.slurm;
  o << "[slurm]\nmode = " << TomlQuoted(so.mode) << "\npartition = " << TomlQuoted(so.partition)
    << "\naccount = " << TomlQuoted(so.account) << "\nqos = " << TomlQuoted(so.qos)
    << "\nconstraint = " << TomlQuoted(so.constraint) << "\nreservation = " << TomlQuoted(so.reservation)
    << "\nsbatch_args = " << StringArray(so.sbatch_args) << "\nsrun_args = " << StringArray(so.srun_args)
    << "\nmax_jobs = " << so.max_jobs << "\ntime_margin_s = " << TomlFloat(so.time_margin_s)
    << "\npending_limit_s = " << TomlFloat(so.pending_limit_s) << "\nretries = " << so.retries << "\npoll_s = " << TomlFloat(so.poll_s)
    << "\n\n";
  o << "[workload]\nworld_size = " << c.world_size << "\n";
  if (!c.sizes.empty()) {
    o << "sizes = { ";
    bool first = true;
    for (const auto& [k, v] : c.sizes) {
      o << (first ? "" : ", ") << TomlKey(k) << " = " << v;
      first = false;
    }
    o << " }\n";
  }
  o << "\n";
  o << "[meta]\nsummary_interval = " << c.summary_interval << "\nrecent_failures = " << c.recent_failures << "\n";
  return o.str();
}

std::vector<std::string> SizeSettings(const RunConfig& c) {
  std::vector<std::string> out;
  for (const auto& [k, v] : c.sizes) out.push_back(k + "=" + std::to_string(v));
  return out;
}

Status CheckRunConfigAgainst(const RunConfig& c, const WorkloadConfig& w) {
  if (c.world_size > 0 && std::find(w.world_sizes.begin(), w.world_sizes.end(), c.world_size) == w.world_sizes.end())
    return Status::AtLine(c.path, c.world_size_line,
                          "'workload.world_size' = " + std::to_string(c.world_size) + " is not among the world_sizes of " +
                              w.toml_path.string());
  for (const auto& [name, v] : c.sizes)
    if (!w.bench_sizes.count(name)) {
      std::string known_sizes;
      for (const auto& [k, x] : w.bench_sizes) known_sizes += (known_sizes.empty() ? "" : ", ") + k;
      return Status::AtLine(c.path, c.sizes_line,
                            "'workload.sizes': '" + name + "' is not a bench size of " + w.toml_path.string() + " (" + known_sizes + ")");
    }
  auto known = [&](const std::string& name) -> const Knob* { return w.FindKnob(name); };
  for (const auto& f : c.feature_knobs)
    if (!known(f))
      return Status::AtLine(c.path, c.feature_knobs_line,
                            "'archive.features': '" + f + "' is not a knob of workload " + w.name + " (" + w.toml_path.string() + ")");
  for (const auto& [island, spec] : c.island_specs)
    for (const auto& [name, values] : spec.knobs) {
      const int line = spec.knob_lines.count(name) ? spec.knob_lines.at(name) : 0;
      const Knob* k = known(name);
      if (!k)
        return Status::AtLine(c.path, line, "[islands." + std::to_string(island) + "]: '" + name + "' is not a knob of workload " + w.name);
      for (const auto& v : values)
        if (std::find(k->values.begin(), k->values.end(), v) == k->values.end())
          return Status::AtLine(c.path, line, "[islands." + std::to_string(island) + "]: '" + v + "' is not a value of knob '" + name + "'");
    }
  return Status::Ok();
}

}  // namespace cuco
