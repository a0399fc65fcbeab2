#!/usr/bin/env bash
# cuco init of the thirteenth held-out batch, each in its file's folder, with its build line.
C=${C:-/work/main/build/src/cli/cuco}
O=${O:-/tmp/ho13/out}; mkdir -p $O
MPI="$(mpicxx --showme:compile) $(mpicxx --showme:link)"
CU="-I/usr/local/cuda/include -L/usr/local/cuda/lib64"
one() { # name dir args...
  n=$1; d=$2; shift 2
  rm -rf $O/$n
  (cd $d && timeout 600 $C init "$@" ) >$O/$n.txt 2>&1; echo "$n rc=$?"
  grep -E "harness|skeleton|refused|error" $O/$n.txt | head -3 | cut -c1-300
}
H=/tmp/ho13
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" sb_dist_inference "* ]] && one sb_dist_inference $H/sb_dist_inference/dist_inference_cpp dist_inference.cu --name sb_dist_inference --out $O/sb_dist_inference -- nvcc -O2 -arch=sm_90 $MPI dist_inference.cu -o dist_inference -lnccl -lcublasLt
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" liger "* ]] && one liger $H/liger main.cu src/cuda/cuda_kernels.cu src/cuda/attention_kernels.cu --name liger --out $O/liger -- nvcc -std=c++17 -arch=sm_90 $MPI src/cuda/cuda_kernels.cu src/cuda/attention_kernels.cu main.cu -o main -lnccl -lcublas
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" pantheon_ptrain "* ]] && one pantheon_ptrain $H/pantheon_ptrain/nvidia/tests/e2e parallel_training.cu --name pantheon_ptrain --out $O/pantheon_ptrain --args "0 2 /tmp/pt.id" -- nvcc -std=c++14 -arch=sm_90 parallel_training.cu -lnccl -lcublas -o pt
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" perflab_mgpu_sgemm "* ]] && one perflab_mgpu_sgemm $H/perflab_mgpu_sgemm/perflab/demo_tasks/multi_gpu_matmul/cuda sgemm_multi_gpu.cu --name perflab_mgpu_sgemm --out $O/perflab_mgpu_sgemm -- nvcc -O2 -arch=sm_90 -o sgemm_multi_gpu_bin sgemm_multi_gpu.cu -lnccl
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" rz_summa "* ]] && one rz_summa $H/rz_summa/distributed-computing/nccl-multi-gpu summa_gemm.cu --name rz_summa --out $O/rz_summa -- nvcc summa_gemm.cu -o summa_gemm -O3 -arch=sm_90 -lcublas -lnccl -ccbin mpicxx
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" cg_halo "* ]] && one cg_halo $H/cg_halo src/main/test_mgpu_cg_partitioned.cu src/solvers/cg_solver_mgpu_partitioned.cu src/io/io.cu src/spmv/spmv_cusparse_csr.cu src/spmv/spmv_stencil_csr_direct.cu --name cg_halo --out $O/cg_halo --args "/tmp/cgdata/m.mtx" -- nvcc -O2 -std=c++17 -arch=sm_90 -Iinclude -Iinclude/solvers $MPI src/main/test_mgpu_cg_partitioned.cu src/solvers/cg_solver_mgpu_partitioned.cu src/io/io.cu src/spmv/spmv_cusparse_csr.cu src/spmv/spmv_stencil_csr_direct.cu -o bin/test_mgpu_cg_partitioned -lnccl -lcusparse -lcublas
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" vllm_custom_ar "* ]] && one vllm_custom_ar $H/vllm_custom_ar/csrc custom_all_reduce_test.cu --name vllm_custom_ar --out $O/vllm_custom_ar -- nvcc -O2 -arch=sm_90 -std=c++17 custom_all_reduce_test.cu -o car -lnccl -lcuda $MPI
[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" flagperf_mpi_allreduce "* ]] && one flagperf_mpi_allreduce $H/flagperf_mpi_allreduce/base/toolkits/interconnect-MPI_interserver/nvidia/A100 bandwidth.cu --name flagperf_mpi_allreduce --out $O/flagperf_mpi_allreduce -- nvcc -arch=sm_90 -c bandwidth.cu $(mpicxx --showme:compile)
