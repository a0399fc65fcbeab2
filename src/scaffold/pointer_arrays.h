// Host arrays of device pointers (`float** bufs = (float**)malloc(n * sizeof(float*))`,
// `float* bufs[N]`, `std::vector<float*> bufs(n)`): a process's buffers, one per GPU it drives (or
// per peer, per layer). Such an array is not one buffer, unless it holds one pointer: a program
// written to drive several GPUs per process, started with one (`nDev = atoi(argv[1])` given 1),
// keeps its one buffer in entry 0, which cuco init binds.
#pragma once

#include <optional>
#include <string>

namespace cuco::scaffold_internal {

// Whether `code` declares `name` a host array of device pointers: `T** name`, `T* name[...]`, or a
// std::vector (std::array) of pointers.
bool IsPointerArray(const std::string& code, const std::string& name);

// The length `code` gives the pointer array `name`, as the program spells it ("nDev", "4"): the
// count of its malloc / calloc / new[], its declared extent, or its vector's constructor or resize;
// "" when none of them is found, or when two disagree.
std::string PointerArrayLength(const std::string& code, const std::string& name);

// A member array of device pointers: `chain` (`args->recvbuffs`, `pool.buffers`) ends in a field
// that `code` (the program's files, headers included) declares a pointer array (`void** recvbuffs;`,
// `float* buffers[2];`, `std::vector<float*> bufs;`) in a struct or class. `length`: how many
// pointers it holds as the program spells it: the field's own extent or allocation, or the length of
// the program's array assigned to it (`args.recvbuffs = recvbuffs;`, `t.args.recvbuffs =
// recvbuffs.data() + t * nGpus;`); "" when none is found or two disagree. nullopt for a chain that
// is no member, or whose field is no pointer array.
struct MemberPointerArray {
  std::string field;   // `recvbuffs`
  std::string length;  // `nGpus * nThreads`, or ""
};
std::optional<MemberPointerArray> MemberPointerArrayOf(const std::string& chain, const std::string& code);

}  // namespace cuco::scaffold_internal
