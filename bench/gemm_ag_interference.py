#!/usr/bin/env python3
"""Why gemm_allgather's copy-engine push costs its GEMM 0.12 ms at W=2 (issue 29; docs/performance.md,
"gemm_allgather: the push beside the GEMM"). One process, two GPUs joined by NVLink, PyTorch only.

On GPU 0 the first GEMM of push_ce_whole_shards (the own rows: M/2 x K times K x N, bf16, cuBLAS) is
timed with CUDA events, alone and with copy-engine traffic started beside it on side streams:
  local      a 64 MB copy inside GPU 0 (HBM read and write, no NVLink)
  out        GPU 0 pushes its 64 MB shard into GPU 1 (read here, NVLink out)
  in         GPU 1 pushes its shard into GPU 0 (NVLink in, written here)
  both       both pushes at once: the scheme's real traffic
  both_x8    both pushes, each as 8 consecutive copies of 8 MB on its stream
  pull       both shards moved by their receivers (cudaMemcpyPeer issued on the receiving GPU)
Each condition: 10 warm-ups, then ITERS pairs; the median GEMM time and the SM clock nvidia-smi
reads right after (MHz). The copy's own time alone is printed too. Results: JSON on stdout.
Usage: python3 bench/gemm_ag_interference.py [M N K] [ITERS]"""
import json, subprocess, sys, statistics
import torch

M, N, K = (int(x) for x in sys.argv[1:4]) if len(sys.argv) >= 4 else (8192, 8192, 8192)
ITERS = int(sys.argv[4]) if len(sys.argv) >= 5 else 40
g0, g1 = torch.device("cuda:0"), torch.device("cuda:1")
torch.manual_seed(0)
a = torch.randn(M // 2, K, device=g0, dtype=torch.bfloat16)
b = torch.randn(K, N, device=g0, dtype=torch.bfloat16)
c = torch.empty(M // 2, N, device=g0, dtype=torch.bfloat16)
shard0 = torch.randn(M // 2, K, device=g0, dtype=torch.bfloat16)   # what GPU 0 pushes
shard1 = torch.randn(M // 2, K, device=g1, dtype=torch.bfloat16)   # what GPU 1 pushes
recv0 = torch.empty_like(shard0)                                    # on GPU 0, from GPU 1
recv1 = torch.empty_like(shard1)                                    # on GPU 1, from GPU 0
local_dst = torch.empty_like(shard0)
s_comp = torch.cuda.Stream(g0)
s_side0 = torch.cuda.Stream(g0)
s_side1 = torch.cuda.Stream(g1)


def sm_clock():
    out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits", "-i", "0"],
                         capture_output=True, text=True).stdout.strip()
    return out


def copies(kind, start0, start1):
    """Start `kind`'s copies on the side streams after the events start0 (GPU 0) and start1 (GPU 1)."""
    if kind == "none":
        return
    s_side0.wait_event(start0)
    s_side1.wait_event(start1)
    if kind == "local":
        with torch.cuda.stream(s_side0):
            local_dst.copy_(shard0, non_blocking=True)
    if kind in ("out", "both"):
        with torch.cuda.stream(s_side0):
            recv1.copy_(shard0, non_blocking=True)
    if kind in ("in", "both"):
        with torch.cuda.stream(s_side1):
            recv0.copy_(shard1, non_blocking=True)
    if kind == "both_x8":
        for i in range(8):
            rows = slice(i * (M // 16), (i + 1) * (M // 16))
            with torch.cuda.stream(s_side0):
                recv1[rows].copy_(shard0[rows], non_blocking=True)
            with torch.cuda.stream(s_side1):
                recv0[rows].copy_(shard1[rows], non_blocking=True)
    if kind == "pull":
        with torch.cuda.stream(s_side1):
            recv1.copy_(shard0, non_blocking=True)   # issued on GPU 1, reads GPU 0
        with torch.cuda.stream(s_side0):
            recv0.copy_(shard1, non_blocking=True)   # issued on GPU 0, reads GPU 1


def run(kind):
    times = []
    for it in range(10 + ITERS):
        torch.cuda.synchronize(g0); torch.cuda.synchronize(g1)
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        st1 = torch.cuda.Event()
        with torch.cuda.stream(s_comp):
            e0.record(s_comp)
        with torch.cuda.device(g1):
            st1.record(torch.cuda.current_stream(g1))
        copies(kind, e0, st1)
        with torch.cuda.stream(s_comp):
            torch.matmul(a, b, out=c)
            e1.record(s_comp)
        torch.cuda.synchronize(g0); torch.cuda.synchronize(g1)
        if it >= 10:
            times.append(e0.elapsed_time(e1))
    return statistics.median(times), min(times), sm_clock()


def copy_alone():
    times = []
    for it in range(10 + ITERS):
        with torch.cuda.stream(s_side0):
            e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
            e0.record(s_side0); recv1.copy_(shard0, non_blocking=True); e1.record(s_side0)
        torch.cuda.synchronize(g0)
        if it >= 10:
            times.append(e0.elapsed_time(e1))
    return statistics.median(times)


torch.cuda.synchronize()
res = {"device": torch.cuda.get_device_name(0), "M": M, "N": N, "K": K, "iters": ITERS,
       "peer_access": torch.cuda.can_device_access_peer(0, 1), "shard_mb": shard0.numel() * 2 / 2**20}
res["push_alone_ms"] = copy_alone()
for kind in ["none", "local", "out", "in", "both", "both_x8", "pull", "none"]:
    med, lo, clk = run(kind)
    res.setdefault("gemm_ms", {})[kind] = {"median": round(med, 4), "min": round(lo, 4), "sm_clock_mhz,power_w": clk}
print(json.dumps(res, indent=1))
