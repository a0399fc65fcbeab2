"""heldout_run.py CUCO ROOT OUTDIR [--compile] [name...]: bench/ext_programs.py's steps over the six programs
held out in stop 69 (ROOT holds each repository, exported at the commit in README.md, under the folder named in
its row's second field)."""
import pathlib, sys
src = (pathlib.Path(__file__).resolve().parents[2] / 'ext_programs.py').read_text()
src = src[:src.rindex('\nmain()')]
g = {}
exec(compile(src, 'ext_programs.py', 'exec'), g)
g['P'][:] = [
 ("ho_epmoe", "ep_moe_sharded/kernels", ["ep_moe_sharded.cu"], "nvcc -arch=sm_90a -O3 --use_fast_math -I . ep_moe_sharded.cu -lnccl -o epmoe", []),
 ("ho_overlap", "overlap_decode/kernels", ["overlap_decode.cu"], "nvcc -arch=sm_90a -O3 --use_fast_math -I . overlap_decode.cu -lnccl -o overlap", []),
 ("ho_matmulmulti", "matmulmulti/day27", ["matMulMulti.cu"], "nvcc -O3 -ccbin mpicxx matMulMulti.cu -o matMulMulti -lnccl -lmpi", []),
 ("ho_tpgemm_node", "tpgemm_node/src/benchmark", ["bench_multi_node.cu", "../tensor_parallel/tensor_parallel.cu"] + "../kernels/naive.cu ../kernels/coalesced.cu ../kernels/smem_tiling.cu ../kernels/blocktile_1d.cu ../kernels/blocktile_2d.cu ../kernels/vectorized.cu ../kernels/warptile.cu ../kernels/cublas.cu".split(), "nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I.. bench_multi_node.cu ../tensor_parallel/tensor_parallel.cu ../kernels/naive.cu ../kernels/coalesced.cu ../kernels/smem_tiling.cu ../kernels/blocktile_1d.cu ../kernels/blocktile_2d.cu ../kernels/vectorized.cu ../kernels/warptile.cu ../kernels/cublas.cu -lcublas -lnccl -o bench_multi_node", []),
 ("ho_tpptx", "tp_ptx_summa", ["src/main.cu", "src/app/cli.cu", "src/app/dist_context.cu", "src/app/logging.cu", "src/comm/nccl_utils.cu", "src/tp/sharding.cu", "src/tp/summa_runner.cu", "src/tp/oned_runner.cu", "src/verify/verify_runner.cu", "src/data.cu", "kernels/fp16_wmma.cu"], "nvcc -std=c++17 -O3 -arch=sm_90 -I. -DUSE_NCCL=1 -DTP_KERNEL_VARIANT=\"fp16_wmma\" src/main.cu src/app/cli.cu src/app/dist_context.cu src/app/logging.cu src/comm/nccl_utils.cu src/tp/sharding.cu src/tp/summa_runner.cu src/tp/oned_runner.cu src/verify/verify_runner.cu src/data.cu kernels/fp16_wmma.cu -lcublas -lnccl -o tensor_parallel_ptx", []),
 ("ho_ncclcoll", "nccl_coll_bench/DTensor/benchmarks", ["nccl_benchmark.cpp"], "mpicxx -std=c++17 -O2 nccl_benchmark.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudart -lnccl -o nccl_benchmark", []),
]
sys.argv = ['ext_programs.py'] + sys.argv[1:]
g['main']()
