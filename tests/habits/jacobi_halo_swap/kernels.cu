// Habit of multi-GPU stencil teaching codes (written here, not copied): the kernels live in their own
// file, reduce with CUB, and index the grid row-major between a first and a last row.
#include <cub/block/block_reduce.cuh>

template <int BX, int BY>
__global__ void relax(float* __restrict__ const out, const float* __restrict__ const in, float* __restrict__ const norm,
                      const int row_begin, const int row_end, const int nx) {
  typedef cub::BlockReduce<float, BX, cub::BLOCK_REDUCE_WARP_REDUCTIONS, BY> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  int iy = blockIdx.y * blockDim.y + threadIdx.y + row_begin;
  int ix = blockIdx.x * blockDim.x + threadIdx.x + 1;
  float local = 0.f;
  if (iy < row_end && ix < (nx - 1)) {
    const float v = 0.25f * (in[iy * nx + ix + 1] + in[iy * nx + ix - 1] + in[(iy + 1) * nx + ix] + in[(iy - 1) * nx + ix]);
    out[iy * nx + ix] = v;
    local = (v - in[iy * nx + ix]) * (v - in[iy * nx + ix]);
  }
  const float sum = Reduce(tmp).Sum(local);
  if (threadIdx.x == 0 && threadIdx.y == 0) atomicAdd(norm, sum);
}

void launch_relax(float* out, const float* in, float* norm, int row_begin, int row_end, int nx, cudaStream_t s) {
  dim3 block(32, 8), grid((nx + 31) / 32, (row_end - row_begin + 7) / 8);
  relax<32, 8><<<grid, block, 0, s>>>(out, in, norm, row_begin, row_end, nx);
}
