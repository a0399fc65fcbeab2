"""Transformer Engine's comm-GEMM overlap (userbuffers) as an entry of the GEMM peers, where TE
imports; skipped with the reason where it does not (bench/peers/README.md).

TE for PyTorch comes in two parts: transformer-engine-cu13 (a wheel holding libtransformer_engine.so,
276 MB) and transformer-engine-torch (a source package compiled against the installed torch with
nvcc, wanting einops, onnx, onnxscript, nvdlfw-inspect and nvidia-cudnn-frontend). The lent GPU
machines have neither, reach no registry, and a device call carries at most 64 MiB, so there this
entry says why it is skipped. Where TE is installed (`pip install transformer-engine[pytorch]`) it
runs: a te.Linear with userbuffer overlap, multicast off (UB_SKIPMC=1), bootstrapped over the
peer's torch.distributed group.
"""

import os

os.environ.setdefault("UB_SKIPMC", "1")  # no NVLink multicast on cuco's machines


def unavailable():
    """None when transformer_engine.pytorch imports, else why not (one line)."""
    try:
        import transformer_engine.pytorch  # noqa: F401
        return None
    except Exception as e:  # noqa: BLE001 - ImportError, or a library that fails to load
        first = str(e).splitlines()[0] if str(e) else ""
        return (f"transformer_engine.pytorch does not import here ({type(e).__name__}: {first[:120]}); "
                "its wheels are 276 MB (transformer-engine-cu13) plus a source build against torch "
                "(transformer-engine-torch), over what a device call carries (64 MiB)")


def linear(peer, kind, M, N, K, weight):
    """A TE Linear with userbuffer comm-GEMM overlap, its weight set to `weight`.
    kind "rs": row-parallel, sequence-parallel output (input M x K/W, weight K/W x N, output the
               rank's M/W x N rows of the sum): ub "proj", reduce-scatter overlapped.
    kind "ag": column-parallel, sequence-parallel input (input M/W x K, weight K x N, output
               all_gather(input) weight, M x N): ub "qkv", all-gather overlapped.
    Returns the module; call it under torch.no_grad()."""
    import torch
    import transformer_engine.pytorch as te
    from transformer_engine.pytorch.module.base import initialize_ub

    W = peer.world
    hidden = N if kind == "rs" else K
    if M % W or (kind == "rs" and K % W):
        raise ValueError("M (and K for rs) must divide by the world size")
    initialize_ub([M, hidden], W, use_fp8=False, dtype=torch.bfloat16, bootstrap_backend="nccl")
    common = dict(bias=False, params_dtype=torch.bfloat16, device="cuda", tp_group=peer.group, tp_size=W,
                  sequence_parallel=True)
    if kind == "rs":
        mod = te.Linear(K, N, parallel_mode="row", ub_overlap_rs=True, ub_name="proj", **common)
    else:
        mod = te.Linear(K, N * W, parallel_mode="column", ub_overlap_ag=True, ub_name="qkv", **common)
    with torch.no_grad():
        mod.weight.copy_(weight.t())  # TE keeps the local weight as [out, in]
    return mod


ENTRY = "te comm-gemm overlap"


def time_entry(peer, kind, M, N, K, weight, layer_input, refresh, check, tolerance):
    """Times the ENTRY of a GEMM peer (kind as for linear(); `weight` and `layer_input` are the
    tensors `refresh` rewrites each iteration): skipped, saying why, when TE does not import here or
    its overlap does not start on every rank."""
    why = unavailable()
    if why:
        peer.skip_entry(ENTRY, why)
        return
    try:
        module = linear(peer, kind, M, N, K, weight)
    except Exception as e:  # noqa: BLE001
        module, why = None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    if not peer.agree(module is not None):
        peer.skip_entry(ENTRY, f"TE imports but its overlap did not start: {why}")
        return
    import torch

    def run():
        with torch.no_grad():
            module.weight.copy_(weight.t())  # the layer's weight is this iteration's
            return module(layer_input)

    peer.time_entry(ENTRY, run, refresh, check=check, tolerance=tolerance)
