#!/usr/bin/env bash
# cuco init of stop 90's held-out programs (as stop 91 ran them) into .carry/habits (what the W=1 calls ran), each in its main
# file's folder with the build line its repository gives (`-arch=sm_90`, `-ccbin mpicxx` where it includes
# mpi.h). The programs are not committed (other people's code): H = the seventeenth batch's copies
# (README.md here: repositories and commits), E = eth-cscs/SummerSchool2019 @57295be's miniapp/solutions/mpi/cuda.
# Usage (repo root): C=build/src/cli/cuco H=/tmp/ho17 C18=/tmp/ho18 E=<that folder> bash <this>
set -u
C=$(realpath "${C:-build/src/cli/cuco}"); O=$PWD/.carry/habits
one() { n=$1; d=$2; f=$3; shift 3; rm -rf "$O/$n"; (cd "$d" && "$C" init "$f" --out "$O/$n" "$@" >"/tmp/init-$n.txt" 2>&1); echo "$n rc=$?"; }
one ho_life "$H/life" cuda_aware_MPI_life.cu --name life --args "1024 10 /tmp" -- nvcc -arch=sm_90 -ccbin mpicxx -o cuda_aware_MPI_life cuda_aware_MPI_life.cu
one ho_wave3d "$H/wave3d" cuda_sol.cpp cuda_sol_kernels.cu --name wave3d --args "128 1 pi pi pi 1 20" -- nvcc -arch=sm_90 -ccbin mpicxx -std=c++11 -O3 cuda_sol.cpp cuda_sol_kernels.cu -o cuda_sol
one ho_spinodal "$H/spinodal" SpinoidalDecomposition_MPI.cpp src/General.cpp src/General_MPI_2D.cpp src/General_CUDA_2D.cu src/SpinoidalDecomposition_CUDA.cu --name spinodal -- nvcc -arch=sm_90 -ccbin mpicxx -std=c++17 -Iinclude SpinoidalDecomposition_MPI.cpp src/General.cpp src/General_MPI_2D.cpp src/General_CUDA_2D.cu src/SpinoidalDecomposition_CUDA.cu -o run
one ho_cscs_miniapp_diffusion "$E" main.cu --name cscs_miniapp_diffusion --args "256 256 10 0.01" -- /usr/local/cuda/bin/nvcc -arch=sm_90 -O3 -std=c++11 -ccbin mpicxx -Xcompiler -fopenmp stats.cu data.cu operators.cu linalg.cu cuda_helpers.cu main.cu -lcublas -o main
# wffpy/CCFL @26abafd1 (the eighteenth batch's copy, C18=/tmp/ho18): its host pipeline, a GEMM and an all-reduce per block of rows.
one ho_ccfl "$C18/ccfl/src" main.cu fc_allreduce_pipeline.cu --name ccfl -- nvcc -I../include main.cu fc_allreduce_pipeline.cu -o ccfl -lnccl -lcublas
