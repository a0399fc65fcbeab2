#include "scaffold/init_loop_arguments.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "scaffold/constants.h"
#include "scaffold/program_arguments.h"

namespace cuco::scaffold_internal {

namespace {

// What the harness passes for `z`, in a sentence of its guesses.
std::string SizeGuess(const TimedLoop::SizeFlag& z, const ProgramFacts& f) {
  if (z.rank && f.rank_alone_arguments)
    return fmt::format("`{}`: the program's rank, the one argument it reads with no default: the harness passes each "
                       "rank's own",
                       z.Spelling());
  if (z.rank)
    return fmt::format("`{}`: the program's rank ({} given with --args): the harness passes each rank's own", z.Spelling(),
                       z.given);
  if (z.world)
    return fmt::format("`{}`: the program's GPU count ({} given with --args): the harness passes its own rank count "
                       "there, so the program runs on as many GPUs as the harness has ranks",
                       z.Spelling(), z.given);
  if (!z.given.empty()) return fmt::format("`{}`: {}, as given with --args", z.Spelling(), z.given);
  if (z.size.empty()) return fmt::format("`{}`: not a size, passed as the program's default, {}", z.Spelling(), z.value);
  if (!z.env.empty())
    return fmt::format("`{}`: the size {} ({} in the program), what the program's getenv(\"{}\") answers", z.Spelling(),
                       z.size, z.value, z.env);
  if (z.position > 0 && !z.flag.empty())
    return fmt::format("`{} {}`, given with --args: the size {}, which the harness sets there", z.flag, z.value, z.size);
  if (z.position > 0)
    return fmt::format("`{}`: the size {} ({} in the program), passed to it as its argument {}", z.Spelling(), z.size,
                       z.value, z.position);
  return fmt::format("`{}`: the size {} ({} in the program), passed to it as `{} <size>`", z.flag, z.size, z.value, z.flag);
}

}  // namespace

// The sizes the program reads from its command line or environment, as the entry point passes
// them (TimedLoop::SizeFlag), each with a guess: its options (`--batch 512`, not the rank's or
// rank count's); its positional arguments, when every position up to the last is a number cuco
// found that is neither a rank nor a rank count (the non-sizes among them passed as they are) and
// it takes no flags; its environment variables. Sizes are unique by name.
std::vector<TimedLoop::SizeFlag> PassedSizes(const ProgramFacts& f, const TimedLoop& loop, std::vector<std::string>* guesses) {
  std::vector<TimedLoop::SizeFlag> out;
  std::set<std::string> names;
  auto size_of = [&](const FoundConstant& c) {
    return ClassifyConstant(c, f.world_vars) == ConstRole::kSize && names.insert(SizeName(c)).second ? SizeName(c)
                                                                                                       : std::string();
  };
  std::map<int, const FoundConstant*> positions;
  for (const FoundConstant& c : f.constants) {
    if (c.option && loop.main_takes_args && c.name != loop.rank_flag && c.name != loop.world_flag) {
      const std::string size = size_of(c);
      if (!size.empty()) out.push_back({c.name, size, c.value, 0, "", ""});
    } else if (!c.env.empty()) {
      const std::string size = size_of(c);
      if (!size.empty()) out.push_back({"", size, c.value, 0, c.env, ""});
    } else if (c.argv_index > 0 && loop.main_takes_args) {
      positions.emplace(c.argv_index, &c);
    }
  }
  if (!f.program_args.empty() && loop.main_takes_args) {  // `cuco init --args`: as the user runs it
    positions.clear();
    std::vector<TimedLoop::SizeFlag> given;
    for (size_t i = 0; i < f.program_args.size(); ++i) {
      TimedLoop::SizeFlag z;
      z.position = static_cast<int>(i) + 1;
      z.given = f.program_args[i];
      z.world = z.position == f.world_argument;
      z.rank = z.position == f.rank_argument;
      given.push_back(z);
    }
    // A size option given too (`-nx 4096`): its value there is the size the harness sets, not an
    // option appended after it, which a parser taking the first match would never read.
    std::erase_if(out, [&](const TimedLoop::SizeFlag& o) {
      if (o.flag.empty() || o.size.empty()) return false;
      for (size_t i = 0; i + 1 < given.size(); ++i)
        if (given[i].given == o.flag && !given[i + 1].world && !given[i + 1].rank) {
          TimedLoop::SizeFlag& v = given[i + 1];
          v.size = o.size;
          const bool number = !v.given.empty() && v.given.size() < 12 &&
                              std::all_of(v.given.begin(), v.given.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
          v.value = number ? std::stoll(v.given) : o.value;
          v.flag = o.flag;  // where it was given: said in the guess
          v.given.clear();
          return true;
        }
      return false;
    });
    out.insert(out.end(), given.begin(), given.end());
  }
  if (!positions.empty()) {
    std::string why;
    const bool flags = !loop.rank_flag.empty() || !loop.world_flag.empty() ||
                       std::any_of(out.begin(), out.end(), [](const TimedLoop::SizeFlag& z) { return !z.flag.empty(); });
    if (flags) why = "it also takes flags";
    for (int p = 1; why.empty() && p <= positions.rbegin()->first; ++p) {
      auto it = positions.find(p);
      if (it == positions.end()) {
        why = fmt::format("argv[{}] is not a number cuco found", p);
      } else {
        const ConstRole role = ClassifyConstant(*it->second, f.world_vars);
        if (role == ConstRole::kWorld || role == ConstRole::kIgnored)
          why = fmt::format("argv[{}] ({}) is not a size", p, it->second->name);
      }
    }
    if (!why.empty()) {
      guesses->push_back(fmt::format("{}:{}: the program's positional arguments are not passed ({}): it runs at their "
                                     "defaults",
                                     f.file, positions.begin()->second->line, why));
    } else {
      for (const auto& [p, c] : positions) out.push_back({"", size_of(*c), c->value, p, "", ""});
    }
  }
  for (const TimedLoop::SizeFlag& z : out) guesses->push_back(SizeGuess(z, f));
  return out;
}

std::string ArgumentNotGiven(const ProgramFacts& f, int passed) {
  if (!f.program_args.empty()) return "";
  std::vector<ArgumentRead> reads = ArgumentsWithoutDefault(f.raw, f.constants);
  std::erase_if(reads, [&](const ArgumentRead& r) { return r.index <= passed; });
  if (reads.empty()) return "";
  const ArgumentRead& r = reads.back();
  return fmt::format("{}:{}: the program reads argv[{}] (`{}`) with no default, and the harness would start it without "
                     "arguments: give the arguments you run it with, `--args \"...\"` (cuco init or cuco run {} --args "
                     "\"...\" ...)",
                     f.file, r.line, r.index, r.statement.size() > 80 ? r.statement.substr(0, 77) + "..." : r.statement, f.file);
}

// kInvalidArgument when main stops without arguments the harness would not pass (ArgumentsMainRequires:
// fewer than a count, an option called required), or reads one by position that it would not pass
// (past those its entry point passes: loop.size_flags, set; none given with --args; no default the
// analysis found), naming the line and saying how to give it.
Status ArgumentsPassed(const ProgramFacts& f, const TimedLoop& loop) {
  if (!loop.main_takes_args) return Status::Ok();
  // What the entry point passes: --args as given, else the size options it sets and its positions.
  int passed = 0;
  std::vector<std::string> started = f.program_args;
  for (const TimedLoop::SizeFlag& z : loop.size_flags) {
    passed = std::max(passed, z.position);
    if (f.program_args.empty() && z.position == 0 && z.env.empty() && !z.flag.empty()) started.insert(started.end(), {z.flag, z.size});
  }
  // An argument read by position first: the most exact words.
  if (const std::string unread = ArgumentNotGiven(f, passed); !unread.empty()) return Status::InvalidArgument(unread);
  const std::vector<std::string> missing = ArgumentsMissing(ArgumentsMainRequires(f.raw), f.file, started,
                                                            std::max(passed, static_cast<int>(started.size())));
  return missing.empty() ? Status::Ok() : Status::InvalidArgument(missing.front());
}

}  // namespace cuco::scaffold_internal
