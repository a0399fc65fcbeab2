#!/usr/bin/env python3
"""PyTorch peer of workloads/kv_transfer (contract: bench/peers/README.md).

Disaggregated serving on 2 ranks, bf16: rank 0 (prefill) computes KV_l = X_l W_l for L layers
(X_l: S x H, W_l: H x N, N = 2 KVH D, K heads then V heads); rank 1 (decode) ends with every layer
in its paged cache [L][pages][2][KVH][P][D] (physical page order; logical page p at page_table[p]).
Entries:
  torch sequential     rank 0: L matmuls, then one dist.send of all K/V; rank 1: dist.recv, then
                       one index_put_ into the paged cache
  torch per-layer      rank 0: matmul of layer l, then dist.isend of it (NCCL's stream overlaps it
                       with the next matmul); rank 1: dist.irecv per layer, the layer's page layout
                       as soon as it has arrived
  torch compute alone  the L matmuls alone (rank 0)                          (part: compute)
  torch comm alone     one dist.send/recv of all L layers of K/V alone       (part: comm)
Both full entries check the decode rank's cache on fresh inputs: 8 sampled (layer, page) blocks
against an fp32 product of the same X and W that the prefill rank computes and sends. Inputs are refreshed (uniform random, as in the workload) before every iteration, untimed; the page
table is a fresh random permutation, the same on both ranks.
Run by `cuco bench` once per rank with --size L=... --size S=... --size H=... --size KVH=...
--size D=... --size P=... --out FILE.
"""

import math

from peer_common import Peer, rel_error


def main():
    peer = Peer()
    torch, dist = peer.torch, peer.dist
    if peer.world != 2:
        raise SystemExit("kv_transfer runs on exactly 2 ranks")
    L, S, H = peer.size("L"), peer.size("S"), peer.size("H")
    KVH, D, P = peer.size("KVH"), peer.size("D"), peer.size("P")
    if S % P:
        raise SystemExit(f"P={P} must divide S={S}")
    N, pages = 2 * KVH * D, S // P
    dev, bf16 = peer.device, torch.bfloat16
    prefill = peer.rank == 0
    scale = math.sqrt(3.0 / H)
    KV = torch.empty(L, S, N, device=dev, dtype=bf16)  # rank 0: GEMM outputs; rank 1: received copy
    if prefill:
        X = torch.empty(L, S, H, device=dev, dtype=bf16)
        W = torch.empty(L, H, N, device=dev, dtype=bf16)
    else:
        cache = torch.empty(L, pages, 2, KVH, P, D, device=dev, dtype=bf16)
    gen = torch.Generator(device="cpu")
    gen.manual_seed(1234)
    table = {"pt": None}

    def refresh():  # X ~ U(-1,1), W ~ U(-1,1) * sqrt(3/H); a fresh page table (same on both ranks)
        if prefill:
            X.uniform_(-1, 1)
            W.uniform_(-scale, scale)
        table["pt"] = torch.randperm(pages, generator=gen).to(dev)

    def layer_view(l):  # KV_l [S, N] as [pages, 2, KVH, P, D]
        return KV[l].view(pages, P, 2, KVH, D).permute(0, 2, 3, 1, 4)

    def compute():
        for l in range(L):
            torch.matmul(X[l], W[l], out=KV[l])

    def sequential():
        if prefill:
            compute()
            dist.send(KV, 1)
        else:
            dist.recv(KV, 0)
            cache[:, table["pt"]] = KV.view(L, pages, P, 2, KVH, D).permute(0, 1, 3, 4, 2, 5)
        return None

    def per_layer():
        if prefill:
            works = []
            for l in range(L):
                torch.matmul(X[l], W[l], out=KV[l])
                works.append(dist.isend(KV[l], 1))
            for w in works:
                w.wait()
        else:
            works = [dist.irecv(KV[l], 0) for l in range(L)]
            for l in range(L):
                works[l].wait()
                cache[l, table["pt"]] = layer_view(l)
        return None

    def comm():
        if prefill:
            dist.send(KV, 1)
        else:
            dist.recv(KV, 0)

    # The check: 8 (layer, logical page) blocks, the same on both ranks.
    gen_s = torch.Generator(device="cpu")
    gen_s.manual_seed(99)
    blocks = [(int(torch.randint(L, (1,), generator=gen_s)), int(torch.randint(pages, (1,), generator=gen_s)))
              for _ in range(8)]

    def check(_):
        """The decode rank's cache[l][page_table[p]] against the prefill rank's fp32 X_l W_l rows."""
        ref = torch.empty(len(blocks), P, N, device=dev, dtype=torch.float32)
        if prefill:
            for i, (l, p) in enumerate(blocks):
                ref[i] = X[l, p * P:(p + 1) * P].float() @ W[l].float()
            dist.send(ref, 1)
            return 0.0, 0.0, "rank 0 has no output"
        dist.recv(ref, 0)
        pt = table["pt"].tolist()
        got = torch.stack([cache[l, pt[p]].permute(2, 0, 1, 3).reshape(P, N) for l, p in blocks])
        rel, mx = rel_error(got, ref)
        return rel, mx, f"{len(blocks)} sampled (layer, page) blocks against an fp32 product"

    tol = (0.005, 0.03125)
    refresh()
    peer.time_entry("torch sequential", sequential, refresh, check=check, tolerance=tol)
    peer.time_entry("torch per-layer", per_layer, refresh, check=check, tolerance=tol)
    peer.time_entry("torch compute alone", compute if prefill else (lambda: None), refresh, part="compute")
    peer.time_entry("torch comm alone", comm, refresh, part="comm")
    peer.finish("kv_transfer", {"layout": "rank 0: X [L,S,H], W [L,H,2*KVH*D]; rank 1: cache [L][S/P][2][KVH][P][D]",
                                "bytes_moved": L * S * N * 2})


if __name__ == "__main__":
    main()
