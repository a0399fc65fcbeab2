// Host arrays of device pointers (`float** bufs = (float**)malloc(n * sizeof(float*))`,
// `float* bufs[N]`, `std::vector<float*> bufs(n)`): a process's buffers, one per GPU it drives (or
// per peer, per layer). Such an array is not one buffer, unless it holds one pointer: a program
// written to drive several GPUs per process, started with one (`nDev = atoi(argv[1])` given 1),
// keeps its one buffer in entry 0, which cuco init binds.
#pragma once

#include <string>

namespace cuco::scaffold_internal {

// Whether `code` declares `name` a host array of device pointers: `T** name`, `T* name[...]`, or a
// std::vector (std::array) of pointers.
bool IsPointerArray(const std::string& code, const std::string& name);

// The length `code` gives the pointer array `name`, as the program spells it ("nDev", "4"): the
// count of its malloc / calloc / new[], its declared extent, or its vector's constructor or resize;
// "" when none of them is found, or when two disagree.
std::string PointerArrayLength(const std::string& code, const std::string& name);

}  // namespace cuco::scaffold_internal
