// Habit of host-staged MPI stencils (written here, not copied): a row-major grid whose columns are
// the halo, exchanged with the periodic left and right neighbours (at one rank, the rank itself) as
// one MPI_Type_vector each, by MPI_Isend/MPI_Irecv of host memory; the field written every tenth
// step into `Output/`, a folder of where the program runs, as a phase-field solver's Tecplot files.
#include <mpi.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

constexpr int kNx = 256, kNy = 256, kPitch = kNx + 2;  // columns 0 and kNx + 1 are the halo

__global__ void relax(const double* cur, double* next, int nx, int ny, int pitch) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x + 1, y = blockIdx.y;
  if (x > nx) return;
  const int up = (y + ny - 1) % ny, down = (y + 1) % ny;
  next[y * pitch + x] = 0.25 * (cur[y * pitch + x - 1] + cur[y * pitch + x + 1] + cur[up * pitch + x] + cur[down * pitch + x]);
}

// One value of the field into Output/field-<step>-<rank>.txt.
void save_field(const double* field, int step, int rank) {
  char name[64];
  std::snprintf(name, sizeof name, "Output/field-%04d-%d.txt", step, rank);
  std::ofstream out(name);
  if (!out) {
    std::fprintf(stderr, "cannot open %s\n", name);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  out << field[kPitch + 1] << "\n";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  cudaSetDevice(rank);
  MPI_Datatype column;
  MPI_Type_vector(kNy, 1, kPitch, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  const size_t bytes = sizeof(double) * kNy * kPitch;
  double* field = static_cast<double*>(std::malloc(bytes));
  for (int i = 0; i < kNy * kPitch; ++i) field[i] = (i * 7919 % 1000) / 1000.0;
  double *d_cur, *d_next;
  cudaMalloc(&d_cur, bytes);
  cudaMalloc(&d_next, bytes);
  cudaMemcpy(d_cur, field, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_next, field, bytes, cudaMemcpyHostToDevice);
  const int left = (rank + world - 1) % world, right = (rank + 1) % world;
  const int steps = 50;
  const double t0 = MPI_Wtime();
  for (int step = 0; step < steps; ++step) {
    cudaMemcpy(field, d_cur, bytes, cudaMemcpyDeviceToHost);
    MPI_Request req[4];
    MPI_Irecv(&field[0], 1, column, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&field[kNx + 1], 1, column, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&field[kNx], 1, column, right, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&field[1], 1, column, left, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    cudaMemcpy(d_cur, field, bytes, cudaMemcpyHostToDevice);
    relax<<<dim3(kNx / 128, kNy), 128>>>(d_cur, d_next, kNx, kNy, kPitch);
    cudaMemcpy(d_cur, d_next, bytes, cudaMemcpyDeviceToDevice);
    if (step % 10 == 0) save_field(field, step, rank);
  }
  const double t1 = MPI_Wtime();
  if (rank == 0) std::printf("%.3f ms per step\n", 1e3 * (t1 - t0) / steps);
  MPI_Type_free(&column);
  MPI_Finalize();
  return 0;
}
