#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention on the shapes timed by tests/gpu/blocks/attention_single_gpu.cu
(32 query / 8 KV heads, d = 128, bf16), on one GPU, so the attention block's speed can be compared on
the same device. Prints one row per shape: median ms of 5 timed runs after 2 warm-ups, and TFLOP/s
counted as 4 * d * Hq * (visible query-key pairs).
Usage: python3 bench/attention_sdpa_compare.py
"""
import statistics

import torch
import torch.nn.functional as F


def time_ms(fn, reps=5):
    for _ in range(2):
        fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def main():
    hq, hkv, d = 32, 8, 128
    dev = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    print("| queries x keys | mask | ms | TFLOP/s |")
    print("|---|---|---|---|")
    for sq, sk, mask in [(16384, 32768, "none"), (16384, 32768, "causal, q_off 16384"), (32768, 32768, "none"),
                         (32768, 32768, "causal square")]:
        q = torch.randn(1, hq, sq, d, device=dev, dtype=torch.bfloat16)
        k = torch.randn(1, hkv, sk, d, device=dev, dtype=torch.bfloat16)
        v = torch.randn(1, hkv, sk, d, device=dev, dtype=torch.bfloat16)
        attn_mask, pairs = None, sq * sk
        is_causal = mask == "causal square"
        if mask.startswith("causal, q_off"):
            # query i at global position q_off + i sees keys j <= q_off + i: the bottom-right causal mask.
            q_off = sk - sq
            try:
                from torch.nn.attention.bias import causal_lower_right
                attn_mask = causal_lower_right(sq, sk)
            except ImportError:
                i = torch.arange(sq, device=dev).view(-1, 1)
                j = torch.arange(sk, device=dev).view(1, -1)
                attn_mask = j <= i + q_off
                mask += " (boolean mask)"
            pairs = sum(min(sk, q_off + t + 1) for t in range(sq))
        elif is_causal:
            pairs = sq * (sq + 1) // 2
        def fn():
            return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, is_causal=is_causal, enable_gqa=True)
        try:
            ms = time_ms(fn)
        except RuntimeError as e:  # e.g. a mask type this backend lacks with GQA
            print(f"| {sq} x {sk} | {mask} | failed: {str(e).splitlines()[0][:80]} | - |")
            continue
        print(f"| {sq} x {sk} | {mask} | {ms:.3f} | {4 * d * hq * pairs / ms / 1e9:.1f} |")


if __name__ == "__main__":
    main()
