#include "llm/llm_endpoint.h"

#include <cctype>
#include <set>

#include "util/toml_reader.h"

namespace cuco {
namespace {

// The key whose value a NormalizeLlmEndpoint message is about, to point at its line.
std::string KeyOfMessage(std::string msg) {
  size_t colon = msg.find("': ");
  if (colon != std::string::npos) msg = msg.substr(colon + 3);
  for (const char* k : {"provider", "model", "command", "base_url", "api_key_env", "timeout_s", "max_retries",
                        "backoff_initial_s", "backoff_max_s", "price_in_per_mtok", "price_out_per_mtok", "name"})
    if (msg.find(std::string("'").append(k).append("'")) != std::string::npos) return k;
  return "";
}

}  // namespace

const std::vector<std::string>& LlmProviders() {
  static const std::vector<std::string> kProviders = {"openai", "anthropic", "gemini", "command"};
  return kProviders;
}

std::string DefaultBaseUrl(const std::string& provider) {
  if (provider == "openai") return "https://api.openai.com/v1";
  if (provider == "anthropic") return "https://api.anthropic.com";
  if (provider == "gemini") return "https://generativelanguage.googleapis.com";
  return "";
}

std::string DefaultApiKeyEnv(const std::string& provider) {
  if (provider == "openai") return "OPENAI_API_KEY";
  if (provider == "anthropic") return "ANTHROPIC_API_KEY";
  if (provider == "gemini") return "GEMINI_API_KEY";
  return "";
}

Result<LlmEndpoint> NormalizeLlmEndpoint(LlmEndpoint e) {
  if (e.name.empty()) e.name = !e.model.empty() ? e.model : e.provider;
  auto fail = [&](const std::string& msg) { return Status::InvalidArgument("llm endpoint '" + e.name + "': " + msg); };
  bool known = false;
  for (const std::string& p : LlmProviders()) known |= (p == e.provider);
  if (!known) return fail("'provider' must be one of openai, anthropic, gemini, command (got '" + e.provider + "')");
  if (e.provider == "command") {
    if (e.command.empty()) return fail("'command' is required for provider command");
  } else {
    if (e.model.empty()) return fail("'model' is required for provider " + e.provider);
    if (!e.command.empty()) return fail("'command' is only for provider command");
    if (e.base_url.empty()) {
      e.base_url = DefaultBaseUrl(e.provider);
      if (e.api_key_env.empty()) e.api_key_env = DefaultApiKeyEnv(e.provider);
    }
    while (!e.base_url.empty() && e.base_url.back() == '/') e.base_url.pop_back();
    if (e.base_url.rfind("http://", 0) != 0 && e.base_url.rfind("https://", 0) != 0)
      return fail("'base_url' must start with http:// or https:// (got '" + e.base_url + "')");
  }
  for (char c : e.api_key_env)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return fail("'api_key_env' must be the name of an environment variable, not the key itself");
  if (!(e.timeout_s > 0)) return fail("'timeout_s' must be > 0");
  if (e.max_retries < 0) return fail("'max_retries' must be >= 0");
  if (!(e.backoff_initial_s >= 0) || !(e.backoff_max_s >= e.backoff_initial_s))
    return fail("'backoff_initial_s' must be >= 0 and 'backoff_max_s' >= 'backoff_initial_s'");
  if (e.price_in_per_mtok && !(*e.price_in_per_mtok >= 0)) return fail("'price_in_per_mtok' must be >= 0");
  if (e.price_out_per_mtok && !(*e.price_out_per_mtok >= 0)) return fail("'price_out_per_mtok' must be >= 0");
  return e;
}

Result<LlmEndpoint> LlmEndpointFromToml(const toml::table& table, const std::string& file) {
  LlmEndpoint e;
  TomlReader r(table, file);
  CUCO_RETURN_IF_ERROR(r.String("name", &e.name));
  CUCO_RETURN_IF_ERROR(r.String("provider", &e.provider));
  CUCO_RETURN_IF_ERROR(r.String("base_url", &e.base_url));
  CUCO_RETURN_IF_ERROR(r.String("model", &e.model));
  CUCO_RETURN_IF_ERROR(r.String("api_key_env", &e.api_key_env));
  CUCO_RETURN_IF_ERROR(r.String("command", &e.command));
  CUCO_RETURN_IF_ERROR(r.Number("timeout_s", &e.timeout_s, 0));
  CUCO_RETURN_IF_ERROR(r.Integer("max_retries", &e.max_retries, 0, 1000));
  CUCO_RETURN_IF_ERROR(r.Number("backoff_initial_s", &e.backoff_initial_s, 0));
  CUCO_RETURN_IF_ERROR(r.Number("backoff_max_s", &e.backoff_max_s, 0));
  for (auto [key, price] : {std::pair{"price_in_per_mtok", &e.price_in_per_mtok},
                            std::pair{"price_out_per_mtok", &e.price_out_per_mtok}}) {
    double v = -1;
    CUCO_RETURN_IF_ERROR(r.Number(key, &v, 0));
    if (v >= 0) *price = v;
  }
  CUCO_RETURN_IF_ERROR(r.RejectUnknown());
  CUCO_RETURN_IF_ERROR(r.Require("provider"));
  Result<LlmEndpoint> n = NormalizeLlmEndpoint(std::move(e));
  if (!n.ok()) {
    std::string key = KeyOfMessage(n.status().message());
    return Status::AtLine(file, key.empty() ? r.Line() : r.Line(key), n.status().message());
  }
  return n;
}

Result<std::vector<LlmEndpoint>> LlmEndpointsFromToml(const toml::node& array, const std::string& file) {
  const toml::array* a = array.as_array();
  if (!a) return Status::AtLine(file, TomlReader::LineOf(array), "llm endpoints must be an array of tables ([[llm.endpoints]])");
  std::vector<LlmEndpoint> out;
  std::set<std::string> names;
  for (const toml::node& n : *a) {
    const toml::table* t = n.as_table();
    if (!t) return Status::AtLine(file, TomlReader::LineOf(n), "each llm endpoint must be a table");
    Result<LlmEndpoint> e = LlmEndpointFromToml(*t, file);
    if (!e.ok()) return e.status();
    if (!names.insert(e->name).second)
      return Status::AtLine(file, TomlReader::LineOf(n),
                            "duplicate llm endpoint name '" + e->name + "' (set 'name' to tell them apart)");
    out.push_back(std::move(e).value());
  }
  if (out.empty()) return Status::AtLine(file, TomlReader::LineOf(array), "llm endpoints: the array is empty");
  return out;
}

}  // namespace cuco
