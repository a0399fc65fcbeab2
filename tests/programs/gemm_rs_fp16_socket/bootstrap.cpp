#include "bootstrap.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

static int env_or(const char* name, int dflt) {
  const char* v = getenv(name);
  return v && *v ? atoi(v) : dflt;
}

DistEnv read_dist_env() {
  DistEnv env;
  env.rank = env_or("RANK", 0);
  env.world_size = env_or("WORLD_SIZE", 1);
  env.local_rank = env_or("LOCAL_RANK", env.rank);
  const char* addr = getenv("MASTER_ADDR");
  env.master_addr = addr ? addr : "127.0.0.1";
  env.master_port = env_or("MASTER_PORT", 29500);
  return env;
}

static void die(const char* what) {
  perror(what);
  exit(1);
}

static void send_all(int fd, const void* buf, size_t n) {
  const char* p = (const char*)buf;
  while (n > 0) {
    ssize_t k = send(fd, p, n, 0);
    if (k <= 0) die("send");
    p += k;
    n -= (size_t)k;
  }
}

static void recv_all(int fd, void* buf, size_t n) {
  char* p = (char*)buf;
  while (n > 0) {
    ssize_t k = recv(fd, p, n, 0);
    if (k <= 0) die("recv");
    p += k;
    n -= (size_t)k;
  }
}

ncclUniqueId exchange_unique_id(const DistEnv& env) {
  ncclUniqueId id;
  if (env.world_size == 1) {
    ncclGetUniqueId(&id);
    return id;
  }
  sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = htons(env.master_port);
  inet_pton(AF_INET, env.master_addr, &addr.sin_addr);
  if (env.rank == 0) {
    ncclGetUniqueId(&id);
    int srv = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(srv, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(srv, (sockaddr*)&addr, sizeof(addr)) != 0) die("bind");
    if (listen(srv, env.world_size) != 0) die("listen");
    for (int peer = 1; peer < env.world_size; ++peer) {
      int fd = accept(srv, nullptr, nullptr);
      if (fd < 0) die("accept");
      send_all(fd, &id, sizeof(id));
      close(fd);
    }
    close(srv);
  } else {
    for (int attempt = 0;; ++attempt) {  // rank 0 may not be listening yet
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      if (connect(fd, (sockaddr*)&addr, sizeof(addr)) == 0) {
        recv_all(fd, &id, sizeof(id));
        close(fd);
        break;
      }
      close(fd);
      if (attempt > 600) {
        fprintf(stderr, "rank %d: no rendezvous at %s:%d\n", env.rank, env.master_addr, env.master_port);
        exit(1);
      }
      usleep(100 * 1000);
    }
  }
  return id;
}
