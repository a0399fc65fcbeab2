#include "util/read_trace.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <utility>

namespace cuco {
namespace {

std::mutex& ReadsMutex() {
  static std::mutex m;
  return m;
}

std::map<std::pair<std::string, std::string>, int>& Reads() {
  static std::map<std::pair<std::string, std::string>, int> reads;
  return reads;
}

bool TracingReads() {
  const char* e = std::getenv("CUCO_TRACE");
  return e != nullptr && std::strstr(e, "reads") != nullptr;
}

}  // namespace

void NoteRead(const std::string& what, const std::string& subject) {
  std::lock_guard<std::mutex> lock(ReadsMutex());
  ++Reads()[{what, subject}];
  if (TracingReads()) std::cerr << "cuco trace: " << what << (subject.empty() ? "" : " ") << subject << "\n";
}

int ReadCount(const std::string& what, const std::string& subject) {
  std::lock_guard<std::mutex> lock(ReadsMutex());
  auto it = Reads().find({what, subject});
  return it == Reads().end() ? 0 : it->second;
}

void ResetReadCounts() {
  std::lock_guard<std::mutex> lock(ReadsMutex());
  Reads().clear();
}

}  // namespace cuco
