#!/usr/bin/env bash
# cuco init of stop 92's held-out batch (the nineteenth), each in the folder its repository keeps it in,
# with the build line its repository gives (`-arch=sm_90`, `-ccbin mpicxx` where it includes mpi.h);
# then each harness compiled (`cuco eval --stage compile-check`). The programs are not committed (other
# people's code): H = a folder holding each as README.md here names it (repository, commit, folder).
# Usage (repo root): C=build/src/cli/cuco H=<copies> O=<out> bash <this>; with CARRY=1 the harnesses also go
# into .carry/habits/ho19_<name> (what the W=1 device scripts run).
set -u
C=$(realpath "${C:-build/src/cli/cuco}"); O=${O:-/tmp/ho19out}; mkdir -p "$O"
one() {
  n=$1; f=$2; shift 2
  (cd "$H/$n" && timeout 600 "$C" init "$f" --out "$O/$n" --json "$@" >"$O/$n.json" 2>"$O/$n.err")
  echo "$n init rc=$?"
  if [ -f "$O/$n/harness/seed.cu" ]; then
    "$C" eval "$O/$n/harness" --stage compile-check --run-dir "$O/cc-$n" --json >"$O/cc-$n.json" 2>"$O/cc-$n.err"
    echo "$n compile-check rc=$?"
    if [ "${CARRY:-0}" = 1 ]; then rm -rf ".carry/habits/ho19_$n"; mkdir -p ".carry/habits/ho19_$n"; cp -r "$O/$n/harness" ".carry/habits/ho19_$n/"; fi
  fi
}
TPG="src/benchmark/bench_multi_gpu.cu src/tensor_parallel/tensor_parallel.cu src/kernels/naive.cu src/kernels/coalesced.cu src/kernels/smem_tiling.cu src/kernels/blocktile_1d.cu src/kernels/blocktile_2d.cu src/kernels/vectorized.cu src/kernels/warptile.cu src/kernels/cublas.cu"
CHOL="MatrixCholesky/src/main_c_mpi.cu MatrixCholesky/src/linalg_utils.cu MatrixCholesky/src/gpu_utils.cpp MatrixCholesky/src/nccl_utils.cpp MatrixCholesky/src/owner_utils.cpp MatrixCholesky/src/task_scheduler.cpp MatrixCholesky/src/validation.cpp"
one mxy_poisson_pcg "stage4-mpi+cuda/poisson_mpi_cuda2.cu" -- nvcc -O3 -std=c++11 -arch=sm_90 -ccbin mpicxx "stage4-mpi+cuda/poisson_mpi_cuda2.cu" -o poisson_mpi_cuda
one sriram_jacobi_nccl_graph multigpujacobi/impl/nccl_overlap_graph/jacobi.cu -- nvcc -std=c++14 -O3 -arch=sm_90 -ccbin mpicxx -DUSE_NCCL -DSKIP_CUDA_AWARENESS_CHECK -Imultigpujacobi/headers multigpujacobi/impl/nccl_overlap_graph/jacobi.cu -o jacobi_NCCL_overlap_graph -lnccl
one kisoka_diffusion2d_mpi src/diffusion2d_mpi.cu -- nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -Iinclude -ccbin mpicxx src/diffusion2d_mpi.cu -o diffusion2d_mpi -lmpi
one minh_heat_cuda_aware heat-distribute-aware/heat-distribute.cu -- nvcc -arch=sm_90 -ccbin mpicxx heat-distribute-aware/heat-distribute.cu -o heat-distribute
one yianan_logreg_nccl logregv4check.cu -- nvcc -arch=sm_90 -o logregv4check logregv4check.cu -lnccl -lcuda -lcudart -Xcompiler -fopenmp
one senthil_mlp_nccl MultiGpu_NCCL_MPI.cu -- nvcc -std=c++14 -O3 -arch=sm_90 MultiGpu_NCCL_MPI.cu -o MultiGpu_NCCL_MPI -lnccl -lcublas -lcurand
# shellcheck disable=SC2086
one tp_gemm_threads src/benchmark/bench_multi_gpu.cu -- nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -Xcompiler -Wall -Isrc $TPG -lcublas -lnccl -o bench_multi_gpu
# shellcheck disable=SC2086
one lemoinep_nccl_cholesky MatrixCholesky/src/main_c_mpi.cu -- nvcc -std=c++17 -arch=sm_90 -ccbin mpicxx -IMatrixCholesky/include $CHOL -o nccl_cusolver_cholesky -lnccl -lcublas -lcusolver
