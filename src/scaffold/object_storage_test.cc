#include "scaffold/object_storage.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// eth-cscs's miniapp: `Field` objects, global and local, handed whole to the solver's functions.
const char* kField =
    "class Field {\n public:\n  Field() : host_ptr_(nullptr), device_ptr_(nullptr) {}\n"
    "  Field(int x, int y) { init(x, y); }\n  void init(int x, int y);\n"
    "  double* host_data() { return host_ptr_; }\n"
    "  double*       device_data()       { return device_ptr_; }\n"
    "  const double* device_data() const { return device_ptr_; }\n private:\n  double *host_ptr_, *device_ptr_;\n};\n"
    "extern Field x_new;\nField x_new;\nstruct Host { float* data() { return p; } float* p; };\n";

TEST(ObjectStorage, AnObjectOfAClassWithADeviceAccessorIsBoundThroughIt) {
  const std::string code = std::string(kField) + "int main() {\n  Field b(4, 4);\n  Field* p = &b;\n  Host h;\n}\n";
  EXPECT_EQ(ObjectDeviceStorage("x_new", code), "x_new.device_data()");  // a global, extern in a header
  EXPECT_EQ(ObjectDeviceStorage("b", code), "b.device_data()");          // a local made by its constructor
  EXPECT_EQ(ObjectDeviceStorage("p", code), std::nullopt);              // a pointer to one: not an object
  EXPECT_EQ(ObjectDeviceStorage("h", code), std::nullopt);              // only a host accessor, `data()`
  EXPECT_EQ(ObjectDeviceStorage("missing", code), std::nullopt);
  EXPECT_EQ(ObjectDeviceStorage("b.x", code), std::nullopt);            // not a name
  // Declared of two types (a helper's parameter of the name is a reference: `Field& u`, not counted).
  EXPECT_EQ(ObjectDeviceStorage("u", std::string(kField) + "Field u;\nHost u;\n"), std::nullopt);
}

// aleksgri/3D-wave-equation-MPI-CUDA's `Grid grids[3];`: entries of an array of objects whose class
// hands out the storage it cudaMallocs through a method of another name; a method returning a
// member the class does not allocate on the device is no accessor.
TEST(ObjectStorage, AMethodReturningTheMemberTheClassCudaMallocsIsTheAccessor) {
  const std::string code =
      "class Grid {\n  double* array_h;\n  double* array_d;\n public:\n"
      "  void init(int n) { cudaMalloc(&array_d, n * 8); cudaMallocHost(&array_h, n * 8); }\n"
      "  double* get_ptr_device() { return array_d; }\n  double* get_ptr_host() { return array_h; }\n};\n"
      "Grid grids[3];\nvoid f() {\n  grids[0].init(4);  // init on device\n  grids[1].init(4);\n}\nclass Host { double* p; public: double* get() { return p; } };\nHost h;\n";
  EXPECT_EQ(ObjectDeviceStorage("grids[0]", code), "grids[0].get_ptr_device()");
  EXPECT_EQ(ObjectDeviceStorage("h", code), std::nullopt);
}

}  // namespace
}  // namespace cuco::scaffold_internal
