#!/usr/bin/env python3
"""Programs written elsewhere through the commands a user types, never edited (issue 30; the table in
docs/programs-written-elsewhere.md).
  ext_programs.py CUCO ROOT OUTDIR [--compile] [name...]
For each program: cuco analyze, cuco init --json (into OUTDIR/<name>), and with --compile the
harness's compile (cuco eval --stage compile) and cuco transform. Writes OUTDIR/<name>.txt (what
cuco printed) and OUTDIR/summary.json (one record per program).

The programs are not in this repository (nothing written elsewhere is committed). Get them into
ROOT, each repository at the commit measured:
  git clone https://github.com/NVIDIA/nccl ROOT/nccl                      && git -C ROOT/nccl checkout 5067397c2676d5aed50042fc39e5c8ee96eb0027
  git clone https://github.com/NVIDIA/nccl ROOT/nccl-v1                   && git -C ROOT/nccl-v1 checkout 93183bca921b2e8e1754e27e1b43d73cf6caec9d
  git clone https://github.com/NVIDIA/multi-gpu-programming-models ROOT/multi-gpu-programming-models \
                                                                          && git -C ROOT/multi-gpu-programming-models checkout 9a600f5ea8f5e53614e30b7b36e9136107178dd8
  git clone https://github.com/NVIDIA/nccl-tests ROOT/nccl-tests          && git -C ROOT/nccl-tests checkout a0b82b2260cf5152b9f8c061bbf7eaf0ba096432
  git clone https://github.com/karpathy/llm.c ROOT/llm.c                  && git -C ROOT/llm.c checkout f1e2ace651495b74ae22d45d1723443fd00ecd3a
  git clone https://github.com/OHMFOHS/neu-hpc-for-ai ROOT/ohm-neu-hpc-for-ai && git -C ROOT/ohm-neu-hpc-for-ai checkout 8c0d748ee22efa180a46a8af9c7cb1803f6704e2
  git clone https://github.com/huangnuan2022/neu-hpc-for-ai ROOT/hn-neu-hpc-for-ai && git -C ROOT/hn-neu-hpc-for-ai checkout 1f03bc000f8fa52d203cc2f79eec730454eb25d6
  git clone https://github.com/FZJ-JSC/tutorial-multi-gpu ROOT/tutorial-multi-gpu && git -C ROOT/tutorial-multi-gpu checkout 859b32b0ec2ab177e6b92e1080c6782a15383625
  git clone https://github.com/HicrestLaboratory/Blink-GPU ROOT/Blink-GPU   && git -C ROOT/Blink-GPU checkout b9502e21f41862d3b1adb9196bb8d9d0cd0801d4
  git clone https://github.com/dcslin/nccl-all-reduce ROOT/nccl-all-reduce && git -C ROOT/nccl-all-reduce checkout 721889c57170ea8a163f19b7ec82f3b4ed1177e5
  git clone https://github.com/afanasyev-ilya/AIComm ROOT/AIComm          && git -C ROOT/AIComm checkout e3ca50527fec3377e3a5c663bd156b52f4b494d7
  git clone https://github.com/CalvinXKY/BasicCUDA ROOT/BasicCUDA          && git -C ROOT/BasicCUDA checkout 3a5c50ea72a4d98d181e5b081623d0c4ae7a4801
  git clone https://github.com/Venkat2811/yali ROOT/yali                   && git -C ROOT/yali checkout 0da8e7988206f915c475ac0cb4f140f4e72d6a53
  git clone https://github.com/terryye/cuda_FlashAttention ROOT/cuda_FlashAttention && git -C ROOT/cuda_FlashAttention checkout b1ff4f1ea56d24c0acb51e0a89b8c55d3b65dd7a
  git clone https://github.com/SenthilArun/ParallelComputing ROOT/ParallelComputing && git -C ROOT/ParallelComputing checkout bdca368478231de3b2cc0be8201a750feecddaac
  git clone https://github.com/jinho-choi123/nccl-tutorial ROOT/nccl-tutorial && git -C ROOT/nccl-tutorial checkout ad5f55350df7c3ccddabe58fd2b1a9577e88dcf3
  git clone https://github.com/yianan261/Multi_GPU_TRAINING_OPTIMIZATION ROOT/Multi_GPU_TRAINING_OPTIMIZATION \
                                                                          && git -C ROOT/Multi_GPU_TRAINING_OPTIMIZATION checkout 9a45fa966bd16e201d6d807b083d930eade40428
  git clone https://github.com/rodhuega/tfgMatrixNccl ROOT/tfgMatrixNccl  && git -C ROOT/tfgMatrixNccl checkout 49df585a5d1fae01cf5eb38175843f72901753dc
  git clone https://github.com/likejazz/mpi-nccl-examples ROOT/mpi-nccl-examples && git -C ROOT/mpi-nccl-examples checkout 1b2f032396f6f7f8f29a96e4a48858fff4ab4049
  git clone https://github.com/Ryb7532/myNCCL ROOT/myNCCL                && git -C ROOT/myNCCL checkout cd862d8bfb52afb5391fc7790c34bf11e200a47a
  git clone https://github.com/muriloboratto/NCCL ROOT/murilo-NCCL        && git -C ROOT/murilo-NCCL checkout 91ad1cce6cf35805ef6f6b6e1776c98a1164dedc
  git clone https://github.com/muriloboratto/NCCL ROOT/murilo-NCCL-5f6a712 && git -C ROOT/murilo-NCCL-5f6a712 checkout 5f6a712186bc62aee490eda3d74984abfebed0f6
  git clone https://github.com/UCBerkeley-Spring2022-CS267-project/blinkplus ROOT/blinkplus && git -C ROOT/blinkplus checkout 412353fcf3cef2062bfe3f9403675164a9d6b62f
  git clone https://github.com/keyroog/multi-gpu-collectives ROOT/multi-gpu-collectives && git -C ROOT/multi-gpu-collectives checkout 1b6d99acf19aff15fb124eab9d69d1e8c1d9e446
  git clone https://github.com/ParCoreLab/multi-GPU-comm-bench ROOT/multi-GPU-comm-bench && git -C ROOT/multi-GPU-comm-bench checkout ea24ef05c9b5d8693716b3c005287b1b94774a79
  git clone https://github.com/YconquestY/ncclAllReduce ROOT/yconq-ncclAllReduce && git -C ROOT/yconq-ncclAllReduce checkout 5a86a5389ee5c2f516ab48465d197d3a33486842
  git clone https://github.com/Mustafa-cuda-dev/cuda-nccl-allreduce-benchmark ROOT/cuda-nccl-allreduce-benchmark \
                                                                          && git -C ROOT/cuda-nccl-allreduce-benchmark checkout afcc077d7553ef7a8f013a864f1ac8b85192a8de
  git clone https://github.com/aryanjain285/tensor-parallel-gemm ROOT/tensor-parallel-gemm \
                                                                          && git -C ROOT/tensor-parallel-gemm checkout 45656c7e2ec3b48174a28d067b854f488caf4626
  git clone https://github.com/hpcgroup/gpu-benchmarks ROOT/gpu-benchmarks && git -C ROOT/gpu-benchmarks checkout e31926601c66f87fcbe2d115f3b4bb53c9052652
  git clone https://github.com/fasrc/User_Codes ROOT/fasrc-User_Codes   && git -C ROOT/fasrc-User_Codes checkout 7331c0ad576bf93886615d689cb0f6bb6526984c
  git clone https://github.com/huangeg/NCCL-Sandbox ROOT/NCCL-Sandbox     && git -C ROOT/NCCL-Sandbox checkout 7403887827f5eb0fce18690c1dc660a3a4508c9a
  git clone https://github.com/RWTH-HPC/SPMD-IR-Paper-Code-Base ROOT/spmd-ir && git -C ROOT/spmd-ir checkout 2fe12c15863af1cfd1936388eec55d1a6a1d7027
  git clone https://github.com/1duo/mpi-nccl-tests ROOT/mpi-nccl-tests  && git -C ROOT/mpi-nccl-tests checkout 068e6a826cf8033ad8a6d0ccffe035ee41d65e04
  git clone https://github.com/ComputingElevatedLab/nccl-collectives ROOT/nccl-collectives && git -C ROOT/nccl-collectives checkout 0dd817aef5d315216441af4247b59e4e00ac4404
  git clone https://github.com/lemoinep/NCCL-cuBLAS-Multi-GPU ROOT/NCCL-cuBLAS-Multi-GPU && git -C ROOT/NCCL-cuBLAS-Multi-GPU checkout 74d72a79ed883c0492fd7747fc2d7eb7bab28a50
  git clone https://github.com/msimberg/nccl-halo-exchange-miniapp ROOT/nccl-halo-exchange-miniapp \
                                                                          && git -C ROOT/nccl-halo-exchange-miniapp checkout 79c2a66a2335026b580d44f715e22d16bb32dd94
  git clone https://github.com/hamid-ramezani/nccl-examples ROOT/nccl-examples && git -C ROOT/nccl-examples checkout 6dfc7620f80a6e1d4a18644beeabbe9c8c9daa6e
  git clone https://github.com/whitelok/nccl_allreduce_demo_without_mpi ROOT/nccl_allreduce_demo_without_mpi \
                                                                          && git -C ROOT/nccl_allreduce_demo_without_mpi checkout 71df698663f386daf4f3b61bdf1f5028374a21cc
  git clone https://github.com/swathimshetty19/async-ring-allreduce ROOT/async-ring-allreduce \
                                                                          && git -C ROOT/async-ring-allreduce checkout 2e684ea4d574d8875ab077785f8f8c2192f03009
  git clone https://github.com/Camixxx/nccl_gemm_example ROOT/nccl_gemm_example && git -C ROOT/nccl_gemm_example checkout 4fa45afdf95c39079da876a2760fecdb151a3f8b
  git clone https://github.com/Melovan/teplo ROOT/teplo                 && git -C ROOT/teplo checkout 64646fe3f63c3a848427aea07e140f8da14625c9
  git clone https://github.com/arjundevraj/stragglar ROOT/stragglar      && git -C ROOT/stragglar checkout 63ae36b42dc39a7cb17ed894459c4cb30c50b8bb
  git clone https://github.com/SriramKatta/multi-gpu-ref ROOT/multi-gpu-ref && git -C ROOT/multi-gpu-ref checkout ca23b81bef25d2c6c273c2b4d014632e0f4594d7
  git clone https://github.com/3429495086/Multi-GPU-Flashattention ROOT/Multi-GPU-Flashattention \
                                                                          && git -C ROOT/Multi-GPU-Flashattention checkout d7a30ede3fa42a1c39d2d35b3535a2aa6bf93e27
  git clone https://github.com/Healthcliff-Ding/cuda-nccl-overlap ROOT/cuda-nccl-overlap \
                                                                          && git -C ROOT/cuda-nccl-overlap checkout 74988959d86db0ad7211c4b377ee107b4fffa3d1
  git clone https://github.com/chuhan-ouyang/ReCCL-experiments ROOT/ReCCL-experiments \
                                                                          && git -C ROOT/ReCCL-experiments checkout 48ed4303dc7f355bf48ab3572173e008c6e85eee
  git clone https://github.com/guo-ran/CudaTest ROOT/CudaTest            && git -C ROOT/CudaTest checkout 7da66d5f7548bdf5d6a83ad9035b03837d5269bb
  git clone https://github.com/skywxlker-ops/TensorParallelism ROOT/TensorParallelism \
                                                                          && git -C ROOT/TensorParallelism checkout 7498012b70b7cb6f56e515cce47819fcd3d98035
  git clone https://github.com/ParRes/Kernels ROOT/prk-kernels        && git -C ROOT/prk-kernels checkout 04248b66a03d7f5edba8d54c9ae7834dd718027a
  git clone https://github.com/Willy-Chan/MultiGPU-Experiments ROOT/willy-multigpu-exp \
                                                                          && git -C ROOT/willy-multigpu-exp checkout 3f55c1a1ef11ddf7ef8922421c9d2b8d8800c1f0
  git clone https://github.com/alincnl/Task5Parallel ROOT/task5-heat    && git -C ROOT/task5-heat checkout 1e3517f76d049887c4ac1a846376dae094e9096f
  git clone https://github.com/KAOZUOI/rebuildCCL ROOT/rebuildccl       && git -C ROOT/rebuildccl checkout 5f6920019835bc989eba9993c57291254d46948e
  git clone https://github.com/ShreyasKudari/nccl-examples ROOT/shreyas-nccl-examples \
                                                                          && git -C ROOT/shreyas-nccl-examples checkout 46889ca21f5e91c0dcf0e1df56af0a6ffc72ca45
(nccl-v1 is NCCL 1's tree, test/single and test/mpi; the copy measured matches that commit's files.
The four before AIComm are course and tutorial repositories found in stop 40, the next five
repositories found in stop 43, the last three found in stop 48 (tfgMatrixNccl needs MKL's headers:
`pip install mkl-include`, its folder as MKL_INCLUDE), the seven after it found in stop 54 (murilo-NCCL-5f6a712 holds the
laplacian the later commit removed), the last three found after them, and gpu-benchmarks, fasrc/User_Codes, NCCL-Sandbox and spmd-ir found in stop 55; the last eight, found in
stop 58, held out: put through init before any change for them. Of these FZJ-JSC's, yali and gpu-benchmarks state a licence (MIT), spmd-ir Apache 2.0 with LLVM exceptions: none is copied here, each
is fetched; the last eight, found in stop 59, held out; the last six (five repositories: ParRes/Kernels states a BSD-style
licence, the others none), found in stop 61, held out.)
nccl-tests' CMake build folder (its compile_commands.json) is configured here when missing."""
import json, os, pathlib, re, shlex, subprocess, sys
CUDA = "/usr/local/cuda"
def mpicxx_flags():
    p = subprocess.run(["mpicxx", "--showme:compile"], capture_output=True, text=True)
    return p.stdout.split()
NX = "nccl/docs/examples"
FAS = "fasrc-User_Codes/GPU_Computing/Dist_GPU_Computing/NCCL_and_CUDA"
G = f"g++ -I{CUDA}/include"
L = f"-L{CUDA}/lib64 -lcudart -lnccl"
MPI_I = "-I/usr/lib/x86_64-linux-gnu/openmpi/include -I/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi"
MPI_L = "-L/usr/lib/x86_64-linux-gnu/openmpi/lib"
P = [
  # name, cwd (under ROOT), files, build line, extra init args (`--args`: the arguments it is run with)
  ("nccl_ex_single_process", f"{NX}/01_communicators/01_multiple_devices_single_process/c", ["main.cc"], f"{G} main.cc -o multiple_devices_single_process {L}", []),
  ("nccl_ex_pthread", f"{NX}/01_communicators/02_one_device_per_pthread/c", ["main.cc"], f"{G} main.cc -o one_device_per_pthread {L} -lpthread", []),
  ("nccl_ex_mpi", f"{NX}/01_communicators/03_one_device_per_process_mpi/c", ["main.cc"], f"mpicxx -DMPI_SUPPORT -I{CUDA}/include main.cc -o one_device_per_process_mpi {L}", []),
  ("nccl_ex_ring", f"{NX}/02_point_to_point/01_ring_pattern/c", ["main.cc"], f"{G} -I../../../common/include main.cc -o ring_pattern {L}", []),
  ("nccl_ex_allreduce", f"{NX}/03_collectives/01_allreduce/c", ["main.cc"], f"{G} -I../../../common/include main.cc -o allreduce {L}", []),
  ("nccl_ex_ubr_allreduce", f"{NX}/04_user_buffer_registration/01_allreduce/c", ["main.cc", "../../../common/src/utils.cc"], f"{G} -I../../../common/include main.cc ../../../common/src/utils.cc -o allreduce_ub {L} -lpthread", []),
  ("nccl_ex_ubr_allreduce_mpi", f"{NX}/04_user_buffer_registration/01_allreduce/c", ["main.cc", "../../../common/src/utils.cc"], f"mpicxx -DMPI_SUPPORT -I{CUDA}/include -I../../../common/include main.cc ../../../common/src/utils.cc -o allreduce_ub {L}", []),
  ("nccl_ex_sym_allreduce", f"{NX}/05_symmetric_memory/01_allreduce/c", ["main.cc", "../../../common/src/utils.cc"], f"{G} -I../../../common/include main.cc ../../../common/src/utils.cc -o allreduce_sm {L} -lpthread", []),
  ("nccl_ex_sym_allgather", f"{NX}/05_symmetric_memory/02_allgather/c", ["main.cc", "../../../common/src/utils.cc"], f"{G} -I../../../common/include main.cc ../../../common/src/utils.cc -o allgather_sm {L} -lpthread", []),
  ("nccl_ex_dev_allreduce_lsa", f"{NX}/06_device_api/01_allreduce_lsa/c", ["main.cu", "../../../common/src/utils.cc"], f"nvcc -I../../../common/include main.cu ../../../common/src/utils.cc -o allreduce_lsa -lnccl -lpthread", []),
  ("nccl_ex_fusion_rmsnorm_lsa", f"{NX}/07_kernel_fusion/01_rmsnorm_lsa/c", ["main.cu", "../../../common/src/utils.cc"], f"nvcc -I../../../common/include -I../../include main.cu ../../../common/src/utils.cc -o rmsnorm_lsa -lnccl -lpthread", []),
  ("mgpm_jacobi_nccl", "multi-gpu-programming-models/nccl", ["jacobi.cpp", "jacobi_kernels.cu"], "nvcc -DHAVE_CUB -DUSE_NVTX -std=c++17 jacobi.cpp jacobi_kernels.cu -o jacobi -lnccl -lmpi", []),
  ("mgpm_jacobi_nccl_overlap", "multi-gpu-programming-models/nccl_overlap", ["jacobi.cpp", "jacobi_kernels.cu"], "nvcc -DHAVE_CUB -DUSE_NVTX -std=c++17 jacobi.cpp jacobi_kernels.cu -o jacobi -lnccl -lmpi", []),
  ("mgpm_jacobi_nccl_graphs", "multi-gpu-programming-models/nccl_graphs", ["jacobi.cpp", "jacobi_kernels.cu"], "nvcc -DHAVE_CUB -DUSE_NVTX -std=c++17 jacobi.cpp jacobi_kernels.cu -o jacobi -lnccl -lmpi", []),
  ("mgpm_jacobi_mpi", "multi-gpu-programming-models/mpi", ["jacobi.cpp", "jacobi_kernels.cu"], "nvcc -DHAVE_CUB -DUSE_NVTX -std=c++17 jacobi.cpp jacobi_kernels.cu -o jacobi -lmpi", []),
  ("mgpm_jacobi_mpi_overlap", "multi-gpu-programming-models/mpi_overlap", ["jacobi.cpp", "jacobi_kernels.cu"], "nvcc -DHAVE_CUB -DUSE_NVTX -std=c++17 jacobi.cpp jacobi_kernels.cu -o jacobi -lmpi", []),
  ("nccltests_all_reduce", "nccl-tests/src", ["common.cu", "all_reduce.cu", "util.cu", "timer.cc"], "nvcc -I../os -I../verifiable common.cu all_reduce.cu util.cu timer.cc -o all_reduce_perf -lnccl", []),
  ("nccltests_sendrecv_cmake", "nccl-tests/src", ["common.cu", "sendrecv.cu", "util.cu", "timer.cc"], "", ["--compile-commands", "../build/compile_commands.json"]),
  ("ncclv1_all_reduce", "nccl-v1/test/single", ["all_reduce_test.cu"], "nvcc -I../include all_reduce_test.cu -o all_reduce_test -lnccl -lnvToolsExt", []),
  ("ncclv1_all_gather", "nccl-v1/test/single", ["all_gather_test.cu"], "nvcc -I../include all_gather_test.cu -o all_gather_test -lnccl -lnvToolsExt", []),
  ("ncclv1_broadcast", "nccl-v1/test/single", ["broadcast_test.cu"], "nvcc -I../include broadcast_test.cu -o broadcast_test -lnccl -lnvToolsExt", []),
  ("ncclv1_mpi_test", "nccl-v1/test/mpi", ["mpi_test.cu"], "nvcc -I../include mpi_test.cu -o mpi_test -lnccl -lmpi", []),
  ("llmc_nccl_all_reduce", "llm.c/dev/cuda", ["nccl_all_reduce.cu"], "nvcc -lmpi -lnccl -I/usr/lib/x86_64-linux-gnu/openmpi/include -L/usr/lib/x86_64-linux-gnu/openmpi/lib/ -lcublas -lcublasLt nccl_all_reduce.cu -o nccl_all_reduce", []),
  ("ohm_attn_mpi", "ohm-neu-hpc-for-ai/week_07", ["week_07.cu"], "nvcc -ccbin mpicxx -O2 week_07.cu -o week_07 -lnccl", []),
  ("ohm_attn_single", "ohm-neu-hpc-for-ai/week_07/bin", ["main.cu"], "nvcc -O2 main.cu -o main -lnccl", ["--args", "2"]),
  ("ohm_flashmoe_sym", "ohm-neu-hpc-for-ai/week_11", ["flashmoe_sym.cu"], "nvcc -O2 flashmoe_sym.cu -o flashmoe_sym -lnccl", []),
  ("ohm_moe_mpi", "ohm-neu-hpc-for-ai/week_11", ["deepseek_v3_moe_complete.cu"], "nvcc -ccbin mpicxx -DUSE_MPI -O2 deepseek_v3_moe_complete.cu -o moe -lnccl", []),
  ("ohm_moe_single", "ohm-neu-hpc-for-ai/week_11", ["deepseek_v3_moe_complete.cu"], "nvcc -O2 deepseek_v3_moe_complete.cu -o moe -lnccl", []),
  ("hn_moe_nccl", "hn-neu-hpc-for-ai/week_07/deepseekmoe-labs/cuda_nccl", ["src/moe_nccl.cu"], "nvcc -ccbin mpicxx -O3 -std=c++17 src/moe_nccl.cu -o moe_nccl -lnccl", []),
  ("hn_dist_flash_attn", "hn-neu-hpc-for-ai/week_08/dist-flash-attn", ["src/main.cu", "src/flash_attn.cu"], "nvcc -O3 -std=c++17 -Iinclude src/main.cu src/flash_attn.cu -o dist_flash_attn -lnccl", []),
  ("fzj_jacobi_graphs", "tutorial-multi-gpu/10-H_CUDA_Graphs_and_Device-initiated_Communication_with_NVSHMEM/solutions/Using_CUDA_Graphs", ["jacobi.cpp", "jacobi_kernels.cu"], "nvcc -ccbin mpicxx -DHAVE_CUB -std=c++17 jacobi.cpp jacobi_kernels.cu -o jacobi -lnccl", []),
  ("dcslin_comm", "nccl-all-reduce", ["test_comm.cc", "communicator.cc"], "mpicxx -I/usr/local/cuda/include test_comm.cc communicator.cc -o test_comm -L/usr/local/cuda/lib64 -lcudart -lnccl", ["--args", "1 2 1048576"]),
  ("aicomm_tp_row", "AIComm/src/tensor_parallel", ["row_wise.cu"], "nvcc -O3 -std=c++17 row_wise.cu -o tp_row_nccl -lnccl -lcublas", ["--args", "--gpus 2"]),
  ("aicomm_moe", "AIComm/src/expert_parallel", ["moe.cu"], "nvcc -O3 -std=c++17 moe.cu -o ep_moe -lnccl -lcublas", []),
  ("basiccuda_alltoall", "BasicCUDA/nccl", ["alltoall.cu"], "nvcc -O3 -std=c++17 alltoall.cu -o alltoall -lnccl", ["--args", "--nranks 2"]),
  ("yali_allreduce_mpi", "yali/bench", ["benchmark_nccl_mpi.cu"], "nvcc -O2 -std=c++17 -ccbin mpicxx benchmark_nccl_mpi.cu -o benchmark_nccl_mpi -lnccl", []),
  ("ring_attention", "cuda_FlashAttention/src/03_flash_attention_v2_ring", ["04_ring_attention.cu"], "nvcc -O2 -I.. -I/usr/lib/x86_64-linux-gnu/openmpi/include 04_ring_attention.cu -o ring_attention -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi -lnccl", []),
  ("dp_stress", "ParallelComputing", ["MultiGpu_NCCL_MPI.cu"], "nvcc -O3 -std=c++17 MultiGpu_NCCL_MPI.cu -o dp_stress -lnccl -lcublas -lcurand", []),
  ("tut_st_md", "nccl-tutorial/st_md", ["csrc/main.cpp", "csrc/allReduce.cpp", "csrc/sendRecv.cpp"], "c++ -std=gnu++17 -Wall -Wextra -Iinclude -isystem /usr/local/cuda/include csrc/main.cpp csrc/allReduce.cpp csrc/sendRecv.cpp -o st_md_main -L/usr/local/cuda/lib64 -lcudart -lnccl", []),
  ("tut_mt_md", "nccl-tutorial/mt_md", ["csrc/main.cpp", "csrc/allGatherMPI.cpp", "csrc/allReduceMPI.cpp", "csrc/sendRecvMPI.cpp"], "mpicxx -std=gnu++17 -Wall -Wextra -Iinclude -isystem /usr/local/cuda/include csrc/main.cpp csrc/allGatherMPI.cpp csrc/allReduceMPI.cpp csrc/sendRecvMPI.cpp -o mt_md_main -L/usr/local/cuda/lib64 -lcudart -lnccl", []),
  ("logreg_fused", "Multi_GPU_TRAINING_OPTIMIZATION", ["logregv4check.cu"], "nvcc -o logregv4check logregv4check.cu -lnccl -lcuda -lcudart -Xcompiler -fopenmp", ["--args", "--fused 2"]),
  ("tfg_summa", "tfgMatrixNccl/ncclMatrixMultiplication", ["src/versus1Gpu/main.cpp", "src/cuda/NcclMultiplicationEnvironment.cu", "src/cuda/MatrixMain.cu", "src/cuda/CommSummaElement.cu", "src/cuda/GpuWorker.cu", "src/cuda/MatrixUtilitiesCuda.cu"], "nvcc -std=c++11 -Iinclude/cuda -Iinclude/cpp -Iinclude/c -I" + os.environ.get("MKL_INCLUDE", "/usr/include/mkl") + " src/versus1Gpu/main.cpp src/cuda/NcclMultiplicationEnvironment.cu src/cuda/MatrixMain.cu src/cuda/CommSummaElement.cu src/cuda/GpuWorker.cu src/cuda/MatrixUtilitiesCuda.cu src/c/ctimer.c -o versus1Gpu -lcublas -lcurand -lnccl", ["--args", "-rg 1024 -tf -g 2"]),
  ("likejazz_test_nccl", "mpi-nccl-examples/src", ["test_nccl.cu"], f"nvcc -O2 test_nccl.cu -o test_nccl {MPI_I} -lnccl -lmpi", []),
  ("ryb_mptomp", "myNCCL", ["mptomp.cu"], f"nvcc -O2 mptomp.cu -o mptomp {MPI_I} -lnccl -lmpi", []),
  ("murilo_laplacian2d", "murilo-NCCL-5f6a712/seismic_benchmarks/laplacian/2D", ["laplacian-2d-multi-gpu.cu"], "nvcc laplacian-2d-multi-gpu.cu -o laplacian -lnccl -Xcompiler -fopenmp", []),
  ("murilo_sendrecv", "murilo-NCCL/samples/p2p", ["ncclSendRecv.cu"], "nvcc ncclSendRecv.cu -o sendrecv -lnccl", []),
  ("blinkplus_allreduce", "blinkplus", ["test_bandwidth/time_blinkplus_allreduce.cu", "src/blinkplus.cu"], "nvcc -O2 -std=c++11 -Iinclude test_bandwidth/time_blinkplus_allreduce.cu src/blinkplus.cu -o time_blinkplus_allreduce -lnccl", ["--args", "0 1 5 20 64"]),
  ("keyroog_alltoall", "multi-gpu-collectives", ["src/nccl/alltoall/alltoall.cu"], f"nvcc {MPI_I} -Isrc/common/include src/nccl/alltoall/alltoall.cu -o alltoall -lmpi -lnccl", ["--args", "--dtype float --count 1048576"]),
  ("parcore_a2a", "multi-GPU-comm-bench/nccl/single_thread_all_to_all", ["single_thread_all_to_all.c", "../../util/argparse.c", "../../cuda_util/random_fill.c"], f"nvcc single_thread_all_to_all.c ../../util/argparse.c ../../cuda_util/random_fill.c -o single_thread_all_to_all -I{CUDA}/include -lnccl -lcudart", ["--args", "-n 2 -i 20 -w 5 -d 1048576"]),
  ("yconq_allreduce", "yconq-ncclAllReduce", ["allreduce.cu"], f"nvcc {MPI_I} -std=c++17 -O3 --generate-line-info -lnccl -lmpi -lpthread -o allreduce allreduce.cu", []),
  ("mustafa_allreduce", "cuda-nccl-allreduce-benchmark", ["nccl_allreduce.cu"], "nvcc -O3 -lineinfo -o nccl_allreduce nccl_allreduce.cu -lnccl", []),
  ("tpgemm_multi", "tensor-parallel-gemm", ['src/benchmark/bench_multi_gpu.cu', 'src/tensor_parallel/tensor_parallel.cu', 'src/kernels/naive.cu', 'src/kernels/coalesced.cu', 'src/kernels/smem_tiling.cu', 'src/kernels/blocktile_1d.cu', 'src/kernels/blocktile_2d.cu', 'src/kernels/vectorized.cu', 'src/kernels/warptile.cu', 'src/kernels/cublas.cu'], "nvcc -std=c++17 -O3 --expt-relaxed-constexpr -Xcompiler -Wall -Isrc src/benchmark/bench_multi_gpu.cu src/tensor_parallel/tensor_parallel.cu src/kernels/naive.cu src/kernels/coalesced.cu src/kernels/smem_tiling.cu src/kernels/blocktile_1d.cu src/kernels/blocktile_2d.cu src/kernels/vectorized.cu src/kernels/warptile.cu src/kernels/cublas.cu -lcublas -lnccl -o bench_multi_gpu", []),
  ("umd_allgather", "gpu-benchmarks", ["allgather.cu"], f"nvcc -std=c++11 -O2 -DUSE_CUDA -DUSE_NCCL allgather.cu -o allgather.x {MPI_I} -lnccl -lmpi", ["--args", "2 1048576 1048576 20"]),
  ("fasrc_sn_allgather", FAS + "/SingleNode", ["ncclAllGather.cu"], "nvcc -o ncclAllGather.x ncclAllGather.cu -lnccl -Wno-deprecated-gpu-targets", []),
  ("fasrc_sn_bcast", FAS + "/SingleNode", ["ncclBcast.cu"], "nvcc -o ncclBcast.x ncclBcast.cu -lnccl -Wno-deprecated-gpu-targets", []),
  ("fasrc_sn_reduce", FAS + "/SingleNode", ["ncclReduce.cu"], "nvcc -o ncclReduce.x ncclReduce.cu -lnccl -Wno-deprecated-gpu-targets", []),
  ("fasrc_sn_reducescatter", FAS + "/SingleNode", ["ncclReduceScatter.cu"], "nvcc -o ncclReduceScatter.x ncclReduceScatter.cu -lnccl -Wno-deprecated-gpu-targets", []),
  ("fasrc_mn_allgather_mpi", FAS + "/MultiNode", ["ncclAllGather_mpi.cu"], f"nvcc -O3 -std=c++17 {MPI_I} -o ncclAllGather_mpi.x ncclAllGather_mpi.cu -lnccl -lmpi".strip(), []),
  ("fasrc_mn_bcast_mpi", FAS + "/MultiNode", ["ncclBcast_mpi.cu"], f"nvcc -O3 -std=c++17 {MPI_I} -o ncclBcast_mpi.x ncclBcast_mpi.cu -lnccl -lmpi".strip(), []),
  ("fasrc_mn_reduce_mpi", FAS + "/MultiNode", ["ncclReduce_mpi.cu"], f"nvcc -O3 -std=c++17 {MPI_I} -o ncclReduce_mpi.x ncclReduce_mpi.cu -lnccl -lmpi".strip(), []),
  ("fasrc_mn_reducescatter_mpi", FAS + "/MultiNode", ["ncclReduceScatter_mpi.cu"], f"nvcc -O3 -std=c++17 {MPI_I} -o ncclReduceScatter_mpi.x ncclReduceScatter_mpi.cu -lnccl -lmpi".strip(), []),
  ("fasrc_mn_allgather_nompi", FAS + "/MultiNode", ["ncclAllGather_nompi.cu"], f"nvcc -O3 -std=c++17 -o ncclAllGather_nompi.x ncclAllGather_nompi.cu -lnccl ".strip(), []),
  ("fasrc_mn_allgather_pmix", FAS + "/MultiNode", ["ncclAllGather_pmix.cu"], f"nvcc -O3 -std=c++17 -o ncclAllGather_pmix.x ncclAllGather_pmix.cu -lnccl -lpmix".strip(), []),
  ("sandbox_sendrecv_tcp", "NCCL-Sandbox", ["nccl_send_recv_2node.cu"], "nvcc -std=c++17 -O2 -gencode arch=compute_89,code=sm_89 -I/usr/local/cuda/include -Xcompiler \"-Wall -O2\" -L/usr/local/cuda/lib64 -o nccl_send_recv_2node nccl_send_recv_2node.cu -l:libnccl.so.2 -lcudart", []),
  ("sandbox_rdma_bench", "NCCL-Sandbox", ["nccl_rdma_bench.cu"], "nvcc -std=c++17 -O2 -gencode arch=compute_89,code=sm_89 -I/usr/local/cuda/include -Xcompiler \"-Wall -O2\" -L/usr/local/cuda/lib64 -o nccl_rdma_bench nccl_rdma_bench.cu -l:libnccl.so.2 -lcudart", []),
  ("sandbox_mpi_2node", "NCCL-Sandbox", ["nccl_mpi_2node.cu"], f"nvcc -std=c++17 -O2 -gencode arch=compute_89,code=sm_89 -I/usr/local/cuda/include -Xcompiler \"-Wall -O2\" -L/usr/local/cuda/lib64 {MPI_I} -o nccl_mpi_2node nccl_mpi_2node.cu -l:libnccl.so.2 -lcudart -lmpi", []),
  ("sandbox_perf_test", "NCCL-Sandbox", ["nccl_perf_test.cu"], "nvcc -std=c++17 -O2 -gencode arch=compute_89,code=sm_89 -I/usr/local/cuda/include -Xcompiler \"-Wall -O2\" -L/usr/local/cuda/lib64 -o nccl_perf_test nccl_perf_test.cu -l:libnccl.so.2 -lcudart", []),
  ("spmd_civl_allgather_reduce", "spmd-ir/Collectives-Verification-Benchmark-Suite/Microbenchmarks-PARCOACH/nccl", ["001-CIVL_allgatherReduce-yes.cpp"], f"nvcc {MPI_I} 001-CIVL_allgatherReduce-yes.cpp -o civl -lnccl -lmpi", []),
  ("spmd_splitcomm", "spmd-ir/Collectives-Verification-Benchmark-Suite/ExtensionToMicrobenchSuite/nccl", ["010-splittedComm-no.cpp"], f"nvcc {MPI_I} 010-splittedComm-no.cpp -o split -lnccl -lmpi", []),
  ("spmd_loop_barrier", "spmd-ir/Collectives-Verification-Benchmark-Suite/ExtensionToMicrobenchSuite/nccl", ["013-loop_barrier-no.cpp"], f"nvcc {MPI_I} 013-loop_barrier-no.cpp -o loopb -lnccl -lmpi", []),
  ("llmc_train_gpt2", "llm.c", ["train_gpt2.cu"], "nvcc -O3 -t=0 --use_fast_math -std=c++17 -DMULTI_GPU -DUSE_MPI -DENABLE_BF16 train_gpt2.cu -lcublas -lcublasLt -lnccl -lmpi -o train_gpt2cu", []),
  ("duo_allreduce", "mpi-nccl-tests/benchmark", ["nccl_allreduce.cxx"], f"nvcc -x cu nccl_allreduce.cxx -o nccl_allreduce {MPI_I} {MPI_L} -lmpi_cxx -lmpi -lcudart -lnccl", []),
  ("duo_threads", "mpi-nccl-tests/experiments", ["nccl-two-communicators-diff-types-with-threads.cu"], f"nvcc nccl-two-communicators-diff-types-with-threads.cu -o t {MPI_I} {MPI_L} -lmpi_cxx -lmpi -lnccl", []),
  ("cel_exchange", "nccl-collectives/nccl-exchange", ["nccl-exchange.cu"], f"nvcc -dlto -lineinfo nccl-exchange.cu -o nccl-exchange.out -lmpi -lnccl {MPI_I} {MPI_L}", []),
  ("cel_ata_bruck", "nccl-collectives/nccl-ata-bruck", ["nccl-ata-bruck.cu"], f"nvcc -dlto -lineinfo nccl-ata-bruck.cu -o nccl-ata-bruck.out -lmpi -lnccl {MPI_I} {MPI_L}", []),
  ("lemoinep_cholesky", "NCCL-cuBLAS-Multi-GPU/MatrixCholesky", ["src/main_c_mpi.cu", "src/gpu_utils.cpp", "src/nccl_utils.cpp", "src/linalg_utils.cu", "src/owner_utils.cpp", "src/task_scheduler.cpp", "src/validation.cpp"], f"nvcc -std=c++17 -Iinclude {MPI_I} src/main_c_mpi.cu src/gpu_utils.cpp src/nccl_utils.cpp src/linalg_utils.cu src/owner_utils.cpp src/task_scheduler.cpp src/validation.cpp -o nccl_cusolver_cholesky -lnccl -lcublas -lcusolver {MPI_L} -lmpi_cxx -lmpi", []),
  ("msimberg_halo", "nccl-halo-exchange-miniapp", ["src/main.cpp", "src/buffer_pool.cpp", "src/log_parser.cpp", "src/log_validator.cpp", "src/mpi_backend.cpp", "src/nccl_backend.cpp"], f"mpicxx -std=c++17 -I{CUDA}/include src/main.cpp src/buffer_pool.cpp src/log_parser.cpp src/log_validator.cpp src/mpi_backend.cpp src/nccl_backend.cpp -o halo_replay -L{CUDA}/lib64 -lcudart -lnccl", []),
  ("hamid_ex3", "nccl-examples/example3", ["example3.cu"], f"nvcc example3.cu -o example3 {MPI_I} {MPI_L} -lmpi_cxx -lmpi -lnccl", []),
  ("whitelok_threads", "nccl_allreduce_demo_without_mpi", ["src/main.cpp", "src/gpu_worker.cpp", "src/tcp_socket.cpp"], "nvcc -std=c++14 -DDEBUG src/main.cpp src/gpu_worker.cpp src/tcp_socket.cpp -o nccl_multi_node_demo -lnccl -lcudart -lpthread", []),
  ("swathi_ring", "async-ring-allreduce", ["src/benchmark.cu", "src/utils.cu", "src/naive_ring.cu", "src/pipelined_ring_nccl.cu", "src/naive_hd.cu", "src/pipelined_hd_nccl.cu", "src/naive_paard.cu", "src/pipelined_paard.cu"], f"nvcc -o benchmark src/benchmark.cu src/utils.cu src/naive_ring.cu src/pipelined_ring_nccl.cu src/naive_hd.cu src/pipelined_hd_nccl.cu src/naive_paard.cu src/pipelined_paard.cu {MPI_I} -lnccl {MPI_L} -lmpi_cxx -lmpi", []),
  ("camixxx_gemm", "nccl_gemm_example", ["src/main.cpp", "src/gemm.cu"], f"nvcc src/main.cpp src/gemm.cu -o main -lcublas -lnccl -std=c++11 -I{CUDA}/include -L{CUDA}/lib64", []),
  ("teplo_halo", "teplo", ["nccl.cu"], f"nvcc nccl.cu -o nccl {MPI_I} {MPI_L} -lmpi -lnccl", ["--args", "1e-6 128 1000"]),
  ("stragglar_4gpu", "stragglar/stragglar", ["allreduce_4GPU.cu"], "nvcc -diag-suppress=177 -lnccl -o allreduce allreduce_4GPU.cu -std=c++17", ["--args", "1048576 stragglar 10 -1"]),
  ("srk_jacobi_graph", "multi-gpu-ref/multigpujacobi/impl/nccl_overlap_graph", ["jacobi.cu"], f"nvcc -std=c++14 -O3 -DUSE_NCCL -DDISABLE_NVTX -DSKIP_CUDA_AWARENESS_CHECK -I../../headers jacobi.cu -o jacobi_NCCL_overlap_graph {MPI_I} {MPI_L} -lmpi -lnccl -lcudart", []),
  ("srk_ncclbw", "multi-gpu-ref/multigpubandwidthtests/selfnccl/impl", ["main.cu"], f"nvcc -std=c++14 -O3 main.cu -o ncclsimplestream {MPI_I} {MPI_L} -lmpi -lnccl -lcudart", []),
  ("mgfa_ring_attn", "Multi-GPU-Flashattention/ring/attention/bench", ["ring_attention_nccl_gpu_bench.cu"], f"nvcc -O3 -o ring_attention_nccl_gpu_bench ring_attention_nccl_gpu_bench.cu {MPI_I} {MPI_L} -lmpi -lnccl", ["--args", "262144 10 100"]),
  ("hd_overlap", "cuda-nccl-overlap", ["src/main.cc"], f"mpicxx -std=c++20 -O3 -I{CUDA}/include src/main.cc -o nccl_overlap -L{CUDA}/lib64 -lcudart -lcublas -lnccl", []),
  ("reccl_two_comms", "ReCCL-experiments/two-ccgs", ["nccl_test.cu"], f"nvcc nccl_test.cu -o nccl_test {MPI_I} {MPI_L} -lmpi -lnccl", []),
  ("cudatest_evt", "CudaTest", ["test_event_record_nccl_time.cu"], "nvcc test_event_record_nccl_time.cu -o test_event_record_nccl_time -lnccl", []),
  # stop 60, held out: HicrestLaboratory/Blink-GPU's NCCL benchmarks (MPI; Makefile.LEONARDO's line).
  ("blink_pp", "Blink-GPU", ["src/pp_Nccl.cu"], f"nvcc -std=c++14 -O3 -DSKIPCPUAFFINITY -DMICROBENCH_MAX_GPUS=4 -o bin/pp_Nccl src/pp_Nccl.cu {MPI_I} {MPI_L} -lmpi -lcudart -lcuda -lnccl -lstdc++ -lm -Wno-deprecated-gpu-targets", []),
  ("blink_a2a", "Blink-GPU", ["src/a2a_Nccl.cu"], f"nvcc -std=c++14 -O3 -DSKIPCPUAFFINITY -DMICROBENCH_MAX_GPUS=4 -o bin/a2a_Nccl src/a2a_Nccl.cu {MPI_I} {MPI_L} -lmpi -lcudart -lcuda -lnccl -lstdc++ -lm -Wno-deprecated-gpu-targets", []),
  ("blink_ar", "Blink-GPU", ["src/ar_Nccl.cu"], f"nvcc -std=c++14 -O3 -DSKIPCPUAFFINITY -DMICROBENCH_MAX_GPUS=4 -o bin/ar_Nccl src/ar_Nccl.cu {MPI_I} {MPI_L} -lmpi -lcudart -lcuda -lnccl -lstdc++ -lm -Wno-deprecated-gpu-targets", []),
  ("blink_hlo", "Blink-GPU", ["src/hlo_Nccl.cu"], f"nvcc -std=c++14 -O3 -DSKIPCPUAFFINITY -DMICROBENCH_MAX_GPUS=4 -o bin/hlo_Nccl src/hlo_Nccl.cu {MPI_I} {MPI_L} -lmpi -lcudart -lcuda -lnccl -lstdc++ -lm -Wno-deprecated-gpu-targets", []),
  ("blink_mpp", "Blink-GPU", ["src/mpp_Nccl.cu"], f"nvcc -std=c++14 -O3 -DSKIPCPUAFFINITY -DMICROBENCH_MAX_GPUS=4 -o bin/mpp_Nccl src/mpp_Nccl.cu {MPI_I} {MPI_L} -lmpi -lcudart -lcuda -lnccl -lstdc++ -lm -Wno-deprecated-gpu-targets", []),
  ("blink_inc", "Blink-GPU", ["src/inc_Nccl.cu"], f"nvcc -std=c++14 -O3 -DSKIPCPUAFFINITY -DMICROBENCH_MAX_GPUS=4 -o bin/inc_Nccl src/inc_Nccl.cu {MPI_I} {MPI_L} -lmpi -lcudart -lcuda -lnccl -lstdc++ -lm -Wno-deprecated-gpu-targets", []),
  ("blink_otom", "Blink-GPU", ["src/otom_Nccl.cu"], f"nvcc -std=c++14 -O3 -DSKIPCPUAFFINITY -DMICROBENCH_MAX_GPUS=4 -o bin/otom_Nccl src/otom_Nccl.cu {MPI_I} {MPI_L} -lmpi -lcudart -lcuda -lnccl -lstdc++ -lm -Wno-deprecated-gpu-targets", []),
  ("blink_a2am", "Blink-GPU", ["src/a2am_Nccl.cu"], f"nvcc -std=c++14 -O3 -DSKIPCPUAFFINITY -DMICROBENCH_MAX_GPUS=4 -o bin/a2am_Nccl src/a2am_Nccl.cu {MPI_I} {MPI_L} -lmpi -lcudart -lcuda -lnccl -lstdc++ -lm -Wno-deprecated-gpu-targets", []),
  ("blink_comm", "Blink-GPU", ["src/comm_Nccl.cu"], f"nvcc -std=c++14 -O3 -DSKIPCPUAFFINITY -DMICROBENCH_MAX_GPUS=4 -o bin/comm_Nccl src/comm_Nccl.cu {MPI_I} {MPI_L} -lmpi -lcudart -lcuda -lnccl -lstdc++ -lm -Wno-deprecated-gpu-targets", []),
  ("skyw_mesh", "TensorParallelism/backend", ["tests/test_task.cpp", "src/mesh.cu", "src/task.cu", "src/cudafunctions.cpp"], "nvcc -std=c++17 -Iinclude tests/test_task.cpp src/mesh.cu src/task.cu src/cudafunctions.cpp -o build/test_task -lnccl -lcudart -lpthread", []),
  ("prk_transpose_a2a", "prk-kernels/Cxx11", ["transpose-a2a-mpi-nccl.cu"], f"nvcc -g -O3 -std=c++20 --extended-lambda -rdc=true -D_X86INTRIN_H_INCLUDED {MPI_I} transpose-a2a-mpi-nccl.cu {MPI_L} -lmpi -lnccl -o transpose-a2a-mpi-nccl", ["--args", "10 1024"]),
  ("prk_transpose_p2p", "prk-kernels/Cxx11", ["transpose-p2p-mpi-nccl.cu"], f"nvcc -g -O3 -std=c++20 --extended-lambda -rdc=true -D_X86INTRIN_H_INCLUDED {MPI_I} transpose-p2p-mpi-nccl.cu {MPI_L} -lmpi -lnccl -o transpose-p2p-mpi-nccl", ["--args", "10 1024"]),
  ("willy_jacobi", "willy-multigpu-exp/nvidia_libraries/nccl", ["jacobi_solver.cu"], f"nvcc -O3 jacobi_solver.cu -o nccl_app {MPI_I} {MPI_L} -lnccl -lmpi -lcudart", []),
  ("task5_heat", "task5-heat", ["mpi_nccl.cu"], f"nvcc -O2 mpi_nccl.cu -o mpi_nccl {MPI_I} {MPI_L} -lmpi -lnccl", ["--args", "1e-6 128 1000"]),
  ("rebuildccl_a2a_native", "rebuildccl", ["native.cu"], "nvcc -O3 -std=c++14 -o native native.cu -lcudart -lnccl", ["--args", "--num_ranks 2"]),
  ("shreyas_allreduce_loop", "shreyas-nccl-examples", ["multi-process.c"], f"mpicc -O2 -I{CUDA}/include multi-process.c -o multi-process -L{CUDA}/lib64 -lcudart -lnccl", []),
]
def run(cmd, cwd, timeout=900):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr
def one(cuco, root, out, prog, compile_too):
    name, cwd, files, build, extra = prog
    cwd = root / cwd
    o = out / name
    subprocess.run(["rm", "-rf", str(o)])
    tail = ["--", *shlex.split(build)] if build else []
    rec = {"name": name}
    ana = list(extra)  # `--args` (the program's own arguments) is init's alone
    if "--args" in ana:
        del ana[ana.index("--args"):ana.index("--args") + 2]
    rc, so, se = run([cuco, "analyze", *files, *ana, *tail], cwd)
    races = [l for l in (so + se).splitlines() if "race" in l.lower() or "unordered" in l]
    rec["analyze_rc"], rec["races"] = rc, races[:6]
    rec["analyze_warnings"] = [l for l in se.splitlines() if "analyze:" in l or "warning" in l.lower()][:8]
    rc, so, se = run([cuco, "init", "--json", *files, "--out", str(o), *extra, *tail], cwd)
    rec["init_rc"] = rc
    if rc != 0:
        rec["init_error"] = (se or so).strip()[-600:]
        return rec, so + se
    j = json.loads(so)
    rec.update({k: j[k] for k in ("harness_ready", "harness_reason", "launcher", "world_size", "world_size_source", "inputs", "outputs")})
    rec["loop"] = next((g for g in j["harness_guesses"] if "timed loop" in g or "iteration" in g and ":" in g.split()[0]), "")
    rec["init_warnings"] = [l for l in se.splitlines()][:8]
    rec["guesses"] = j["harness_guesses"]
    if compile_too and j["harness_ready"]:
        rc, so2, se2 = run([cuco, "eval", str(o / "harness"), "--stage", "compile", "--run-dir", str(o / "runs")], cwd, 2400)
        ok = rc == 0 and re.search(r"^\s*compile\s+ok", so2, re.M)
        rec["compile"] = "ok" if ok else "failed: " + (so2 + se2).strip()[-800:]
        if ok:
            rc, so3, se3 = run([cuco, "transform", str(o / "harness"), "--run-dir", str(o / "transform")], cwd, 2400)
            rec["transform"] = "ok" if rc == 0 and (o / "harness/gen0_transformed.cu").exists() and "compile_error" not in so3 else "failed: " + (so3 + se3).strip()[-600:]
    return rec, so + se
def main():
    a = sys.argv[1:]
    if len(a) < 3:
        sys.exit(__doc__)
    cuco, root, out = str(pathlib.Path(a[0]).resolve()), pathlib.Path(a[1]).resolve(), pathlib.Path(a[2]).resolve()
    compile_too = "--compile" in a
    names = {x for x in a[3:] if x != "--compile"}
    tests = root / "nccl-tests"
    if tests.is_dir() and not (tests / "build/compile_commands.json").exists():
        nccl = [f"-DNCCL_INCLUDE_DIR={CUDA}/include", f"-DNCCL_LIBRARY={CUDA}/lib64/libnccl.so"]  # where this machine's is
        subprocess.run(["cmake", "-S", str(tests), "-B", str(tests / "build"), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *nccl],
                       check=True, capture_output=True)
    out.mkdir(parents=True, exist_ok=True)
    summ = out / "summary.json"
    allrec = json.loads(summ.read_text()) if summ.exists() else {}
    for prog in P:
        if names and prog[0] not in names: continue
        rec, log = one(cuco, root, out, prog, compile_too)
        allrec[prog[0]] = rec
        (out / (prog[0] + ".txt")).write_text(log)
        print(prog[0], "harness" if rec.get("harness_ready") else "SKELETON/ERR", (rec.get("loop") or rec.get("harness_reason") or rec.get("init_error", ""))[:230], rec.get("compile", ""), flush=True)
        summ.write_text(json.dumps(allrec, indent=1))
main()
