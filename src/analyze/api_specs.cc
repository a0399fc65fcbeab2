#include "analyze/api_specs.h"

namespace cuco::analyze_internal {

const std::map<std::string, ApiSpec>& Specs() {
  static const std::map<std::string, ApiSpec> m = [] {
    std::map<std::string, ApiSpec> s;
    auto coll = [&](const char* n, int send, int recv, int count, int dt, int op, int root, int comm, int stream) {
      ApiSpec a{"collective"};
      a.send = send, a.recv = recv, a.count = count, a.datatype = dt, a.op = op, a.root = root, a.comm = comm,
      a.stream = stream;
      a.reads = {send};
      a.writes = {recv};
      s[n] = a;
    };
    coll("ncclAllReduce", 0, 1, 2, 3, 4, -1, 5, 6);
    coll("ncclAllGather", 0, 1, 2, 3, -1, -1, 4, 5);
    coll("ncclReduceScatter", 0, 1, 2, 3, 4, -1, 5, 6);
    coll("ncclBroadcast", 0, 1, 2, 3, -1, 4, 5, 6);
    coll("ncclReduce", 0, 1, 2, 3, 4, 5, 6, 7);
    coll("ncclAlltoAll", 0, 1, 2, 3, -1, -1, 4, 5);
    coll("ncclGather", 0, 1, 2, 3, -1, 4, 5, 6);
    coll("ncclScatter", 0, 1, 2, 3, -1, 4, 5, 6);
    coll("ncclBcast", 0, 0, 1, 2, -1, 3, 4, 5);
    ApiSpec send{"p2p"};
    send.send = 0, send.count = 1, send.datatype = 2, send.peer = 3, send.comm = 4, send.stream = 5, send.reads = {0};
    s["ncclSend"] = send;
    ApiSpec recv{"p2p"};
    recv.recv = 0, recv.count = 1, recv.datatype = 2, recv.peer = 3, recv.comm = 4, recv.stream = 5, recv.writes = {0};
    s["ncclRecv"] = recv;
    s["ncclGroupStart"] = ApiSpec{"group"};
    s["ncclGroupEnd"] = ApiSpec{"group"};
    ApiSpec uid{"comm_setup"};
    uid.assigns = 0;
    s["ncclGetUniqueId"] = uid;
    ApiSpec init{"comm_setup"};
    init.assigns = 0;
    s["ncclCommInitRank"] = init;
    s["ncclCommInitRankConfig"] = init;
    s["ncclCommInitAll"] = init;
    ApiSpec split{"comm_setup"};
    split.comm = 0, split.assigns = 3;
    s["ncclCommSplit"] = split;
    ApiSpec win{"window"};
    win.comm = 0, win.buffer = 1, win.assigns = 3;
    s["ncclCommWindowRegister"] = win;
    ApiSpec dev{"device_comm"};
    dev.comm = 0, dev.assigns = 2;
    s["ncclDevCommCreate"] = dev;
    ApiSpec alloc{"alloc"};
    alloc.assigns = 0;
    for (const char* n : {"cudaMalloc", "ncclMemAlloc", "cudaMallocHost", "cudaHostAlloc", "cudaMallocManaged"})
      s[n] = alloc;
    alloc.stream = 2;
    s["cudaMallocAsync"] = alloc;
    ApiSpec gemm_ex{"gemm"};
    gemm_ex.reads = {7, 10}, gemm_ex.writes = {14};
    s["cublasGemmEx"] = gemm_ex;
    ApiSpec gemm_batched{"gemm"};
    gemm_batched.reads = {7, 11}, gemm_batched.writes = {16};
    s["cublasGemmStridedBatchedEx"] = gemm_batched;
    ApiSpec gemm{"gemm"};
    gemm.reads = {7, 9}, gemm.writes = {12};
    for (const char* n : {"cublasSgemm", "cublasDgemm", "cublasHgemm"}) s[n] = gemm;
    ApiSpec strided{"gemm"};
    strided.reads = {7, 10}, strided.writes = {14};
    for (const char* n : {"cublasSgemmStridedBatched", "cublasDgemmStridedBatched", "cublasHgemmStridedBatched"})
      s[n] = strided;
    ApiSpec axpy{"gemm"};  // y = alpha x + y on the handle's stream: reads x and y, writes y
    axpy.reads = {3, 5}, axpy.writes = {5};
    for (const char* n : {"cublasSaxpy", "cublasDaxpy"}) s[n] = axpy;
    ApiSpec lt{"gemm"};
    lt.reads = {3, 5, 8}, lt.writes = {10}, lt.stream = 15;
    s["cublasLtMatmul"] = lt;
    ApiSpec setstream{"stream"};
    setstream.stream = 1, setstream.buffer = 0;
    s["cublasSetStream"] = setstream;
    ApiSpec copy{"copy"};
    copy.reads = {1}, copy.writes = {0}, copy.count = 2, copy.stream = 4, copy.direction = 3;
    s["cudaMemcpyAsync"] = copy;
    copy.stream = -1;
    s["cudaMemcpy"] = copy;
    ApiSpec copy2d{"copy"};  // (dst, dpitch, src, spitch, width, height, kind[, stream]): a halo's strided rows
    copy2d.reads = {2}, copy2d.writes = {0}, copy2d.stream = 7, copy2d.direction = 6;
    s["cudaMemcpy2DAsync"] = copy2d;
    copy2d.stream = -1;
    s["cudaMemcpy2D"] = copy2d;
    ApiSpec peer{"copy"};
    peer.reads = {2}, peer.writes = {0}, peer.count = 4, peer.stream = 5;
    s["cudaMemcpyPeerAsync"] = peer;
    peer.stream = -1;
    s["cudaMemcpyPeer"] = peer;
    ApiSpec memset{"copy"};
    memset.writes = {0}, memset.count = 2, memset.stream = 3;
    s["cudaMemsetAsync"] = memset;
    memset.stream = -1;
    s["cudaMemset"] = memset;
    ApiSpec memset2d{"copy"};  // (ptr, pitch, value, width, height[, stream])
    memset2d.writes = {0}, memset2d.stream = 5;
    s["cudaMemset2DAsync"] = memset2d;
    memset2d.stream = -1;
    s["cudaMemset2D"] = memset2d;
    ApiSpec sc{"stream"};
    sc.assigns = 0;
    for (const char* n : {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority"}) s[n] = sc;
    ApiSpec ec{"event"};
    ec.assigns = 0;
    for (const char* n : {"cudaEventCreate", "cudaEventCreateWithFlags"}) s[n] = ec;
    ApiSpec rec{"event"};
    rec.buffer = 0, rec.stream = 1;
    s["cudaEventRecord"] = rec;
    ApiSpec wait{"event"};
    wait.stream = 0, wait.buffer = 1;
    s["cudaStreamWaitEvent"] = wait;
    ApiSpec ss{"sync"};
    ss.stream = 0;
    s["cudaStreamSynchronize"] = ss;
    s["cudaDeviceSynchronize"] = ApiSpec{"sync"};
    ApiSpec es{"sync"};
    es.buffer = 0;
    s["cudaEventSynchronize"] = es;
    s["MPI_Barrier"] = ApiSpec{"sync"};
    // MPI's calls that move data: the program's communication where it makes no NCCL call (a
    // CUDA-aware MPI program; analysis.cc, PromoteMpiCommunication), else left out of the ops.
    ApiSpec mpi_send{"mpi_p2p"};  // (buf, count, type, dest, tag, comm[, request])
    mpi_send.send = 0, mpi_send.count = 1, mpi_send.datatype = 2, mpi_send.peer = 3, mpi_send.comm = 5, mpi_send.reads = {0};
    for (const char* n : {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Isend", "MPI_Issend"}) s[n] = mpi_send;
    ApiSpec mpi_recv{"mpi_p2p"};  // (buf, count, type, source, tag, comm, status or request)
    mpi_recv.recv = 0, mpi_recv.count = 1, mpi_recv.datatype = 2, mpi_recv.peer = 3, mpi_recv.comm = 5, mpi_recv.writes = {0};
    for (const char* n : {"MPI_Recv", "MPI_Irecv"}) s[n] = mpi_recv;
    ApiSpec sendrecv{"mpi_p2p"};  // (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status)
    sendrecv.send = 0, sendrecv.recv = 5, sendrecv.count = 1, sendrecv.datatype = 2, sendrecv.peer = 3, sendrecv.comm = 10;
    sendrecv.reads = {0}, sendrecv.writes = {5};
    s["MPI_Sendrecv"] = sendrecv;
    ApiSpec replace{"mpi_p2p"};  // (buf, count, type, dest, stag, source, rtag, comm, status)
    replace.send = 0, replace.recv = 0, replace.count = 1, replace.datatype = 2, replace.peer = 3, replace.comm = 7;
    replace.reads = {0}, replace.writes = {0};
    s["MPI_Sendrecv_replace"] = replace;
    auto mpi_coll = [&](const char* n, int send, int recv, int count, int dt, int op, int root, int comm) {
      ApiSpec a{"mpi_collective"};
      a.send = send, a.recv = recv, a.count = count, a.datatype = dt, a.op = op, a.root = root, a.comm = comm;
      a.reads = {send};
      a.writes = {recv};
      s[n] = a;
    };
    mpi_coll("MPI_Allreduce", 0, 1, 2, 3, 4, -1, 5);
    mpi_coll("MPI_Reduce", 0, 1, 2, 3, 4, 5, 6);
    mpi_coll("MPI_Bcast", 0, 0, 1, 2, -1, 3, 4);
    mpi_coll("MPI_Allgather", 0, 3, 1, 2, -1, -1, 6);
    mpi_coll("MPI_Alltoall", 0, 3, 1, 2, -1, -1, 6);
    mpi_coll("MPI_Reduce_scatter_block", 0, 1, 2, 3, 4, -1, 5);
    mpi_coll("MPI_Gather", 0, 3, 1, 2, -1, 6, 7);
    mpi_coll("MPI_Scatter", 0, 3, 1, 2, -1, 6, 7);
    // The v-forms: counts in arrays (no one count).
    mpi_coll("MPI_Allgatherv", 0, 3, 1, 2, -1, -1, 7);
    mpi_coll("MPI_Gatherv", 0, 3, 1, 2, -1, 7, 8);
    mpi_coll("MPI_Scatterv", 0, 4, 5, 6, -1, 7, 8);
    mpi_coll("MPI_Alltoallv", 0, 4, -1, 3, -1, -1, 8);
    mpi_coll("MPI_Reduce_scatter", 0, 1, -1, 3, 4, -1, 5);
    // The nonblocking forms (a request last), run at their call by cuco's MPI.
    mpi_coll("MPI_Iallreduce", 0, 1, 2, 3, 4, -1, 5);
    mpi_coll("MPI_Ireduce", 0, 1, 2, 3, 4, 5, 6);
    mpi_coll("MPI_Ibcast", 0, 0, 1, 2, -1, 3, 4);
    mpi_coll("MPI_Iallgather", 0, 3, 1, 2, -1, -1, 6);
    mpi_coll("MPI_Ialltoall", 0, 3, 1, 2, -1, -1, 6);
    for (const char* n : {"MPI_Init", "MPI_Init_thread", "MPI_Finalize"}) s[n] = ApiSpec{"mpi"};
    return s;
  }();
  return m;
}

}  // namespace cuco::analyze_internal
