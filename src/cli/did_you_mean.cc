#include "cli/did_you_mean.h"

#include <vector>

#include "util/text.h"

namespace cuco {
namespace {

std::vector<std::string> CommandNames(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

CLI::App* CommandOf(CLI::App& app, int argc, char** argv) {
  if (argc < 2) return nullptr;
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->get_name() == argv[1]) return sub;
  return nullptr;
}

}  // namespace

std::string UnknownCommandMessage(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-' || CommandOf(app, argc, argv)) return "";
  const std::string word = argv[1];
  const std::vector<std::string> names = CommandNames(app);
  const std::vector<std::string> close = ClosestNames(word, names);
  if (!close.empty()) return "cuco: unknown command '" + word + "'; did you mean " + QuotedAlternatives(close) + "?";
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
  return "cuco: unknown command '" + word + "' (the commands: " + all + "; `cuco --help` says what each does)";
}

std::string UnknownFlagMessage(CLI::App& app, int argc, char** argv) {
  CLI::App* cmd = CommandOf(app, argc, argv);
  if (!cmd) return "";
  std::vector<std::string> flags;
  for (const CLI::Option* o : cmd->get_options())
    for (const std::string& n : o->get_lnames()) flags.push_back("--" + n);
  for (const CLI::Option* o : app.get_options())
    for (const std::string& n : o->get_lnames()) flags.push_back("--" + n);
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0) continue;
    const std::string flag = arg.substr(0, arg.find('='));
    bool known = false;
    for (const std::string& f : flags) known = known || f == flag;
    if (known) continue;
    const std::string head = "cuco " + cmd->get_name() + ": unknown flag '" + flag + "'";
    const std::vector<std::string> close = ClosestNames(flag, flags);
    if (!close.empty()) return head + "; did you mean " + QuotedAlternatives(close) + "?";
    return head + " (`cuco " + cmd->get_name() + " --help` lists its flags)";
  }
  return "";
}

std::string ParseErrorMessage(CLI::App& app, int argc, char** argv, const CLI::ParseError& error) {
  const CLI::App* cmd = CommandOf(app, argc, argv);
  const std::string name = cmd ? "cuco " + cmd->get_name() : std::string("cuco");
  return name + ": " + error.what() + " (`" + name + " --help` lists its arguments)";
}

}  // namespace cuco
