#!/usr/bin/env bash
# One GPU, world size 1: the references that use cuco/impl/row_check.h, after its summarize_partials refactor.
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cc
C=.carry/cuco
$C eval workloads/attention_cp workloads/attention_cp/seed.cu workloads/attention_cp/gen0.cu --world-size 1 --run-dir /tmp/a 2>&1 | grep -E "^[a-z_]+: |verify|bench  "
$C eval workloads/moe_dispatch_combine --world-size 1 --size E_PER_RANK=8 --run-dir /tmp/m 2>&1 | grep -E "^[a-z_]+: |verify|bench  "
$C eval tests/gpu/workloads/collectives_suite --world-size 1 --run-dir /tmp/c 2>&1 | grep -E "^[a-z_]+: |verify|bench  "
