#!/usr/bin/env bash
# cuco init of the fifteenth held-out batch, each in its main file's folder, with its build line.
C=${C:-/work/main/build/src/cli/cuco}
O=${O:-/tmp/ho15/out}; mkdir -p $O
one() { # name dir args...
  n=$1; d=$2; shift 2
  rm -rf $O/$n
  (cd $d && timeout 600 $C init "$@" ) >$O/$n.txt 2>&1; echo "$n rc=$?"
  grep -E "harness|skeleton|refused|error" $O/$n.txt | head -3 | cut -c1-300
}
H=${H:-/tmp/ho15b}  # the helpers' copies, each with its SOURCE (repository, commit, paths)
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" sweep "* ]] && one allreduce_sweep $H/allreduce_sweep src/xccl/cuda/allreduce.cu --name allreduce_sweep --out $O/allreduce_sweep --args "1048576 20 5" -- /usr/local/cuda/bin/nvcc -arch=sm_90 -std=c++17 -ccbin mpicxx -Iinclude src/xccl/cuda/allreduce.cu -o cuda_nccl_allreduce -lnccl
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" graph "* ]] && one graph_threads $H/graph_threads nccl_test.cc --name graph_threads --out $O/graph_threads -- /usr/local/cuda/bin/nvcc -arch=sm_90 -o nccl_test nccl_test.cc -lnccl -std=c++11
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" heat "* ]] && one heat_nccl_mpi $H/heat_nccl_mpi/lab_5_cuda_mpi mpi_nccl_poisson.cu --name heat_nccl_mpi --out $O/heat_nccl_mpi --args "1e-6 256 1000" -- /usr/local/cuda/bin/nvcc -ccbin mpicxx -lmpi -lnccl -arch sm_90 mpi_nccl_poisson.cu -o mpi_nccl_poisson
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" p2p "* ]] && one p2p_matrix $H/p2p_matrix p2p_matrix.cc --name p2p_matrix --out $O/p2p_matrix -- /usr/local/cuda/bin/nvcc -arch=sm_90 -ccbin mpicxx -lmpi -lnccl p2p_matrix.cc -o p2p_matrix
A=${A:-/tmp/ho15a}
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" moe "* ]] && one deepseek_moe $A/deepseek_moe deepseek_moe_cuda.cu --name deepseek_moe --out $O/deepseek_moe -- /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -ccbin mpicxx deepseek_moe_cuda.cu -lcublas -lnccl -o deepseek_moe
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" pipe "* ]] && one nccl_pipeline $A/nccl_pipeline nccl_pipeline.cu --name nccl_pipeline --out $O/nccl_pipeline -- /usr/local/cuda/bin/nvcc -arch=sm_90 -O3 -std=c++14 -Xcompiler -fopenmp -I/usr/local/cuda/include -I/usr/lib/x86_64-linux-gnu/openmpi/include -L/usr/local/cuda/lib64 -L/usr/lib/x86_64-linux-gnu/openmpi/lib nccl_pipeline.cu -o nccl_pipeline -lnccl -lcudart -lcublas -lcurand -lmpi
