// torchrun-style rendezvous without MPI: rank 0 listens on MASTER_ADDR:MASTER_PORT and hands
// the NCCL unique id to every other rank over TCP.
#pragma once
#include <nccl.h>

struct DistEnv {
  int rank;
  int world_size;
  int local_rank;
  const char* master_addr;
  int master_port;
};

// Reads RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT (defaults: 0, 1, RANK, 127.0.0.1, 29500).
DistEnv read_dist_env();

// Rank 0 creates the id and sends it to the world_size - 1 others; the others receive it.
ncclUniqueId exchange_unique_id(const DistEnv& env);
