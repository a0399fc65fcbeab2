// Calls a function-like macro's replacement makes, read from the macro's definition in the file
// (libclang places a call that a macro expansion makes at the macro's use, whose text is not the call).
#pragma once

#include <string>
#include <vector>

namespace cuco::analyze_internal {

// Where to place a call of `name` with no arguments that the macro used at `use` of `text` (comments
// blanked) makes: its definition in `text` (`#define NCCL_GROUP(body) ncclGroupStart(); body
// ncclGroupEnd()`) calls it in its replacement, before any parameter (at `use`) or after one (at the
// use's closing parenthesis, after the calls its arguments make). npos when it does not.
size_t MacroBodyCallWithoutArguments(const std::string& text, size_t use, const std::string& name);

// The call of `name` the macro used at `use` makes of its arguments, its definition in `text`
// (`macro` its name):
// with `#define LAUNCH(k, n, ...) k<<<((n) + 127) / 128, 128, 0, stream>>>(__VA_ARGS__)`, the use
// `LAUNCH(sgd_k, ss, shard, gshard, ss, lr)` launches sgd_k with the configuration
// {"((ss) + 127) / 128", "128", "0", "stream"} and the arguments {"shard", "gshard", "ss", "lr"}.
// False (the outputs untouched) when `use` is no use of a function-like macro of `text`, or its
// replacement makes no call of `name`.
bool MacroExpandedCall(const std::string& text, size_t use, const std::string& name, std::string* macro,
                       std::vector<std::string>* config, std::vector<std::string>* args);

}  // namespace cuco::analyze_internal
