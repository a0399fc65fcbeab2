#include <cuco/program/program.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace cuco_program {
namespace {

// What Bind was handed, as each side's binder sees it.
struct Seen {
  std::string name;
  bool by_copy, host;
  size_t host_bytes;
  void* address;
  bool slot_is_variable;
};

class RecordingBinder : public Binder {
 public:
  explicit RecordingBinder(void** variable) : variable_(variable) {}
  std::vector<Seen> seen;

 protected:
  void Bind(const char* name, Role, void** slot, size_t, Elem) override {
    seen.push_back({name, by_copy_, host_, host_bytes_, *slot, slot == variable_});
  }

 private:
  void** variable_;
};

// wave3d's MPI buffers are a class's members made by cudaMallocHost, bound like device memory
// (`input("up1_array_h", up1.array_h)`): a pointer into a noted pinned range is host memory of the
// bytes from there to the range's end, by copy, and the program's variable is not repointed.
TEST(PinnedHost, APinnedPointerBoundLikeDeviceMemoryIsAHostBindOfItsRangesBytes) {
  std::vector<double> storage(100);
  pinned::Note(storage.data(), storage.size() * sizeof(double));
  double* array_h = storage.data() + 10;
  RecordingBinder b(reinterpret_cast<void**>(&array_h));
  b.input("up1_array_h", array_h);
  ASSERT_EQ(b.seen.size(), 1u);
  EXPECT_TRUE(b.seen[0].by_copy);
  EXPECT_TRUE(b.seen[0].host);
  EXPECT_EQ(b.seen[0].host_bytes, 90 * sizeof(double));
  EXPECT_EQ(b.seen[0].address, array_h);
  EXPECT_FALSE(b.seen[0].slot_is_variable);
  EXPECT_EQ(array_h, storage.data() + 10);
  // The same through *_copy: still host memory of its range.
  b.inout_copy("again", array_h);
  EXPECT_TRUE(b.seen[1].host);
  EXPECT_EQ(b.seen[1].host_bytes, 90 * sizeof(double));
  pinned::Forget(storage.data());
  EXPECT_EQ(pinned::BytesFrom(array_h), 0u);
}

// Memory no stand-in pinned (device memory, a freed range, one past the end) binds as before.
TEST(PinnedHost, OtherMemoryBindsAsBefore) {
  std::vector<float> storage(8);
  pinned::Note(storage.data(), 4 * sizeof(float));
  float* past = storage.data() + 4;
  RecordingBinder b(reinterpret_cast<void**>(&past));
  b.output("past_the_end", past);
  ASSERT_EQ(b.seen.size(), 1u);
  EXPECT_FALSE(b.seen[0].by_copy);
  EXPECT_FALSE(b.seen[0].host);
  EXPECT_TRUE(b.seen[0].slot_is_variable);
  EXPECT_EQ(pinned::BytesFrom(storage.data() + 3), sizeof(float));
  pinned::Forget(storage.data());
  float* none = nullptr;
  RecordingBinder n(reinterpret_cast<void**>(&none));
  n.input("null", none);
  EXPECT_FALSE(n.seen[0].host);
}

}  // namespace
}  // namespace cuco_program
