#!/usr/bin/env python3
"""PyTorch peer of workloads/gemm_reducescatter (contract: bench/peers/README.md).

Row-parallel linear layer on W ranks, bf16: rank r holds A_r (M x K/W) and B_r (K/W x N) and ends
with rows [r M/W, (r+1) M/W) of C = sum_r A_r B_r (M/W x N). Entries:
  torch sequential            torch.matmul(A_r, B_r) into an M x N partial, then dist.reduce_scatter_tensor
  torch async-TP fused        torch.ops.symm_mem.fused_matmul_reduce_scatter (symmetric memory,
                              the partial's chunks pulled by copy engines while the next chunk's
                              matmul runs)
  te comm-gemm overlap        Transformer Engine's row-parallel Linear with userbuffer reduce-scatter
                              overlap (te_overlap.py; skipped where TE does not import)
  torch compute alone         the partial matmul alone                                (part: compute)
  torch comm alone            reduce_scatter_tensor (NCCL) of an M x N bf16 partial   (part: comm)
  torch symm-mem comm alone   the same reduce-scatter over symmetric memory: each rank pulls its rows
                              of every peer's partial with the copy engines (one stream per peer),
                              then sums them in fp32                                   (part: comm)
Every full entry checks its output on fresh inputs against an fp32 reference on 64 sampled rows
of each rank (the rows' A_q of every rank and every B_q, all-gathered). Inputs are refreshed
(uniform random, as in the workload) before every iteration, untimed. Run by `cuco bench` once per
rank with --size M=... --size N=... --size K=... --out FILE.
"""

import math

import te_overlap
from peer_common import Peer, rel_error


def main():
    peer = Peer()
    torch, dist = peer.torch, peer.dist
    M, N, K, W, r = peer.size("M"), peer.size("N"), peer.size("K"), peer.world, peer.rank
    if M % W or K % W:
        raise SystemExit(f"M={M} and K={K} must be divisible by the world size {W}")
    kl, ml = K // W, M // W
    dev, bf16 = peer.device, torch.bfloat16
    A = torch.empty(M, kl, device=dev, dtype=bf16)
    B = torch.empty(kl, N, device=dev, dtype=bf16)
    scale = math.sqrt(3.0 / K)

    def refresh():  # fresh inputs, like the harness: A ~ U(-1,1), B ~ U(-1,1) * sqrt(3/K)
        A.uniform_(-1, 1)
        B.uniform_(-scale, scale)

    refresh()
    partial = torch.empty(M, N, device=dev, dtype=bf16)
    out = torch.empty(ml, N, device=dev, dtype=bf16)
    idx = peer.sample(ml, 64)  # the checked rows of every rank's output (local row numbers)
    tol = (0.01, 0.0625)       # the workload's, unless cuco passes its own

    def check(result):
        """rows idx of this rank's output against sum_q A_q[r M/W + idx] B_q in fp32."""
        rows = torch.cat([q * ml + idx for q in range(W)])  # every rank's sample, global rows
        mine = A.index_select(0, rows).contiguous()         # (W S) x K/W: my columns of them
        a_all = [torch.empty_like(mine) for _ in range(W)]
        b_all = [torch.empty_like(B) for _ in range(W)]
        dist.all_gather(a_all, mine)
        dist.all_gather(b_all, B)
        s = idx.numel()
        ref = sum(a_all[q][r * s:(r + 1) * s].float() @ b_all[q].float() for q in range(W))
        rel, mx = rel_error(result.index_select(0, idx), ref)
        return rel, mx, f"{s} sampled rows per rank against an fp32 reference"

    def sequential():
        torch.matmul(A, B, out=partial)
        dist.reduce_scatter_tensor(out, partial)
        return out

    peer.time_entry("torch sequential", sequential, refresh, check=check, tolerance=tol)

    peer.enable_symm_mem()

    def fused():
        return torch.ops.symm_mem.fused_matmul_reduce_scatter(A, B, "sum", 0, peer.group_name)

    peer.time_entry("torch async-TP fused", fused, refresh, check=check, tolerance=tol)

    te_overlap.time_entry(peer, "rs", M, N, K, B, A, refresh, check, tol)

    peer.time_entry("torch compute alone", lambda: torch.matmul(A, B, out=partial), refresh, part="compute")
    peer.time_entry("torch comm alone", lambda: dist.reduce_scatter_tensor(out, partial), refresh, part="comm")

    # The reduce-scatter over symmetric memory: the partial lives in a symmetric buffer (the matmul
    # writes it there, so moving it in is not part of the communication).
    try:
        sym, hdl = peer.symm_empty((M, N), bf16)
    except Exception as e:  # noqa: BLE001
        sym, hdl = None, None
        peer.log(f"symmetric memory: {type(e).__name__}: {e}")
    if peer.agree(sym is not None):
        others = [q for q in range(W) if q != r]
        pulled = torch.empty(max(1, W - 1), ml, N, device=dev, dtype=bf16)

        def symm_refresh():
            refresh()
            torch.matmul(A, B, out=sym)

        def symm_comm():
            hdl.barrier(channel=0)  # every partial is complete
            peer.copy_in_parallel([(pulled[i], hdl.get_buffer(q, (ml, N), bf16, storage_offset=r * ml * N))
                                   for i, q in enumerate(others)])
            acc = sym[r * ml:(r + 1) * ml].float()
            acc += pulled[:len(others)].float().sum(0)
            out.copy_(acc)
            hdl.barrier(channel=1)  # nobody overwrites a partial a peer is still reading

        peer.time_entry("torch symm-mem comm alone", symm_comm, symm_refresh, part="comm")
    else:
        peer.skip_entry("torch symm-mem comm alone", "symmetric memory could not be allocated here", part="comm")

    peer.finish("gemm_reducescatter", {"layout": "A_r: M x K/W, B_r: K/W x N, C rows r*M/W.. (M/W x N)"})


if __name__ == "__main__":
    main()
