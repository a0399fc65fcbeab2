// Host-only check of what a user's program's NCCL and MPI calls become in the harness (ctest
// programs_shims_check: built twice with the real nvcc, run without a GPU). Every call the program
// makes on a communicator that is not a real one must be answered by cuco, never handed to NCCL,
// which would dereference it:
//   candidate side (cuco/program/candidate.h), a program driving every GPU from one process:
//     another GPU's communicator after ncclCommInitAll (the single-process ring of NCCL's examples
//     queried each GPU's rank, count and device in its set-up, and the candidate rank crashed);
//   reference side (cuco/program/reference.h): the reference's own communicator is a token for the
//     emulation (a program checking ncclCommGetAsyncError crashed the supervisor), and a graph
//     captured in the global mode is captured in the rank thread's own (mgpm_jacobi_nccl_graphs at
//     two GPUs: one rank's capture failed the other rank's cudaStreamSynchronize), and the ranks
//     capture together (the graph habits at two GPUs: one rank's cudaMemset on the legacy stream
//     invalidated the other's capture).
// And cuco's MPI answers what error macros call (MPI_Error_string, MPI_Error_class, ...), and
// MPI_Abort ends the program's thread, not the process. Exit 0 when every check holds.
// The reference side is checked again as one copy of a program running a thread per GPU after
// ncclCommInitAll (CUCO_CHECK_THREADS): every GPU's communicator is its rank's.
//   nvcc -std=c++20 -I runtime/include [-DCUCO_CHECK_REFERENCE [-DCUCO_CHECK_THREADS]] shims_check.cu -lnccl
#include <algorithm>
#include <cstdio>
#include <atomic>
#include <cstddef>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#ifdef CUCO_CHECK_REFERENCE
#define CUCO_PROGRAM_WORKLOAD "shims_check"
#ifdef CUCO_CHECK_THREADS  // ncclCommInitAll, then a thread per GPU (AIComm's MoE, the probe a2a_initall_threads)
#define CUCO_PROGRAM_PROJECTED 1
#define CUCO_PROGRAM_THREADS 1
#endif
#include <cuco/program/reference.h>
#else
#define CUCO_PROGRAM_PROJECTED 1
#include <cuco/program/candidate.h>
#include <cuco/program/mpi.h>
#endif

static int cuco_program_entry(int, char**) { return 0; }

namespace {
int failed = 0;
void Expect(bool ok, const char* what) {
  if (!ok) std::printf("FAIL: %s\n", what), ++failed;
}
}  // namespace

#if defined(CUCO_CHECK_REFERENCE) && !defined(CUCO_CHECK_THREADS)
// Runs rank(r) on four reference rank threads (r = 0..3); how many returned false.
template <class F>
int OnFourRankThreads(F rank) {
  cuco_program::ref::E().world = 4;
  cuco_program::ref::E().barrier.Reset(4);
  cuco_program::ref::E().slots.assign(4, nullptr);
  std::atomic<int> wrong{0};
  std::vector<std::thread> ranks;
  for (int r = 0; r < 4; ++r)
    ranks.emplace_back([r, &wrong, &rank] {
      cuco_program::ref::t_rank = r;
      if (!rank(r)) ++wrong;
    });
  for (std::thread& t : ranks) t.join();
  return wrong;
}

// A SUMMA's 2-D grid (rz-hpc's summa_gemm.cu) at four ranks, the reference's rank threads: the grid,
// each rank's coordinates, its row and column (MPI_Comm_split, MPI_Cart_sub) with their own ranks,
// and an MPI_Bcast, an MPI_Allreduce and an MPI_Allgather each row makes at once.
void CheckGridOfFourRanks() {
  const int wrong = OnFourRankThreads([](int r) {
      int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2] = {-1, -1};
      MPI_Comm grid = MPI_COMM_NULL, row = MPI_COMM_NULL, col = MPI_COMM_NULL;
      bool ok = MPI_Dims_create(4, 2, dims) == MPI_SUCCESS && dims[0] == 2 && dims[1] == 2;
      ok = ok && MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid) == MPI_SUCCESS;
      ok = ok && MPI_Cart_coords(grid, r, 2, coords) == MPI_SUCCESS && coords[0] == r / 2 && coords[1] == r % 2;
      ok = ok && MPI_Comm_split(grid, coords[0], coords[1], &row) == MPI_SUCCESS;
      const int keep_rows[2] = {1, 0};
      ok = ok && MPI_Cart_sub(grid, keep_rows, &col) == MPI_SUCCESS;
      int row_rank = -1, row_size = -1, col_rank = -1;
      ok = ok && MPI_Comm_rank(row, &row_rank) == MPI_SUCCESS && MPI_Comm_size(row, &row_size) == MPI_SUCCESS &&
           MPI_Comm_rank(col, &col_rank) == MPI_SUCCESS && row_rank == coords[1] && row_size == 2 && col_rank == coords[0];
      int id = 100 + r;  // each row's root (its column 1) hands its own id to the row
      ok = ok && MPI_Bcast(&id, 1, MPI_INT, 1, row) == MPI_SUCCESS && id == 100 + 2 * coords[0] + 1;
      int sum = 0, one = r;
      ok = ok && MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, col) == MPI_SUCCESS && sum == coords[1] + (2 + coords[1]);
      int got[2] = {-1, -1};
      ok = ok && MPI_Allgather(&one, 1, MPI_INT, got, 1, MPI_INT, row) == MPI_SUCCESS && got[0] == 2 * coords[0] &&
           got[1] == 2 * coords[0] + 1;
      // The v variants (multi-gpu-sparse-la's halo plan): rank r sends r + 1 ints to each rank q, each
      // 10 r + q, and gives r + 1 copies of r to everyone.
      int sc[4], sd[4], rc[4], rd[4], sbuf[16], rbuf[10], gathered[10], mine[4] = {r, r, r, r};
      for (int q = 0; q < 4; ++q) {
        sc[q] = r + 1, sd[q] = q * (r + 1), rc[q] = q + 1, rd[q] = q * (q + 1) / 2;
        for (int k = 0; k <= r; ++k) sbuf[sd[q] + k] = 10 * r + q;
      }
      ok = ok && MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS;
      ok = ok && MPI_Allgatherv(mine, r + 1, MPI_INT, gathered, rc, rd, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS;
      for (int p = 0; p < 4; ++p)
        for (int k = 0; k <= p; ++k) ok = ok && rbuf[rd[p] + k] == 10 * p + r && gathered[rd[p] + k] == p;
      int up = -2, down = -2;
      ok = ok && MPI_Cart_shift(grid, 0, 1, &up, &down) == MPI_SUCCESS &&
           down == (coords[0] == 0 ? r + 2 : MPI_PROC_NULL) && up == (coords[0] == 1 ? r - 2 : MPI_PROC_NULL);
      // A struct of parameters broadcast as a derived datatype (a CG solver's): its extent is the C
      // struct's, padding included, so an array of two moves whole.
      struct Params {
        int n;
        double tol;
        float scale;
      };
      const int lengths[3] = {1, 1, 1};
      const MPI_Aint at[3] = {offsetof(Params, n), offsetof(Params, tol), offsetof(Params, scale)};
      const MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_FLOAT};
      MPI_Datatype params = MPI_DATATYPE_NULL;
      MPI_Aint lb = -1, extent = -1;
      ok = ok && MPI_Type_create_struct(3, lengths, at, types, &params) == MPI_SUCCESS && MPI_Type_commit(&params) == MPI_SUCCESS &&
           MPI_Type_get_extent(params, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent == sizeof(Params);
      Params p[2] = {{r, 0.5 * r, 2.0f * r}, {r + 10, 1.0, 3.0f}};
      ok = ok && MPI_Bcast(p, 2, params, 0, MPI_COMM_WORLD) == MPI_SUCCESS && p[0].n == 0 && p[0].tol == 0.0 && p[1].n == 10;
      ok = ok && MPI_Type_free(&params) == MPI_SUCCESS && params == MPI_DATATYPE_NULL;
      // The largest residual and the rank holding it (MPI_DOUBLE_INT, MPI_MAXLOC); a flag any rank raises.
      struct {
        double value;
        int index;
      } residual = {static_cast<double>(r % 3), r}, largest = {-1.0, -1};
      ok = ok && MPI_Allreduce(&residual, &largest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS &&
           largest.value == 2.0 && largest.index == 2;
      bool raised = r == 3, any = false;
      ok = ok && MPI_Allreduce(&raised, &any, 1, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD) == MPI_SUCCESS && any;
      return ok;
    });
  Expect(wrong == 0, "a 2-D grid of four ranks: coordinates, rows and columns, the collectives each row makes, "
                     "MPI_Alltoallv and MPI_Allgatherv, a struct broadcast as a derived datatype, MPI_MAXLOC and a bool");
  int dims3[2] = {0, 0};
  Expect(MPI_Dims_create(12, 2, dims3) == MPI_SUCCESS && dims3[0] == 4 && dims3[1] == 3, "MPI_Dims_create(12, 2): 4 x 3");
}
#endif

#if defined(CUCO_CHECK_REFERENCE) && !defined(CUCO_CHECK_THREADS)
// Point-to-point MPI (impl/mpi_p2p.h) at four rank threads, on `Alloc`'s memory (host, or device
// where a GPU is): a ring of MPI_Sendrecv; pairs that both MPI_Send before they MPI_Recv (buffered,
// as MPI's eager sends); a non-periodic halo exchange of MPI_Irecv/MPI_Isend and MPI_Waitall with
// MPI_PROC_NULL at the ends; MPI_Sendrecv_replace; MPI_Get_count. Then what is refused: a receive
// from MPI_ANY_SOURCE at once, and a receive MPI would pair with a later message by its tag.
template <class Alloc, class Put, class Get>
void CheckPointToPointOfFourRanks(const char* memory, Alloc alloc, Put put, Get get) {
  const int wrong = OnFourRankThreads([&](int r) {
    int* buf = static_cast<int*>(alloc(8 * sizeof(int)));  // [0] mine, [1] got, [2..3] halos, [4..7] spare
    const int next = (r + 1) % 4, prev = (r + 3) % 4;
    put(buf, 0, 100 + r);
    MPI_Status st;
    int n = -1;
    bool ok = MPI_Sendrecv(buf, 1, MPI_INT, next, 7, buf + 1, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS &&
              get(buf, 1) == 100 + prev && st.MPI_SOURCE == prev && MPI_Get_count(&st, MPI_INT, &n) == MPI_SUCCESS && n == 1;
    const int pair = r ^ 1;  // 0-1, 2-3: both send first
    put(buf, 0, 200 + r);
    ok = ok && MPI_Send(buf, 1, MPI_INT, pair, 1, MPI_COMM_WORLD) == MPI_SUCCESS;
    put(buf, 0, -1);  // MPI_Send's bytes were taken when it returned
    ok = ok && MPI_Recv(buf + 1, 1, MPI_INT, pair, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
         get(buf, 1) == 200 + pair;
    const int up = r == 0 ? MPI_PROC_NULL : r - 1, down = r == 3 ? MPI_PROC_NULL : r + 1;
    put(buf, 0, 300 + r), put(buf, 2, -5), put(buf, 3, -5);
    MPI_Request reqs[4];
    ok = ok && MPI_Irecv(buf + 2, 1, MPI_INT, up, 2, MPI_COMM_WORLD, &reqs[0]) == MPI_SUCCESS &&
         MPI_Irecv(buf + 3, 1, MPI_INT, down, 3, MPI_COMM_WORLD, &reqs[1]) == MPI_SUCCESS &&
         MPI_Isend(buf, 1, MPI_INT, down, 2, MPI_COMM_WORLD, &reqs[2]) == MPI_SUCCESS &&
         MPI_Isend(buf, 1, MPI_INT, up, 3, MPI_COMM_WORLD, &reqs[3]) == MPI_SUCCESS &&
         MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS && reqs[0] == MPI_REQUEST_NULL;
    ok = ok && get(buf, 2) == (r == 0 ? -5 : 300 + r - 1) && get(buf, 3) == (r == 3 ? -5 : 300 + r + 1);
    put(buf, 4, 400 + r);
    ok = ok && MPI_Sendrecv_replace(buf + 4, 1, MPI_INT, prev, 4, next, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
         get(buf, 4) == 400 + next;
    return ok;
  });
  std::printf("point-to-point MPI checked at four ranks on %s memory\n", memory);
  Expect(wrong == 0, "point-to-point MPI at four ranks: a ring, buffered sends, a halo exchange, MPI_Sendrecv_replace");
}

// MPI_Gatherv and MPI_Scatterv at four rank threads (dist_fa2_mpi's scatter of Q's rows, held out in
// stop 86): rank r's r + 1 values gathered at rank 1, then scattered back from rank 2.
void CheckVaryingRootedOfFourRanks() {
  const int wrong = OnFourRankThreads([](int r) {
    const int counts[4] = {1, 2, 3, 4}, displs[4] = {0, 1, 3, 6};
    std::vector<int> mine(static_cast<size_t>(r + 1), r), all(10, -1), back(static_cast<size_t>(r + 1), -1);
    bool ok = MPI_Gatherv(mine.data(), r + 1, MPI_INT, all.data(), counts, displs, MPI_INT, 1, MPI_COMM_WORLD) == MPI_SUCCESS;
    if (r == 1) ok = ok && all == std::vector<int>{0, 1, 1, 2, 2, 2, 3, 3, 3, 3};
    if (r == 2) all = {0, 1, 1, 2, 2, 2, 3, 3, 3, 3};
    ok = ok && MPI_Scatterv(all.data(), counts, displs, MPI_INT, back.data(), r + 1, MPI_INT, 2, MPI_COMM_WORLD) == MPI_SUCCESS;
    return ok && back == mine;
  });
  Expect(wrong == 0, "MPI_Gatherv and MPI_Scatterv at four ranks");
  // Each rank's eight values r*10 + i: block r (two values) summed over the ranks is 60 + 4i.
  const int scattered = OnFourRankThreads([](int r) {
    std::vector<int> mine(8), out(2, -1);
    for (int i = 0; i < 8; ++i) mine[static_cast<size_t>(i)] = 10 * r + i;
    bool ok = MPI_Reduce_scatter_block(mine.data(), out.data(), 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
    ok = ok && MPI_Reduce_scatter_block(MPI_IN_PLACE, mine.data(), 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
    const std::vector<int> want = {60 + 8 * r, 64 + 8 * r};
    return ok && out == want && mine[0] == want[0] && mine[1] == want[1];
  });
  Expect(scattered == 0, "MPI_Reduce_scatter_block, and in place, at four ranks");
  // MPI_Reduce_scatter: rank q keeps q + 1 of the ten values (taufique71's 3-D matmul); in place too.
  const int varying = OnFourRankThreads([](int r) {
    const int counts[4] = {1, 2, 3, 4};
    std::vector<int> mine(10), out(static_cast<size_t>(r + 1), -1), want;
    for (int i = 0; i < 10; ++i) mine[static_cast<size_t>(i)] = 10 * r + i;
    for (int i = r * (r + 1) / 2; i < (r + 1) * (r + 2) / 2; ++i) want.push_back(60 + 4 * i);
    bool ok = MPI_Reduce_scatter(mine.data(), out.data(), counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
    ok = ok && MPI_Reduce_scatter(MPI_IN_PLACE, mine.data(), counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
    return ok && out == want && std::equal(want.begin(), want.end(), mine.begin());
  });
  Expect(varying == 0, "MPI_Reduce_scatter, and in place, at four ranks");
  // A nonblocking collective is done at its call: its request is null, MPI_Wait returns at once.
  const int nonblocking = OnFourRankThreads([](int r) {
    int v = r + 1, sum = 0;
    MPI_Request req = 0;
    bool ok = MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) == MPI_SUCCESS;
    ok = ok && req == MPI_REQUEST_NULL && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    int b = r == 2 ? 7 : 0;
    ok = ok && MPI_Ibcast(&b, 1, MPI_INT, 2, MPI_COMM_WORLD, &req) == MPI_SUCCESS && MPI_Ibarrier(MPI_COMM_WORLD, &req) == MPI_SUCCESS;
    return ok && sum == 10 && b == 7;
  });
  Expect(nonblocking == 0, "MPI_Iallreduce, MPI_Ibcast and MPI_Ibarrier at four ranks");
}

void CheckPointToPointRefusals() {
  int refused = 0, told = 0;
  OnFourRankThreads([&](int r) {
    int v = r;
    if (r == 0) {
      refused += MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_ERR_OTHER;
      MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
      MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else if (r == 1) {
      try {
        MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // the second message, by its tag
      } catch (const std::runtime_error& e) {
        told += std::string(e.what()).find("in the order they are sent") != std::string::npos;
      }
    }
    return true;
  });
  cuco_program::ref::E().mail.Reset();
  Expect(refused == 1, "a receive from MPI_ANY_SOURCE is refused at once");
  Expect(told == 1, "a receive MPI would pair with a later message by its tag is refused, saying why");
}
#endif

#if defined(CUCO_CHECK_REFERENCE) && !defined(CUCO_CHECK_THREADS)
// MPI-IO (a CG solver reading its rows of a matrix file, eumaster's LAM): four rank threads each
// write their part of one file at their own offset, then read it back through a view of doubles
// past a header, by the individual file pointer (seek, read) and by offset, with MPI_Get_count.
void CheckFileOfFourRanks() {
  char path[] = "/tmp/cuco-shims-mpiio-XXXXXX";
  const int made = mkstemp(path);
  Expect(made >= 0, "a temporary file for MPI-IO");
  close(made);
  const int wrong = OnFourRankThreads([&path](int r) {
      MPI_File fh = MPI_FILE_NULL;
      bool ok = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) == MPI_SUCCESS;
      const int header = 7;  // an int of the file's own before the doubles
      if (r == 0) ok = ok && MPI_File_write_at(fh, 0, &header, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS;
      double mine[3] = {10.0 * r, 10.0 * r + 1, 10.0 * r + 2};
      ok = ok && MPI_File_write_at_all(fh, sizeof(int) + 3 * r * sizeof(double), mine, 3, MPI_DOUBLE, MPI_STATUS_IGNORE) ==
                     MPI_SUCCESS;
      MPI_Barrier(MPI_COMM_WORLD);
      ok = ok && MPI_File_set_view(fh, sizeof(int), MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL) == MPI_SUCCESS;
      double next[2] = {-1, -1}, last = -1;
      MPI_Status st;
      int got = -1;
      const int peer = (r + 1) % 4;
      ok = ok && MPI_File_seek(fh, 3 * peer + 1, MPI_SEEK_SET) == MPI_SUCCESS &&
           MPI_File_read(fh, next, 2, MPI_DOUBLE, &st) == MPI_SUCCESS && MPI_Get_count(&st, MPI_DOUBLE, &got) == MPI_SUCCESS &&
           got == 2 && next[0] == 10.0 * peer + 1 && next[1] == 10.0 * peer + 2;
      MPI_Offset at = -1, size = -1;
      ok = ok && MPI_File_get_position(fh, &at) == MPI_SUCCESS && at == 3 * peer + 3;
      ok = ok && MPI_File_read_at(fh, 11, &last, 1, MPI_DOUBLE, &st) == MPI_SUCCESS && last == 32.0;
      ok = ok && MPI_File_read_at(fh, 12, &last, 1, MPI_DOUBLE, &st) == MPI_SUCCESS &&
           MPI_Get_count(&st, MPI_DOUBLE, &got) == MPI_SUCCESS && got == 0;  // past the end: nothing read
      ok = ok && MPI_File_get_size(fh, &size) == MPI_SUCCESS && size == static_cast<MPI_Offset>(sizeof(int) + 12 * sizeof(double));
      MPI_Barrier(MPI_COMM_WORLD);
      ok = ok && MPI_File_close(&fh) == MPI_SUCCESS && fh == MPI_FILE_NULL;
      return ok;
    });
  MPI_File missing = MPI_FILE_NULL;
  Expect(wrong == 0, "MPI-IO: four ranks write their parts of one file and read each other's through a view");
  Expect(MPI_File_open(MPI_COMM_WORLD, "/nonexistent/cuco", MPI_MODE_RDONLY, MPI_INFO_NULL, &missing) == MPI_ERR_NO_SUCH_FILE &&
             missing == MPI_FILE_NULL,
         "MPI_File_open of a missing file: MPI_ERR_NO_SUCH_FILE");
  unlink(path);
}

// A CUDA-aware MPI program's collectives on device memory (impl/mpi_device.h): rank 0's weights
// broadcast into every rank's cudaMalloc'd buffer, then summed over the four ranks in place. Only
// where a GPU is (the host-only ctest has none: there, every buffer is host memory, as above).
void CheckDeviceBuffersOfFourRanks() {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    (void)cudaGetLastError();
    return;
  }
  const int wrong = OnFourRankThreads([](int r) {
      float* d = nullptr;
      bool ok = cudaMalloc(&d, 4 * sizeof(float)) == cudaSuccess;
      const float mine[4] = {1.0f + r, 2.0f + r, 3.0f + r, 4.0f + r};
      ok = ok && cudaMemcpy(d, mine, sizeof mine, cudaMemcpyHostToDevice) == cudaSuccess;
      ok = ok && MPI_Bcast(d, 4, MPI_FLOAT, 0, MPI_COMM_WORLD) == MPI_SUCCESS;  // every rank: 1 2 3 4
      ok = ok && MPI_Allreduce(MPI_IN_PLACE, d, 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
      float got[4] = {};
      ok = ok && cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess;
      cudaFree(d);
      return ok && got[0] == 4.0f && got[1] == 8.0f && got[2] == 12.0f && got[3] == 16.0f;
    });
  Expect(wrong == 0, "MPI_Bcast and MPI_Allreduce of device memory (CUDA-aware MPI) at four ranks");
  // Each rank's eight values r*10 + i: block q (two values) summed over the ranks is 60 + 4i.
  const int scattered = OnFourRankThreads([](int r) {
      float *d = nullptr, *out = nullptr;
      bool ok = cudaMalloc(&d, 8 * sizeof(float)) == cudaSuccess && cudaMalloc(&out, 2 * sizeof(float)) == cudaSuccess;
      float mine[8];
      for (int i = 0; i < 8; ++i) mine[i] = 10.0f * r + i;
      ok = ok && cudaMemcpy(d, mine, sizeof mine, cudaMemcpyHostToDevice) == cudaSuccess;
      ok = ok && MPI_Reduce_scatter_block(d, out, 2, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
      ok = ok && MPI_Reduce_scatter_block(MPI_IN_PLACE, d, 2, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
      float got[2] = {}, in_place[2] = {};
      ok = ok && cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess &&
           cudaMemcpy(in_place, d, sizeof in_place, cudaMemcpyDeviceToHost) == cudaSuccess;
      cudaFree(d);
      cudaFree(out);
      const float want0 = 60.0f + 4.0f * (2 * r), want1 = 60.0f + 4.0f * (2 * r + 1);
      return ok && got[0] == want0 && got[1] == want1 && in_place[0] == want0 && in_place[1] == want1;
    });
  Expect(scattered == 0, "MPI_Reduce_scatter_block of device memory, and in place, at four ranks");
  CheckPointToPointOfFourRanks(
      "device",
      [](size_t bytes) {
        void* d = nullptr;
        return cudaMalloc(&d, bytes) == cudaSuccess ? d : nullptr;
      },
      [](int* b, int i, int v) { cudaMemcpy(b + i, &v, sizeof v, cudaMemcpyHostToDevice); },
      [](const int* b, int i) {
        int v = 0;
        cudaMemcpy(&v, b + i, sizeof v, cudaMemcpyDeviceToHost);
        return v;
      });
  std::printf("device buffers checked at four ranks on %d GPU(s)\n", gpus);
}
#endif

// A template given the pinned stand-ins as values, as thrust's pinned_memory_resource is: CUDA's C forms.
template <cudaError_t (*Alloc)(void**, std::size_t), cudaError_t (*Free)(void*)>
struct PinnedResource {};
[[maybe_unused]] PinnedResource<cudaMallocHost, cudaFreeHost> pinned_resource;

// The program's pinned host memory (impl/pinned_host_shims.h), on either side: every spelling of
// cudaMallocHost and cudaHostAlloc compiles (through void**, with flags, a pointer to const data),
// and where a GPU is each range is noted and forgotten when freed (a bind into one is a host bind).
void CheckPinnedHostMemory() {
  const float* c = nullptr;
  float* f = nullptr;
  void* v = nullptr;
  const bool made = cudaMallocHost(&c, 64) == cudaSuccess && cudaMallocHost((void**)&f, 32) == cudaSuccess &&
                    cudaHostAlloc(&v, 16, cudaHostAllocPortable) == cudaSuccess;
  if (!made) {  // no GPU: nothing pinned, nothing noted
    (void)cudaGetLastError();
    Expect(cuco_program::pinned::BytesFrom(f) == 0, "a failed cudaMallocHost notes nothing");
    return;
  }
  Expect(cuco_program::pinned::BytesFrom(c + 4) == 48 && cuco_program::pinned::BytesFrom(f) == 32 &&
             cuco_program::pinned::BytesFrom(v) == 16,
         "cudaMallocHost and cudaHostAlloc note their ranges");
  cudaFreeHost(const_cast<float*>(c));
  cudaFreeHost(f);
  cudaFreeHost(v);
  Expect(cuco_program::pinned::BytesFrom(f) == 0, "cudaFreeHost forgets its range");
}

int main() {
  CheckPinnedHostMemory();
#ifdef CUCO_CHECK_REFERENCE
  // Rank 0 of one, as the reference's rank thread sees itself.
  cuco_program::ref::E().world = 1;
  cuco_program::ref::E().barrier.Reset(1);
  cuco_program::ref::E().slots.assign(1, nullptr);
  cuco_program::ref::t_rank = 0;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclComm_t comm = nullptr;
  Expect(ncclCommInitRank(&comm, 1, id, 0) == ncclSuccess, "ncclCommInitRank gives the reference's token");
  ncclComm_t own = comm;
#else
  // Rank 1 of 2 (its communicator is never used here: only the other GPU's is queried).
  static cuco::RankContext ctx(nullptr, 1, 2, 1, 2, 0, 1, reinterpret_cast<ncclComm_t>(0x5000), nullptr);
  cuco_program::candidate_detail::S().ctx = &ctx;
  ncclComm_t comms[2] = {};
  Expect(ncclCommInitAll(comms, 2, nullptr) == ncclSuccess, "ncclCommInitAll over two GPUs");
  Expect(comms[1] == ctx.comm, "the rank's own GPU gets the harness's communicator");
  ncclComm_t comm = comms[0];  // the other GPU's
  int dev = -1;
  Expect(ncclCommCuDevice(comms[1], &dev) == ncclSuccess && dev == 1, "the own communicator's device is the program's GPU 1");
#endif
  int n = -1, r = -1, d = -1;
  Expect(ncclCommCount(comm, &n) == ncclSuccess && n == cuco_program::world(), "ncclCommCount");
  Expect(ncclCommUserRank(comm, &r) == ncclSuccess && r == 0, "ncclCommUserRank");
  Expect(ncclCommCuDevice(comm, &d) == ncclSuccess && d >= 0, "ncclCommCuDevice");
  ncclResult_t async = ncclInternalError;
  Expect(ncclCommGetAsyncError(comm, &async) == ncclSuccess && async == ncclSuccess, "ncclCommGetAsyncError");
  float buf[4];
  void* handle = buf;
  Expect(ncclCommRegister(comm, buf, sizeof buf, &handle) == ncclSuccess && handle == nullptr, "ncclCommRegister");
  Expect(ncclCommDeregister(comm, handle) == ncclSuccess, "ncclCommDeregister");
  ncclWindow_t win = reinterpret_cast<ncclWindow_t>(buf);
  Expect(ncclCommWindowRegister(comm, buf, sizeof buf, &win, 0) == ncclSuccess && win == nullptr, "ncclCommWindowRegister");
  Expect(ncclCommWindowDeregister(comm, win) == ncclSuccess, "ncclCommWindowDeregister");
  ncclComm_t split = nullptr;
  Expect(ncclCommSplit(comm, 0, 0, &split, nullptr) == ncclSuccess && split == comm, "ncclCommSplit with one color");
  Expect(ncclCommDestroy(comm) == ncclSuccess, "ncclCommDestroy");
#ifndef CUCO_CHECK_REFERENCE
  {  // Memory is the GPU's it was allocated for (projection.h): host stand-ins for cudaMalloc and cudaMemcpy.
    namespace proj = cuco_program::proj;
    static char arena[2][64];
    static int allocated = 0;
    auto fake_malloc = [](void** p, size_t) { *p = arena[allocated++]; return 0; };
    auto fake_copy = [](void* dst, const void* src, size_t n) { std::memcpy(dst, src, n); return 0; };
    void *theirs = nullptr, *mine = nullptr;
    proj::t_device = 0;  // GPU 0 selected: rank 0's
    Expect(CUCO_PROGRAM_GUARD_ALLOC(fake_malloc, &theirs, 64) == 0 && proj::IsForeign(theirs) && allocated == 0,
           "cudaMalloc while another GPU is selected gives a foreign handle");
    proj::t_device = 1;
    Expect(CUCO_PROGRAM_GUARD_ALLOC(fake_malloc, &mine, 64) == 0 && mine == arena[0], "the rank's own cudaMalloc runs");
    proj::t_device = 0;  // filled without selecting its GPU (NCCL's single-process tutorials)
    const char text[] = "rank 1's data";
    Expect(CUCO_PROGRAM_GUARD_MEM(fake_copy, static_cast<char*>(mine) + 8, text, sizeof text) == 0 &&
               std::strcmp(arena[0] + 8, text) == 0,
           "a copy into the rank's own allocation runs whichever GPU is selected");
    Expect(CUCO_PROGRAM_GUARD_MEM(fake_copy, theirs, text, sizeof text) == 0, "a copy into another GPU's does nothing");
    char elsewhere[16] = {};
    Expect(CUCO_PROGRAM_GUARD_MEM(fake_copy, elsewhere, text, 4) == 0 && elsewhere[0] == 0,
           "a copy touching none of the rank's allocations while another GPU is selected does nothing");
    proj::t_device = 1;
    Expect(CUCO_PROGRAM_GUARD_MEM(fake_copy, elsewhere, text, 4) == 0 && elsewhere[0] == 'r',
           "with the rank's GPU selected, the copy runs");
    proj::t_device = 0;
  }
  // The program's own graphs are noted for teardown and forgotten when it destroys them itself.
  auto& graphs = cuco_program::candidate_detail::S().program_graphs;
  graphs.NoteGraph(reinterpret_cast<cudaGraph_t>(buf));
  graphs.NoteExec(reinterpret_cast<cudaGraphExec_t>(buf + 1));
  graphs.ForgetExec(reinterpret_cast<cudaGraphExec_t>(buf + 1));
  Expect(graphs.held() == 1, "a graph the program destroys itself is not destroyed again at teardown");
  graphs.ForgetGraph(reinterpret_cast<cudaGraph_t>(buf));
#endif
#ifdef CUCO_CHECK_REFERENCE
  // A graph captured in the global mode by one rank thread must not forbid the other ranks' calls.
#define CUCO_CHECK_TEXT(x) CUCO_CHECK_TEXT2(x)
#define CUCO_CHECK_TEXT2(x) #x
  Expect(std::string(CUCO_CHECK_TEXT(cudaStreamBeginCapture)) == "cuco_program::ref::StreamBeginCapture",
         "cudaStreamBeginCapture is the reference's");
  Expect(cuco_program::ref::CaptureModeForRank(cudaStreamCaptureModeGlobal) == cudaStreamCaptureModeThreadLocal &&
             cuco_program::ref::CaptureModeForRank(cudaStreamCaptureModeRelaxed) == cudaStreamCaptureModeRelaxed,
         "a global capture is the rank thread's own");
  Expect(std::string(CUCO_CHECK_TEXT(cudaStreamEndCapture)) == "cuco_program::ref::StreamEndCapture",
         "cudaStreamEndCapture is the reference's");
  {  // Two rank threads: the first to come to a capture waits for the other.
    namespace ref = cuco_program::ref;
    ref::E().world = 2;
    ref::E().barrier.Reset(2);
    std::atomic<bool> other_came{false};
    std::thread other([&] {
      ref::t_rank = 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      other_came = true;
      ref::CaptureTogether("start");
    });
    const bool together = ref::CaptureTogether("start");
    Expect(together && other_came, "a rank's capture starts only when every rank has come to it");
    other.join();
    bool outside = false;
    std::thread([&] { outside = ref::CaptureTogether("start"); }).join();  // t_rank -1: not a rank
    Expect(outside, "a thread that is not a rank does not wait for the ranks");
    ref::E().world = 1;
    ref::E().barrier.Reset(1);
  }
  if (cuco_program::proj::kProjected) {  // ncclCommInitAll on main's thread (rank 0's until a thread selects its GPU)
    namespace ref = cuco_program::ref;
    ref::E().world = 2;
    ncclComm_t all[2] = {};
    int user_rank = -1;
    Expect(ncclCommInitAll(all, 2, nullptr) == ncclSuccess && ncclCommUserRank(all[1], &user_rank) == ncclSuccess &&
               user_rank == 1,
           "ncclCommInitAll: GPU 1's communicator is rank 1's");
    // One copy of a program with a thread per GPU holds every rank: GPU 1's thread communicates as
    // rank 1. A copy per rank (one thread driving every GPU) leaves GPU 1's calls to rank 1's copy.
    Expect(cuco_program::proj::IsForeign(all[1]) == !cuco_program::proj::kThreads,
           cuco_program::proj::kThreads ? "a thread per GPU: GPU 1's communicator is the emulation's, not foreign"
                                        : "a copy per rank: GPU 1's communicator is foreign");
    ref::E().world = 1;
  }
  ncclRedOp_t op;
  float scale = 2;
  Expect(ncclRedOpCreatePreMulSum(&op, &scale, ncclFloat, ncclScalarHostImmediate, own) == ncclInvalidUsage,
         "ncclRedOpCreatePreMulSum: refused with a message, not handed to NCCL");
#endif
  // cuco's MPI: what error macros call.
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, cls = -1, v = 0, sv = 0;
  Expect(MPI_Error_string(MPI_ERR_OTHER, text, &len) == MPI_SUCCESS && len > 0 && len == static_cast<int>(std::strlen(text)),
         "MPI_Error_string");
  Expect(MPI_Error_class(MPI_ERR_OTHER, &cls) == MPI_SUCCESS && cls == MPI_ERR_OTHER, "MPI_Error_class");
  Expect(MPI_Get_version(&v, &sv) == MPI_SUCCESS && v >= 3, "MPI_Get_version");
  // A buffer shorter than MPI_MAX_PROCESSOR_NAME, as programs write them (`char name[50]`, mmb.c held
  // out in stop 72): built with glibc's buffer checks (_FORTIFY_SOURCE), a write of the maximum aborted.
  char host[50], short_text[96];
  Expect(MPI_Get_processor_name(host, &len) == MPI_SUCCESS && len > 0 && len == static_cast<int>(std::strlen(host)),
         "MPI_Get_processor_name");
  Expect(MPI_Error_string(MPI_ERR_OTHER, short_text, &len) == MPI_SUCCESS && len == static_cast<int>(std::strlen(short_text)),
         "MPI_Error_string into a buffer shorter than MPI_MAX_ERROR_STRING");
  // Groups (Blink-GPU's pp_Nccl.cu: a ping-pong communicator of ranks 0 and size-1, a first sender's
  // of rank 0 alone): a group of every rank makes the world, a rank outside it gets MPI_COMM_NULL.
  MPI_Group world_group, all, none;
  MPI_Comm made = -7, left = -7;
  std::vector<int> every(static_cast<size_t>(cuco_program::world()));
  for (int r = 0; r < cuco_program::world(); ++r) every[static_cast<size_t>(r)] = r;
  Expect(MPI_Comm_group(MPI_COMM_WORLD, &world_group) == MPI_SUCCESS &&
             MPI_Group_incl(world_group, cuco_program::world(), every.data(), &all) == MPI_SUCCESS &&
             MPI_Comm_create(MPI_COMM_WORLD, all, &made) == MPI_SUCCESS && made == MPI_COMM_WORLD,
         "MPI_Comm_create of a group of every rank: the world");
  Expect(MPI_Group_incl(world_group, 0, every.data(), &none) == MPI_SUCCESS &&
             MPI_Comm_create(MPI_COMM_WORLD, none, &left) == MPI_SUCCESS && left == MPI_COMM_NULL,
         "MPI_Comm_create of a group without this rank: MPI_COMM_NULL");
  // A communicator of some ranks answers its rank and size, and refuses collectives with a message.
  const MPI_Comm some = cuco_program::mpi::kGroupComm + cuco_program::mpi::NewGroup({cuco_program::rank()});
  int some_rank = -1, some_size = -1;
  Expect(MPI_Comm_rank(some, &some_rank) == MPI_SUCCESS && some_rank == 0 && MPI_Comm_size(some, &some_size) == MPI_SUCCESS &&
             some_size == 1,
         "a communicator of some ranks: its rank and size");
  Expect(MPI_Barrier(some) == MPI_ERR_COMM, "a collective on a communicator of some ranks is refused");
#ifdef CUCO_CHECK_REFERENCE  // (a candidate's messages need the harness's communicator, which is not here)
  // Point-to-point MPI to oneself (at one rank, a periodic halo's neighbour is the rank itself).
  int word = 5, echoed = 0;
  Expect(MPI_Send(&word, 1, MPI_INT, 0, 1, MPI_COMM_WORLD) == MPI_SUCCESS &&
             MPI_Recv(&echoed, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS && echoed == 5,
         "MPI_Send to oneself, then MPI_Recv, at rank 0 of one");
#endif
  // One-sided MPI (ParRes Kernels' prk_mpi.h wraps it) compiles and fails when run; a refused
  // request is MPI_REQUEST_NULL, which MPI_Wait and MPI_Waitall take.
  int cell = 0;
  MPI_Request req = 7, reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  Expect(MPI_Rput(&cell, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL, &req) == MPI_ERR_OTHER && req == MPI_REQUEST_NULL &&
             MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS && MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
         "MPI_Rput fails with a message; MPI_Wait of its null request succeeds");
  int dims[2] = {8, 8}, part[2] = {4, 4}, at[2] = {0, 4};
  MPI_Datatype sub = MPI_INT;
  Expect(MPI_Type_create_subarray(2, dims, part, at, MPI_ORDER_FORTRAN, MPI_DOUBLE, &sub) == MPI_ERR_OTHER &&
             sub == MPI_DATATYPE_NULL,
         "MPI_Type_create_subarray compiles and fails with a message");
  MPI_Win window = 0;
  void* base = nullptr;
  Expect(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &window) == MPI_ERR_OTHER && window == MPI_WIN_NULL,
         "MPI_Win_allocate fails with a message");
#ifdef CUCO_CHECK_REFERENCE  // (a candidate's collectives need the harness's communicator, which is not here)
  // Scans: this rank's own value (a world of one); an exclusive scan leaves rank 0's as it was.
  int scanned = -1, exscanned = -1, mine = 5;
  Expect(MPI_Scan(&mine, &scanned, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS && scanned == 5 &&
             MPI_Exscan(&mine, &exscanned, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS && exscanned == -1,
         "MPI_Scan and MPI_Exscan at rank 0 of one");
#endif
  // getenv as the harness answers it has getenv's type (Blink-GPU's otom_Nccl.cu: `char* s = getenv(...)`).
  char* path = cuco_program::program_getenv("PATH");
  Expect(path != nullptr, "program_getenv answers char*, as getenv does");
  std::string how;
  try {
    MPI_Abort(MPI_COMM_WORLD, 3);
  } catch (const cuco_program::ProgramExit& x) {
    how = x.call();
  }
  Expect(how == "MPI_Abort(3)", "MPI_Abort ends the program's thread with ProgramExit, not the process");
  // An error macro's message, printed to a buffered stdout before exit(), reaches the rank's log.
  char log_path[] = "/tmp/cuco-shims-exit-XXXXXX";
  const int log_fd = mkstemp(log_path);
  std::fflush(stdout);
  const int saved = dup(1);
  dup2(log_fd, 1);
  setvbuf(stdout, nullptr, _IOFBF, 1 << 16);
  try {
    std::printf("Failed: Cuda error main.cpp:12 'invalid device ordinal'\n");
    exit(EXIT_FAILURE);
  } catch (const cuco_program::ProgramExit& x) {
    how = x.call();
  }
  dup2(saved, 1);
  std::string logged(256, '\0');
  logged.resize(pread(log_fd, logged.data(), logged.size(), 0) > 0 ? std::strlen(logged.c_str()) : 0);
  close(log_fd);
  unlink(log_path);
  Expect(how == "exit(1)", "exit() ends the program's thread with ProgramExit");
  Expect(logged.find("invalid device ordinal") != std::string::npos, "the program's message before exit() is flushed");
#if defined(CUCO_CHECK_REFERENCE) && !defined(CUCO_CHECK_THREADS)
  CheckGridOfFourRanks();
  CheckFileOfFourRanks();
  CheckDeviceBuffersOfFourRanks();
  CheckPointToPointOfFourRanks(
      "host", [](size_t bytes) { return static_cast<void*>(new int[bytes / sizeof(int)]); },
      [](int* b, int i, int v) { b[i] = v; }, [](const int* b, int i) { return b[i]; });
  CheckPointToPointRefusals();
  CheckVaryingRootedOfFourRanks();
#endif
  if (failed == 0) std::printf("every check passed\n");
  return failed == 0 ? 0 : 1;
}
