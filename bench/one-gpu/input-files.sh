#!/usr/bin/env bash
# The data files held-out programs read, made on the GPU machine before their evaluations (the paths
# their `cuco init --args` named, which workload.toml's `reads` binds into each candidate's sandbox):
#   /tmp/vitdata/train.csv   2000 rows of the Kaggle digit format (label, 784 pixels), random.seed(1):
#                            SadreevAmir/hpc_final_project's ViT (vit_mnist_dp)
#   /tmp/cgdata/m.mtx        a 256 x 256 five-point stencil in Matrix Market form, written here by the
#                            program's own generator (`gen 256 m.mtx`) and carried packed as
#                            .carry/data/cg-m256.mtx.gz: 1fni/cuda-spmv-benchmark's CG (cg_halo)
# Usage (repo root, .carry/ unpacked): bash bench/one-gpu/input-files.sh
set -eu
mkdir -p /tmp/vitdata /tmp/cgdata
python3 - <<'PY'
import random
random.seed(1)
with open("/tmp/vitdata/train.csv", "w") as f:
    f.write("label," + ",".join(f"pixel{i}" for i in range(784)) + "\n")
    for _ in range(2000):
        f.write(str(random.randrange(10)) + "," + ",".join(str(random.randrange(256)) for _ in range(784)) + "\n")
PY
if [ -f .carry/data/cg-m256.mtx.gz ]; then gunzip -c .carry/data/cg-m256.mtx.gz >/tmp/cgdata/m.mtx; fi
ls -la /tmp/vitdata /tmp/cgdata
