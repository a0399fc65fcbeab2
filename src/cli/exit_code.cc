#include "cli/exit_code.h"

namespace cuco {

int ExitCodeFor(const Status& s) {
  switch (s.code()) {
    case Status::Code::kInvalidArgument:
    case Status::Code::kNotFound: return kExitUsage;
    case Status::Code::kUnavailable: return kExitEnvironment;
    default: return kExitInternal;
  }
}

}  // namespace cuco
