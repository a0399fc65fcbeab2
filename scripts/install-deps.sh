#!/usr/bin/env bash
# Installs what cuco needs to build and test, by Debian package name. CUDA
# itself (nvcc, cuBLAS) must already be installed (NVIDIA's packages or image);
# NCCL's device-API headers come from the nvidia-nccl-cu13 wheel when the CUDA
# install lacks them. Idempotent; quiet when everything is present.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config python3 python3-pip
  binutils             # readelf, nm: the object check of compiled candidates (src/evaluate/object_check.h)
  nlohmann-json3-dev   # JSON
  libcli11-dev         # command line
  libfmt-dev           # formatting (used header-only)
  libtomlplusplus-dev  # workload.toml (used header-only)
  libsqlite3-dev sqlite3  # the candidate store (sqlite3: tests read stores with it)
  libssl-dev           # SHA-256 for content hashes
  libgtest-dev libgmock-dev  # tests
  libcurl4-openssl-dev  # HTTP client of the LLM providers
  libcpp-httplib-dev    # `cuco serve`; scripted LLM servers in tests
  node-d3              # D3 5.16, inlined into `cuco report` pages at report time (src/report/d3_library.h)
  chromium             # headless browser of the report tests (tests/report/browser_test.py)
  libopenmpi-dev openmpi-bin  # program mode under mpirun (and its tests)
  libclang-14-dev      # `cuco analyze`: the C/C++/CUDA front end (libclang C API)
  bubblewrap           # the candidate sandbox (namespaces, mounts): src/launch/sandbox.h
  libseccomp-dev       # cuco-sandbox-exec's seccomp filter (linked statically)
  clang-14 libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer + ASan/UBSan (docs/fuzzing.md)
  slurmctld slurmd slurm-client munge  # the Slurm launcher's tests: a real cluster (scripts/slurm-cluster.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Playwright (PyPI) drives Debian's chromium in tests/report/browser_test.py; its own browser
# download is never used (`playwright install` is not run).
if ! python3 -c 'import playwright' 2>/dev/null; then
  echo "install-deps: installing playwright (pip)"
  python3 -m pip install -q "playwright>=1.40,<2" || python3 -m pip install -q --break-system-packages "playwright>=1.40,<2"
fi

# CUDA: cuco finds nvcc through CUDA_HOME, PATH or /usr/local/cuda (see `cuco doctor`).
NVCC=$(command -v nvcc || true)
[ -z "$NVCC" ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
if [ -z "$NVCC" ]; then
  echo "install-deps: nvcc not found. Install the CUDA 13 toolkit (NVIDIA's packages) or set CUDA_HOME." >&2
  echo "             CPU workloads and the tests that need no nvcc still work." >&2
fi

# NCCL with the device API (nccl_device.h, LSA, GIN): under CUDA, or from the wheel.
CUDA_ROOT=$( [ -n "$NVCC" ] && cd "$(dirname "$NVCC")/.." && pwd || echo /usr/local/cuda)
if [ ! -f "$CUDA_ROOT/include/nccl_device.h" ] && [ -z "${CUCO_NCCL_HOME:-}" ] &&
   ! python3 -c 'import nvidia.nccl, os, sys; p=list(nvidia.nccl.__path__)[0]; sys.exit(0 if os.path.exists(p+"/include/nccl_device.h") else 1)' 2>/dev/null; then
  echo "install-deps: installing NCCL 2.28.9 with its device API (pip wheel nvidia-nccl-cu13==2.28.9)"
  python3 -m pip install -q "nvidia-nccl-cu13==2.28.9" || python3 -m pip install -q --break-system-packages "nvidia-nccl-cu13==2.28.9"
fi

# cuDNN's fused attention (runtime/include/cuco/codesign/cudnn_attention.h): cuDNN 9 itself (the
# CUDA toolkit's, or the nvidia-cudnn-cu13 wheel) plus the header-only cuDNN frontend.
if [ ! -f "$CUDA_ROOT/include/cudnn.h" ] && [ -z "${CUCO_CUDNN_HOME:-}" ] &&
   ! python3 -c 'import nvidia.cudnn' 2>/dev/null; then
  echo "install-deps: installing cuDNN 9 (pip wheel nvidia-cudnn-cu13)"
  python3 -m pip install -q "nvidia-cudnn-cu13>=9.10,<10" || python3 -m pip install -q --break-system-packages "nvidia-cudnn-cu13>=9.10,<10"
fi
if [ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] &&
   ! python3 -c 'import importlib.util, sys; sys.exit(0 if importlib.util.find_spec("cudnn") else 1)' 2>/dev/null; then
  echo "install-deps: installing the cuDNN frontend headers (pip wheel nvidia-cudnn-frontend==1.32.0)"
  python3 -m pip install -q --no-deps "nvidia-cudnn-frontend==1.32.0" ||
    python3 -m pip install -q --no-deps --break-system-packages "nvidia-cudnn-frontend==1.32.0"
fi

# NVSHMEM's device headers, for the CI compile of the NVSHMEM backend (codesign/nvshmem.h): the same
# version the GPU machines have.
if [ -z "${CUCO_NVSHMEM_HOME:-}" ] && ! python3 -c 'import nvidia.nvshmem' 2>/dev/null; then
  echo "install-deps: installing NVSHMEM 3.4.5 (pip wheel nvidia-nvshmem-cu13==3.4.5)"
  python3 -m pip install -q --no-deps "nvidia-nvshmem-cu13==3.4.5" ||
    python3 -m pip install -q --no-deps --break-system-packages "nvidia-nvshmem-cu13==3.4.5"
fi
