#!/usr/bin/env python3
"""PyTorch peer of workloads/gemm_allgather (contract: bench/peers/README.md).

Column-parallel linear layer on W ranks, bf16: rank r holds A_r = rows [r M/W, (r+1) M/W) of A
(M/W x K) and its weight shard B (K x N), and ends with C = all_gather(A) B (M x N). Entries:
  torch sequential            dist.all_gather_into_tensor of A (M x K), then torch.matmul
  torch async-TP fused        torch.ops.symm_mem.fused_all_gather_matmul (symmetric memory: each
                              peer's shard pulled by a copy engine while the matmul of the shards
                              already here runs)
  te comm-gemm overlap        Transformer Engine's column-parallel Linear with userbuffer all-gather
                              overlap (te_overlap.py; skipped where TE does not import)
  torch compute alone         the M x N x K matmul alone                               (part: compute)
  torch comm alone            all_gather_into_tensor (NCCL) of the M/W x K shards      (part: comm)
  torch symm-mem comm alone   the same all-gather over symmetric memory: every peer's shard pulled
                              by the copy engines, one stream per peer                 (part: comm)
Every full entry checks its output on fresh inputs against an fp32 reference on 64 sampled rows
(A all-gathered, times this rank's B). Inputs are refreshed (uniform random, as in the workload)
before every iteration, untimed. Run by `cuco bench` once per rank with --size M=... --size N=...
--size K=... --out FILE.
"""

import math

import te_overlap
from peer_common import Peer, rel_error


def main():
    peer = Peer()
    torch, dist = peer.torch, peer.dist
    M, N, K, W, r = peer.size("M"), peer.size("N"), peer.size("K"), peer.world, peer.rank
    if M % W:
        raise SystemExit(f"M={M} must be divisible by the world size {W}")
    ml = M // W
    dev, bf16 = peer.device, torch.bfloat16
    A_shard = torch.empty(ml, K, device=dev, dtype=bf16)
    B = torch.empty(K, N, device=dev, dtype=bf16)
    scale = math.sqrt(3.0 / K)

    def refresh():  # fresh inputs, like the harness: A ~ U(-1,1), B ~ U(-1,1) * sqrt(3/K)
        A_shard.uniform_(-1, 1)
        B.uniform_(-scale, scale)

    refresh()
    A = torch.empty(M, K, device=dev, dtype=bf16)
    C = torch.empty(M, N, device=dev, dtype=bf16)
    idx = peer.sample(M, 64)  # the checked rows of C
    tol = (0.005, 0.03125)    # the workload's, unless cuco passes its own

    def check(result):
        """rows idx of C against all_gather(A)[idx] B in fp32."""
        gathered = torch.empty(M, K, device=dev, dtype=bf16)
        dist.all_gather_into_tensor(gathered, A_shard)
        ref = gathered.index_select(0, idx).float() @ B.float()
        rel, mx = rel_error(result.index_select(0, idx), ref)
        return rel, mx, f"{idx.numel()} sampled rows against an fp32 reference"

    def sequential():
        dist.all_gather_into_tensor(A, A_shard)
        torch.matmul(A, B, out=C)
        return C

    peer.time_entry("torch sequential", sequential, refresh, check=check, tolerance=tol)

    peer.enable_symm_mem()

    def fused():
        _, outs = torch.ops.symm_mem.fused_all_gather_matmul(A_shard, [B], 0, peer.group_name)
        return outs[0]

    peer.time_entry("torch async-TP fused", fused, refresh, check=check, tolerance=tol)

    te_overlap.time_entry(peer, "ag", M, N, K, B, A_shard, refresh, check, tol)

    peer.time_entry("torch compute alone", lambda: torch.matmul(A, B, out=C), refresh, part="compute")
    peer.time_entry("torch comm alone", lambda: dist.all_gather_into_tensor(A, A_shard), refresh, part="comm")

    # The all-gather over symmetric memory: each rank's shard lives in a symmetric buffer (written
    # there as its input), every peer's shard is pulled by a copy engine.
    try:
        sym, hdl = peer.symm_empty((ml, K), bf16)
    except Exception as e:  # noqa: BLE001
        sym, hdl = None, None
        peer.log(f"symmetric memory: {type(e).__name__}: {e}")
    if peer.agree(sym is not None):
        def symm_refresh():
            refresh()
            sym.copy_(A_shard)

        def symm_comm():
            hdl.barrier(channel=0)  # every shard is in place
            peer.copy_in_parallel([(A[q * ml:(q + 1) * ml], hdl.get_buffer(q, (ml, K), bf16))
                                   for q in range(W) if q != r])
            A[r * ml:(r + 1) * ml].copy_(sym)
            hdl.barrier(channel=1)  # nobody overwrites a shard a peer is still reading

        peer.time_entry("torch symm-mem comm alone", symm_comm, symm_refresh, part="comm")
    else:
        peer.skip_entry("torch symm-mem comm alone", "symmetric memory could not be allocated here", part="comm")

    peer.finish("gemm_allgather", {"layout": "A_r: M/W x K (rows r*M/W..), B: K x N, C = all_gather(A) B: M x N"})


if __name__ == "__main__":
    main()
