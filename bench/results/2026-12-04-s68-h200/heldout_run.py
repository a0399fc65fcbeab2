"""heldout_run.py CUCO ROOT OUTDIR [--compile] [name...]: bench/ext_programs.py's steps over the seven programs
held out in this session (ROOT holds each repository, exported at the commit in README.md, under the folder
named in its row's second field)."""
import pathlib, sys
src = (pathlib.Path(__file__).resolve().parents[2] / 'ext_programs.py').read_text()
src = src[:src.rindex('\nmain()')]
g = {}
exec(compile(src, 'ext_programs.py', 'exec'), g)
MPI_I, MPI_L = g['MPI_I'], g['MPI_L']
C = "-I/usr/local/cuda/include"; CL = "-L/usr/local/cuda/lib64 -lcudart -lnccl"
g['P'][:] = [
 ("ho_ringattn", "ringattn/src/attention", ["ring_attention_nccl_gpu_bench.cu"], f"nvcc -O3 {MPI_I} ring_attention_nccl_gpu_bench.cu -o ring_attention_nccl_gpu_bench {MPI_L} -lmpi -lnccl", []),
 ("ho_tsa", "tsa", ["src/main.cpp", "src/error_guards.cpp", "src/gpu_network.cpp", "src/p2p_uni_profiler.cpp", "src/link_cov_profiler.cpp"], f"nvcc -I./include {MPI_I} src/main.cpp src/error_guards.cpp src/gpu_network.cpp src/p2p_uni_profiler.cpp src/link_cov_profiler.cpp -o links {MPI_L} -lmpi -lnccl -lm", []),
 ("ho_eugcoll", "eugcoll", ["main_gpu.c"], f"mpicc main_gpu.c -o main_gpu {C} {CL} -lm", ["--args", "1"]),
 ("ho_gcbmoe", "gcbmoe/src/xccl/cuda", ["moe.cu"], f"nvcc -std=c++17 -I../../../include {MPI_I} moe.cu -o cuda_nccl_moe {MPI_L} -lnccl -lmpi", []),
 ("ho_gcbcg", "gcbcg/src/xccl/cuda", ["cg_step.cu"], f"nvcc -std=c++17 -I../../../include {MPI_I} cg_step.cu -o cuda_nccl_cg_step {MPI_L} -lnccl -lmpi", []),
 ("ho_wuyympt", "wuyympt/Test", ["multipleDevicesPerThread.cpp"], f"mpicxx {C} multipleDevicesPerThread.cpp -o mdpt {CL}", []),
 ("ho_williep2p", "williep2p", ["test_nccl.cpp"], f"mpicxx {C} test_nccl.cpp -o test_nccl {CL}", []),
]
sys.argv = ['ext_programs.py'] + sys.argv[1:]
g['main']()
