// A buffer the iteration reaches through an object it hands whole to functions (`diffusion(x_new, b)`
// with `Field x_new;`, a class keeping its device storage behind `double* device_data()`): no pointer
// variable names it and the loop calls no accessor (held_accessors.h), so the harness binds it by
// copy through that accessor, `cuco_bind.inout_copy("x_new", x_new.device_data())`: the harness's
// input is copied into the object's storage before each iteration and its output out of it after,
// the object keeping its storage. Contract: pure functions of the text.
#pragma once

#include <optional>
#include <string>

namespace cuco::scaffold_internal {

// `object.M()` where `program_code` (every file of the program) declares `object` an object (not a
// pointer) of a class or struct that declares a method M returning a pointer, M a device accessor's
// name (device_data, device_ptr, dev_ptr, d_data, d_ptr, gpu_data, gpu_ptr, cuda_data); nullopt
// otherwise (a host accessor, `data()`, may hold host memory).
std::optional<std::string> ObjectDeviceStorage(const std::string& object, const std::string& program_code);

}  // namespace cuco::scaffold_internal
