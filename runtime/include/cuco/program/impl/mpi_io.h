// cuco/program/impl/mpi_io.h: MPI-IO in cuco's MPI stand-in (cuco/program/mpi.h includes it after
// its types), on POSIX files: each rank opens the file itself and reads or writes at its own
// offsets, which is what a program loading its rows of a matrix (a CG solver's MPI_File_read) or
// writing its part of a result does. The collective forms (_all) are the independent ones: every
// rank's data lands where MPI puts it. A view is a displacement and an element type (its file type
// that same type, or MPI_BYTE): offsets count elements past the displacement. A view of another file
// type (a strided subarray) is refused when set, with the reason on stderr; so are shared file
// pointers and nonblocking I/O.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

typedef long long MPI_Offset;

namespace cuco_program::mpi {
struct File {
  int fd = -1;
  int amode = 0;
  MPI_Offset position = 0;  // the individual file pointer, in elements of the view
  MPI_Offset displacement = 0;
  MPI_Offset element_bytes = 1;
  std::string path;
};
}  // namespace cuco_program::mpi

typedef cuco_program::mpi::File* MPI_File;
#define MPI_FILE_NULL (static_cast<MPI_File>(nullptr))
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_ERR_AMODE 21
#define MPI_ERR_FILE 30
#define MPI_ERR_IO 35
#define MPI_ERR_NO_SUCH_FILE 42

namespace cuco_program::mpi {
// The file's size in bytes, or -1.
inline MPI_Offset SizeOf(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? static_cast<MPI_Offset>(st.st_size) : -1;
}
// Moves `count` elements of `type` between `buf` and the file at byte `at`: all of them, or as
// many as the file holds (a read past its end, as MPI's, reads fewer); the bytes moved in status.
inline int Transfer(MPI_File fh, MPI_Offset at, void* buf, int count, MPI_Datatype type, MPI_Status* status, bool write) {
  if (fh == MPI_FILE_NULL || fh->fd < 0 || count < 0) return MPI_ERR_FILE;
  const size_t want = static_cast<size_t>(count) * TypeBytes(type);
  size_t done = 0;
  while (done < want) {
    char* p = static_cast<char*>(buf) + done;
    const ssize_t n = write ? ::pwrite(fh->fd, p, want - done, static_cast<off_t>(at + done))
                            : ::pread(fh->fd, p, want - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::fprintf(stderr, "cuco: MPI-IO %s of %s: %s\n", write ? "write" : "read", fh->path.c_str(), std::strerror(errno));
      return MPI_ERR_IO;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  if (status != MPI_STATUS_IGNORE) status->cuco_bytes = static_cast<long long>(done), status->MPI_ERROR = MPI_SUCCESS;
  return MPI_SUCCESS;
}
// The byte where element `offset` of the view lies.
inline MPI_Offset ByteOf(MPI_File fh, MPI_Offset offset) { return fh->displacement + offset * fh->element_bytes; }
// Transfer at the individual file pointer, which then moves past what was asked for.
inline int AtPointer(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Status* status, bool write) {
  if (fh == MPI_FILE_NULL) return MPI_ERR_FILE;
  const int rc = Transfer(fh, ByteOf(fh, fh->position), buf, count, type, status, write);
  if (rc == MPI_SUCCESS)
    fh->position += static_cast<MPI_Offset>(count) * static_cast<MPI_Offset>(TypeBytes(type)) / fh->element_bytes;
  return rc;
}
inline int IoRefused(const char* call) { return Refused(call, "this MPI-IO"); }
}  // namespace cuco_program::mpi

inline int MPI_File_open(MPI_Comm, const char* path, int amode, MPI_Info, MPI_File* fh) {
  *fh = MPI_FILE_NULL;
  const int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR) return MPI_ERR_AMODE;
  int flags = access == MPI_MODE_RDONLY ? O_RDONLY : access == MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
  if (amode & MPI_MODE_CREATE) flags |= O_CREAT;  // never O_EXCL: every rank opens it, one creates it
  const int fd = ::open(path, flags | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "cuco: MPI_File_open of %s: %s\n", path, std::strerror(errno));
    return errno == ENOENT ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_FILE;
  }
  *fh = new cuco_program::mpi::File{fd, amode, 0, 0, 1, path};
  if (amode & MPI_MODE_APPEND) (*fh)->position = cuco_program::mpi::SizeOf(fd);
  return MPI_SUCCESS;
}
inline int MPI_File_close(MPI_File* fh) {
  if (*fh == MPI_FILE_NULL) return MPI_ERR_FILE;
  ::close((*fh)->fd);
  if ((*fh)->amode & MPI_MODE_DELETE_ON_CLOSE) ::unlink((*fh)->path.c_str());  // each rank: one removes it
  delete *fh;
  *fh = MPI_FILE_NULL;
  return MPI_SUCCESS;
}
inline int MPI_File_delete(const char* path, MPI_Info) {
  return ::unlink(path) == 0 || errno == ENOENT ? MPI_SUCCESS : MPI_ERR_IO;
}
inline int MPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  if (fh == MPI_FILE_NULL) return MPI_ERR_FILE;
  *size = cuco_program::mpi::SizeOf(fh->fd);
  return *size < 0 ? MPI_ERR_IO : MPI_SUCCESS;
}
inline int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  return fh != MPI_FILE_NULL && ::ftruncate(fh->fd, static_cast<off_t>(size)) == 0 ? MPI_SUCCESS : MPI_ERR_IO;
}
inline int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  if (fh == MPI_FILE_NULL) return MPI_ERR_FILE;
  return cuco_program::mpi::SizeOf(fh->fd) >= size ? MPI_SUCCESS : MPI_File_set_size(fh, size);
}
inline int MPI_File_sync(MPI_File fh) { return fh != MPI_FILE_NULL && ::fsync(fh->fd) == 0 ? MPI_SUCCESS : MPI_ERR_IO; }
inline int MPI_File_get_amode(MPI_File fh, int* amode) {
  return fh == MPI_FILE_NULL ? MPI_ERR_FILE : ((*amode = fh->amode), MPI_SUCCESS);
}
inline int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* rep,
                             MPI_Info) {
  if (fh == MPI_FILE_NULL) return MPI_ERR_FILE;
  if ((filetype != etype && filetype != MPI_BYTE) || (rep != nullptr && std::strcmp(rep, "native") != 0))
    return cuco_program::mpi::IoRefused("MPI_File_set_view of a file type other than its element type (or a "
                                        "representation other than \"native\")");
  fh->displacement = disp;
  fh->element_bytes = static_cast<MPI_Offset>(cuco_program::mpi::TypeBytes(etype));
  fh->position = 0;
  return fh->element_bytes > 0 ? MPI_SUCCESS : MPI_ERR_ARG;
}
inline int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  if (fh == MPI_FILE_NULL) return MPI_ERR_FILE;
  MPI_Offset to = whence == MPI_SEEK_SET ? offset
                  : whence == MPI_SEEK_CUR ? fh->position + offset
                  : whence == MPI_SEEK_END
                      ? (cuco_program::mpi::SizeOf(fh->fd) - fh->displacement) / fh->element_bytes + offset
                      : -1;
  if (to < 0) return MPI_ERR_ARG;
  fh->position = to;
  return MPI_SUCCESS;
}
inline int MPI_File_seek_all(MPI_File fh, MPI_Offset offset, int whence) { return MPI_File_seek(fh, offset, whence); }
inline int MPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  return fh == MPI_FILE_NULL ? MPI_ERR_FILE : ((*offset = fh->position), MPI_SUCCESS);
}
inline int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  return fh == MPI_FILE_NULL ? MPI_ERR_FILE : ((*disp = cuco_program::mpi::ByteOf(fh, offset)), MPI_SUCCESS);
}
inline int MPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Status* status) {
  return cuco_program::mpi::AtPointer(fh, buf, count, type, status, false);
}
inline int MPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype type, MPI_Status* status) {
  return MPI_File_read(fh, buf, count, type, status);
}
inline int MPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Status* status) {
  return cuco_program::mpi::AtPointer(fh, const_cast<void*>(buf), count, type, status, true);
}
inline int MPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype type, MPI_Status* status) {
  return MPI_File_write(fh, buf, count, type, status);
}
inline int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype type, MPI_Status* status) {
  if (fh == MPI_FILE_NULL) return MPI_ERR_FILE;
  return cuco_program::mpi::Transfer(fh, cuco_program::mpi::ByteOf(fh, offset), buf, count, type, status, false);
}
inline int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype type,
                                MPI_Status* status) {
  return MPI_File_read_at(fh, offset, buf, count, type, status);
}
inline int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype type,
                             MPI_Status* status) {
  if (fh == MPI_FILE_NULL) return MPI_ERR_FILE;
  return cuco_program::mpi::Transfer(fh, cuco_program::mpi::ByteOf(fh, offset), const_cast<void*>(buf), count, type,
                                     status, true);
}
inline int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype type,
                                 MPI_Status* status) {
  return MPI_File_write_at(fh, offset, buf, count, type, status);
}
inline int MPI_File_read_shared(MPI_File, void*, int, MPI_Datatype, MPI_Status*) {
  return cuco_program::mpi::IoRefused("MPI_File_read_shared");
}
inline int MPI_File_write_shared(MPI_File, const void*, int, MPI_Datatype, MPI_Status*) {
  return cuco_program::mpi::IoRefused("MPI_File_write_shared");
}
inline int MPI_File_iread_at(MPI_File, MPI_Offset, void*, int, MPI_Datatype, MPI_Request* req) {
  *req = MPI_REQUEST_NULL;
  return cuco_program::mpi::IoRefused("MPI_File_iread_at");
}
inline int MPI_File_iwrite_at(MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Request* req) {
  *req = MPI_REQUEST_NULL;
  return cuco_program::mpi::IoRefused("MPI_File_iwrite_at");
}
// What a read or write moved, in elements of `type` (MPI_UNDEFINED where not a whole number).
inline int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count) {
  const long long bytes = cuco_program::mpi::DataBytes(type);
  *count = bytes > 0 && status->cuco_bytes % bytes == 0 ? static_cast<int>(status->cuco_bytes / bytes) : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
