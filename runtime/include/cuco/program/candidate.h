// cuco/program/candidate.h: the candidate side of cuco/program/program.h (seed.cu includes it
// first). One rank per process. The program's bootstrap is answered by the harness: its NCCL
// communicator is ctx.comm, the streams it creates are ctx.stream then ctx.side_stream(0, 1, ...),
// the events it creates are the harness's events (ctx.record_event / ctx.wait_event), MPI is
// cuco/program/mpi.h over ctx.comm. The program's main runs on a thread of its own:
//   cuco_candidate_setup    starts it and waits until it reaches serve() (its timed loop);
//   cuco_candidate_run      points the bound variables at the harness's buffers (an inout buffer's
//                           input is copied into its output first, on ctx.stream, and every stream
//                           the program made waits for those copies), runs the loop body once on
//                           that thread and waits for it;
//   cuco_candidate_teardown ends the thread (the code after the loop does not run).
// cuco_program::ctx() is the harness's RankContext, for code inside the EVOLVE blocks; codesign.h is
// the design space `cuco transform` gives the blocks (knobs backend, graph and chunks; the collectives
// behind them are cuco's runtime/src/program/, linked into the candidate). exit() in the
// program's code ends the iteration (or the setup) with an error, not the process (program_exit.h).
// Host clocks read inside the EVOLVE blocks tick a millisecond a read (host_clock.h).
#pragma once

#include <cuco/harness.h>
#include <cuco/program/program.h>
#include <cuco/program/impl/candidate_side.h>
#include <cuco/program/codesign.h>
#include <cuco/program/impl/chunk_overlap.h>
#include <cuco/program/impl/candidate_shims.h>
#include <cuco/program/impl/host_clock.h>
#include <cuco/program/impl/program_exit.h>
