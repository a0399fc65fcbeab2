#!/usr/bin/env bash
# A four-GPU machine for the runs that wait on more than one GPU, in device calls of under 10
# minutes each (CALL=1, 2, 3), two jobs at once where each needs only two GPUs (each on its own
# GPUs through --gpus; the pairs share the host's CPUs, which the results say). Results in $OUT:
# device.txt, calls.txt (what ran, exit codes, seconds), summary.md (the jobs' tables) and
# call$CALL.tgz (every job's own files).
#   CALL=1  issue 17 item 4 at world size 2: bench/one-gpu/programs-knobs.sh, the six programs started
#           once per rank, split over GPUs 0,1 and 2,3
#   CALL=2  the same after the fixes call 1 asked for, and how CUDA numbers a sandbox's GPUs
#           (bench/sandbox-gpu-numbering.sh) before the pair 2,3 runs
#   CALL=3  issue 17 at world size 1 (programs-knobs, the five programs spread over the four GPUs),
#           then the world-size-4 GEMM table (bench/device-x2.sh WORLD=4 PHASES=gemm)
#   CALL=4  the world-size-4 tables: bench/device-x2.sh WORLD=4 PHASES="gemm workloads"
#   CALL=5  world-size-2 phases bench/device-x2.sh left: kv_transfer (GPUs 0,1) beside skewed MoE (2,3)
#   CALL=6  the one-GPU runs left after session 11, each on its own GPU: issue 18's report of a real
#           evolve (bench/one-gpu/report-w1.sh, GPU 0), the sandbox's adversarial and planted candidates
#           on a GPU other than 0 (bench/one-gpu/supervisor-w1.sh smoke adversarial planted, GPU 1); on
#           GPUs 2,3: vocab_parallel_ce's knobs at W=2 again, then the planted candidates at W=2
#           (attention's with the cuDNN frontend headers in .carry/cudnn-fe)
#   CALL=7  CALL=6 again without MPS (CALL=6's supervisor-w1 started an MPS daemon whose server saw
#           GPU 1 only, and every job's CUDA clients then found no device), with the programs that
#           drive every GPU from one process (pp_microbatch_initall, dp_broadcast_group): their
#           harness at world size 1 (GPU 0, after the report) and 2 (GPUs 2,3, with planted wrong
#           candidates from .carry/planted-proj), then their knobs at world size 2
#   CALL=8  pp_microbatch_initall at world size 2 with a candidate that prints each hand-over and
#           waits for it (.carry/debug/pp-dbg.cu: why the harness hung there in CALL=7), then the
#           thread-per-GPU programs (kv_transfer_threads, dp_allreduce_threads_bf16): their harness at
#           world size 1 (GPUs 0,1) and 2 (GPUs 2,3, with a planted candidate), then their knobs at 2
#   CALL=9  kv_transfer_threads at world size 2 after the fix of its teardown (threads not joined
#           yet are joined as main unwinds): its harness (GPUs 0,1) beside its knobs (GPUs 2,3)
#   CALL=11 (two GPUs: GPUs 0,1) the chunks knob at world size 2: bench/one-gpu/chunks-knob.sh over the
#           programs whose generation 0 has it (.carry/chunks, bench/one-gpu/make-chunks.sh), then
#           the builtin search of tp_mlp_mpi's knobs with the time left (programs-knobs.sh)
#   CALL=12 (two GPUs: GPUs 0,1) the builtin search of gemm_rs_fp16_socket's knobs, chunks among them, at
#           world size 2 (CALL=11 ran out of time before its search)
#   CALL=13 (two GPUs: GPUs 0,1) the chunks knob of sp_mlp_bf16_mpi at bench sizes 8x its defaults' GEMMs
#           (seq 8192, hidden 4096, ffn 16384), where a GEMM takes about a millisecond
#   CALL=14 (two GPUs: GPUs 0,1) CALL=13 again with the comm_sms knob (the SMs a split GEMM leaves to
#           the collective), which only dc86639 has: .carry/chunks made there by
#           `ONLY=sp_mlp_bf16_mpi bash bench/one-gpu/make-chunks.sh`
#   CALL=10 (two GPUs are enough: GPUs 0,1, one job after the other) what session 12 left: the
#           programs driving every GPU from one process or a thread per GPU at world size 2 after
#           the send/recv fix (p2p_bounce.h): pp_microbatch_initall and dp_allreduce_threads_bf16's
#           harness with their planted candidates, then their knobs; ring_pipeline_file and
#           kv_transfer_threads again (their sends and receives now go through the same shim), and
#           dp_broadcast_group and sp_mlp_bf16_mpi, whose size options became workload sizes
#   CALL=15 (three GPUs) the probes of session 14
#           (tests/probes/, programs written elsewhere) verified from their raw files: harness and
#           generation 0 at world size 1 on GPU 0 beside world size 2 on GPUs 1,2; .carry/probes made by
#           `python3 tests/probes/probe_check.py --keep .carry/probes build/src/cli/cuco`
# Usage (repo root on the GPU machine, .carry/ as in bench/one-gpu/README.md):
#   CALL=1 CUCO_GIT_COMMIT=<hash> bash bench/device-x4.sh
set -u
OUT=${OUT:-/tmp/cuco-x4-out}
CALL=${CALL:-1}
DEADLINE_S=${DEADLINE_S:-540}
START=$(date +%s)
export CUCO=$PWD/.carry/cuco PREMADE=$PWD/.carry/hwl-knobs PATH=$PWD/.carry/bin:$PATH
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
mkdir -p "$OUT"
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
nvidia-smi topo -m >>"$OUT/device.txt" 2>&1
grep -H "Minor\|Bus Location" /proc/driver/nvidia/gpus/*/information >>"$OUT/device.txt" 2>&1; ls -la /dev/nvidia* >>"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  call: $CALL" >>"$OUT/device.txt"
LD_LIBRARY_PATH=$PWD/.carry/lib ldd "$CUCO" | grep "not found" && { echo "cuco cannot start here: a library is missing from .carry/lib"; exit 1; }

# job NAME COMMAND...: runs COMMAND in the background with OUT=$OUT/NAME, cut at the deadline.
job() {
  local name=$1; shift
  mkdir -p "$OUT/$name"
  ( local t0; t0=$(date +%s)
    OUT="$OUT/$name" timeout -s INT -k 20 "$DEADLINE_S" "$@" >"$OUT/$name/stdout.txt" 2>&1
    echo "$name: exit $? after $(( $(date +%s) - t0 )) s: $*" >>"$OUT/calls.txt" ) &
}

case $CALL in
  1)
    job w2a env WORLD=2 GPUS=0,1 TAG=w2a T=175 ONLY="tp_mlp_mpi sp_mlp_bf16_mpi gemm_rs_fp16_socket" \
      bash bench/one-gpu/programs-knobs.sh
    job w2b env WORLD=2 GPUS=2,3 TAG=w2b T=175 ONLY="ring_pipeline_file vocab_parallel_ce moe_alltoall_mpi" \
      bash bench/one-gpu/programs-knobs.sh ;;
  2)
    job w2a env WORLD=2 GPUS=0,1 TAG=w2a T=150 MAX=6 ONLY="tp_mlp_mpi sp_mlp_bf16_mpi gemm_rs_fp16_socket" \
      bash bench/one-gpu/programs-knobs.sh
    job w2b bash -c 'bash bench/sandbox-gpu-numbering.sh; WORLD=2 GPUS=2,3 TAG=w2b T=150 MAX=6 \
      ONLY="ring_pipeline_file vocab_parallel_ce moe_alltoall_mpi" bash bench/one-gpu/programs-knobs.sh' ;;
  3)
    for g in 0 1 2 3; do
      only=$(echo "tp_mlp_mpi sp_mlp_bf16_mpi gemm_rs_fp16_socket ring_pipeline_file vocab_parallel_ce" | \
             tr ' ' '\n' | awk -v g=$g 'NR % 4 == g' | tr '\n' ' ')
      job "w1-gpu$g" env WORLD=1 GPUS=$g TAG="w1-gpu$g" T=130 MAX=6 ONLY="$only" bash bench/one-gpu/programs-knobs.sh
    done
    wait
    DEADLINE_S=$((DEADLINE_S - ($(date +%s) - START)))
    job w4 env WORLD=4 RES=/tmp/cuco-x4 PHASES="gemm" DEADLINE_S=$((DEADLINE_S - 10)) bash bench/device-x2.sh ;;
  4)
    job w4 env WORLD=4 RES=/tmp/cuco-x4 PHASES="gemm workloads" DEADLINE_S=$((DEADLINE_S - 10)) bash bench/device-x2.sh ;;
  5)
    job x2kv env WORLD=2 GPUS=0,1 RES=/tmp/cuco-x2-kv PHASES="kv" DEADLINE_S=$((DEADLINE_S - 10)) \
      CUCO_CACHE_DIR=/tmp/cuco-cache-kv bash bench/device-x2.sh
    job x2skew env WORLD=2 GPUS=2,3 RES=/tmp/cuco-x2-skew PHASES="moeskew" DEADLINE_S=$((DEADLINE_S - 10)) \
      CUCO_CACHE_DIR=/tmp/cuco-cache-skew bash bench/device-x2.sh ;;
  6)
    job r1 env CUDA_VISIBLE_DEVICES=0 WALL=200 bash bench/one-gpu/report-w1.sh
    job s1 env CUDA_VISIBLE_DEVICES=1 PHASES="smoke adversarial planted" DEADLINE_S=$((DEADLINE_S - 20)) \
      bash bench/one-gpu/supervisor-w1.sh
    job w2 bash -c "WORLD=2 GPUS=2,3 TAG=w2v T=170 MAX=6 ONLY=vocab_parallel_ce bash bench/one-gpu/programs-knobs.sh; \
      CUDA_VISIBLE_DEVICES=2,3 WORLD=2 RES=/tmp/cuco-x2-planted PHASES=planted DEADLINE_S=$((DEADLINE_S - 200)) bash bench/device-x2.sh" ;;
  7)
    proj="pp_microbatch_initall dp_broadcast_group"
    job r1 env CUDA_VISIBLE_DEVICES=0 bash -c "WALL=180 bash bench/one-gpu/report-w1.sh; \
      PREMADE=.carry/hwl-knobs WORLD=1 ONLY='$proj' bash bench/one-gpu/programs-harness.sh"
    job s1 env CUDA_VISIBLE_DEVICES=1 NO_MPS=1 PHASES="smoke adversarial planted" DEADLINE_S=$((DEADLINE_S - 20)) \
      bash bench/one-gpu/supervisor-w1.sh
    job w2 env CUDA_VISIBLE_DEVICES=2,3 bash -c "PREMADE=.carry/hwl-knobs PLANTED=.carry/planted-proj WORLD=2 ONLY='$proj' \
      bash bench/one-gpu/programs-harness.sh; WORLD=2 TAG=w2p T=110 MAX=6 ONLY='$proj' bash bench/one-gpu/programs-knobs.sh; \
      WORLD=2 TAG=w2v T=100 MAX=6 ONLY=vocab_parallel_ce bash bench/one-gpu/programs-knobs.sh" ;;
  8)
    thr="kv_transfer_threads dp_allreduce_threads_bf16"
    job d1 env CUDA_VISIBLE_DEVICES=0,1 bash -c "mkdir -p \$OUT/dbg; LD_LIBRARY_PATH=\$PWD/.carry/lib timeout 150 .carry/cuco eval \
      .carry/hwl-knobs/pp_microbatch_initall/harness .carry/debug/pp-dbg.cu --world-size 2 --unsafe-skip-deny-scan \
      --run-dir /tmp/dbg --json > \$OUT/dbg/eval.json 2> \$OUT/dbg/eval.err; cp -r /tmp/dbg/candidates/1/verify/logs \$OUT/dbg/ 2>/dev/null; \
      PREMADE=.carry/hwl-knobs WORLD=1 ONLY='$thr' bash bench/one-gpu/programs-harness.sh"
    job t2 env CUDA_VISIBLE_DEVICES=2,3 bash -c "PREMADE=.carry/hwl-knobs PLANTED=.carry/planted-proj WORLD=2 ONLY='$thr' \
      bash bench/one-gpu/programs-harness.sh; WORLD=2 TAG=w2t T=100 MAX=6 ONLY='$thr' bash bench/one-gpu/programs-knobs.sh" ;;
  9)
    job k2 env CUDA_VISIBLE_DEVICES=0,1 bash -c "PREMADE=.carry/hwl-knobs WORLD=2 ONLY=kv_transfer_threads bash bench/one-gpu/programs-harness.sh"
    job k2k env CUDA_VISIBLE_DEVICES=2,3 bash -c "WORLD=2 TAG=w2kv T=150 MAX=6 ONLY=kv_transfer_threads bash bench/one-gpu/programs-knobs.sh" ;;
  10)
    two="pp_microbatch_initall dp_allreduce_threads_bf16"
    job p10 env CUDA_VISIBLE_DEVICES=0,1 bash -c "PREMADE=.carry/hwl-knobs PLANTED=.carry/planted-proj WORLD=2 \
      ONLY='$two ring_pipeline_file kv_transfer_threads dp_broadcast_group sp_mlp_bf16_mpi' bash bench/one-gpu/programs-harness.sh; \
      WORLD=2 TAG=w2p T=110 MAX=6 ONLY='$two' bash bench/one-gpu/programs-knobs.sh" ;;
  11)
    job c11 env CUDA_VISIBLE_DEVICES=0,1 bash -c "WORLD=2 ONLY='tp_mlp_mpi gemm_rs_fp16_socket sp_mlp_bf16_mpi dp_allreduce_threads_bf16' \
      bash bench/one-gpu/chunks-knob.sh; WORLD=2 TAG=w2c T=150 MAX=10 ONLY=tp_mlp_mpi bash bench/one-gpu/programs-knobs.sh" ;;
  12)
    job s12 env CUDA_VISIBLE_DEVICES=0,1 WORLD=2 TAG=w2s T=270 MAX=12 ONLY=gemm_rs_fp16_socket bash bench/one-gpu/programs-knobs.sh ;;
  13)
    job c13 env CUDA_VISIBLE_DEVICES=0,1 WORLD=2 TAG=w2big SIZES="seq=8192 hidden=4096 ffn=16384" ONLY=sp_mlp_bf16_mpi \
      bash bench/one-gpu/chunks-knob.sh ;;
  14)
    job c14 env CUDA_VISIBLE_DEVICES=0,1 WORLD=2 TAG=w2sms SIZES="seq=8192 hidden=4096 ffn=16384" ONLY=sp_mlp_bf16_mpi \
      bash bench/one-gpu/chunks-knob.sh ;;
  15)
    job p1 env CUDA_VISIBLE_DEVICES=0 WORLD=1 bash bench/one-gpu/probes-verify.sh
    job p2 env CUDA_VISIBLE_DEVICES=1,2 WORLD=2 bash bench/one-gpu/probes-verify.sh ;;
  *) echo "CALL must be 1 to 15" >&2; exit 2 ;;
esac
wait
# The device tool brings back a few files: one summary and one archive of every job's files.
for f in "$OUT"/*/probes-w*.md "$OUT"/*/knobs-*.md "$OUT"/*/chunks-*.md "$OUT"/*/phases.txt "$OUT"/*/harness-w*.md "$OUT"/*/planted-w*.txt "$OUT"/*/dbg/logs/candidate-rank*.log; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done >"$OUT/summary.md"
jobs_dirs=$(cd "$OUT" && find . -mindepth 1 -maxdepth 1 -type d -printf '%f ')
# shellcheck disable=SC2086  # a list of folder names
tar -C "$OUT" -czf "$OUT/call$CALL.tgz" $jobs_dirs && (cd "$OUT" && rm -rf $jobs_dirs)
cat "$OUT/calls.txt" "$OUT/summary.md"
