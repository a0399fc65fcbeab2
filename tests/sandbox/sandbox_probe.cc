// cuco-sandbox-probe: looks at the sandbox from inside and prints what it sees as key=value lines.
// Usage: cuco-sandbox-probe <check> [args] [<check> [args]...]; checks run in order:
//   pid            pid=<own pid> procs=<number of processes in /proc>
//   caps           capeff=<hex> nnp=<0|1> seccomp=<mode>
//   net            ifaces=<names,> inet=<errno of a TCP connect to 192.0.2.1:80> loopback=<ok|error>
//   env            env=<NAME=VALUE> for each variable
//   write PATH     write=<ok|strerror>  (creates PATH)
//   list DIR       list=<number of entries|strerror>
//   rlimits        rlimit_<name>=<soft or inf>
//   ptrace         ptrace=<ok|errno name> (PTRACE_ATTACH to a child of its own)
//   vm_readv       vm_readv=<ok|errno name> (process_vm_readv of its own child)
//   unshare_user   unshare_user=<ok|errno name>
//   kill PID       kill=<ok|errno name> (signal 0 to PID)
//   daemon DIR TOKEN   setsid + double fork; the grandchild re-execs as `sleep TOKEN` and writes DIR/daemon.started
//   sleep TOKEN    sleeps 60 s (TOKEN only marks the process)
//   fd3            rank=<CUCO_RANK> fd3=<first line read from fd 3> fds=<open fds>
//   works          works=ok when threads, memfd + SCM_RIGHTS, mmap and loopback TCP all work (else what failed)
//   spin           burns CPU for 60 s
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

extern char** environ;

namespace {

std::string ErrName(int e) {
  switch (e) {
    case EPERM: return "EPERM";
    case ESRCH: return "ESRCH";
    case ENOSYS: return "ENOSYS";
    case EACCES: return "EACCES";
    case EROFS: return "EROFS";
    case ENETUNREACH: return "ENETUNREACH";
    case EINVAL: return "EINVAL";
    default: return "errno" + std::to_string(e);
  }
}

std::string Result(long rc) { return rc == 0 ? "ok" : ErrName(errno); }

std::string StatusField(const char* name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) == 0) {
      size_t p = line.find_first_not_of(" \t", std::strlen(name) + 1);
      return p == std::string::npos ? "" : line.substr(p);
    }
  }
  return "?";
}

pid_t SleepingChild() {
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  return pid;
}

void Reap(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

std::string OpenFds() {
  std::string fds;
  DIR* d = opendir("/proc/self/fd");
  int self = dirfd(d);
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.' || std::atoi(e->d_name) == self) continue;
    fds += fds.empty() ? "" : ",";
    fds += e->d_name;
  }
  closedir(d);
  return fds;
}

// Threads, memfd passed over a socketpair, mmap of it, and TCP over loopback: what CUDA and NCCL need.
std::string Works() {
  bool thread_ran = false;
  std::thread t([&] { thread_ran = true; });
  t.join();
  if (!thread_ran) return "thread";
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return "socketpair " + ErrName(errno);
  int mfd = static_cast<int>(syscall(SYS_memfd_create, "probe", 0));
  if (mfd < 0 || ftruncate(mfd, 4096) != 0) return "memfd " + ErrName(errno);
  char byte = 'x';
  char cbuf[CMSG_SPACE(sizeof(int))] = {};
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = cbuf;
  msg.msg_controllen = sizeof(cbuf);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &mfd, sizeof(int));
  if (sendmsg(sv[0], &msg, 0) != 1) return "sendmsg " + ErrName(errno);
  if (recvmsg(sv[1], &msg, 0) != 1) return "recvmsg " + ErrName(errno);
  int got = -1;
  std::memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, got, 0);
  if (p == MAP_FAILED) return "mmap " + ErrName(errno);
  static_cast<char*>(p)[0] = 1;
  munmap(p, 4096);
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (bind(ls, reinterpret_cast<sockaddr*>(&a), len) != 0 || listen(ls, 1) != 0 ||
      getsockname(ls, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return "listen " + ErrName(errno);
  }
  int cs = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(cs, reinterpret_cast<sockaddr*>(&a), len) != 0) return "connect " + ErrName(errno);
  int as = accept(ls, nullptr, nullptr);
  if (as < 0 || write(cs, "y", 1) != 1 || read(as, &byte, 1) != 1 || byte != 'y') return "loopback";
  return "ok";
}

void Daemon(const char* dir, const char* token) {
  pid_t child = fork();
  if (child == 0) {
    setsid();
    if (fork() == 0) {
      int null = open("/dev/null", O_RDWR);
      for (int fd = 0; fd < 3; ++fd) dup2(null, fd);  // a real daemon lets go of the caller's pipes
      execl("/proc/self/exe", "cuco-sandbox-probe", "daemon-sleep", dir, token, nullptr);
      _exit(127);
    }
    _exit(0);
  }
  waitpid(child, nullptr, 0);
  std::string started = std::string(dir) + "/daemon.started";
  for (int i = 0; i < 1000 && access(started.c_str(), F_OK) != 0; ++i) usleep(10000);
  std::printf("daemon=%s\n", access(started.c_str(), F_OK) == 0 ? "started" : "missing");
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGXFSZ, SIG_IGN);
  for (int i = 1; i < argc; ++i) {
    std::string c = argv[i];
    auto arg = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "cuco-sandbox-probe: %s needs an argument\n", c.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (c == "pid") {
      int procs = 0;
      DIR* d = opendir("/proc");
      while (dirent* e = readdir(d)) procs += std::atoi(e->d_name) > 0;
      closedir(d);
      std::printf("pid=%d\nprocs=%d\n", getpid(), procs);
    } else if (c == "caps") {
      std::printf("capeff=%s\nnnp=%s\nseccomp=%s\n", StatusField("CapEff").c_str(), StatusField("NoNewPrivs").c_str(),
                  StatusField("Seccomp").c_str());
    } else if (c == "net") {
      std::string names;
      if (struct if_nameindex* ifs = if_nameindex()) {
        for (struct if_nameindex* p = ifs; p->if_index != 0; ++p) {
          names += names.empty() ? "" : ",";
          names += p->if_name;
        }
        if_freenameindex(ifs);
      }
      int s = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(80);
      inet_pton(AF_INET, "192.0.2.1", &a.sin_addr);
      std::string inet = Result(connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)));
      close(s);
      std::printf("ifaces=%s\ninet=%s\n", names.c_str(), inet.c_str());
    } else if (c == "env") {
      for (char** e = environ; *e != nullptr; ++e) std::printf("env=%s\n", *e);
    } else if (c == "write") {
      const char* path = arg();
      int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      std::string r = fd >= 0 && write(fd, "x\n", 2) == 2 ? "ok" : std::strerror(errno);
      if (fd >= 0) close(fd);
      std::printf("write=%s\n", r.c_str());
    } else if (c == "list") {
      const char* dir = arg();
      DIR* d = opendir(dir);
      if (d == nullptr) {
        std::printf("list=%s\n", std::strerror(errno));
        continue;
      }
      int n = 0;
      while (dirent* e = readdir(d)) n += std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0;
      closedir(d);
      std::printf("list=%d\n", n);
    } else if (c == "rlimits") {
      const std::pair<const char*, int> kLimits[] = {{"as", RLIMIT_AS},         {"data", RLIMIT_DATA},
                                                     {"fsize", RLIMIT_FSIZE},   {"cpu", RLIMIT_CPU},
                                                     {"nofile", RLIMIT_NOFILE}, {"nproc", RLIMIT_NPROC}};
      for (const auto& [name, res] : kLimits) {
        rlimit rl{};
        getrlimit(res, &rl);
        if (rl.rlim_cur == RLIM_INFINITY) std::printf("rlimit_%s=inf\n", name);
        else std::printf("rlimit_%s=%llu\n", name, static_cast<unsigned long long>(rl.rlim_cur));
      }
    } else if (c == "ptrace") {
      pid_t child = SleepingChild();
      std::printf("ptrace=%s\n", Result(ptrace(PTRACE_ATTACH, child, nullptr, nullptr)).c_str());
      Reap(child);
    } else if (c == "vm_readv") {
      pid_t child = SleepingChild();
      char buf[8];
      static char src[8] = "abc";
      iovec local{buf, sizeof(buf)}, remote{src, sizeof(src)};
      long n = syscall(SYS_process_vm_readv, child, &local, 1, &remote, 1, 0);
      std::printf("vm_readv=%s\n", n > 0 ? "ok" : ErrName(errno).c_str());
      Reap(child);
    } else if (c == "unshare_user") {
      std::printf("unshare_user=%s\n", Result(syscall(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */)).c_str());
    } else if (c == "kill") {
      std::printf("kill=%s\n", Result(kill(std::atoi(arg()), 0)).c_str());
    } else if (c == "daemon") {
      const char* dir = arg();
      Daemon(dir, arg());
    } else if (c == "daemon-sleep") {  // the daemon after exec: its command line names the token
      std::ofstream(std::string(arg()) + "/daemon.started") << getpid() << "\n";
      arg();
      sleep(60);
    } else if (c == "sleep") {
      arg();
      sleep(60);
    } else if (c == "fd3") {
      char buf[256] = {};
      ssize_t n = read(3, buf, sizeof(buf) - 1);
      std::string line = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "(" + ErrName(errno) + ")";
      if (size_t nl = line.find('\n'); nl != std::string::npos) line.resize(nl);
      const char* rank = std::getenv("CUCO_RANK");
      std::printf("rank=%s\nfd3=%s\nfds=%s\n", rank ? rank : "", line.c_str(), OpenFds().c_str());
    } else if (c == "works") {
      std::printf("works=%s\n", Works().c_str());
    } else if (c == "spin") {
      auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      volatile unsigned long x = 0;
      while (std::chrono::steady_clock::now() < end) x = x + 1;
    } else {
      std::fprintf(stderr, "cuco-sandbox-probe: unknown check '%s'\n", c.c_str());
      return 2;
    }
    std::fflush(stdout);
  }
  return 0;
}
