#!/usr/bin/env bash
# Second 2-GPU call of 2026-11-23: (1) why the NCCL side-stream ring variants hang at bench sizes
# (stacks and GPU utilisation while hung; with and without NCCL's lazy connection set-up), then
# (2) the benches the hang cut, without those variants and with a 60 s bench limit.
# Usage (repo root, GPU machine): CUCO=.carry/cuco DEADLINE_S=560 bash bench/device-x2-rest.sh; results in $OUT/rest.tgz
set -u
O=/tmp/x2c; mkdir -p $O
CUCO=${CUCO:-.carry/cuco}; DEADLINE_S=${DEADLINE_S:-560}; start=$(date +%s)
left() { echo $((DEADLINE_S - ($(date +%s) - start))); }
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export CUCO_CACHE_DIR=/tmp/cuco-cache CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
watch() {  # watch TAG: while the hung bench runs, record what its processes and GPUs do
  sleep 28
  { date -u +%T; nvidia-smi --query-gpu=index,utilization.gpu,power.draw --format=csv,noheader
    for pid in $(nvidia-smi --query-compute-apps=pid --format=csv,noheader); do
      echo "--- pid $pid: $(tr '\0' ' ' </proc/$pid/cmdline | cut -c1-200)"
      for t in /proc/$pid/task/*; do echo "$(basename $t) $(cat $t/comm) $(cat $t/wchan)"; done | sort -k2 | uniq -c -f1 | head -20
      command -v gdb >/dev/null && timeout 20 gdb -batch -ex "thread apply all bt 12" -p $pid 2>/dev/null | grep -v "^\[" | head -120
    done; sleep 3; nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader; } >$O/watch-$1.txt 2>&1
}
for tag in lazy eager; do
  [ "$(left)" -lt 200 ] && break
  env_extra=""; [ $tag = eager ] && env_extra="NCCL_RUNTIME_CONNECT=0"
  echo "=== hang probe $tag ($(date -u +%T))"
  watch $tag & wp=$!
  env $env_extra NCCL_DEBUG=WARN "$CUCO" bench workloads/gemm_reducescatter --world-size 2 --only ring_nccl_p2p --no-peers \
    --bench-limit 40 --verify-limit 60 --run-dir $O/probe-$tag >$O/probe-$tag.txt 2>$O/probe-$tag.log
  echo "exit $?"; wait $wp; grep -A2 "^entry\|failed" $O/probe-$tag.txt | head; head -30 $O/watch-$tag.txt
done
b() {  # b WORKLOAD ONLY...: cuco bench with a 60 s bench limit
  local wl=$1; shift
  [ "$(left)" -lt 90 ] && { echo "=== $wl skipped ($(left)s left)"; return; }
  echo "=== bench $wl ($(date -u +%T), $(left)s left)"
  timeout -s INT -k 10 $(left) "$CUCO" bench workloads/$wl --world-size 2 --bench-limit 60 --label "$(hostname) w2" \
    --run-dir $O/bench-$wl --json $O/$wl-w2.json "$@" >$O/$wl-w2.txt 2>$O/$wl-w2.log
  echo "exit $?"; cat $O/$wl-w2.txt
}
b gemm_allgather --only seed push_ce push_lsa_kernel compute_alone comm_alone peers
b attention_cp --only seed ring_ce zigzag compute_alone comm_alone peers
b kv_transfer
b moe_dispatch_combine --size E_PER_RANK=8 --size SKEW=1 --only seed local_first_nccl chunked_ce sequential compute_alone comm_alone
(cd /tmp && find x2c -type f -size -3M ! -name '*.so' ! -name '*.o' | tar czf ${OUT:-/tmp}/rest.tgz -T -)
ls -la ${OUT:-/tmp}/rest.tgz
