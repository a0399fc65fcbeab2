#!/usr/bin/env bash
# cuco init of the seventeenth held-out batch (and the eighteenth: ccfl), each in its main file's folder with its build line.
# C=<cuco> H=<copies 17> C18=<copies 18> O=OUT bash run_init.sh (copies: each folder's SOURCE names repository and commit; README.md here).
C=${C:-/work/main/build/src/cli/cuco}; H=${H:-/tmp/ho17}; C18=${C18:-/tmp/ho18}; O=${O:-/tmp/ho17/out}; mkdir -p $O
cd $H/life && $C init cuda_aware_MPI_life.cu --name life --out $O/life --args "1024 10 /tmp" -- nvcc -arch=sm_90 -ccbin mpicxx -o cuda_aware_MPI_life cuda_aware_MPI_life.cu > $O/life.txt 2>&1
cd $H/wave3d && $C init cuda_sol.cpp cuda_sol_kernels.cu --name wave3d --out $O/wave3d --args "128 1 pi pi pi 1 20" -- nvcc -arch=sm_90 -ccbin mpicxx -std=c++11 -O3 cuda_sol.cpp cuda_sol_kernels.cu -o cuda_sol > $O/wave3d.txt 2>&1
cd $H/strawhat_client && $C init client.cc --name strawhat_client --out $O/strawhat_client -- nvcc -arch=sm_90 client.cc -o client -lcudart -lnccl > $O/strawhat_client.txt 2>&1
cd $H/rdma_cudaaware/demo && $C init cuda-aware.cu --name rdma_cudaaware --out $O/rdma_cudaaware -- nvcc -arch=sm_90 -ccbin mpicxx cuda-aware.cu -o cuda-aware > $O/rdma_cudaaware.txt 2>&1
cd $H/ag_micro && $C init allgather_micro_nccl_bench.cu --name ag_micro --out $O/ag_micro -- nvcc -arch=sm_90a -O3 -std=c++20 --expt-relaxed-constexpr allgather_micro_nccl_bench.cu -lnccl -o allgather_micro_nccl_bench > $O/ag_micro.txt 2>&1
cd $H/spinodal && $C init SpinoidalDecomposition_MPI.cpp src/General.cpp src/General_MPI_2D.cpp src/General_CUDA_2D.cu src/SpinoidalDecomposition_CUDA.cu --name spinodal --out $O/spinodal -- nvcc -arch=sm_90 -ccbin mpicxx -std=c++17 -Iinclude SpinoidalDecomposition_MPI.cpp src/General.cpp src/General_MPI_2D.cpp src/General_CUDA_2D.cu src/SpinoidalDecomposition_CUDA.cu -o run > $O/spinodal.txt 2>&1
cd $H/wuyy_reduce/Test && $C init nccl_reduce.cpp --name wuyy_reduce --out $O/wuyy_reduce -- nvcc -arch=sm_90 nccl_reduce.cpp -o nccl_reduce -lnccl > $O/wuyy_reduce.txt 2>&1
cd $H/bcast4/examples && $C init ncclBroadcast.c --name bcast4 --out $O/bcast4 -- nvcc -arch=sm_90 ncclBroadcast.c -o ncclBroadcast -lnccl > $O/bcast4.txt 2>&1
cd $C18/ccfl/src && $C init main.cu fc_allreduce_pipeline.cu --name ccfl --out $O/ccfl -- nvcc -I../include main.cu fc_allreduce_pipeline.cu -o ccfl -lnccl -lcublas > $O/ccfl.txt 2>&1
