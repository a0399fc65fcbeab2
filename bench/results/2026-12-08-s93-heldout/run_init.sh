#!/usr/bin/env bash
# cuco init of the twentieth held-out batch, each from its repository's root with the build line its
# repository gives (`-arch=sm_90`, `-ccbin mpicxx` where it includes mpi.h; CMake builds through their
# compile_commands.json); then each harness compiled (`cuco eval --stage compile-check`).
# Usage (repo root): C=build/src/cli/cuco H=<copies> O=<out> B=<cmake build dirs> bash <this>
set -u
C=$(realpath "${C:-build/src/cli/cuco}"); O=${O:-/tmp/ho20out}; B=${B:-/tmp/ho20build}; mkdir -p "$O"
one() {
  n=$1; shift
  (cd "$H/$n" && timeout 600 "$C" init --out "$O/$n" --json "$@" >"$O/$n.json" 2>"$O/$n.err")
  echo "$n init rc=$?"
  if [ -f "$O/$n/harness/seed.cu" ]; then
    "$C" eval "$O/$n/harness" --stage compile-check --run-dir "$O/cc-$n" --json >"$O/cc-$n.json" 2>"$O/cc-$n.err"
    echo "$n compile-check rc=$?"
  fi
}
one dsambit_dftfe_xtx src/main.cc src/xtxComplexDoubleDevice.cc src/xtxDoubleDevice.cc src/deviceDirectMPIAllreduce.cc utils/DeviceDirectCCLWrapper.cc utils/DeviceBlasWrapper.cu.cc utils/DeviceAPICalls.cu.cc utils/DeviceKernelsGeneric.cc utils/MemoryTransferKernelsDevice.cc utils/MemoryManager.cc utils/Exceptions.cc --compile-commands "$B/dsambit_cc"
one taufique71_nystrom c_matmul/matmul.cpp --args "-p1 1 -p2 1 -p3 1 -n1 1024 -n2 1024 -n3 1024 -alg matmul" -- nvcc -arch=sm_90 -ccbin mpicxx -std=c++11 -Xcompiler -std=gnu++11 -DUSE_CUBLAS -Xcompiler -fopenmp c_matmul/matmul.cpp -o matmul -lcublas -lcurand
S=matrix_mult/src
one rodtol_matmul $S/main.c $S/gpu_computation.cu $S/data_distr_utility.c $S/general_utility.c $S/linearized_matrix_utility.c --args "2000" -- mpicc -Wall -O3 -I$S -I$S/headers -DGPU $S/main.c $S/gpu_computation.cu $S/data_distr_utility.c $S/general_utility.c $S/linearized_matrix_utility.c -lcudart -lcublas
one baidu_allreduce test/test.cpp collectives.cu timer.cpp --args "gpu" -- nvcc -arch=sm_90 -ccbin mpicxx -std=c++11 -I. -DOMPI_SKIP_MPICXX= test/test.cpp collectives.cu timer.cpp -o allreduce-test -lcudart -lmpi
one harplab_mnmgdatalog tc.cu --args "data/data_7035.bin 0 0" -- nvcc -arch=sm_90 -ccbin mpicxx tc.cu -o tc.out -lmpi -lm -O3 --extended-lambda -DENABLE_TIMESTAMPS
one uob_tealeaf driver/main.cpp --compile-commands "$B/uob_tealeaf"
one hrshl212_bicgstab multigpu_bicgstab.cu -- nvcc -arch=sm_90 -ccbin mpicxx multigpu_bicgstab.cu -o bicgstab -lcudart -lmpi
one hecbench_miniweather src/miniWeather-cuda/main.cu -- nvcc -ccbin mpicxx -DNX=400 -DNZ=200 -DSIM_TIME=600 -DDATA_SPEC=DATA_SPEC_THERMAL -std=c++17 -Xcompiler -Wall -arch=sm_90 -O3 src/miniWeather-cuda/main.cu -o main -lmpi
