// A stand-in for <mpi.h> with just what workloads/gemm_reducescatter_program/program.cu uses, so
// that the program's MPI-free parts can be compile-checked on machines without MPI
// (tests/gpu/build_harness_local.sh compiles it to an object file only; it is never linked).
// On the GPU machines the real header comes from Open MPI: mpicc --showme:compile.
#pragma once
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Info;
#define MPI_COMM_WORLD 0
#define MPI_COMM_TYPE_SHARED 1
#define MPI_INFO_NULL 0
#define MPI_BYTE 1
#define MPI_INT 2
#define MPI_DOUBLE 3
#define MPI_UINT64_T 4
#define MPI_MIN 1
#define MPI_MAX 2
#define MPI_SUM 3
#ifdef __cplusplus
extern "C" {
#endif
int MPI_Init(int* argc, char*** argv);
int MPI_Finalize(void);
int MPI_Abort(MPI_Comm comm, int code);
int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);
int MPI_Comm_free(MPI_Comm* comm);
int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int MPI_Barrier(MPI_Comm comm);
int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
#ifdef __cplusplus
}
#endif
