// cuco/codesign.h: the co-design building blocks a candidate composes (one include for all).
//
//   design.h       the five dimensions as types: Backend, Placement, SyncScope, Issuer, WaitMode
//   flags.h        epoch flags: scoped release/acquire signals, waits on streams (spin / wait-value)
//   transfer.h     an SM-driven communication kernel (LSA pushes/pulls, issuer and scope knobs)
//   copy_engine.h  copy-engine transfers with per-chunk signals; stream ordering via harness events
//   lsa.h          symmetric buffers with every peer's address; LSA barriers
//   gemm.h         row-major bf16 cuBLASLt GEMM: chunks, strided batches, fused accumulate, SM target
//   fp8_blocks.h   e4m3 quantisation in 128-element blocks with fp32 scales; wire rows (fp8 dispatch)
//   gin.h          GIN puts with signals (compiled; needs RDMA NICs to run)
//   nvshmem.h      NVSHMEM puts with signals (only with -DCUCO_WITH_NVSHMEM)
//   collectives.h  device-initiated drop-ins for host NCCL calls (what `cuco transform` emits)
//   attention.h    flash-attention-class forward and merge: NOT included here (its kernels add
//                  compile time to every candidate); the attention workload includes it itself
// Host NCCL on a side stream needs no wrapper: ncclAllGather / ncclReduceScatter on
// ctx.side_stream(i), ordered with follow().
#pragma once

#include <cuco/codesign/collectives.h>
#include <cuco/codesign/copy_engine.h>
#include <cuco/codesign/design.h>
#include <cuco/codesign/flags.h>
#include <cuco/codesign/fp8_blocks.h>
#include <cuco/codesign/gemm.h>
#include <cuco/codesign/gin.h>
#include <cuco/codesign/lsa.h>
#include <cuco/codesign/nvshmem.h>
#include <cuco/codesign/transfer.h>
