#!/usr/bin/env bash
# cuco init of stop 88's CUDA-aware MPI programs into .carry/habits (what call 1 ran at W=1), each in its
# main file's folder with the build line its repository gives. The programs are not committed (other
# people's code): M = multi-gpu-programming-models @9a600f5e (bench/ext_programs.py says how to get it),
# A and B = stop 86's copies (bench/results/2026-12-06-s86-heldout: repositories and commits).
# Usage (repo root): C=build/src/cli/cuco M=<root>/multi-gpu-programming-models A=/tmp/ho16a B=/tmp/ho16b bash <this>
set -u
C=$(realpath "${C:-build/src/cli/cuco}"); H=$PWD/.carry/habits
one() { n=$1; d=$2; f=$3; shift 3; rm -rf "$H/$n"; (cd "$d" && "$C" init "$f" --out "$H/$n" "$@" >"/tmp/init-$n.txt" 2>&1); echo "$n rc=$?"; }
rm -rf "$H/cuda_aware_mpi_halo"; python3 tests/habits/habits_check.py --no-compile --keep "$H" "$C" cuda_aware_mpi_halo | tail -1
one ho_mgpm_jacobi_mpi "$M/mpi" jacobi.cpp --name mgpm_jacobi_mpi -- nvcc -DHAVE_CUB -lineinfo -arch=sm_90 -std=c++14 -ccbin mpicxx -DUSE_NVTX jacobi.cpp jacobi_kernels.cu -o jacobi
one ho_mgpm_jacobi_mpi_overlap "$M/mpi_overlap" jacobi.cpp --name mgpm_jacobi_mpi_overlap -- nvcc -DHAVE_CUB -lineinfo -arch=sm_90 -std=c++14 -ccbin mpicxx -DUSE_NVTX jacobi.cpp jacobi_kernels.cu -o jacobi
one ho_dist_fa2_mpi "$A/dist_fa2_mpi" week_07/dist_fa2_forward_mpi.cu --name dist_fa2_mpi --args "--N 4096 --d 128 --Br 128 --Bc 128" -- /usr/local/cuda/bin/nvcc -O2 -std=c++17 -arch=sm_90 -ccbin mpicxx week_07/dist_fa2_forward_mpi.cu -o output.bin
one ho_moe_ep_mpi "$A/moe_ep_mpi/week_08" main_moe.cpp --name moe_ep_mpi -- /usr/local/cuda/bin/nvcc -O3 -lineinfo -std=c++17 -arch=sm_90 -ccbin=mpicxx utils/gemm.cu utils/sigmoid.cu utils/bias_add.cu router/group_top2_select.cu router/apply_group_mask.cu router/row_topk.cu router/gather_alpha.cu router/router_fwd.cpp dispatch/pack_routes.cu comm/ep_alltoallv_mpi.cc experts/experts_mlp_fwd.cu combine/combine_and_add.cu se/se_mlp_fwd.cu moe_fwd.cpp main_moe.cpp -lmpi -o build/test_moe
one ho_cuda_aware_jacobi2d "$B/cuda_aware_jacobi2d/posts/cuda-aware-mpi-example/src" Jacobi.c --name cuda_aware_jacobi2d --args "-t 1 1 -d 1024 1024 -fs" -- /usr/local/cuda/bin/nvcc -arch=sm_90 -O3 -ccbin mpicxx Jacobi.c Input.c Host.c CUDA_Aware_MPI.c Device.cu -o cuda_aware_jacobi2d
one ho_cuda_aware_pingpong "$B/cuda_aware_pingpong/cuda_aware" ping_pong_cuda_aware.cu --name cuda_aware_pingpong -- /usr/local/cuda/bin/nvcc -arch=sm_90 -ccbin mpicxx ping_pong_cuda_aware.cu -o pp_cuda_aware
