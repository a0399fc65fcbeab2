#!/usr/bin/env bash
# L1 with the real nvcc, no GPU needed: cuco compiles every CUDA workload's seed and every
# planted GPU candidate through its own builder (frozen harness objects + candidate, linked
# against NCCL and cuBLASLt as `cuco doctor` found them). Expected: all compile, except
# frozen_edit.cu (rejected before compiling) and timer.cu (its own cudaEventElapsedTime clashes
# with the CUDA runtime at link time: a compile_error, which is also a catch).
# Usage: tests/cuda_compile_test.sh <path-to-cuco>
set -u
CUCO=$1
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CUCO_CACHE_DIR=$T/cache
cd "$SRC"
"$CUCO" eval workloads/gemm_reducescatter tests/gpu/candidates/gemm_reducescatter/*.cu --stage compile \
  --unsafe-skip-deny-scan --jobs 2 --parallel-compiles 2 --run-dir "$T/run" --json >"$T/gpu.json" 2>"$T/gpu.err"
"$CUCO" eval workloads/gemm_reducescatter_program --stage compile --run-dir "$T/prog" --json >"$T/prog.json" 2>"$T/prog.err"
# Every workload's seed, generation 0, [[variants]] (the co-design blocks in every setting) and
# planted wrong candidates.
for wl in workloads/gemm_reducescatter workloads/gemm_allgather workloads/kv_transfer workloads/moe_dispatch_combine \
          workloads/attention_cp tests/gpu/workloads/block_allgather; do
  n=$(basename "$wl")
  python3 bench/materialize_variants.py "$wl" "$T/var-$n" --with-parts >/dev/null
  planted=()  # planted wrong candidates (tests/gpu/make_planted_wrong.py); gemm_reducescatter's are above
  [ "$n" != gemm_reducescatter ] && [ -d "tests/gpu/candidates/$n" ] && planted=(tests/gpu/candidates/"$n"/*.cu)
  # Compiling is what is tested here: the preprocessed deny-list scan of every one of these files
  # is src/evaluate/hygiene_test's walk (HygieneWalk), so it is not run twice.
  "$CUCO" eval "$wl" "$wl/seed.cu" "$wl/gen0.cu" "$T/var-$n"/*.cu "${planted[@]}" --stage compile --jobs 2 --parallel-compiles 2 \
    --unsafe-skip-deny-scan \
    --run-dir "$T/run-$n" --json >"$T/wl-$n.json" 2>"$T/wl-$n.err"
done
# The device collectives' test workload (seed), and the rule-based transform (`cuco transform`) of
# every suite workload's seed: generation 0 must compile (it is verified on GPUs by
# bench/device-transform.sh).
"$CUCO" eval tests/gpu/workloads/collectives_suite --stage compile --run-dir "$T/run-cs" --json \
  >"$T/wl-collectives_suite.json" 2>"$T/wl-cs.err"
for wl in workloads/gemm_reducescatter workloads/gemm_allgather workloads/kv_transfer workloads/moe_dispatch_combine \
          workloads/attention_cp tests/gpu/workloads/block_allgather tests/gpu/workloads/collectives_suite; do
  n=$(basename "$wl")
  "$CUCO" transform "$wl" --out "$T/gen0-rule-$n.cu" --run-dir "$T/tr-$n" --json >"$T/tr-$n.json" 2>"$T/tr-$n.err"
  rc=$?
  if [ $rc -eq 0 ] && python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["attempts"][-1]; sys.exit(a["status"]!="skipped")' "$T/tr-$n.json"; then
    echo "ok   cuco transform $wl: generation 0 compiled"
  else
    echo "FAIL cuco transform $wl (exit $rc):"; cat "$T/tr-$n.err" "$T/tr-$n.json"; exit 1
  fi
done
# The attention block's single-GPU test (run by tests/gpu/run_attention_single_gpu.sh on a GPU).
if "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime/include \
     tests/gpu/blocks/attention_single_gpu.cu -o "$T/attention_single_gpu" >"$T/attention.log" 2>&1; then
  echo "ok   tests/gpu/blocks/attention_single_gpu.cu: compiled"
else
  echo "FAIL tests/gpu/blocks/attention_single_gpu.cu:"; cat "$T/attention.log"; exit 1
fi
# Its cuDNN build (-DCUCO_TEST_CUDNN): the test against impl/cudnn_sdpa.h's declaration (the
# frontend unit itself, runtime/src/cudnn_sdpa.cu, compiles with attention_cp above).
if "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime/include \
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
if "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -rdc=true -DCUCO_WITH_NVSHMEM \
     -Iruntime/include -I"$NVSHMEM_INC" -c tests/gpu/blocks/nvshmem_compile.cu -o "$T/nvshmem_compile.o" >"$T/nvshmem.log" 2>&1; then
  echo "ok   tests/gpu/blocks/nvshmem_compile.cu (codesign/nvshmem.h, NVSHMEM at $NVSHMEM_INC): compiled"
else
  echo "FAIL tests/gpu/blocks/nvshmem_compile.cu:"; grep -v "warning #3013" "$T/nvshmem.log" | head -40; exit 1
fi
# The single-GPU block tests (a plain CUDA program, run by tests/gpu/run_blocks_single_gpu.sh on a GPU).
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if "$CUDA_HOME/bin/nvcc" -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -Iruntime/include \
     tests/gpu/blocks/blocks_single_gpu.cu -o "$T/blocks_single_gpu" -lcublasLt >"$T/blocks.log" 2>&1; then
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
python3 - "$T/gpu.json" "$T/prog.json" "$T"/wl-*.json <<'PY'
import json, os, sys
records = json.load(open(sys.argv[1])) + [json.load(open(sys.argv[2]))]
for p in sys.argv[3:]:
    d = json.load(open(p))
    records += d if isinstance(d, list) else [d]
expected = {"frozen_edit.cu": "rejected", "timer.cu": "compile_error"}
bad = 0
for r in records:
    name = os.path.basename(r["candidate"])
    want = expected.get(name, "skipped")  # "skipped" = compiled, stopped before running (--stage compile)
    ok = r["status"] == want
    bad += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {r['status']} (want {want}) {r['reason'][:100]}")
print(f"cuda_compile: {len(records)} records, {bad} failed")
sys.exit(1 if bad or len(records) < 74 else 0)
PY
