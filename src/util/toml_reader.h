// TomlReader: typed reads of one TOML table's keys, for every cuco config (workload.toml, the run
// config, LLM endpoints). Each read returns ok when the key is absent (the caller's default stays),
// and an error "path:line: 'key' must be ..." at the value's line when it has the wrong type or
// range. Messages have one form per kind: "must be >= N" (only a minimum), "must be in [min, max]"
// (a range), "must be one of: a, b (got 'x')", "missing required key 'k'" (at the table's line),
// "unknown key 'k'". Keys are named with the reader's prefix ("timing.iters" for [timing]'s
// iters). The reader remembers which keys were asked for (read, Get or Allow), so RejectUnknown
// can report any other key of the table -- most often a misspelling.
// The reader holds a reference to the table: the table must outlive it.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

class TomlReader {
 public:
  // `prefix` names the table in messages ("" for the root, "timing", "islands.0").
  TomlReader(const toml::table& table, std::string path, std::string prefix = "");

  // The line a node starts on in its file.
  static int LineOf(const toml::node& node);
  // The table's line; a key's line (the table's when the key is absent).
  int Line() const;
  int Line(const std::string& key) const;
  // `key` as messages name it: "prefix.key".
  std::string Key(const std::string& key) const;
  const std::string& path() const { return path_; }

  // "path:line: msg" at a node, or at the table's line.
  Status Error(const toml::node& node, const std::string& msg) const;
  Status ErrorAtTable(const std::string& msg) const;

  // The node at `key` (null when absent), marked as read.
  const toml::node* Get(const std::string& key);
  // Marks `key` as read without reading it (the caller checks it some other way).
  void Allow(const std::string& key);
  // An error at the table's line when `key` is absent.
  Status Require(const std::string& key) const;

  Status String(const std::string& key, std::string* out);
  // A string that must be one of `allowed`.
  Status OneOf(const std::string& key, std::string* out, const std::vector<std::string>& allowed);
  // An integer >= min, and <= max when given (an int out is also bounded by INT_MAX).
  Status Integer(const std::string& key, int64_t* out, int64_t min, std::optional<int64_t> max = std::nullopt);
  Status Integer(const std::string& key, int* out, int64_t min, std::optional<int64_t> max = std::nullopt);
  // A number (integer or float) >= min, and <= max when given; without a max it must be finite.
  Status Number(const std::string& key, double* out, double min, std::optional<double> max = std::nullopt);
  Status Bool(const std::string& key, bool* out);
  // An array of strings, each one of `allowed` unless that is empty; replaces *out.
  Status StringArray(const std::string& key, std::vector<std::string>* out,
                     const std::vector<std::string>& allowed = {});
  // The sub-table at `key`, or null when absent.
  Status Table(const std::string& key, const toml::table** out);

  // An error naming the first key of the table that was never asked for.
  Status RejectUnknown() const;

 private:
  const toml::table& table_;
  std::string path_;
  std::string prefix_;
  std::set<std::string> seen_;
};

// The table of a TOML text, checked first by CheckTomlForParser; a syntax error names path:line.
Result<toml::table> ParseToml(const std::string& text, const std::string& path);

// A scalar value as the plain text knob values compare by: 32, 0.5, true, ring ("" for a table,
// an array or a date).
std::string TomlScalarText(const toml::node& node);

// "a, b, c": the choices a one-of message lists.
std::string JoinChoices(const std::vector<std::string>& choices);

}  // namespace cuco
