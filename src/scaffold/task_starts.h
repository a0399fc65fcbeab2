// Where a function of the program starts a task running another of its functions: `std::async(
// [policy,] fn, ...)`, `std::thread t(fn, ...)`, `std::thread(fn, ...)`, `threads.emplace_back(fn,
// ...)`, `pthread_create(&t, attr, fn, arg)`, with `&fn` or a cast function pointer
// (`(void* (*)(void*))fn`) as well. Such a function is handed over, not called, so the
// calls cuco init follows do not reach it.
// Contract: a pure function of its arguments; the scan ignores comments and literals.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace cuco::scaffold_internal {

struct TaskStart {
  std::string api;       // "std::async", "std::thread", "emplace_back", "pthread_create"
  std::string function;  // the one of `functions` it runs
  size_t offset = 0;     // of `api` in the text scanned
};

// The task starts in `text` (a function's definition) whose task runs one of `functions`, named by
// its identifier or its address (`&fn`), in order.
std::vector<TaskStart> TaskStarts(const std::string& text, const std::set<std::string>& functions);

// The function of `functions` the first thread `text` starts runs (any start but std::async), or "".
std::string ThreadFunction(const std::string& text, const std::set<std::string>& functions);

}  // namespace cuco::scaffold_internal
