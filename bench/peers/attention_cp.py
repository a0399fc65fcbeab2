#!/usr/bin/env python3
"""PyTorch peer of workloads/attention_cp (contract: bench/peers/README.md).

Context-parallel GQA attention on W ranks, bf16: rank r holds q (L x HQ x D), k and v (L x HKV x D)
of tokens [r L, (r+1) L), L = S / W, and ends with o (L x HQ x D) over the keys of every rank
(causal when CAUSAL = 1: query i at r L + i sees keys j <= r L + i). Entries:
  torch sequential     dist.all_gather_into_tensor of K and V, then one
                       F.scaled_dot_product_attention (enable_gqa; causal: the keys up to the
                       rank's last query, bottom-right aligned: is_causal for rank 0,
                       causal_lower_right otherwise)
  torch compute alone  that attention alone, on gathered buffers   (part: compute)
  torch comm alone     the two all-gathers alone                   (part: comm)
Inputs are refreshed before every iteration, untimed: q = 4 U(-1,1), k, v = U(-1,1), as in the
workload. Run by `cuco bench` once per rank with --size S=... --size HQ=... --size HKV=...
--size D=... --size CAUSAL=... --out FILE.
"""

from peer_common import Peer


def main():
    peer = Peer()
    torch, dist = peer.torch, peer.dist
    import torch.nn.functional as F

    S, HQ, HKV, D, W = peer.size("S"), peer.size("HQ"), peer.size("HKV"), peer.size("D"), peer.world
    causal = peer.size("CAUSAL") != 0
    if S % W:
        raise SystemExit(f"S={S} must be divisible by the world size {W}")
    L, r = S // W, peer.rank
    dev, bf16 = peer.device, torch.bfloat16
    q = torch.empty(L, HQ, D, device=dev, dtype=bf16)
    k = torch.empty(L, HKV, D, device=dev, dtype=bf16)
    v = torch.empty(L, HKV, D, device=dev, dtype=bf16)
    k_all = torch.empty(S, HKV, D, device=dev, dtype=bf16)
    v_all = torch.empty(S, HKV, D, device=dev, dtype=bf16)

    def refresh():
        q.uniform_(-4, 4)
        k.uniform_(-1, 1)
        v.uniform_(-1, 1)

    # The keys this rank's queries can see, and the mask that says which.
    sk = (r + 1) * L if causal else S
    mask, is_causal = None, False
    if causal and sk == L:
        is_causal = True  # rank 0: the square causal mask
    elif causal:
        from torch.nn.attention.bias import causal_lower_right
        mask = causal_lower_right(L, sk)
    qh = q.permute(1, 0, 2).unsqueeze(0)  # views: [1, HQ, L, D] over q's storage

    def gather():
        dist.all_gather_into_tensor(k_all, k)
        dist.all_gather_into_tensor(v_all, v)

    def attend():
        kh = k_all[:sk].permute(1, 0, 2).unsqueeze(0)
        vh = v_all[:sk].permute(1, 0, 2).unsqueeze(0)
        return F.scaled_dot_product_attention(qh, kh, vh, attn_mask=mask, is_causal=is_causal, enable_gqa=True)

    def sequential():
        gather()
        return attend()

    refresh()
    peer.time_entry("torch sequential", sequential, refresh)
    peer.time_entry("torch compute alone", attend, refresh, part="compute")
    peer.time_entry("torch comm alone", gather, refresh, part="comm")
    peer.finish("attention_cp", {"layout": "rank r: q [L][HQ][D], k, v [L][HKV][D] of tokens [r L, (r+1) L); o [L][HQ][D]",
                                 "mask": "causal, bottom-right over keys [0, (r+1) L)" if causal else "none"})


if __name__ == "__main__":
    main()
