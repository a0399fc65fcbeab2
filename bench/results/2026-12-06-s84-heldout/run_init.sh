#!/usr/bin/env bash
# cuco init of the fourteenth held-out batch, each in its main file's folder, with its build line.
C=${C:-/work/main/build/src/cli/cuco}
O=${O:-/tmp/ho14/out}; mkdir -p $O
one() { # name dir args...
  n=$1; d=$2; shift 2
  rm -rf $O/$n
  (cd $d && timeout 600 $C init "$@" ) >$O/$n.txt 2>&1; echo "$n rc=$?"
  grep -E "harness|skeleton|refused|error" $O/$n.txt | head -3 | cut -c1-300
}
H=/tmp/ho14
J=$H/gpubootcamp_jacobi_nccl/archived/hpc/multi_gpu_nways/labs/CFD/English/C/source_code/nccl/solution
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" jacobi "* ]] && one gpubootcamp_jacobi $J jacobi_nccl.cpp ../jacobi_kernels.cu --name gpubootcamp_jacobi --out $O/gpubootcamp_jacobi -- nvcc -arch=sm_90 -ccbin mpicxx -std=c++14 -Xcompiler -fopenmp -I/usr/local/cuda/include/nvtx3 -o jacobi_nccl jacobi_nccl.cpp ../jacobi_kernels.cu -lnccl
T=$H/mattjb_tensor_parallel_ptx
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" tpptx "* ]] && one mattjb_tpptx $T src/main.cu src/app/cli.cu src/app/dist_context.cu src/app/logging.cu src/comm/nccl_utils.cu src/tp/sharding.cu src/tp/summa_runner.cu src/tp/oned_runner.cu src/verify/verify_runner.cu src/data.cu kernels/fp16_wmma.cu --name mattjb_tpptx --out $O/mattjb_tpptx -- nvcc -arch=sm_90 -std=c++17 -I. -DUSE_NCCL=1 -DTP_KERNEL_VARIANT=\"fp16_wmma\" -o tensor_parallel_ptx src/main.cu src/app/cli.cu src/app/dist_context.cu src/app/logging.cu src/comm/nccl_utils.cu src/tp/sharding.cu src/tp/summa_runner.cu src/tp/oned_runner.cu src/verify/verify_runner.cu src/data.cu kernels/fp16_wmma.cu -lcublas -lnccl
R=$H/ring_attention_nccl_bench/src/attention
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" ring "* ]] && one ring_attn_bench $R ring_attention_nccl_gpu_bench.cu --name ring_attn_bench --out $O/ring_attn_bench --args "262144 10 50" -- nvcc -arch=sm_90 -ccbin mpicxx -O3 -o ring_attention_nccl_gpu_bench ring_attention_nccl_gpu_bench.cu -lnccl
