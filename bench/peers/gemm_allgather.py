#!/usr/bin/env python3
"""PyTorch peer of workloads/gemm_allgather (contract: bench/peers/README.md).

Column-parallel linear layer on W ranks, bf16: rank r holds A_r = rows [r M/W, (r+1) M/W) of A
(M/W x K) and its weight shard B (K x N), and ends with C = all_gather(A) B (M x N). Entries:
  torch sequential     dist.all_gather_into_tensor of A (M x K), then torch.matmul
  torch fused          torch.ops.symm_mem.fused_all_gather_matmul (async-TP, symmetric memory)
  torch compute alone  the M x N x K matmul alone                       (part: compute)
  torch comm alone     all_gather_into_tensor of the M/W x K shards alone (part: comm)
Inputs are refreshed (uniform random, as in the workload) before every iteration, untimed.
Run by `cuco bench` once per rank (env CUCO_RANK, CUCO_WORLD_SIZE, CUCO_LOCAL_RANK,
CUCO_RENDEZVOUS_DIR) with --size M=... --size N=... --size K=... --out FILE.
"""

import math

from peer_common import Peer


def main():
    peer = Peer()
    torch, dist = peer.torch, peer.dist
    M, N, K, W = peer.size("M"), peer.size("N"), peer.size("K"), peer.world
    if M % W:
        raise SystemExit(f"M={M} must be divisible by the world size {W}")
    dev, bf16 = peer.device, torch.bfloat16
    A_shard = torch.empty(M // W, K, device=dev, dtype=bf16)
    B = torch.empty(K, N, device=dev, dtype=bf16)
    scale = math.sqrt(3.0 / K)

    def refresh():  # fresh inputs, like the harness: A ~ U(-1,1), B ~ U(-1,1) * sqrt(3/K)
        A_shard.uniform_(-1, 1)
        B.uniform_(-scale, scale)

    refresh()
    A = torch.empty(M, K, device=dev, dtype=bf16)
    C = torch.empty(M, N, device=dev, dtype=bf16)

    def sequential():
        dist.all_gather_into_tensor(A, A_shard)
        torch.matmul(A, B, out=C)

    peer.time_entry("torch sequential", sequential, refresh)

    peer.enable_symm_mem()

    def fused():
        torch.ops.symm_mem.fused_all_gather_matmul(A_shard, [B], 0, peer.group_name)

    peer.time_entry("torch fused", fused, refresh)

    peer.time_entry("torch compute alone", lambda: torch.matmul(A, B, out=C), refresh, part="compute")
    peer.time_entry("torch comm alone", lambda: dist.all_gather_into_tensor(A, A_shard), refresh, part="comm")

    # A spot check of the two full entries against each other (not a verification: cuco does not
    # check peers; it only records that they agree).
    rel = None
    try:
        refresh()
        sequential()
        ref = C.float()
        _, outs = torch.ops.symm_mem.fused_all_gather_matmul(A_shard, [B], 0, peer.group_name)
        got = outs[0].float()
        rel = ((got - ref).norm() / ref.norm()).item()
        peer.log(f"fused vs sequential: relative L2 difference {rel:.3g}")
    except Exception as e:  # noqa: BLE001
        peer.log(f"fused vs sequential: not compared ({type(e).__name__}: {e})")
    peer.finish("gemm_allgather", {"layout": "A_r: M/W x K (rows r*M/W..), B: K x N, C = all_gather(A) B: M x N",
                                   "fused_vs_sequential_rel_l2": rel})


if __name__ == "__main__":
    main()
