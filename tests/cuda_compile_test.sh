#!/usr/bin/env bash
# L1 with the real nvcc, no GPU needed, in parts (one ctest each, tests/CMakeLists.txt):
#   <workload dir>  cuco compiles the workload's seed, generation 0, every [[variant]] (the co-design
#                   blocks in every setting), its planted wrong candidates and its rule-based
#                   generation 0 (`cuco transform`) through its own builder (frozen supervisor and
#                   candidate runtime + candidate, linked against NCCL and cuBLASLt as `cuco doctor`
#                   found them). Expected: all compile, except gemm_reducescatter's frozen_edit.cu
#                   (rejected before compiling) and timer.cu (its own cudaEventElapsedTime clashes with
#                   the CUDA runtime at link time: a compile_error, which is also a catch).
#   program         the program-mode workload workloads/gemm_reducescatter_program.
#   blocks          the plain CUDA test and bench programs (tests/gpu/blocks, bench, the NCCL probe).
#   (gemm_reducescatter also compiles bench/legacy's in-process harness with its seed's flags.)
# Usage: tests/cuda_compile_test.sh <path-to-cuco> <part>
set -u
CUCO=$1
PART=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$T/cache}  # ctest: the build folder's test-cache, shared by every test
cd "$SRC"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

# Checks every eval record in the given JSON files; at least $1 records.
check_records() {
  python3 - "$@" <<'PY'
import json, os, sys
want_n = int(sys.argv[1])
records = []
for p in sys.argv[2:]:
    d = json.load(open(p))
    records += d if isinstance(d, list) else [d]
expected = {"frozen_edit.cu": "rejected", "timer.cu": "compile_error"}
bad = 0
for r in records:
    name = os.path.basename(r["candidate"])
    want = expected.get(name, "skipped")  # "skipped" = compiled, stopped before running (--stage compile[-check])
    ok = r["status"] == want
    bad += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {r['status']} (want {want}) {r['reason'][:100]}")
print(f"cuda_compile: {len(records)} records (want {want_n}), {bad} failed")
sys.exit(1 if bad or len(records) < want_n else 0)
PY
}

case "$PART" in
program)
  "$CUCO" eval workloads/gemm_reducescatter_program --stage compile --run-dir "$T/prog" --json >"$T/prog.json" 2>"$T/prog.err"
  check_records 1 "$T/prog.json" || { cat "$T/prog.err"; exit 1; }
  ;;
blocks)
  # The attention block's single-GPU test (run by tests/gpu/run_attention_single_gpu.sh on a GPU).
  if "$CUDA_HOME/bin/nvcc" -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime/include \
       tests/gpu/blocks/attention_single_gpu.cu -o "$T/attention_single_gpu" >"$T/attention.log" 2>&1; then
    echo "ok   tests/gpu/blocks/attention_single_gpu.cu: compiled"
  else
    echo "FAIL tests/gpu/blocks/attention_single_gpu.cu:"; cat "$T/attention.log"; exit 1
  fi
  # Its cuDNN build (-DCUCO_TEST_CUDNN): the test against impl/cudnn_sdpa.h's declaration (the
  # frontend unit itself, runtime/src/cudnn_sdpa.cu, compiles with attention_cp above).
  if "$CUDA_HOME/bin/nvcc" -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime/include \
       -DCUCO_TEST_CUDNN -c tests/gpu/blocks/attention_single_gpu.cu -o "$T/attention_single_gpu_cudnn.o" >"$T/attention-cudnn.log" 2>&1; then
    echo "ok   tests/gpu/blocks/attention_single_gpu.cu -DCUCO_TEST_CUDNN: compiled"
  else
    echo "FAIL tests/gpu/blocks/attention_single_gpu.cu -DCUCO_TEST_CUDNN:"; cat "$T/attention-cudnn.log"; exit 1
  fi
  # The NVSHMEM backend (codesign/nvshmem.h, -DCUCO_WITH_NVSHMEM) against NVSHMEM's device headers:
  # $CUCO_NVSHMEM_HOME, else the nvidia-nvshmem-cu13 wheel scripts/install-deps.sh installs.
  NVSHMEM_INC=${CUCO_NVSHMEM_HOME:+$CUCO_NVSHMEM_HOME/include}
  [ -z "$NVSHMEM_INC" ] && NVSHMEM_INC=$(python3 -c 'import nvidia.nvshmem as n; print(list(n.__path__)[0] + "/include")' 2>/dev/null || true)
  if [ ! -f "$NVSHMEM_INC/nvshmem.h" ]; then
    echo "FAIL codesign/nvshmem.h: no NVSHMEM headers (pip install nvidia-nvshmem-cu13==3.4.5, or set CUCO_NVSHMEM_HOME)"; exit 1
  fi
  if "$CUDA_HOME/bin/nvcc" -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -rdc=true -DCUCO_WITH_NVSHMEM \
       -Iruntime/include -I"$NVSHMEM_INC" -c tests/gpu/blocks/nvshmem_compile.cu -o "$T/nvshmem_compile.o" >"$T/nvshmem.log" 2>&1; then
    echo "ok   tests/gpu/blocks/nvshmem_compile.cu (codesign/nvshmem.h, NVSHMEM at $NVSHMEM_INC): compiled"
  else
    echo "FAIL tests/gpu/blocks/nvshmem_compile.cu:"; grep -v "warning #3013" "$T/nvshmem.log" | head -40; exit 1
  fi
  # The single-GPU block tests (a plain CUDA program, run by tests/gpu/run_blocks_single_gpu.sh on a GPU).
  if "$CUDA_HOME/bin/nvcc" -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -Iruntime/include -Iruntime/src \
       tests/gpu/blocks/blocks_single_gpu.cu runtime/src/candidate/rank_context.cu runtime/src/common/driver_api.cu \
       -o "$T/blocks_single_gpu" -lcublasLt -L"$CUDA_HOME/lib64" -lnccl >"$T/blocks.log" 2>&1; then
    echo "ok   tests/gpu/blocks/blocks_single_gpu.cu: compiled"
  else
    echo "FAIL tests/gpu/blocks/blocks_single_gpu.cu:"; cat "$T/blocks.log"; exit 1
  fi
  # The cuBLASLt algorithm sweep (bench/gemm_algo_sweep.cu, run by bench/device-x2.sh's phase sweep).
  if "$CUDA_HOME/bin/nvcc" -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a bench/gemm_algo_sweep.cu \
       -o "$T/gemm_algo_sweep" -lcublasLt >"$T/sweep.log" 2>&1; then
    echo "ok   bench/gemm_algo_sweep.cu: compiled"
  else
    echo "FAIL bench/gemm_algo_sweep.cu:"; cat "$T/sweep.log"; exit 1
  fi
  # The NCCL side-stream hang probe (run by tests/gpu/run_nccl_probe.sh on 2 GPUs).
  NCCL_INC=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0] + "/include")' 2>/dev/null || echo "$CUDA_HOME/include")
  if "$CUDA_HOME/bin/nvcc" -std=c++17 -O2 -gencode=arch=compute_90,code=sm_90 -I"$NCCL_INC" \
       -c tests/gpu/nccl_side_stream_probe.cu -o "$T/nccl_probe.o" >"$T/nccl_probe.log" 2>&1; then
    echo "ok   tests/gpu/nccl_side_stream_probe.cu: compiled"
  else
    echo "FAIL tests/gpu/nccl_side_stream_probe.cu:"; cat "$T/nccl_probe.log"; exit 1
  fi
  ;;
*)
  wl=$PART
  n=$(basename "$wl")
  [ -f "$wl/workload.toml" ] || { echo "FAIL no workload at $wl"; exit 1; }
  files=("$wl/seed.cu")
  [ -f "$wl/gen0.cu" ] && files+=("$wl/gen0.cu")
  if grep -q '^\[\[variants\]\]' "$wl/workload.toml"; then
    python3 bench/materialize_variants.py "$wl" "$T/var" --with-parts >/dev/null || exit 1
    files+=("$T/var"/*.cu)
  fi
  # Planted wrong candidates, written from the seed (tests/gpu/make_candidates.py; none for some workloads).
  python3 tests/gpu/make_candidates.py planted "$T/planted" --workload "$n" >/dev/null || { echo "FAIL planted candidates of $n"; exit 1; }
  [ -d "$T/planted/$n" ] && files+=("$T/planted/$n"/*.cu)
  # Compiling is what is tested here: the preprocessed deny-list scan of every one of these files
  # is src/evaluate/hygiene_test's walk (HygieneWalk), so it is not run twice.
  # The seed is the workload's one full optimised build; the rest are compile checks (no
  # optimisation: their point is that they compile and link).
  "$CUCO" eval "$wl" "${files[0]}" --stage compile --unsafe-skip-deny-scan \
    --run-dir "$T/run-seed" --json >"$T/seed.json" 2>"$T/seed.err"
  "$CUCO" eval "$wl" "${files[@]:1}" --stage compile-check --jobs 2 --parallel-compiles 2 --unsafe-skip-deny-scan \
    --run-dir "$T/run" --json >"$T/eval.json" 2>"$T/eval.err"
  check_records "${#files[@]}" "$T/seed.json" "$T/eval.json" || { tail -n 40 "$T/seed.err" "$T/eval.err"; exit 1; }
  # The legacy in-process harness (bench/timing_compare.py's timing reference) with the seed's flags:
  # it shares the supervisor's kernels, so a change there must not break it unseen.
  if [ "$n" = gemm_reducescatter ]; then
    python3 bench/timing_compare.py --compile-check "$wl/seed.cu" --out "$T/legacy" || exit 1
  fi
  # The rule-based transform (`cuco transform`) of the seed: generation 0 must compile (it is
  # verified on GPUs by bench/device-transform.sh).
  "$CUCO" transform "$wl" --out "$T/gen0-rule.cu" --run-dir "$T/tr" --json >"$T/tr.json" 2>"$T/tr.err"
  rc=$?
  if [ $rc -eq 0 ] && python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["attempts"][-1]; sys.exit(a["status"]!="skipped")' "$T/tr.json"; then
    echo "ok   cuco transform $wl: generation 0 compiled"
  else
    echo "FAIL cuco transform $wl (exit $rc):"; cat "$T/tr.err" "$T/tr.json"; exit 1
  fi
  ;;
esac
