#!/usr/bin/env python3
"""PyTorch peer of workloads/attention_cp (contract: bench/peers/README.md).

Context-parallel GQA attention on W ranks, bf16: rank r holds q (L x HQ x D), k and v (L x HKV x D)
of tokens [r L, (r+1) L), L = S / W, and ends with o (L x HQ x D) over the keys of every rank
(causal when CAUSAL = 1: query i at r L + i sees keys j <= r L + i). Entries, each in two forms of
F.scaled_dot_product_attention: "gqa" (enable_gqa, PyTorch picks the backend) and "flash" (K and V
expanded to HQ heads, the flash backend forced):
  torch sequential (gqa|flash)  dist.all_gather_into_tensor of K and V, then one attention of the
                                rank's queries over the keys up to its last query (causal:
                                bottom-right aligned; rank W-1 does 2W-1 times rank 0's work)
  torch zigzag (gqa|flash)      causal load balancing, as the workload's zigzag: query half-chunk c
                                of 2W is computed by rank c < W ? c : 2W-1-c over the gathered K/V
                                (queries sent there and outputs sent home by batched P2P), so every
                                rank does the same work (causal only)
  torch compute alone (...)     the attention of either scheme alone, on gathered K/V  (part: compute)
  torch comm alone              the two all-gathers alone                               (part: comm)
Every full entry checks 8 sampled queries per rank on fresh inputs against an fp32 attention over
the gathered keys. Inputs are refreshed before every iteration, untimed: q = 4 U(-1,1), k, v = U(-1,1),
as in the workload. Run by `cuco bench` once per rank with --size S=... --size HQ=... --size HKV=...
--size D=... --size CAUSAL=... --out FILE.
"""

from peer_common import Peer, rel_error


def main():
    peer = Peer()
    torch, dist = peer.torch, peer.dist
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention.bias import causal_lower_right

    S, HQ, HKV, D, W = peer.size("S"), peer.size("HQ"), peer.size("HKV"), peer.size("D"), peer.world
    causal = peer.size("CAUSAL") != 0
    if S % W or HQ % HKV:
        raise SystemExit(f"S={S} must be divisible by the world size {W}, HQ={HQ} by HKV={HKV}")
    L, r, G = S // W, peer.rank, HQ // HKV
    dev, bf16 = peer.device, torch.bfloat16
    q = torch.empty(L, HQ, D, device=dev, dtype=bf16)
    k = torch.empty(L, HKV, D, device=dev, dtype=bf16)
    v = torch.empty(L, HKV, D, device=dev, dtype=bf16)
    k_all = torch.empty(S, HKV, D, device=dev, dtype=bf16)
    v_all = torch.empty(S, HKV, D, device=dev, dtype=bf16)
    o = torch.empty(L, HQ, D, device=dev, dtype=bf16)

    def refresh():
        q.uniform_(-4, 4)
        k.uniform_(-1, 1)
        v.uniform_(-1, 1)

    def gather():
        dist.all_gather_into_tensor(k_all, k)
        dist.all_gather_into_tensor(v_all, v)

    def attention(qt, sk, mode, out):
        """qt [sq][HQ][D] (the last query at key sk - 1 when causal) over keys [0, sk) of the
        gathered K/V, into out [sq][HQ][D]."""
        sq = qt.shape[0]
        qh = qt.permute(1, 0, 2).unsqueeze(0)
        kh = k_all[:sk].permute(1, 0, 2).unsqueeze(0)
        vh = v_all[:sk].permute(1, 0, 2).unsqueeze(0)
        kw = {}
        if causal and sq == sk:
            kw["is_causal"] = True
        elif causal:
            kw["attn_mask"] = causal_lower_right(sq, sk)
        if mode == "gqa":
            res = F.scaled_dot_product_attention(qh, kh, vh, enable_gqa=True, **kw)
        else:
            kh, vh = kh.repeat_interleave(G, dim=1), vh.repeat_interleave(G, dim=1)
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                res = F.scaled_dot_product_attention(qh, kh, vh, **kw)
        out.copy_(res.squeeze(0).permute(1, 0, 2))
        return out

    sk_mine = (r + 1) * L if causal else S  # the keys this rank's queries can see

    def seq_attend(mode):
        return lambda: attention(q, sk_mine, mode, o)

    def sequential(mode):
        def run():
            gather()
            return attention(q, sk_mine, mode, o)
        return run

    # zigzag: chunk c (h = L/2 queries at global c h) is computed by rank z(c).
    h = L // 2
    zig = lambda c: c if c < W else 2 * W - 1 - c  # noqa: E731
    mine = [r, 2 * W - 1 - r]                       # the chunks this rank computes
    held = lambda c: c // 2 == r                    # noqa: E731 - chunk c's queries and output live here
    q_in = [torch.zeros(h, HQ, D, device=dev, dtype=bf16) for _ in range(2)]
    o_out = [torch.empty(h, HQ, D, device=dev, dtype=bf16) for _ in range(2)]
    o_home = [torch.empty(h, HQ, D, device=dev, dtype=bf16) for _ in range(2)]

    def exchange(sends, recvs):
        ops = [dist.P2POp(dist.isend, t, p) for t, p in sends] + [dist.P2POp(dist.irecv, t, p) for t, p in recvs]
        if ops:
            for w in dist.batch_isend_irecv(ops):
                w.wait()

    def zig_attend(mode, move):
        def run():
            if move:
                exchange([(q[(c - 2 * r) * h:(c - 2 * r + 1) * h], zig(c)) for c in (2 * r, 2 * r + 1) if zig(c) != r],
                         [(q_in[i], mine[i] // 2) for i in range(2) if not held(mine[i])])
            for i, c in enumerate(mine):
                qc = q[(c - 2 * r) * h:(c - 2 * r + 1) * h] if held(c) else q_in[i]
                oc = o[(c - 2 * r) * h:(c - 2 * r + 1) * h] if held(c) else o_out[i]
                attention(qc, (c + 1) * h, mode, oc)
            if move:
                exchange([(o_out[i], mine[i] // 2) for i in range(2) if not held(mine[i])],
                         [(o_home[c - 2 * r], zig(c)) for c in (2 * r, 2 * r + 1) if zig(c) != r])
                for c in (2 * r, 2 * r + 1):
                    if zig(c) != r:
                        o[(c - 2 * r) * h:(c - 2 * r + 1) * h].copy_(o_home[c - 2 * r])
            return o
        return run

    def zigzag(mode):
        body = zig_attend(mode, True)

        def run():
            gather()
            return body()
        return run

    # The check: 8 queries of this rank against an fp32 attention over the gathered keys.
    idx = peer.sample(L, 8)

    def check(out):
        kf = torch.empty(S, HKV, D, device=dev, dtype=bf16)
        vf = torch.empty(S, HKV, D, device=dev, dtype=bf16)
        dist.all_gather_into_tensor(kf, k)
        dist.all_gather_into_tensor(vf, v)
        qs = q.index_select(0, idx).float()                                  # [n][HQ][D]
        ke = kf.float().repeat_interleave(G, dim=1)                          # [S][HQ][D]
        ve = vf.float().repeat_interleave(G, dim=1)
        s = torch.einsum("nhd,shd->hns", qs, ke) / (D ** 0.5)                # [HQ][n][S]
        if causal:
            pos = (r * L + idx).view(1, -1, 1)
            s = s.masked_fill(torch.arange(S, device=dev).view(1, 1, -1) > pos, float("-inf"))
        ref = torch.einsum("hns,shd->nhd", torch.softmax(s, -1), ve)
        rel, mx = rel_error(out.index_select(0, idx), ref)
        return rel, mx, f"{idx.numel()} sampled queries per rank against an fp32 attention"

    tol = (0.01, 0.016)
    refresh()
    balanced = causal and W > 1 and L % 2 == 0
    for mode in ("gqa", "flash"):
        peer.time_entry(f"torch sequential ({mode})", sequential(mode), refresh, check=check, tolerance=tol)
        if balanced:
            peer.time_entry(f"torch zigzag ({mode})", zigzag(mode), refresh, check=check, tolerance=tol)
    for mode in ("gqa", "flash"):
        peer.time_entry(f"torch compute alone ({mode})", seq_attend(mode), refresh, part="compute")
        if balanced:
            peer.time_entry(f"torch compute alone (zigzag, {mode})", zig_attend(mode, False), refresh, part="compute")
    peer.time_entry("torch comm alone", gather, refresh, part="comm")
    peer.finish("attention_cp", {"layout": "rank r: q [L][HQ][D], k, v [L][HKV][D] of tokens [r L, (r+1) L); o [L][HQ][D]",
                                 "mask": "causal, bottom-right over keys [0, (r+1) L)" if causal else "none"})


if __name__ == "__main__":
    main()
