#include "search/novelty.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "workload/evolve_blocks.h"

namespace cuco {
namespace {

uint64_t Fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

double Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return 0;
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
  }
  if (na <= 0 || nb <= 0) return 0;
  return std::clamp(dot / std::sqrt(na * nb), 0.0, 1.0);
}

}  // namespace

std::string EvolveText(const std::string& code) {
  auto split = SplitEvolveBlocks(code, "candidate", /*require_blocks=*/true);
  if (!split.ok()) return code;
  std::string out;
  for (const auto& b : split->blocks) out += b.body;
  return out;
}

std::vector<std::string> CodeTokens(const std::string& text) {
  std::vector<std::string> out;
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      size_t e = text.find("*/", i + 2);
      i = e == std::string::npos ? n : e + 2;
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < n && text[j] != c && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      j = std::min(n, j + 1);
      out.push_back(text.substr(i, j - i));
      i = j;
    } else if (IsWordChar(c)) {
      size_t j = i;
      while (j < n && IsWordChar(text[j])) ++j;
      out.push_back(text.substr(i, j - i));
      i = j;
    } else {
      out.push_back(std::string(1, c));
      ++i;
    }
  }
  return out;
}

std::vector<uint64_t> Shingles(const std::string& text, int k) {
  k = std::max(1, k);
  const std::vector<std::string> tokens = CodeTokens(text);
  std::vector<uint64_t> token_hash;
  token_hash.reserve(tokens.size());
  for (const auto& t : tokens) token_hash.push_back(Fnv1a(t));
  std::vector<uint64_t> out;
  if (tokens.empty()) return out;
  const size_t width = std::min(tokens.size(), static_cast<size_t>(k));
  for (size_t i = 0; i + width <= tokens.size(); ++i) {
    uint64_t h = 1469598103934665603ull;
    for (size_t j = 0; j < width; ++j) h = (h ^ token_hash[i + j]) * 1099511628211ull + j;
    out.push_back(h);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double Jaccard(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  if (a.empty() && b.empty()) return 1;
  size_t i = 0, j = 0, common = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) {
      ++common;
      ++i;
      ++j;
    } else if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return static_cast<double>(common) / static_cast<double>(a.size() + b.size() - common);
}

Status NoveltyIndex::Add(int64_t id, const std::string& code) {
  const std::string text = EvolveText(code);
  if (embedder_) {
    auto e = embedder_(text);
    if (!e.ok()) return e.status();
    embeddings_.push_back(std::move(*e));
  }
  ids_.push_back(id);
  shingles_.push_back(Shingles(text, k_));
  return Status::Ok();
}

Result<Nearest> NoveltyIndex::Query(const std::string& code) const {
  Nearest best;
  if (ids_.empty()) return best;
  const std::string text = EvolveText(code);
  std::vector<float> emb;
  const bool use_embedding = embedder_ && embeddings_.size() == ids_.size();
  std::vector<uint64_t> sh;
  if (use_embedding) {
    auto e = embedder_(text);
    if (!e.ok()) return e.status();
    emb = std::move(*e);
  } else {
    sh = Shingles(text, k_);
  }
  for (size_t i = 0; i < ids_.size(); ++i) {
    const double s = use_embedding ? Cosine(emb, embeddings_[i]) : Jaccard(sh, shingles_[i]);
    if (best.id == 0 || s > best.similarity || (s == best.similarity && ids_[i] < best.id)) {
      best.similarity = s;
      best.id = ids_[i];
    }
  }
  return best;
}

}  // namespace cuco
