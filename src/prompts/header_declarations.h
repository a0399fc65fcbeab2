// Header declarations: the declarations of a C/C++ header as compact prompt text, one per line.
//
// ExtractDeclarations reads a header the way a reader skims it: function prototypes (bodies and
// constructor initialiser lists dropped), struct/class/union members (public ones only), enums
// on one line, typedefs, templates, short macros. Comments (unless kept), preprocessor
// conditionals, private/internal/detail namespaces, names starting with '_' or containing
// "_internal", and `pfoo` profiling twins of `foo` are dropped. It never fails: unparseable text
// degrades to fewer lines. The communication API text (design_space_text.h) and the runtime's
// API text (runtime_api_text.h) are built from it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cuco {

struct DeclarationOptions {
  bool keep_comments = false;           // keep the // comment lines directly above a kept declaration
  bool keep_macros = true;              // `#define NAME(args)` heads and short object-like macros
  std::vector<std::string> skip_names;  // drop declarations whose name contains one of these
  std::vector<std::string> only_names;  // if not empty: keep top-level declarations only when their
                                        // name contains one of these
  size_t max_chars = 0;                 // 0: no cap; else cut at a line boundary with a note
};

// The declarations of `header_text`, one per line (see above).
std::string ExtractDeclarations(const std::string& header_text, const DeclarationOptions& options = {});

}  // namespace cuco
