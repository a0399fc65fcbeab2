#include "transform/producer_sites.h"

#include <cctype>
#include <regex>
#include <set>

#include "util/source_text.h"

namespace cuco::transform_internal {
namespace {

bool Space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// A word that begins a statement which is not a plain call.
bool ControlWord(const std::string& w) {
  static const std::set<std::string> kWords = {"if",   "else",    "for",  "while", "do",       "switch", "case",
                                               "default", "return", "goto", "break", "continue", "try",    "catch"};
  return kWords.count(w) > 0;
}

// Where the statement holding `pos` begins: one past the nearest `;`, `{` or `}` before it outside
// parentheses and brackets (*stop: that byte's position, npos at the start of the text). A call
// wrapping `pos` (NCCLCHECK(...)) is part of the statement; npos when `pos` is inside any other
// unclosed parenthesis (a for header, an if or while condition) or bracket.
size_t StatementStart(const std::string& m, size_t pos, size_t* stop) {
  int depth = 0;
  for (size_t i = pos; i-- > 0;) {
    const char ch = m[i];
    if (ch == ')' || ch == ']') ++depth;
    else if (ch == '(' || ch == '[') {
      if (--depth >= 0) continue;
      size_t e = i;
      while (e > 0 && Space(m[e - 1])) --e;
      size_t b = e;
      while (b > 0 && IsCIdentChar(m[b - 1])) --b;
      if (ch == '[' || b == e || ControlWord(m.substr(b, e - b))) return std::string::npos;
      depth = 0;  // the wrapping call's name: go on before it
      i = b;
    } else if (depth == 0 && (ch == ';' || ch == '{' || ch == '}')) {
      *stop = i;
      return i + 1;
    }
  }
  *stop = std::string::npos;
  return 0;
}

size_t SkipSpace(const std::string& m, size_t i, size_t end) {
  while (i < end && Space(m[i])) ++i;
  return i;
}

// The statement's first word, when it begins with one.
std::string FirstWord(const std::string& m, size_t at) {
  size_t e = at;
  while (e < m.size() && IsCIdentChar(m[e])) ++e;
  return m.substr(at, e - at);
}

std::string WithoutSpaces(const std::string& s) {
  std::string o;
  for (char ch : s)
    if (!Space(ch)) o += ch;
  return o;
}

// Whether `word` (a name or member chain, spaces removed) occurs in `code` (spaces removed) with no
// identifier character on either side.
bool MentionsWhole(const std::string& code, const std::string& word) {
  for (size_t at = code.find(word); at != std::string::npos; at = code.find(word, at + 1)) {
    const bool left = at > 0 && (IsCIdentChar(code[at - 1]) || code[at - 1] == '.' || code[at - 1] == '>');
    const size_t end = at + word.size();
    const bool right = end < code.size() && (IsCIdentChar(code[end]) || code[end] == '.' || code.compare(end, 2, "->") == 0);
    if (!left && !right) return true;
  }
  return false;
}

// A call statement (not a control statement, a directive or a kernel launch) from `first` to `end`.
bool CallStatement(const std::string& m, size_t first, size_t end) {
  const std::string code = m.substr(first, end - first), word = FirstWord(m, first);
  return !word.empty() && !ControlWord(word) && code.find('#') == std::string::npos &&
         code.find("<<<") == std::string::npos && code.find('(') != std::string::npos;
}

// Where the `for` whose braced body opens at `open` begins (its word), or npos when `open` opens
// no `for` body.
size_t ForOfBody(const std::string& m, size_t open) {
  size_t e = open;
  while (e > 0 && Space(m[e - 1])) --e;
  if (e == 0 || m[e - 1] != ')') return std::string::npos;
  size_t b = OpenerOf(m, e - 1);
  if (b == std::string::npos) return std::string::npos;
  while (b > 0 && Space(m[b - 1])) --b;
  return b >= 3 && FirstWord(m, b - 3) == "for" && (b == 3 || !IsCIdentChar(m[b - 4])) ? b - 3 : std::string::npos;
}

// Where a line goes before the statement whose first byte is `first` (`start`: where StatementStart
// says it begins, `stop`: the byte before): its line's start when only spaces precede it there
// (*indent: those spaces), else right at `start`.
size_t InsertBefore(const SeedSource& src, size_t start, size_t stop, size_t first, std::string* indent) {
  const std::string& m = src.masked();
  const size_t line_start = src.LineStart(src.LineOf(first));
  indent->clear();
  if (line_start > (stop == std::string::npos ? 0 : stop) && SkipSpace(m, line_start, first) == first) {
    *indent = src.text().substr(line_start, first - line_start);
    return line_start;
  }
  return start;
}

// Whether `a` and `b` lie in one EVOLVE block, below file scope.
bool OneBlock(const SeedSource& src, size_t a, size_t b) {
  if (!src.InBlock(a) || !src.InBlock(b) || src.BraceDepth(a) == 0) return false;
  for (const auto& [begin, end] : src.blocks())
    if ((a >= begin && a < end) != (b >= begin && b < end)) return false;
  return true;
}

// Whether the statement [first, end) is a call naming `buffer`, in the EVOLVE block of the
// collective at `coll_pos`; else *why says what it is, as "the statement <where> it ...".
bool CallNaming(const SeedSource& src, size_t first, size_t end, size_t coll_pos, const std::string& buffer,
                const std::string& where, std::string* why) {
  const std::string& m = src.masked();
  const std::string it = "the statement " + where + " it";
  const std::string at = it + " (line " + std::to_string(src.LineOf(first)) + ")";
  if (!CallStatement(m, first, end)) *why = at + " is not a call";
  else if (!MentionsWhole(WithoutSpaces(m.substr(first, end - first)), WithoutSpaces(buffer)))
    *why = at + " does not name `" + buffer + "`";
  else if (!OneBlock(src, first, coll_pos))
    *why = it + (src.InBlock(first) && src.InBlock(coll_pos) && src.BraceDepth(first) != 0
                     ? " is in another EVOLVE block"
                     : " is not in the same EVOLVE block");
  else return true;
  return false;
}

// Whether the statement `s` (masked) only waits for the device or a stream: cudaDeviceSynchronize()
// or cudaStreamSynchronize(x), possibly inside the program's check macro.
bool OnlyWaits(const std::string& s) {
  static const std::regex wait(
      R"(^\s*(?:[A-Za-z_]\w*\s*\(\s*)?(?:cudaDeviceSynchronize\s*\(\s*\)|cudaStreamSynchronize\s*\(\s*[A-Za-z_][\w.>\-\[\]]*\s*\))\s*\)?\s*$)");
  return std::regex_match(s, wait);
}

// Whether statement `s` is a stream's wait for an event (`CHECK(cudaStreamWaitEvent(comm, done, 0))`,
// spelled as cuco init's shims spell it too): `*record` false; or an event's record
// (`cudaEventRecord(done, compute)`): `*record` true.
bool EventStep(const std::string& s, bool* record) {
  static const std::regex step(
      R"(^\s*(?:[A-Za-z_]\w*\s*\(\s*)?(?:cuda|cuco_program\s*::\s*shim\s*::\s*)(EventRecord|StreamWaitEvent)\s*\([^;]*\)\s*\)?\s*$)");
  std::smatch m;
  if (!std::regex_match(s, m, step)) return false;
  *record = m[1].str() == "EventRecord";
  return true;
}

// The statement-before form (producer_sites.h), for a collective whose statement follows the byte `stop`.
std::optional<ProducerSite> StraightSite(const SeedSource& src, size_t coll_pos, size_t stop, const std::string& buffer,
                                         std::string* why) {
  const std::string& m = src.masked();
  if (m[stop] != ';') {
    *why = m[stop] == '{' ? "no statement comes before it in its braces" : "the code before it is a braced block";
    return std::nullopt;
  }
  size_t prev_stop = 0;
  size_t prev = StatementStart(m, stop, &prev_stop);
  if (prev == std::string::npos) {
    *why = "the statement before it is not a plain statement";
    return std::nullopt;
  }
  size_t first = SkipSpace(m, prev, stop);
  ProducerSite site;
  // Waits between the GEMM and the collective (`CHECK(cudaDeviceSynchronize());`, or an event the
  // GEMM's stream records and the collective's waits for): the producer is the statement before
  // them, and each wait runs only while nothing is split.
  bool stepped = false, record = false;
  for (int k = 0; k < 3 && prev_stop != std::string::npos && m[prev_stop] == ';' && OneBlock(src, first, coll_pos); ++k) {
    const std::string statement = m.substr(first, stop - first);
    const bool waits = OnlyWaits(statement), event = !waits && EventStep(statement, &record);
    if (!waits && !event) break;
    if (waits || !record) site.waits_at.insert(site.waits_at.begin(), first);
    stepped = true;
    stop = prev_stop;
    prev = StatementStart(m, stop, &prev_stop);
    if (prev == std::string::npos) {
      *why = "the statement before its wait is not a plain statement";
      return std::nullopt;
    }
    first = SkipSpace(m, prev, stop);
  }
  if (!CallNaming(src, first, stop, coll_pos, buffer, stepped ? "before the wait before" : "before", why))
    return std::nullopt;
  site.buffer = buffer;
  site.producer_line = src.LineOf(first);
  site.insert_at = InsertBefore(src, prev, prev_stop, first, &site.indent);
  return site;
}

// Whether the call at `call` is the body of the `for` statement at `for_at` (no braces), not in its header.
bool BodyOfFor(const SeedSource& src, size_t for_at, size_t call) {
  const size_t open = SkipSpace(src.masked(), for_at + 3, src.masked().size());
  if (open >= src.masked().size() || src.masked()[open] != '(') return false;
  const size_t close = src.MatchParen(open);
  return close != std::string::npos && call > close;
}

// The loop form from the collectives' loop, whose `for` begins at `for_b`.
std::optional<ProducerSite> LoopSiteFrom(const SeedSource& src, size_t coll_pos, size_t for_b, const std::string& buffer,
                                         std::string* why) {
  const std::string& m = src.masked();
  const std::string want = WithoutSpaces(buffer);
  // Before the collectives' loop: ncclGroupStart statements, then the GEMMs' loop.
  size_t before = 0;
  StatementStart(m, for_b, &before);
  while (before != std::string::npos && m[before] == ';') {
    size_t earlier = 0;
    const size_t s = StatementStart(m, before, &earlier);
    if (s == std::string::npos || m.substr(s, before - s).find("ncclGroupStart") == std::string::npos) break;
    before = earlier;
  }
  const size_t open_a = before == std::string::npos || m[before] != '}' ? std::string::npos : OpenerOf(m, before);
  const size_t for_a = open_a == std::string::npos ? open_a : ForOfBody(m, open_a);
  if (for_a == std::string::npos) {
    *why = "the code before its loop (line " + std::to_string(src.LineOf(for_b)) +
           ") is no `for` loop of GEMMs (after ncclGroupStart, if any)";
    return std::nullopt;
  }
  // The GEMMs' loop: its last statement is the call naming the buffer.
  size_t last = before;
  while (last > open_a && Space(m[last - 1])) --last;
  size_t gemm_stop = 0;
  const size_t g = m[last - 1] == ';' ? StatementStart(m, last - 1, &gemm_stop) : std::string::npos;
  const size_t gemm_first = g == std::string::npos ? g : SkipSpace(m, g, last - 1);
  if (g == std::string::npos || !CallStatement(m, gemm_first, last - 1) ||
      !MentionsWhole(WithoutSpaces(m.substr(gemm_first, last - 1 - gemm_first)), want)) {
    *why = "the last statement of the loop before its loop (line " + std::to_string(src.LineOf(last - 1)) +
           ") is not a call naming `" + buffer + "`";
    return std::nullopt;
  }
  if (!OneBlock(src, for_a, coll_pos)) {
    *why = "the loop of its producer is not in its EVOLVE block";
    return std::nullopt;
  }
  ProducerSite site;
  site.loop = true;
  site.buffer = buffer;
  site.producer_line = src.LineOf(gemm_first);
  size_t for_stop = 0;
  const size_t for_start = StatementStart(m, for_a, &for_stop);
  site.insert_at = InsertBefore(src, for_start, for_stop, for_a, &site.indent);
  site.arm_at = InsertBefore(src, g, gemm_stop, gemm_first, &site.arm_indent);
  return site;
}

// The loop form (producer_sites.h), for a collective whose statement follows the byte `stop`.
std::optional<ProducerSite> LoopSite(const SeedSource& src, size_t coll_pos, size_t stop, const std::string& buffer,
                                     std::string* why) {
  const std::string& m = src.masked();
  const std::string want = WithoutSpaces(buffer);
  // In the collectives' loop, the statements before it name no buffer (cudaSetDevice, say).
  while (stop != std::string::npos && m[stop] == ';') {
    size_t before = 0;
    const size_t s = StatementStart(m, stop, &before);
    const size_t first = s == std::string::npos ? s : SkipSpace(m, s, stop);
    if (s == std::string::npos || ControlWord(FirstWord(m, first)) ||
        MentionsWhole(WithoutSpaces(m.substr(first, stop - first)), want)) {
      *why = "the statement before it (line " + std::to_string(src.LineOf(stop)) + ") is not a GEMM call naming `" +
             buffer + "`";
      return std::nullopt;
    }
    stop = before;
  }
  const size_t for_b = stop == std::string::npos || m[stop] != '{' ? std::string::npos : ForOfBody(m, stop);
  if (for_b == std::string::npos) {
    *why = "no statement comes before it in its braces, and they are no `for` loop's";
    return std::nullopt;
  }
  return LoopSiteFrom(src, coll_pos, for_b, buffer, why);
}

// The buffer a collective's argument `written` names, without the casts around it (`(const void *)
// sendbuff[i]` is `sendbuff[i]`: the knobs' Producer and Consumer take its address as `const void*`),
// where it names the same pointer when written once more before the call: a name or member chain,
// each part possibly subscripted by a name or number. "" where not (*why says so).
std::string PlainBuffer(const std::string& written, std::string* why) {
  static const std::regex kPlain(R"(^[A-Za-z_]\w*(\s*\[\s*\w+\s*\])?(\s*(\.|->)\s*[A-Za-z_]\w*(\s*\[\s*\w+\s*\])?)*$)");
  const std::string buffer = WithoutCasts(written);
  if (std::regex_match(buffer, kPlain)) return buffer;
  *why = "its buffer `" + written + "` is not a name, a member chain, or one of them subscripted by a name or number";
  return "";
}

// The `;` ending the statement that begins at `first`, outside parentheses and brackets; npos when
// a brace comes first (a block, not a plain statement).
size_t StatementEnd(const std::string& m, size_t first) {
  int depth = 0;
  for (size_t i = first; i < m.size(); ++i) {
    const char ch = m[i];
    if (ch == '(' || ch == '[') ++depth;
    else if (ch == ')' || ch == ']') --depth;
    else if (depth == 0 && ch == ';') return i;
    else if (depth == 0 && (ch == '{' || ch == '}')) return std::string::npos;
  }
  return std::string::npos;
}

}  // namespace

std::optional<ProducerSite> FindProducerSite(const SeedSource& src, const SeedCall& c, std::string* why,
                                             size_t buffer_arg) {
  const std::string& m = src.masked();
  const auto args = src.Args(c);
  const std::string buffer = PlainBuffer(args.size() <= buffer_arg ? "" : Trim(args[buffer_arg]), why);
  if (buffer.empty()) return std::nullopt;
  size_t stop = 0;
  const size_t coll = StatementStart(m, c.name_pos, &stop);
  if (coll == std::string::npos || stop == std::string::npos) {
    *why = "it is not a statement of its own";
    return std::nullopt;
  }
  const size_t coll_first = SkipSpace(m, coll, c.name_pos);
  // `for (...) NCCLCHECK(ncclAllReduce(...));`: the collectives' loop of the loop form, without braces.
  if (FirstWord(m, coll_first) == "for" && BodyOfFor(src, coll_first, c.name_pos))
    return LoopSiteFrom(src, c.name_pos, coll_first, buffer, why);
  if (ControlWord(FirstWord(m, coll_first))) {
    *why = "it is the body of `" + FirstWord(m, coll_first) + "` without braces";
    return std::nullopt;
  }
  // The statement just before it, else the loop form.
  std::string straight_why;
  if (std::optional<ProducerSite> site = StraightSite(src, c.name_pos, stop, buffer, &straight_why)) return site;
  std::string loop_why;
  if (std::optional<ProducerSite> site = LoopSite(src, c.name_pos, stop, buffer, &loop_why)) return site;
  // Inside a `for` body the loop form is what was meant; elsewhere the statement before it.
  const bool in_for = (m[stop] == '{' && ForOfBody(m, stop) != std::string::npos) ||
                      straight_why.find("does not name") != std::string::npos;
  *why = in_for && loop_why.find("no statement comes before it") == std::string::npos ? loop_why : straight_why;
  return std::nullopt;
}

std::optional<ConsumerSite> FindConsumerSite(const SeedSource& src, const SeedCall& c, std::string* why) {
  const std::string& m = src.masked();
  const auto args = src.Args(c);
  const std::string buffer = PlainBuffer(args.size() < 2 ? "" : Trim(args[1]), why);
  if (buffer.empty()) return std::nullopt;
  size_t stop = 0;
  const size_t coll = StatementStart(m, c.name_pos, &stop);
  if (coll == std::string::npos) {
    *why = "it is not a statement of its own";
    return std::nullopt;
  }
  const size_t coll_first = SkipSpace(m, coll, c.name_pos);
  if (ControlWord(FirstWord(m, coll_first))) {
    *why = "it is the body of `" + FirstWord(m, coll_first) + "` without braces";
    return std::nullopt;
  }
  const size_t coll_end = StatementEnd(m, coll_first);
  size_t next = coll_end == std::string::npos ? coll_end : SkipSpace(m, coll_end + 1, m.size());
  size_t next_end = next == std::string::npos ? next : StatementEnd(m, next);
  // A wait after it (`CHECK(cudaDeviceSynchronize());`): the GEMM is the statement after the wait.
  // Armed, the all-gather is kept until that GEMM, so the wait no longer waits for it.
  const bool waits = next_end != std::string::npos && OnlyWaits(m.substr(next, next_end - next));
  if (waits) {
    next = SkipSpace(m, next_end + 1, m.size());
    next_end = StatementEnd(m, next);
  }
  if (next_end == std::string::npos) {
    *why = waits ? "the statement after its wait is not a call" : "the statement after it is not a call";
    return std::nullopt;
  }
  if (!CallNaming(src, next, next_end, coll_first, buffer, waits ? "after the wait after" : "after", why))
    return std::nullopt;
  ConsumerSite site;
  site.buffer = buffer;
  site.consumer_line = src.LineOf(next);
  site.insert_at = InsertBefore(src, coll, stop, coll_first, &site.indent);
  return site;
}

}  // namespace cuco::transform_internal
