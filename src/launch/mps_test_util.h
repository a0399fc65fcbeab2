// Test binaries only: a fake nvidia-cuda-mps-control (a bash script) for the MPS daemon's life
// without a GPU. `-f` is the daemon: it appends its environment and its folders' modes to the
// record, makes $CUDA_MPS_PIPE_DIRECTORY/control, plays the server with a sleeping child once a
// client asked for one, and exits on `quit` (killing that child). Without arguments it is a
// client: it appends "command <line>" to the record and answers get_server_list, the
// active-thread percentages (100.0 until set) and anything else with 0. Modes change one thing:
// "ignore-quit" (the daemon ignores quit and SIGTERM), "leave-server" (the server leaves the
// daemon's process group and outlives it), "no-socket" (no control socket), "no-server" (the
// server never starts), "old-driver" (the pinned-memory commands fail).
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace cuco::testutil {

inline std::filesystem::path WriteFakeMpsControl(const std::filesystem::path& dir, const std::filesystem::path& record,
                                                 const std::string& mode = "") {
  std::filesystem::create_directories(dir);
  const std::filesystem::path script = dir / "nvidia-cuda-mps-control";
  std::ofstream out(script);
  out << "#!/bin/bash\nREC='" << record.string() << "'\nMODE='" << mode << "'\n" << R"FAKE(P="$CUDA_MPS_PIPE_DIRECTORY"
if [ "$1" = "-f" ]; then
  echo "daemon pid=$$ pipe=$P log=$CUDA_MPS_LOG_DIRECTORY visible=${CUDA_VISIBLE_DEVICES-unset} atp=${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE-unset}" >> "$REC"
  echo "modes root=$(stat -c %a "$(dirname "$P")") pipe=$(stat -c %a "$P") log=$(stat -c %a "$CUDA_MPS_LOG_DIRECTORY")" >> "$REC"
  [ "$MODE" = ignore-quit ] && trap '' TERM
  [ "$MODE" = no-socket ] || : > "$P/control"
  while :; do
    if [ -e "$P/start" ] && [ ! -e "$P/server.pid" ]; then
      if [ "$MODE" = leave-server ]; then setsid sleep 300 & else sleep 300 & fi
      echo $! > "$P/server.pid"
      echo "server pid=$!" >> "$REC"
    fi
    if [ -e "$P/quit" ] && [ "$MODE" != ignore-quit ]; then
      [ "$MODE" = leave-server ] || { [ -e "$P/server.pid" ] && kill "$(cat "$P/server.pid")"; }
      echo "daemon quit" >> "$REC"
      exit 0
    fi
    sleep 0.02
  done
fi
read -r cmd
echo "command $cmd" >> "$REC"
case "$cmd" in
  "start_server -uid "*) [ "$MODE" = no-server ] || : > "$P/start" ;;
  get_server_list) cat "$P/server.pid" 2>/dev/null ;;
  quit) : > "$P/quit" ;;
  "set_default_active_thread_percentage "*) echo "${cmd##* }" > "$P/atp" ;;
  get_default_active_thread_percentage) cat "$P/atp" 2>/dev/null || echo 100.0 ;;
  "set_active_thread_percentage "*) echo "${cmd##* }" > "$P/server-atp" ;;
  "get_active_thread_percentage "*) cat "$P/server-atp" 2>/dev/null || echo 100.0 ;;
  *pinned_mem_limit*) [ "$MODE" = old-driver ] && { echo "Unrecognized command"; exit 1; }; echo 0 ;;
  *) echo 0 ;;
esac
)FAKE";
  out.close();
  ::chmod(script.c_str(), 0755);
  return script;
}

// Whether `pid` is a process that has not ended (a zombie counts as ended).
inline bool ProcessAlive(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t rp = text.rfind(')');
  return rp != std::string::npos && rp + 2 < text.size() && text[rp + 2] != 'Z' && text[rp + 2] != 'X';
}

}  // namespace cuco::testutil
