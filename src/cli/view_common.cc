#include "cli/view_common.h"

#include <iostream>

#include "cli/exit_code.h"

namespace cuco {

int ViewFail(const std::string& command, const Status& s) {
  std::cerr << "cuco " << command << ": " << s.message() << "\n";
  return ExitCodeFor(s);
}

}  // namespace cuco
