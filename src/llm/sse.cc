#include "llm/sse.h"

namespace cuco {

Status SseDecoder::Feed(std::string_view bytes) {
  for (char c : bytes) {
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') continue;
    }
    if (c == '\n' || c == '\r') {
      after_cr_ = (c == '\r');
      std::string line;
      line.swap(partial_);
      CUCO_RETURN_IF_ERROR(Line(line));
    } else {
      partial_.push_back(c);
    }
  }
  return Status::Ok();
}

Status SseDecoder::Finish() {
  if (!partial_.empty()) {
    std::string line;
    line.swap(partial_);
    CUCO_RETURN_IF_ERROR(Line(line));
  }
  return Dispatch();
}

Status SseDecoder::Line(std::string_view line) {
  if (line.empty()) return Dispatch();
  if (line.front() == ':') return Status::Ok();
  size_t colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "event") {
    pending_.event = std::string(value);
  } else if (field == "data") {
    if (has_data_) pending_.data.push_back('\n');
    pending_.data.append(value);
    has_data_ = true;
  }
  return Status::Ok();  // "id", "retry" and unknown fields are ignored
}

Status SseDecoder::Dispatch() {
  if (!has_data_) {
    pending_ = SseEvent();
    return Status::Ok();
  }
  SseEvent e = std::move(pending_);
  pending_ = SseEvent();
  has_data_ = false;
  ++events_;
  return handler_(e);
}

}  // namespace cuco
