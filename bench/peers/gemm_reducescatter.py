#!/usr/bin/env python3
"""PyTorch peer of workloads/gemm_reducescatter (contract: bench/peers/README.md).

Row-parallel linear layer on W ranks, bf16: rank r holds A_r (M x K/W) and B_r (K/W x N) and ends
with rows [r M/W, (r+1) M/W) of C = sum_r A_r B_r (M/W x N). Entries:
  torch sequential     torch.matmul(A_r, B_r) into an M x N partial, then dist.reduce_scatter_tensor
  torch fused          torch.ops.symm_mem.fused_matmul_reduce_scatter (async-TP, symmetric memory)
  torch compute alone  the partial matmul alone                            (part: compute)
  torch comm alone     reduce_scatter_tensor of an M x N bf16 partial alone (part: comm)
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
    if M % W or K % W:
        raise SystemExit(f"M={M} and K={K} must be divisible by the world size {W}")
    kl = K // W
    dev, bf16 = peer.device, torch.bfloat16
    A = torch.empty(M, kl, device=dev, dtype=bf16)
    B = torch.empty(kl, N, device=dev, dtype=bf16)
    scale = math.sqrt(3.0 / K)

    def refresh():  # fresh inputs, like the harness: A ~ U(-1,1), B ~ U(-1,1) * sqrt(3/K)
        A.uniform_(-1, 1)
        B.uniform_(-scale, scale)

    refresh()
    partial = torch.empty(M, N, device=dev, dtype=bf16)
    out = torch.empty(M // W, N, device=dev, dtype=bf16)

    def sequential():
        torch.matmul(A, B, out=partial)
        dist.reduce_scatter_tensor(out, partial)

    peer.time_entry("torch sequential", sequential, refresh)

    peer.enable_symm_mem()

    def fused():
        torch.ops.symm_mem.fused_matmul_reduce_scatter(A, B, "sum", 0, peer.group_name)

    peer.time_entry("torch fused", fused, refresh)

    peer.time_entry("torch compute alone", lambda: torch.matmul(A, B, out=partial), refresh, part="compute")
    peer.time_entry("torch comm alone", lambda: dist.reduce_scatter_tensor(out, partial), refresh, part="comm")

    # A spot check of the two full entries against each other (not a verification: cuco does not
    # check peers; it only records that they agree).
    rel = None
    try:
        refresh()
        sequential()
        ref = out.float()
        got = torch.ops.symm_mem.fused_matmul_reduce_scatter(A, B, "sum", 0, peer.group_name).float()
        rel = ((got - ref).norm() / ref.norm()).item()
        peer.log(f"fused vs sequential: relative L2 difference {rel:.3g}")
    except Exception as e:  # noqa: BLE001
        peer.log(f"fused vs sequential: not compared ({type(e).__name__}: {e})")
    peer.finish("gemm_reducescatter", {"layout": "A_r: M x K/W, B_r: K/W x N, C rows r*M/W.. (M/W x N)",
                                       "fused_vs_sequential_rel_l2": rel})


if __name__ == "__main__":
    main()
