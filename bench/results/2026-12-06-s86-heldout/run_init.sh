#!/usr/bin/env bash
# cuco init of the sixteenth held-out batch, each in its main file's folder, with its build line.
# C=<cuco> O=OUT A=<copies 16a> B=<copies 16b> C2=<copies 16c> bash run_init.sh (ONLY="fa2 moe ..." for some).
C=${C:-/work/main/build/src/cli/cuco}
O=${O:-/tmp/ho16/out}; mkdir -p $O
one() { # name dir args...
  n=$1; d=$2; shift 2
  rm -rf $O/$n
  (cd $d && timeout 600 $C init "$@" ) >$O/$n.txt 2>&1; echo "$n rc=$?"
  grep -E "harness|skeleton|refused|error" $O/$n.txt | head -3 | cut -c1-300
}
A=${A:-/tmp/ho16a}  # the helpers' copies, each with its SOURCE (repository, commit, paths)
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" fa2 "* ]] && one dist_fa2_mpi $A/dist_fa2_mpi week_07/dist_fa2_forward_mpi.cu --name dist_fa2_mpi --out $O/dist_fa2_mpi --args "--N 4096 --d 128 --Br 128 --Bc 128" -- /usr/local/cuda/bin/nvcc -O2 -std=c++17 -arch=sm_90 -ccbin mpicxx week_07/dist_fa2_forward_mpi.cu -o output.bin
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" moe "* ]] && one moe_ep_mpi $A/moe_ep_mpi/week_08 main_moe.cpp --name moe_ep_mpi --out $O/moe_ep_mpi -- /usr/local/cuda/bin/nvcc -O3 -lineinfo -std=c++17 -arch=sm_90 -ccbin=mpicxx utils/gemm.cu utils/sigmoid.cu utils/bias_add.cu router/group_top2_select.cu router/apply_group_mask.cu router/row_topk.cu router/gather_alpha.cu router/router_fwd.cpp dispatch/pack_routes.cu comm/ep_alltoallv_mpi.cc experts/experts_mlp_fwd.cu combine/combine_and_add.cu se/se_mlp_fwd.cu moe_fwd.cpp main_moe.cpp -lmpi -o build/test_moe
B=${B:-/tmp/ho16b}
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" jacobi "* ]] && one cuda_aware_jacobi2d $B/cuda_aware_jacobi2d/posts/cuda-aware-mpi-example/src CUDA_Aware_MPI.c --name cuda_aware_jacobi2d --out $O/cuda_aware_jacobi2d --args "-t 1 1 -d 1024 1024 -fs" -- /usr/local/cuda/bin/nvcc -arch=sm_90 -O3 -ccbin mpicxx Jacobi.c Input.c Host.c CUDA_Aware_MPI.c Device.cu -o cuda_aware_jacobi2d
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" pingpong "* ]] && one cuda_aware_pingpong $B/cuda_aware_pingpong/cuda_aware ping_pong_cuda_aware.cu --name cuda_aware_pingpong --out $O/cuda_aware_pingpong -- /usr/local/cuda/bin/nvcc -arch=sm_90 -ccbin mpicxx ping_pong_cuda_aware.cu -o pp_cuda_aware
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" diffusion "* ]] && one cscs_miniapp_diffusion $B/cscs_miniapp_diffusion/miniapp/solutions/mpi/cuda main.cu --name cscs_miniapp_diffusion --out $O/cscs_miniapp_diffusion --args "256 256 10 0.01" -- /usr/local/cuda/bin/nvcc -arch=sm_90 -O3 -std=c++11 -ccbin mpicxx -Xcompiler -fopenmp stats.cu data.cu operators.cu linalg.cu cuda_helpers.cu main.cu -lcublas -o main
C2=${C2:-/tmp/ho16c}
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" a2a "* ]] && one moe_alltoall_toy $C2/moe_alltoall_toy/week_08 data_expert_parallelism.cu --name moe_alltoall_toy --out $O/moe_alltoall_toy -- /usr/local/cuda/bin/nvcc -arch=sm_90 data_expert_parallelism.cu -lnccl -ccbin mpicxx -o data_expert_parallelism
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" sendrecv "* ]] && one mpi_nccl_sendrecv $C2/mpi_nccl_sendrecv test_nccl.cpp --name mpi_nccl_sendrecv --out $O/mpi_nccl_sendrecv -- /usr/local/cuda/bin/nvcc -arch=sm_90 test_nccl.cpp -lnccl -ccbin mpicxx -o test_nccl
