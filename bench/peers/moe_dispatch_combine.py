#!/usr/bin/env python3
"""PyTorch peer of workloads/moe_dispatch_combine (contract: bench/peers/README.md).

One DeepSeek-V3 MoE layer under expert parallelism on W ranks, bf16: rank r holds T tokens (T x H),
E_PER_RANK experts (W1_e: H x 2F, gate then up; W2_e: F x H) of E = E_PER_RANK W, and each token's
TOPK expert ids and weights. Every full entry: per-expert counts exchanged (dist.all_to_all_single,
read by the host), token rows dispatched sorted by expert (all_to_all_single with splits), the local
experts' FFNs (matmul, SiLU gate * up, matmul) on the received rows, the outputs returned
(all_to_all_single), weighted sum by index_add_. They differ in how the FFNs run:
  torch grouped_mm            the received rows put in expert order, then one torch._grouped_mm per
                              GEMM over every local expert (offsets per expert), and back
  torch padded bmm            the same with each expert's rows padded to the largest count and one
                              torch.bmm per GEMM
  torch per-expert loop       a matmul pair per expert (the peer's first version, kept to compare)
  torch compute alone (grouped_mm), torch compute alone (padded bmm)
                              the FFNs alone on received rows                  (part: compute)
  torch comm alone            the counts exchange and the two all-to-alls      (part: comm)
Each full entry checks 16 sampled tokens per rank against an fp32 reference of the whole layer
(every expert's weights all-gathered; the fp8 dispatch quantised the same way). Routing (untimed,
fresh before every iteration like the inputs): TOPK distinct experts per token, uniform (SKEW = 0)
or drawn without replacement with hot experts 3x as likely as cold ones, alternating over the
expert ids (SKEW >= 1); weights 0.25 + 0.75 U, normalised. x ~ U(-1,1), W1 ~ U(-1,1) 3/sqrt(H),
W2 ~ U(-1,1) sqrt(3/F), as in the workload. Run by `cuco bench` once per rank with --size T=...
--size H=... --size F=... --size E_PER_RANK=... --size TOPK=... --size SKEW=... [--size FP8=1]
--out FILE. FP8 = 1: the dispatch moves e4m3 rows with one fp32 scale per 128-element block
(amax / 448), dequantised to bf16 on arrival, as the workload defines it.
"""

import math

from peer_common import Peer, rel_error


def main():
    peer = Peer()
    torch, dist = peer.torch, peer.dist
    silu = torch.nn.functional.silu
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

    def fp8_roundtrip(rows):
        """e4m3 values with an fp32 scale per 128-element block (amax / 448), back to bf16."""
        blocks = rows.float().view(-1, H // 128, 128)
        amax = blocks.abs().amax(-1, keepdim=True)
        scale = torch.where(amax > 0, amax / 448.0, torch.ones_like(amax))
        return ((blocks / scale).to(torch.float8_e4m3fn).float() * scale).view(-1, H).to(bf16), scale

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
        st["recv_host"] = st["recv_e"].tolist()
        st["recv_split"] = [sum(row) for row in st["recv_host"]]

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

    def expert_order():
        """The received rows (source-major, expert-minor segments) in expert order: the permutation,
        each expert's row count (host) and the end offsets per expert (int32, for _grouped_mm)."""
        c = st["recv_e"]
        rows = sum(st["recv_split"])
        expert_of_row = torch.arange(EPR, device=dev).repeat(W).repeat_interleave(c.flatten(), output_size=rows)
        perm = torch.argsort(expert_of_row, stable=True)
        per_expert = [sum(st["recv_host"][s][e] for s in range(W)) for e in range(EPR)]
        offs = torch.cumsum(c.sum(0), 0).to(torch.int32)
        return perm, per_expert, offs, expert_of_row.index_select(0, perm)

    def experts_grouped():
        perm, _, offs, _ = expert_order()
        xs = st["recv"].index_select(0, perm)
        hg = torch._grouped_mm(xs, W1, offs=offs)                      # [rows, 2F]
        act = silu(hg[:, :F]) * hg[:, F:]
        y = torch.empty_like(st["recv"])
        y.index_copy_(0, perm, torch._grouped_mm(act, W2, offs=offs))  # back to the received order
        st["y"] = y

    def experts_bmm():
        perm, per_expert, offs, e_sorted = expert_order()
        cap = max(1, max(per_expert))
        starts = offs.long() - st["recv_e"].sum(0)                     # first sorted row of each expert
        slot = e_sorted * cap + (torch.arange(e_sorted.numel(), device=dev) - starts.index_select(0, e_sorted))
        xp = torch.zeros(EPR * cap, H, device=dev, dtype=bf16)
        xp.index_copy_(0, slot, st["recv"].index_select(0, perm))
        hg = torch.bmm(xp.view(EPR, cap, H), W1)                        # [EPR, cap, 2F]
        act = silu(hg[..., :F]) * hg[..., F:]
        yp = torch.bmm(act, W2).view(EPR * cap, H)
        y = torch.empty_like(st["recv"])
        y.index_copy_(0, perm, yp.index_select(0, slot))
        st["y"] = y

    def experts_loop():
        """Each local expert's FFN on its rows (in every source's segment), in place of the rows."""
        recv, counts = st["recv"], st["recv_e"]
        y = torch.empty_like(recv)
        starts = torch.cumsum(counts.flatten(), 0) - counts.flatten()
        c, b = st["recv_host"], starts.view(W, EPR).tolist()
        for e in range(EPR):
            rows = torch.cat([torch.arange(b[s][e], b[s][e] + c[s][e], device=dev) for s in range(W)])
            if rows.numel() == 0:
                continue
            hg = recv.index_select(0, rows) @ W1[e]
            act = silu(hg[:, :F]) * hg[:, F:]
            y.index_copy_(0, rows, act @ W2[e])
        st["y"] = y

    def combine():
        back = torch.empty(T * TOPK, H, device=dev, dtype=bf16)
        dist.all_to_all_single(back, st["y"], st["send_split"], st["recv_split"])
        w = st["wts"].flatten().index_select(0, st["order"]).unsqueeze(1)
        out = torch.zeros(T, H, device=dev, dtype=torch.float32)
        out.index_add_(0, st["token"], back.float() * w)
        return out.to(bf16)

    def layer(experts):
        def run():
            route()
            dispatch()
            experts()
            return combine()
        return run

    def prepared():  # routing and dispatch done untimed: the compute-alone entries time the FFNs
        refresh()
        route()
        dispatch()

    def comm():
        route()
        dispatch()
        st["y"] = st["recv"]
        back = torch.empty(T * TOPK, H, device=dev, dtype=bf16)
        dist.all_to_all_single(back, st["y"], st["send_split"], st["recv_split"])

    # The check: 16 tokens of this rank against an fp32 layer with every expert's weights.
    weights = {}
    tok = peer.sample(T, 16)

    def check(out):
        if not weights:
            w1 = [torch.empty_like(W1) for _ in range(W)]
            w2 = [torch.empty_like(W2) for _ in range(W)]
            dist.all_gather(w1, W1)
            dist.all_gather(w2, W2)
            weights["w1"], weights["w2"] = torch.cat(w1), torch.cat(w2)  # [E, ...], global expert order
        xs = x.index_select(0, tok)
        if FP8:
            xs = fp8_roundtrip(xs)[0]
        xs = xs.float()
        ids, wts = st["ids"].index_select(0, tok), st["wts"].index_select(0, tok)
        ref = torch.zeros(tok.numel(), H, device=dev, dtype=torch.float32)
        for e in ids.unique().tolist():
            t_k = (ids == e).nonzero()                               # (token, k) pairs routed to e
            hg = xs.index_select(0, t_k[:, 0]) @ weights["w1"][e].float()
            y = (silu(hg[:, :F]) * hg[:, F:]) @ weights["w2"][e].float()
            ref.index_add_(0, t_k[:, 0], y * wts[t_k[:, 0], t_k[:, 1]].unsqueeze(1))
        rel, mx = rel_error(out.index_select(0, tok), ref)
        return rel, mx, f"{tok.numel()} sampled tokens per rank against an fp32 layer"

    tol = (0.01, 0.05)
    refresh()
    peer.time_entry("torch grouped_mm", layer(experts_grouped), refresh, check=check, tolerance=tol)
    peer.time_entry("torch padded bmm", layer(experts_bmm), refresh, check=check, tolerance=tol)
    peer.time_entry("torch per-expert loop", layer(experts_loop), refresh, check=check, tolerance=tol)
    peer.time_entry("torch compute alone (grouped_mm)", experts_grouped, prepared, part="compute")
    peer.time_entry("torch compute alone (padded bmm)", experts_bmm, prepared, part="compute")
    peer.time_entry("torch comm alone", comm, refresh, part="comm")
    peer.finish("moe_dispatch_combine", {"experts": E, "routing": "uniform" if not SKEW else "hot experts 3x (even ids)",
                                         "dispatch": "fp8 e4m3, 128-blocks" if FP8 else "bf16"})


if __name__ == "__main__":
    main()
