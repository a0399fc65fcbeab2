// cuco/program/impl/program_env.h: cuco_program::program_getenv and env_size, the same on both sides.
// Where the program's launcher would have set MASTER_ADDR and MASTER_PORT (torchrun, cuco's own),
// they are answered too: a program that reads them without a default must not crash the harness.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include <cuco/program/program.h>

namespace cuco_program {
namespace env_detail {

// The sizes given to env_size, by variable. Answers are interned (never freed): a pointer getenv
// returned stays valid when a later run of the program registers another value.
struct EnvSizes {
  std::mutex mu;
  std::set<std::string> interned;
  std::map<std::string, const char*> answers;
};

inline EnvSizes& Sizes() {
  static EnvSizes e;
  return e;
}

// A TCP port free on this host now, chosen once per process: where the reference's rank threads (one
// process) meet when the program bootstraps over MASTER_ADDR:MASTER_PORT and nothing set them (the
// candidate's ranks, one process each, get theirs from cuco_candidate_setup). "29500" when none.
inline const char* FreePort() {
  static const std::string port = [] {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    std::string p = "29500";
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      p = std::to_string(ntohs(a.sin_port));
    if (fd >= 0) ::close(fd);
    return p;
  }();
  return port.c_str();
}

}  // namespace env_detail

inline void env_size(const char* env, const char* size, int64_t fallback) {
  const std::string value = std::to_string(size_or(size, fallback));
  env_detail::EnvSizes& e = env_detail::Sizes();
  std::lock_guard<std::mutex> lock(e.mu);
  e.answers[env] = e.interned.insert(value).first->c_str();
}

namespace env_detail {
inline const char* Lookup(const char* name) {
  static const char* const kRank[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "CUCO_RANK",
                                      "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "CUCO_LOCAL_RANK"};
  static const char* const kWorld[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "CUCO_WORLD_SIZE",
                                       "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "CUCO_LOCAL_WORLD_SIZE"};
  thread_local std::map<std::string, std::string> answers;
  for (const char* k : kRank)
    if (std::strcmp(name, k) == 0) return (answers[name] = std::to_string(rank())).c_str();
  for (const char* k : kWorld)
    if (std::strcmp(name, k) == 0) return (answers[name] = std::to_string(world())).c_str();
  {
    EnvSizes& e = Sizes();
    std::lock_guard<std::mutex> lock(e.mu);
    if (auto it = e.answers.find(name); it != e.answers.end()) return it->second;
  }
  const char* v = std::getenv(name);
  if (v == nullptr && std::strcmp(name, "MASTER_ADDR") == 0) return "127.0.0.1";
  if (v == nullptr && std::strcmp(name, "MASTER_PORT") == 0) return FreePort();
  return v;
}
}  // namespace env_detail

inline char* program_getenv(const char* name) { return const_cast<char*>(env_detail::Lookup(name)); }

}  // namespace cuco_program
