// Novelty: how alike two candidates' EVOLVE-block texts are, so the search can refuse a
// near-copy before paying for its evaluation.
//
// The local measure is the Jaccard similarity of k-token shingles: the text is cut into
// tokens (identifiers and numbers, string and character literals, single punctuation marks;
// comments and whitespace dropped), every run of k consecutive tokens is hashed, and two texts
// compare by |A ∩ B| / |A ∪ B| of their shingle sets (1 = identical token streams). An
// embedding model may replace it through NoveltyIndex::SetEmbedder (cosine similarity);
// cuco ships no embedder.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

// The EVOLVE-block bodies of `code`, concatenated (the whole text when it has no blocks or
// its blocks do not parse).
std::string EvolveText(const std::string& code);

// The token stream of C/C++/CUDA text (comments and whitespace dropped).
std::vector<std::string> CodeTokens(const std::string& text);

// The sorted, de-duplicated hashes of every run of k tokens (k >= 1; a text shorter than k
// tokens gives one shingle of all its tokens; an empty text gives none).
std::vector<uint64_t> Shingles(const std::string& text, int k);

// |a ∩ b| / |a ∪ b| of two sorted unique sets; 1 when both are empty.
double Jaccard(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b);

// Text -> embedding vector. A hook for an embedding endpoint; errors are passed up.
using Embedder = std::function<Result<std::vector<float>>(const std::string& text)>;

struct Nearest {
  double similarity = 0;  // in [0, 1]; 0 when the index is empty
  int64_t id = 0;         // the most similar candidate (0 when none); ties go to the older (lower) id
};

// The candidates seen so far, for nearest-neighbour queries on their EVOLVE text.
// Not thread-safe.
class NoveltyIndex {
 public:
  explicit NoveltyIndex(int shingle_tokens = 4) : k_(shingle_tokens < 1 ? 1 : shingle_tokens) {}
  // Switches to cosine similarity of embeddings (for texts added from now on and queries).
  void SetEmbedder(Embedder e) { embedder_ = std::move(e); }
  Status Add(int64_t id, const std::string& code);
  Result<Nearest> Query(const std::string& code) const;
  size_t size() const { return ids_.size(); }

 private:
  int k_;
  Embedder embedder_;
  std::vector<int64_t> ids_;
  std::vector<std::vector<uint64_t>> shingles_;
  std::vector<std::vector<float>> embeddings_;  // parallel to ids_ when an embedder is set
};

}  // namespace cuco
