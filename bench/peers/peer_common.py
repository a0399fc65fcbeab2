"""Shared plumbing of cuco's PyTorch peers (contract: bench/peers/README.md).

A peer script imports this module (it sits beside the scripts), makes a `Peer`, times each of its
entries with `time_entry()` (a full entry with a `check` that compares its output against a
reference on the same inputs), lists what cannot run here with `skip_entry()`, and ends with
`finish()`. Rank 0 writes the result file after every entry (so an entry that hangs until the time
limit still leaves the earlier ones) with every entry's median taken as the max over ranks, like
cuco's judge does for its own entries.
"""

import argparse
import json
import math
import os
import sys
import time
import warnings


def parse_args():
    p = argparse.ArgumentParser(description="cuco PyTorch peer (bench/peers/README.md)")
    p.add_argument("--size", action="append", default=[], metavar="NAME=VALUE",
                   help="a bench size of the workload (unknown names are ignored)")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20, help="timed iterations (at least 20 are run)")
    p.add_argument("--timed-seconds", type=float, default=0.0,
                   help="size each entry's timed loop after its warm-up to fill this long at the slowest rank's "
                        "pace, from --iters to --max-iters (cuco's supervisor does the same for its own entries)")
    p.add_argument("--max-iters", type=int, default=640)
    p.add_argument("--rel-l2", type=float, default=None, help="the workload's tolerance for the checks")
    p.add_argument("--max-abs", type=float, default=None, help="the workload's tolerance for the checks")
    p.add_argument("--out", required=True, help="rank 0 writes the result JSON here")
    p.add_argument("--only", default="", help="comma-separated entry names to run (default: all)")
    a = p.parse_args()
    sizes = {}
    for s in a.size:
        name, _, value = s.partition("=")
        sizes[name] = int(value)
    a.iters = max(20, a.iters)
    a.warmup = max(1, a.warmup)
    return a, sizes


def percentile(values, q):
    """Linear interpolation between closest ranks (numpy's default; the harness's too)."""
    v = sorted(values)
    if not v:
        return float("nan")
    pos = q * (len(v) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def sized_iters(pace_ms, timed_seconds, min_iters, max_iters):
    """The timed iterations that fill `timed_seconds` at `pace_ms` (the slowest rank's warm-up pace),
    from min_iters to max_iters; min_iters when the pace is unknown or no time is asked
    (runtime/src/supervisor/timed_loop.h, the supervisor's rule)."""
    if timed_seconds <= 0 or not math.isfinite(pace_ms) or pace_ms <= 0:
        return min_iters
    return int(max(min_iters, min(max(min_iters, max_iters), math.ceil(timed_seconds * 1000.0 / pace_ms))))


def rel_error(got, ref):
    """(relative L2 error, max abs error) of got against ref, both compared in fp32."""
    g, r = got.float(), ref.float()
    norm = r.norm().item()
    return (g - r).norm().item() / (norm if norm > 0 else 1.0), (g - r).abs().max().item() if r.numel() else 0.0


def _nccl_version(torch):
    try:
        v = torch.cuda.nccl.version()
        return ".".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)
    except Exception:  # noqa: BLE001
        return None


class Peer:
    """One rank of a peer run: torch.distributed over NCCL, rendezvous through a FileStore in
    CUCO_RENDEZVOUS_DIR."""

    def __init__(self):
        # NVLink multicast stays off on cuco's machines (cuco's launcher sets these too).
        os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
        os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
        os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")
        import torch
        import torch.distributed as dist

        self.torch, self.dist = torch, dist
        torch.backends.cuda.matmul.allow_tf32 = False  # references are plain fp32
        torch.backends.cudnn.allow_tf32 = False
        self.args, self.sizes = parse_args()
        self.only = set(x for x in self.args.only.split(",") if x)
        self.rank = int(os.environ["CUCO_RANK"])
        self.world = int(os.environ["CUCO_WORLD_SIZE"])
        self.local_rank = int(os.environ.get("CUCO_LOCAL_RANK", self.rank))
        rdv = os.environ["CUCO_RENDEZVOUS_DIR"]
        # cuco's local launcher shows every rank all of the job's GPUs (rank uses device
        # CUCO_LOCAL_RANK); a launcher that shows each rank only its own GPU gives cuda:0.
        n = torch.cuda.device_count()
        index = self.local_rank if n > self.local_rank else 0
        self.device = torch.device("cuda", index)
        torch.cuda.set_device(self.device)
        store = dist.FileStore(os.path.join(rdv, "torch_filestore"), self.world)
        dist.init_process_group("nccl", store=store, rank=self.rank, world_size=self.world, device_id=self.device)
        self.group = dist.group.WORLD
        self.group_name = self.group.group_name
        self.entries = []
        self.workload = os.path.splitext(os.path.basename(sys.argv[0]))[0]
        self.extra = {}
        self._streams = []
        self._flag = torch.zeros(1, device=self.device, dtype=torch.int32)
        self.log(f"torch {torch.__version__} on {torch.cuda.get_device_name(self.device)} ({self.device}), "
                 f"rank {self.rank} of {self.world}, sizes {self.sizes}")

    def log(self, msg):
        print(f"[peer r{self.rank}] {msg}", file=sys.stderr, flush=True)

    def size(self, name):
        if name not in self.sizes:
            raise SystemExit(f"peer: size {name} was not given (--size {name}=...)")
        return self.sizes[name]

    def enable_symm_mem(self):
        """Symmetric memory for the world group (needed by torch.ops.symm_mem.* before torch 2.10,
        a deprecated no-op after)."""
        try:
            from torch.distributed._symmetric_memory import enable_symm_mem_for_group
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                enable_symm_mem_for_group(self.group_name)
        except ImportError:
            pass

    def sample(self, n, count, seed=1234):
        """`count` distinct sorted indices of [0, n), the same on every rank (a CPU generator)."""
        g = self.torch.Generator(device="cpu")
        g.manual_seed(seed)
        return self.torch.randperm(n, generator=g)[:min(count, n)].sort().values.to(self.device)

    def symm_empty(self, shape, dtype):
        """A tensor in PyTorch's symmetric memory and its handle (a rendezvous of the world group):
        every rank can read every rank's tensor (handle.get_buffer) over NVLink. Multicast stays off
        (TORCH_SYMM_MEM_DISABLE_MULTICAST=1)."""
        from torch.distributed import _symmetric_memory as symm_mem
        t = symm_mem.empty(shape, dtype=dtype, device=self.device)
        return t, symm_mem.rendezvous(t, self.group_name)

    def copy_in_parallel(self, copies):
        """copies: [(dst, src)], each issued on its own side stream (a copy engine each when src is
        a peer's memory), all joined back into the current stream."""
        torch = self.torch
        cur = torch.cuda.current_stream()
        while len(self._streams) < len(copies):
            self._streams.append(torch.cuda.Stream(device=self.device))
        for (dst, src), st in zip(copies, self._streams):
            st.wait_stream(cur)
            with torch.cuda.stream(st):
                dst.copy_(src, non_blocking=True)
        for st in self._streams[:len(copies)]:
            cur.wait_stream(st)

    def tolerance(self, rel_l2, max_abs):
        """The checks' tolerance: the workload's as cuco passes it (--rel-l2, --max-abs), else these."""
        a = self.args
        return (a.rel_l2 if a.rel_l2 is not None else rel_l2, a.max_abs if a.max_abs is not None else max_abs)

    def agree(self, ok):
        """True on every rank when ok is true on every rank (an object all-gather)."""
        flags = [None] * self.world
        self.dist.all_gather_object(flags, bool(ok))
        return all(flags)

    def time_entry(self, name, fn, refresh=None, part=None, check=None, tolerance=(0.01, 0.05)):
        """Times fn() (warm-up, then >= 20 iterations, sized by --timed-seconds: _sized) with CUDA
        events on the current stream.
        Before each iteration: refresh() (fresh inputs, untimed), a host barrier of all ranks, and
        a one-element all-reduce on the current stream so that every rank's start event follows
        the same device-side barrier (as in cuco's harness). The first call is a probe that every
        rank must pass before any is timed, so that a call failing on one rank only (an attention
        backend refusing one rank's shape) cannot leave the others inside a collective. A full
        entry's `check(result_of_fn)` -> (rel_l2, max_abs, what) compares its output on fresh inputs
        with a reference; the worst over ranks is kept and compared with `tolerance` (overridden
        by cuco's --rel-l2/--max-abs). A failure is kept as the entry's error; the run goes on."""
        torch, dist = self.torch, self.dist
        if self.only and name not in self.only:
            return
        entry = {"name": name, "iters": 0}
        if part:
            entry["part"] = part
        times = []
        error = None
        try:
            if refresh:
                refresh()
            fn()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - any failure is the entry's, not the run's
            error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if not self.agree(error is None):
            error = error or "another rank failed this entry's first call"
            self.log(f"{name}: FAILED: {error}")
            self._gather(entry, {"error": error, "median_ms": float("nan")}, None)
            return
        try:
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            warm = []
            for _ in range(self.args.warmup):
                if refresh:
                    refresh()
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                warm.append(start.elapsed_time(stop))
            torch.cuda.synchronize()
            iters = self._sized(warm)
            for _ in range(iters):
                if refresh:
                    refresh()
                torch.cuda.synchronize()
                dist.barrier()
                dist.all_reduce(self._flag)
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            self.log(f"{name}: FAILED: {error}")
        mine = {"median_ms": percentile(times, 0.5), "p10_ms": percentile(times, 0.1),
                "p90_ms": percentile(times, 0.9), "min_ms": min(times) if times else float("nan"),
                "iters": len(times), "error": error}
        checked = None
        if check is not None and self.agree(error is None):  # every rank takes part in a check
            checked = self._check(name, fn, refresh, check)
        if error is None:
            self.log(f"{name}: median {mine['median_ms']:.4f} ms (p10 {mine['p10_ms']:.4f}, "
                     f"p90 {mine['p90_ms']:.4f}) over {len(times)} iterations")
        self._gather(entry, mine, checked, tolerance)

    def _sized(self, warm_ms):
        """This entry's timed iterations, the same on every rank: its warm-up pace (the median after
        the first, which pays one-time costs) at the slowest rank, sized by sized_iters."""
        torch, dist = self.torch, self.dist
        pace = percentile(warm_ms[1:] if len(warm_ms) > 1 else warm_ms, 0.5)
        slowest = torch.tensor([pace if math.isfinite(pace) else 0.0], dtype=torch.float64, device="cuda")
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        return sized_iters(slowest.item(), self.args.timed_seconds, self.args.iters, self.args.max_iters)

    def _check(self, name, fn, refresh, check):
        """One more call on fresh inputs, then check(result): (rel_l2, max_abs, what) or an error."""
        try:
            if refresh:
                refresh()
            result = fn()
            self.torch.cuda.synchronize()
            rel, mx, what = check(result)
            return {"rel_l2": float(rel), "max_abs": float(mx), "what": what}
        except Exception as e:  # noqa: BLE001
            self.log(f"{name}: check FAILED: {type(e).__name__}: {e}")
            return {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}

    def _gather(self, entry, mine, checked, tolerance=(0.01, 0.05)):
        """Every rank's figures to every rank (all ranks take part, a failed one too); the slowest
        rank's median, the worst rank's check; then rank 0 rewrites the result file."""
        gathered = [None] * self.world
        self.dist.all_gather_object(gathered, {"t": mine, "c": checked})
        errors = [g["t"]["error"] for g in gathered if g["t"].get("error")]
        if errors:
            entry["error"] = errors[0]
        else:
            ts = [g["t"] for g in gathered]
            slowest = max(range(self.world), key=lambda r: ts[r]["median_ms"])
            s = ts[slowest]
            entry.update({"median_ms": s["median_ms"], "p10_ms": s["p10_ms"], "p90_ms": s["p90_ms"],
                          "iters": s["iters"], "slowest_rank": slowest,
                          "rank_median_ms": [t["median_ms"] for t in ts]})
            checks = [g["c"] for g in gathered]
            if any(c is not None for c in checks):
                rel_tol, abs_tol = self.tolerance(*tolerance)
                bad = [c["error"] for c in checks if c is not None and "error" in c]
                if bad:
                    entry["check"] = {"ok": False, "rel_l2": None, "max_abs": None, "what": "the check failed: " + bad[0]}
                else:
                    done = [c for c in checks if c is not None]
                    rel, mx = max(c["rel_l2"] for c in done), max(c["max_abs"] for c in done)
                    entry["check"] = {"ok": rel <= rel_tol and mx <= abs_tol, "rel_l2": rel, "max_abs": mx,
                                      "tolerance": {"rel_l2": rel_tol, "max_abs": abs_tol},
                                      "what": done[0]["what"] + " (worst rank)"}
        self.entries.append(entry)
        self._write()

    def skip_entry(self, name, reason, part=None):
        """An entry that cannot run here (a library that is not installed): listed with why."""
        if self.only and name not in self.only:
            return
        entry = {"name": name, "skipped": reason}
        if part:
            entry["part"] = part
        self.log(f"{name}: skipped: {reason}")
        self.entries.append(entry)
        self._write()

    def _write(self, final=False):
        """Rank 0: the result file as it stands (after every entry, and at the end)."""
        if self.rank != 0:
            return
        torch = self.torch
        result = {"workload": self.workload, "torch": torch.__version__, "cuda": torch.version.cuda,
                  "nccl": _nccl_version(torch),
                  "device": torch.cuda.get_device_name(self.device), "world_size": self.world,
                  "sizes": self.sizes, "warmup": self.args.warmup, "iters": self.args.iters,
                  "timing": "CUDA events on the current stream; host barrier + device all-reduce before each "
                            "start; median per rank, max over ranks (p10/p90 of the slowest rank)",
                  "complete": final, "entries": self.entries,
                  "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        result.update(self.extra)
        tmp = self.args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=1)
        os.replace(tmp, self.args.out)

    def finish(self, workload=None, extra=None):
        if workload:
            self.workload = workload
        if extra:
            self.extra.update(extra)
        self._write(final=True)
        self.dist.barrier()
        self.dist.destroy_process_group()
