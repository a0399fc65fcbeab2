#!/usr/bin/env python3
"""PyTorch peer of workloads/moe_dispatch_combine (contract: bench/peers/README.md).

One DeepSeek-V3 MoE layer under expert parallelism on W ranks, bf16: rank r holds T tokens (T x H),
E_PER_RANK experts (W1_e: H x 2F, gate then up; W2_e: F x H) of E = E_PER_RANK W, and each token's
TOPK expert ids and weights. Entries:
  torch sequential     per-expert counts exchanged (dist.all_to_all_single, read by the host),
                       token rows dispatched sorted by expert (all_to_all_single with splits), each
                       local expert's FFN (matmul, SiLU gate * up, matmul) on its rows, the outputs
                       returned (all_to_all_single), weighted sum by index_add_
  torch compute alone  the local experts' FFNs on the received rows   (part: compute)
  torch comm alone     the counts exchange and the two all-to-alls    (part: comm)
Routing (untimed, fresh before every iteration like the inputs): TOPK distinct experts per token,
uniform (SKEW = 0) or drawn without replacement with hot experts 3x as likely as cold ones,
alternating over the expert ids (SKEW >= 1); weights 0.25 + 0.75 U, normalised. x ~ U(-1,1),
W1 ~ U(-1,1) 3/sqrt(H), W2 ~ U(-1,1) sqrt(3/F), as in the workload. Run by `cuco bench` once per
rank with --size T=... --size H=... --size F=... --size E_PER_RANK=... --size TOPK=...
--size SKEW=... [--size FP8=1] --out FILE. FP8 = 1: the dispatch moves e4m3 rows with one fp32 scale
per 128-element block (amax / 448), dequantised to bf16 on arrival, as the workload defines it.
"""

import math

from peer_common import Peer


def main():
    peer = Peer()
    torch, dist = peer.torch, peer.dist
    T, H, F = peer.size("T"), peer.size("H"), peer.size("F")
    EPR, TOPK, SKEW, W = peer.size("E_PER_RANK"), peer.size("TOPK"), peer.size("SKEW"), peer.world
    FP8 = peer.sizes.get("FP8", 0)
    E = EPR * W
    if TOPK > E:
        raise SystemExit(f"TOPK={TOPK} exceeds the {E} experts")
    dev, bf16 = peer.device, torch.bfloat16
    x = torch.empty(T, H, device=dev, dtype=bf16)
    W1 = torch.empty(EPR, H, 2 * F, device=dev, dtype=bf16)
    W2 = torch.empty(EPR, F, H, device=dev, dtype=bf16)
    W1.uniform_(-3 / math.sqrt(H), 3 / math.sqrt(H))
    W2.uniform_(-math.sqrt(3 / F), math.sqrt(3 / F))
    likelihood = torch.ones(E, device=dev)
    if SKEW:
        likelihood[0::2] = 3.0  # hot and cold experts interleaved
    st = {}

    def refresh():
        x.uniform_(-1, 1)
        ids = torch.multinomial(likelihood.repeat(T, 1), TOPK, replacement=False)  # [T, TOPK] distinct
        wts = 0.25 + 0.75 * torch.rand(T, TOPK, device=dev)
        st["ids"], st["wts"] = ids, wts / wts.sum(1, keepdim=True)

    def route():
        """Pairs sorted by expert (so by destination rank); the per-expert counts exchanged."""
        ids = st["ids"].flatten()
        order = torch.argsort(ids, stable=True)
        st["order"], st["token"] = order, order // TOPK
        send_e = torch.bincount(ids, minlength=E)                     # pairs per expert, [E]
        recv_e = torch.empty_like(send_e)
        dist.all_to_all_single(recv_e, send_e)                         # [W sources x EPR] for my experts
        st["send_split"] = send_e.view(W, EPR).sum(1).tolist()        # host sync, as the seed's
        st["recv_e"] = recv_e.view(W, EPR)
        st["recv_split"] = st["recv_e"].sum(1).tolist()

    def dispatch():
        send = x.index_select(0, st["token"])
        if not FP8:
            st["recv"] = torch.empty(sum(st["recv_split"]), H, device=dev, dtype=bf16)
            dist.all_to_all_single(st["recv"], send, st["recv_split"], st["send_split"])
            return
        # e4m3 values and fp32 block scales in one byte row per token: H + 4 H / 128 bytes.
        blocks = send.float().view(-1, H // 128, 128)
        amax = blocks.abs().amax(-1, keepdim=True)
        scale = torch.where(amax > 0, amax / 448.0, torch.ones_like(amax))
        q = (blocks / scale).to(torch.float8_e4m3fn).view(torch.uint8).view(-1, H)
        wire = torch.cat([q, scale.view(-1, H // 128).contiguous().view(torch.uint8)], 1)
        got = torch.empty(sum(st["recv_split"]), wire.shape[1], device=dev, dtype=torch.uint8)
        dist.all_to_all_single(got, wire, st["recv_split"], st["send_split"])
        vals = got[:, :H].contiguous().view(torch.float8_e4m3fn).float().view(-1, H // 128, 128)
        scales = got[:, H:].contiguous().view(torch.float32).view(-1, H // 128, 1)
        st["recv"] = (vals * scales).view(-1, H).to(bf16)

    def experts():
        """Each local expert's FFN on its rows (in every source's segment), in place of the rows."""
        recv, counts = st["recv"], st["recv_e"]
        y = torch.empty_like(recv)
        # Row index of (source s, expert e)'s segment: sources in order, experts in order inside.
        starts = torch.cumsum(counts.flatten(), 0) - counts.flatten()
        c, b = counts.tolist(), starts.view(W, EPR).tolist()
        for e in range(EPR):
            rows = torch.cat([torch.arange(b[s][e], b[s][e] + c[s][e], device=dev) for s in range(W)])
            if rows.numel() == 0:
                continue
            hg = recv.index_select(0, rows) @ W1[e]
            act = torch.nn.functional.silu(hg[:, :F]) * hg[:, F:]
            y.index_copy_(0, rows, act @ W2[e])
        st["y"] = y

    def combine():
        back = torch.empty(T * TOPK, H, device=dev, dtype=bf16)
        dist.all_to_all_single(back, st["y"], st["send_split"], st["recv_split"])
        w = st["wts"].flatten().index_select(0, st["order"]).unsqueeze(1)
        out = torch.zeros(T, H, device=dev, dtype=torch.float32)
        out.index_add_(0, st["token"], back.float() * w)
        return out.to(bf16)

    def sequential():
        route()
        dispatch()
        experts()
        return combine()

    def prepared():  # routing and dispatch done untimed: the compute-alone entry times experts()
        refresh()
        route()
        dispatch()

    def comm():
        route()
        dispatch()
        st["y"] = st["recv"]
        back = torch.empty(T * TOPK, H, device=dev, dtype=bf16)
        dist.all_to_all_single(back, st["y"], st["send_split"], st["recv_split"])

    refresh()
    peer.time_entry("torch sequential", sequential, refresh)
    peer.time_entry("torch compute alone", experts, prepared, part="compute")
    peer.time_entry("torch comm alone", comm, refresh, part="comm")
    peer.finish("moe_dispatch_combine", {"experts": E, "routing": "uniform" if not SKEW else "hot experts 3x (even ids)",
                                         "dispatch": "fp8 e4m3, 128-blocks" if FP8 else "bf16"})


if __name__ == "__main__":
    main()
