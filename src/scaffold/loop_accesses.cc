#include "scaffold/loop_accesses.h"

#include <algorithm>
#include <regex>
#include <set>

#include "analyze/ranges.h"
#include "scaffold/branches_run.h"
#include "scaffold/callee_defaults.h"
#include "scaffold/iteration_io.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/program_text.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// `base` (a buffer as a function of the program writes it: "w.w1", "y") in the terms of `to_outer`
// (that function's parameters and local aliases -> the caller's expressions, `&model` where the
// caller passes an object's address); "" when a parameter maps to nothing the caller can name. A
// parameter standing for an object's address stays one where `base` is the parameter alone and
// `keep_address` (an argument handed on: `model` inside a helper given `&model`).
std::string Resolve(const std::string& base, const std::map<std::string, std::string>& to_outer, bool keep_address = false) {
  static const std::regex head_rest(R"(^([A-Za-z_]\w*)(.*)$)");
  std::smatch m;
  if (!std::regex_match(base, m, head_rest)) return "";
  std::string head = m[1].str(), rest = m[2].str();
  if (auto it = to_outer.find(head); it != to_outer.end()) {
    std::string arg = Trim(it->second);
    if (arg.empty()) return "";
    if (arg[0] == '&') {
      if (rest.empty() && keep_address) return arg;
      arg = Trim(arg.substr(1));
      if (rest.rfind("->", 0) == 0) rest = "." + rest.substr(2);
    }
    head = arg;
  }
  return head + rest;
}

// A call's argument in the caller's terms, for the callee's parameter: `&model` stays an address
// (the callee's `model->acts` is the caller's `model.acts`).
std::string ArgumentInCallerTerms(const std::string& arg, const std::map<std::string, std::string>& to_main) {
  static const std::regex address(R"(^\s*&\s*([A-Za-z_]\w*(?:\.\w+)*)\s*$)");
  std::smatch m;
  if (std::regex_match(arg, m, address)) {
    const std::string object = Resolve(m[1].str(), to_main);
    return object.empty() ? "" : "&" + object;
  }
  return Resolve(BufferBase(arg), to_main, true);
}

// The head name of `expr` (`nColToSend` of `nColToSend[i]`), "" when it starts with none.
std::string HeadName(const std::string& expr) {
  static const std::regex head(R"(^\s*([A-Za-z_]\w*))");
  std::smatch m;
  return std::regex_search(expr, m, head) ? m[1].str() : "";
}

}  // namespace

std::set<std::string> HelperTemporaries(const std::string& body, const std::map<std::string, std::string>& callee) {
  // A declaration starting a statement: type words (a template's arguments too), `*`/`&`, the name, and
  // its initialiser or end; not a statement a keyword starts (`return x;`, `delete[] p;`).
  static const std::regex declaration(
      R"((?:^|[;{}])\s*(?!(?:return|delete|throw|goto|case|else|new|co_return|typedef|using)\b))"
      R"(((?:(?:const|static|volatile|unsigned|signed|struct|auto)\s+)*[A-Za-z_][\w:]*\s*(?:<[^;{}]*?>)?))"
      R"(([\s*&]+)(?:const\s+)?([A-Za-z_]\w*)\s*(=|;|\[|\(|\{))");
  static const std::regex scalar(R"(^(?:(?:const|static|volatile|unsigned|signed)\s+)*(?:int|long|short|char|bool|float|double|)"
                                 R"(size_t|std::size_t|u?int(?:8|16|32|64)_t)(?:\s+(?:int|long))*\s*$)");
  // What the body returns, or stores where the caller sees it (`*output = buffer;`, `s->w = w;`, `ptrs[i] =
  // w;`): no temporary. (A statement storing the pointer itself: `nValToSend[i] = nColToSend[i] * n;` stores a value.)
  static const std::regex returned(R"(\breturn\s+(?:std\s*::\s*move\s*\(\s*)?([A-Za-z_]\w*)\b)");
  static const std::regex stored(R"((?:^|[;{}])\s*(?:\*\s*\w+|\w+\s*(?:->|\.)\s*\w+(?:\s*\[[^\]]*\])?|\w+\s*\[[^\]]*\]))"
                                 R"(\s*=\s*&?\s*([A-Za-z_]\w*)(?=\s*[;,)]))");
  std::set<std::string> escaped;
  for (const std::regex* r : {&returned, &stored})
    for (auto it = std::sregex_iterator(body.begin(), body.end(), *r); it != std::sregex_iterator(); ++it)
      escaped.insert((*it)[1].str());
  std::set<std::string> out, kept;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), declaration); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[3].str();
    if (callee.count(name) || kept.count(name)) continue;
    // A copy of something the caller hands it that is no plain number (`ParameterTensors params =
    // model->params;`, a struct of the caller's pointers, in llm.c's gpt2_forward) holds the caller's buffers.
    // So does an array of them (`float* d_sendbufs[2] = {d_sendbuf_k, d_sendbuf_v};`).
    const size_t after = static_cast<size_t>(it->position(4)), end = body.find(';', after);
    const size_t eq = (*it)[4].str() == "=" || (*it)[4].str() == "[" ? body.find('=', after) : std::string::npos;
    if (eq != std::string::npos && eq < end) {
      const std::string value = Trim(body.substr(eq + 1, end - eq - 1));
      bool of_caller = callee.count(HeadName(BufferBase(value))) > 0;
      static const std::regex word(R"([A-Za-z_]\w*)");
      for (auto w = std::sregex_iterator(value.begin(), value.end(), word); !value.empty() && value[0] == '{' && w != std::sregex_iterator(); ++w)
        of_caller = of_caller || callee.count(w->str()) > 0;
      const bool number = std::regex_match(Trim((*it)[1].str()), scalar) && (*it)[2].str().find_first_of("*&") == std::string::npos;
      if (!number && of_caller) {
        kept.insert(name), out.erase(name);
        continue;
      }
    }
    if (escaped.count(name))
      kept.insert(name), out.erase(name);
    else
      out.insert(name);
  }
  return out;
}

std::string SecondAlternative(const std::string& arg) {
  int depth = 0, q_depth = -1;
  size_t colon = std::string::npos;
  for (size_t i = 0; i < arg.size(); ++i) {
    const char c = arg[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (colon != std::string::npos && depth == q_depth) return arg.substr(colon + 1, i - colon - 1);
      --depth;
    } else if (c == '?' && q_depth < 0) {
      q_depth = depth;
    } else if (c == ':' && q_depth == depth && colon == std::string::npos) {
      const bool scope = (i + 1 < arg.size() && arg[i + 1] == ':') || (i > 0 && arg[i - 1] == ':');
      if (!scope) colon = i;
    }
  }
  return colon == std::string::npos ? "" : arg.substr(colon + 1);
}

const AnalyzedFunction* FindFunction(const Analysis& a, const std::string& name) {
  for (const auto& fn : a.functions)
    if (fn.name == name) return &fn;
  return nullptr;
}

std::string SourceFileName(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

void LoopAccesses::Walk(const std::string& text, const std::vector<const AnalyzedOp*>& ops, const std::string& function,
                        const std::map<std::string, std::string>& to_main, int depth, std::vector<Access>* out) {
  std::set<const AnalyzedOp*> used;
  for (const auto& [name, args, object] : CallSitesIn(text)) {
    const AnalyzedOp* op = nullptr;
    for (const AnalyzedOp* o : ops)
      if ((o->api == name || o->macro == name) && !used.count(o)) {  // a call, or a macro's use making one
        op = o;
        break;
      }
    AnalyzedOp made;
    const auto pointer = pointers_.find(name);  // a call through a function pointer: the function it holds
    const std::string callee = pointer != pointers_.end() && !FindFunction(a_, name) ? pointer->second : name;
    if (op == nullptr && FindFunction(a_, callee) && callee != function) {
      made.kind = "call";
      made.api = callee;
      made.function = function;
      made.args = SplitArgs(args);
      op = &made;
    }
    if (op == nullptr) continue;
    used.insert(op);
    if (depth == 0) site_line_ = op == &made ? 0 : op->line;
    Op(*op, to_main, depth, out, object);
  }
}

void LoopAccesses::Op(const AnalyzedOp& op, const std::map<std::string, std::string>& to_main, int depth,
                      std::vector<Access>* out, const std::string& object) {
  if (op.kind == "group") return;
  if (op.kind == "call") {
    const AnalyzedFunction* fn = FindFunction(a_, op.api);
    if (fn == nullptr || depth > 4 || op.api == op.function) return;
    std::map<std::string, std::string> callee, other;  // other: an argument's second alternative
    for (size_t i = 0; i < fn->params.size() && i < op.args.size(); ++i) {
      if (fn->params[i].empty()) continue;
      // A temporary of the helper making the call names nothing of the loop's function's.
      const bool temporary = !temporaries_.empty() && temporaries_.back().count(HeadName(BufferBase(op.args[i])));
      callee[fn->params[i]] = temporary ? "" : ArgumentInCallerTerms(op.args[i], to_main);
      const std::string second = SecondAlternative(op.args[i]);
      if (!second.empty()) other[fn->params[i]] = Resolve(BufferBase(second), to_main);
    }
    if (!fn->record.empty()) MemberNames(*fn, object, to_main, &callee);
    const bool conditional = UnderHelperIf(op);
    conditional_calls_ += conditional;
    if (!other.empty()) {  // the helper is walked once more with those: it touches either buffer
      std::map<std::string, std::string> alt = callee;
      for (const auto& [param, expr] : other) alt[param] = expr;
      WalkHelper(*fn, alt, op.args, depth, out);
    }
    WalkHelper(*fn, callee, op.args, depth, out);
    conditional_calls_ -= conditional;
    return;
  }
  if (!IsDataOp(op)) return;
  OpAccess(op, to_main, out);
}

void LoopAccesses::MemberNames(const AnalyzedFunction& fn, const std::string& object,
                               const std::map<std::string, std::string>& to_main,
                               std::map<std::string, std::string>* callee) {
  std::string self;  // `this` in the caller's terms: "&stressor" (an object) or "p" (a pointer)
  if (object.empty() || object == "this->") {
    const auto it = to_main.find("this");  // a method calling another of its object
    if (it == to_main.end()) return;
    self = it->second;
  } else {
    const bool arrow = object.size() >= 2 && object.compare(object.size() - 2, 2, "->") == 0;
    const std::string base = Resolve(Trim(object.substr(0, object.size() - (arrow ? 2 : 1))), to_main);
    if (base.empty()) return;
    self = arrow ? base : "&" + base;
  }
  (*callee)["this"] = self;
  const std::string prefix = self[0] == '&' ? self.substr(1) + "." : self + "->";
  const auto fields = a_.record_fields.find(fn.record);
  if (fields == a_.record_fields.end()) return;
  for (const std::string& f : fields->second)
    if (!callee->count(f)) (*callee)[f] = prefix + f;  // a parameter of the same name hides the member
}

void LoopAccesses::WalkHelper(const AnalyzedFunction& fn, std::map<std::string, std::string> callee,
                              const std::vector<std::string>& args, int depth, std::vector<Access>* out) {
  const std::map<std::string, std::string> given = callee;  // its parameters and members
  AddAliases(fn, &callee);
  std::vector<const AnalyzedOp*> ops;
  for (const auto& inner : a_.ops)
    if (inner.function == fn.name && SourceFileName(inner.file) == SourceFileName(fn.file)) ops.push_back(&inner);
  auto it = texts_.find(SourceFileName(fn.file));
  size_t b = 0, e = 0;
  if (it != texts_.end() && DefinitionLines(it->second, fn.name, &b, &e)) {
    const std::string def = it->second.substr(b, e - b);
    const size_t open = def.find('{');  // the body: calls in the parameter list are not calls
    const std::string file = SourceFileName(fn.file);
    ProgramDefaults d;
    if (!defaults_.empty()) d = CalleeDefaults(def, fn, {{}, args}, defaults_.back());
    // A helper walked again with the same values (another call) is not scanned again.
    std::string key = file + ":" + fn.name;
    for (const auto& [name, v] : d.values) key += ";" + name + "=" + std::to_string(v);
    auto branches = branches_.find(key);
    if (branches == branches_.end()) {
      const BranchLines lines = BranchLinesIn(it->second, b, e, d);
      branches = branches_.emplace(key, std::make_pair(lines.conditional, lines.not_run)).first;
    }
    helpers_.push_back({file, branches->second.first});
    if (!defaults_.empty()) defaults_.push_back(d);
    const std::string walked = BlankLines(def, branches->second.second, LineOf(it->second, b));
    const std::string body = open == std::string::npos ? walked : walked.substr(open);
    std::set<std::string> temporaries = HelperTemporaries(BlankCommentsAndLiterals(body), callee);
    for (const auto& [name, value] : callee)  // `double* cblas_a = recvA;`, recvA a temporary: one too
      if (!given.count(name) && temporaries.count(HeadName(value))) temporaries.insert(name);
    temporaries_.push_back(std::move(temporaries));
    Walk(body, ops, fn.name, callee, depth + 1, out);
    temporaries_.pop_back();
    if (!defaults_.empty()) defaults_.pop_back();
    helpers_.pop_back();
  } else {
    temporaries_.emplace_back();
    for (const AnalyzedOp* inner : ops) Op(*inner, callee, depth + 1, out);
    temporaries_.pop_back();
  }
}

bool LoopAccesses::UnderHelperIf(const AnalyzedOp& op) const {
  return !helpers_.empty() && SourceFileName(op.file) == helpers_.back().first &&
         InLineRanges(helpers_.back().second, op.line);
}

namespace {
// Whether copy `op` names a kind containing `kind` (the 4th argument of cudaMemcpy, the 7th of cudaMemcpy2D).
bool CopiesOfKind(const AnalyzedOp& op, const char* kind) {
  return op.kind == "copy" && std::any_of(op.args.begin(), op.args.end(), [&](const std::string& a) {
           return a.find(kind) != std::string::npos;
         });
}
}  // namespace

bool CopiesToHost(const AnalyzedOp& op) { return CopiesOfKind(op, "DeviceToHost"); }
bool CopiesFromHost(const AnalyzedOp& op) { return CopiesOfKind(op, "HostToDevice"); }

void LoopAccesses::OpAccess(const AnalyzedOp& op, const std::map<std::string, std::string>& to_main,
                            std::vector<Access>* out) {
  Access acc;
  auto map = [&](const std::vector<std::string>& v, std::vector<std::string>* dst) {
    for (const auto& b : v) {
      if (!temporaries_.empty() && temporaries_.back().count(HeadName(b))) continue;  // made and dropped by the helper
      const std::string r = Resolve(b, to_main);
      if (r.empty())
        acc.unnamed.push_back(b);
      else
        dst->push_back(r);
    }
  };
  std::vector<std::string> reads = op.reads;
  const auto text = texts_.find(SourceFileName(op.file));
  if (text != texts_.end() && !blanked_.count(text->first)) blanked_[text->first] = BlankComments(text->second);
  if (text != texts_.end() && GemmAccumulates(op, blanked_[text->first])) {  // C += A B: read first (iteration_io.h)
    reads.insert(reads.begin(), op.writes.begin(), op.writes.end());
  } else if (OutputReadOnlyForBeta(op)) {  // C read for beta and written: a write
    reads.erase(
        std::remove_if(reads.begin(), reads.end(),
                       [&](const std::string& r) { return std::count(op.writes.begin(), op.writes.end(), r) > 0; }),
        reads.end());
  }
  map(reads, &acc.reads);
  map(op.writes, &acc.writes);
  // A reduce's or gather's receive buffer only its root writes: the other ranks' keep what they held.
  if ((op.api == "ncclReduce" || op.api == "ncclGather") && !op.recv.empty()) {
    const std::string r = Resolve(BufferBase(op.recv), to_main);
    if (!r.empty()) acc.root_writes.push_back(r);
  }
  // Past the start for every value of the offset's names (each >= 0): `(n + 1) * w`, not `c * chunk`
  // (a loop over the chunks, whose first pass writes from the start).
  if (op.kind == "p2p" || op.kind == "collective" || op.kind == "mpi")
    for (const auto& [base, range] : op.write_ranges)
      if (ProvablyDisjoint(ElemRange{"0", "1"}, ElemRange{range.first, range.second}))
        if (const std::string r = Resolve(base, to_main); !r.empty()) acc.partial_writes.push_back(r);
  acc.line = site_line_;
  acc.to_host = CopiesToHost(op);
  acc.helper_if = conditional_calls_ > 0 || UnderHelperIf(op);
  if (!op.datatype.empty()) acc.datatype = Resolve(Trim(op.datatype), to_main);
  acc.gemm = op.kind == "gemm";
  out->push_back(std::move(acc));
}

void LoopAccesses::AddAliases(const AnalyzedFunction& fn, std::map<std::string, std::string>* m) {
  auto it = texts_.find(SourceFileName(fn.file));
  size_t b = 0, e = 0;
  if (it == texts_.end() || !DefinitionLines(it->second, fn.name, &b, &e)) return;
  const std::string body = it->second.substr(b, e - b);
  static const std::regex alias(R"((?:\*|\bauto)\s*(?:const\s+)?([A-Za-z_]\w*)\s*=\s*([^;]+);)");
  for (auto i = std::sregex_iterator(body.begin(), body.end(), alias); i != std::sregex_iterator(); ++i) {
    const std::string name = (*i)[1].str();
    if (m->count(name)) continue;
    const std::string base = BufferBase((*i)[2].str());
    if (IsFreshAllocation(base)) continue;  // `int* counts = new int[n];`: its own buffer
    const std::string r = Resolve(base, *m);
    if (!r.empty() && r != name) (*m)[name] = r;
  }
}

}  // namespace cuco::scaffold_internal
