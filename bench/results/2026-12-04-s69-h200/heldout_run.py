"""heldout_run.py CUCO ROOT OUTDIR [--compile] [name...]: bench/ext_programs.py's steps over the three programs
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
]
sys.argv = ['ext_programs.py'] + sys.argv[1:]
g['main']()
