#!/usr/bin/env bash
# cuco init of the twelfth held-out batch, each in its file's folder, with its build line.
C=${C:-/work/main/build/src/cli/cuco}
O=${O:-/tmp/ho12/out}; mkdir -p $O
MPI="$(mpicxx --showme:compile) $(mpicxx --showme:link)"
CU="-I/usr/local/cuda/include -L/usr/local/cuda/lib64"
one() { # name dir args...
  n=$1; d=$2; shift 2
  rm -rf $O/$n
  (cd $d && timeout 600 $C init "$@" ) >$O/$n.txt 2>&1; echo "$n rc=$?"
  grep -E "harness|skeleton|refused|error" $O/$n.txt | head -3 | cut -c1-300
}
one bookcu_tp /tmp/ho12/bookcu_tp/8_distributed/tensor_parallel tensor_parallel.cu --name bookcu_tp --out $O/bookcu_tp -- nvcc -o tensor_parallel tensor_parallel.cu $MPI $CU -lcublas -lnccl -lmpi -std=c++14 -O3 -arch=sm_90
one nextla_scqr3 /tmp/ho12/nextla_scqr3/cpp_bench scqr3_2p5d_bench.cu --name nextla_scqr3 --out $O/nextla_scqr3 -- nvcc -std=c++17 -O2 $MPI $CU scqr3_2p5d_bench.cu -o scqr3_2p5d_bench -lmpi -lnccl -lcusolver -lcublas -lcudart
one vit_mnist_dp /tmp/ho12/vit_mnist_dp src/train_vit.cu --name vit_mnist_dp --out $O/vit_mnist_dp --args "/tmp/vitdata/train.csv 200 8 0.05" -- nvcc -O2 -std=c++17 -ccbin mpicxx src/train_vit.cu -o bin/train_vit $CU -lcublas -lnccl
one eumaster_cg /tmp/ho12/eumaster_cg/challenge/main test/test_CG_MultiGPUS_CUDA_NCCL.cpp LAM/src/GPU/distributed/ConjugateGradient_MultiGPUS_CUDA_NCCL.cu --name eumaster_cg --out $O/eumaster_cg --args "-s 4096 -i 100 -e 1e-9 -o /tmp/sol.bin" -- nvcc -std=c++17 -O3 -arch=sm_90 -DUSE_CUDA -Xcompiler -fopenmp -ILAM/include $MPI $CU test/test_CG_MultiGPUS_CUDA_NCCL.cpp LAM/src/GPU/distributed/ConjugateGradient_MultiGPUS_CUDA_NCCL.cu -o test_CG_MultiGPUS_CUDA_NCCL.out -lmpi_cxx -lmpi -lnccl -lcublas -lgomp
one halo_nccl /tmp/ho12/halo_nccl main.cu --name halo_nccl --out $O/halo_nccl --args "1024 1024 1 1 2 3" -- nvcc -std=c++14 -O2 -arch=sm_90 -I. $MPI $CU main.cu -o halo_test -lmpi -lnccl
one deepbench_nccl /tmp/ho12/deepbench_nccl/code/nvidia nccl_mpi_all_reduce.cu --name deepbench_nccl --out $O/deepbench_nccl -- nvcc nccl_mpi_all_reduce.cu -o bin/nccl_mpi_all_reduce -I ../kernels/ $MPI $CU -lnccl -lcurand -lcudart -lmpi -arch=sm_90 -std=c++17
one packt_nccl /tmp/ho12/packt_nccl/Chapter06/06_multigpu/06_nccl nccl.cu --name packt_nccl --out $O/packt_nccl -- nvcc -m64 -lineinfo -arch=sm_90 $CU -o nccl nccl.cu -lnccl
one jeng_nccl_mt /tmp/ho12/jeng_nccl_mt/nccl_multithread main.cpp --name jeng_nccl_mt --out $O/jeng_nccl_mt -- nvcc -std=c++17 -I/usr/local/cuda/include/nvtx3 $CU main.cpp -o main -lnccl -lpthread
