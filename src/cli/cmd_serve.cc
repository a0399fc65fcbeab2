// cuco serve <run-dir> [--port N] [--bind ADDR]: the report of a run, live (report_server.h).
#include <iostream>

#include "cli/commands.h"
#include "cli/view_common.h"
#include "report/report_server.h"

namespace cuco {

void AddServeCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ServeOptions>();
  auto* cmd = app.add_subcommand("serve", "The report of a run, live while `cuco evolve` writes it (loopback unless --bind)");
  cmd->add_option("run", a->run_dir, "Run directory (holds cuco.db)")->required();
  cmd->add_option("--port", a->port, "TCP port (0: any free one)")->capture_default_str()->check(CLI::Range(0, 65535));
  cmd->add_option("--bind", a->bind, "Address to listen on; anything but 127.0.0.1 exposes the run to the network")
      ->capture_default_str();
  cmd->callback([a, exit_code] {
    auto server = ReportServer::Start(*a);
    if (!server.ok()) {
      *exit_code = ViewFail("serve", server.status());
      return;
    }
    if (a->bind != "127.0.0.1" && a->bind != "localhost")
      std::cerr << "cuco serve: --bind " << a->bind << ": the run (its code, logs and figures) is reachable from "
                << "other machines, without authentication\n";
    std::cout << "serving " << a->run_dir << " at http://" << a->bind << ":" << (*server)->port() << "/ (Ctrl-C stops)"
              << std::endl;
    (*server)->Wait();
    *exit_code = kExitOk;
  });
}

}  // namespace cuco
