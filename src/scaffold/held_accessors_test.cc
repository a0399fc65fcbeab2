#include "scaffold/held_accessors.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

TEST(HeldAccessors, OneAccessorAndSizeQueriesAreHeld) {
  const std::string body = "{ ncclAllGather(send.data(), recv.data(), send.size(), ncclFloat, comm, s); }";
  std::string why;
  const auto held = HoldAccessor("send", body, &why);
  ASSERT_TRUE(held) << why;
  EXPECT_EQ(held->expr, "send.data()");
  EXPECT_EQ(held->local, "cuco_held_send");
  EXPECT_EQ(UseHeld(body, {*held}), "{ ncclAllGather(cuco_held_send, recv.data(), send.size(), ncclFloat, comm, s); }");
}

TEST(HeldAccessors, ThrustRawPointerCastIsPartOfTheAccessor) {
  const std::string body =
      "{\n  ncclAllReduce(thrust::raw_pointer_cast(send.data()), thrust::raw_pointer_cast(recv.data()), n, t, o, c, s);\n"
      "  k<<<1, 1>>>(thrust::raw_pointer_cast(recv.data()) + 4);\n}";
  std::string why;
  const auto recv = HoldAccessor("recv", body, &why);
  ASSERT_TRUE(recv) << why;
  EXPECT_EQ(recv->expr, "thrust::raw_pointer_cast(recv.data())");
  const auto send = HoldAccessor("send", body, &why);
  ASSERT_TRUE(send) << why;
  EXPECT_EQ(UseHeld(body, {*send, *recv}),
            "{\n  ncclAllReduce(cuco_held_send, cuco_held_recv, n, t, o, c, s);\n  k<<<1, 1>>>(cuco_held_recv + 4);\n}");
  EXPECT_EQ(HeldDeclarations({*send}), "auto* cuco_held_send = thrust::raw_pointer_cast(send.data());\n  ");
}

// DeepBench's Tensor hands out its device pointer as `begin()` (`T* begin() const`): an accessor. A
// container's begin() is an iterator: no pointer to hold.
TEST(HeldAccessors, ABeginReturningAPointerIsAnAccessorAnIteratorIsNot) {
  const std::string body = "{ ncclAllReduce((void*)data.begin(), (void*)(data.begin() + n), n, t, o, c, s); }";
  const std::string tensor = "template <typename T> class Tensor {\n  T* begin() const { return ptr_.get(); }\n};";
  std::string why;
  const auto held = HoldAccessor("data", body, &why, tensor);
  ASSERT_TRUE(held) << why;
  EXPECT_EQ(UseHeld(body, {*held}),
            "{ ncclAllReduce((void*)cuco_held_data, (void*)(cuco_held_data + n), n, t, o, c, s); }");
  EXPECT_FALSE(HoldAccessor("data", body, &why, "thrust::device_vector<float> data(n);"));
  EXPECT_NE(why.find("an iterator"), std::string::npos) << why;
}

TEST(HeldAccessors, ArrowAndUnqualifiedCast) {
  std::string why;
  const auto p = HoldAccessor("p", "{ f(raw_pointer_cast(p->get())); }", &why);
  ASSERT_TRUE(p) << why;
  EXPECT_EQ(p->expr, "raw_pointer_cast(p->get())");
}

TEST(HeldAccessors, OnlyALambdaCapturingByReferenceByDefaultSeesARebind) {
  EXPECT_TRUE(CapturesByReference("auto step = [&](int c) { f(a.get()); };"));
  EXPECT_TRUE(CapturesByReference("auto step = [&, n]() { f(a.get(), n); };"));
  EXPECT_FALSE(CapturesByReference("auto step = [=]() { f(a.get()); };"));
  EXPECT_FALSE(CapturesByReference("auto step = [&a]() { f(a.get()); };"));
  EXPECT_FALSE(CapturesByReference("auto step = []() {};"));
}

TEST(HeldAccessors, APointerALambdaUsesIsDeclaredInFrontOfTheFirstLambda) {
  const std::string text =
      "int main() {\n  Buf a(n), b(n);\n  auto fill = [&]() { k<<<1, 1>>>(a.get()); };\n"
      "  auto step = [&](int c) { f(a.get() + c, b.get()); };\n  for (int i = 0; i < 9; ++i) step(i);\n}\n";
  const size_t fill = text.find("auto fill"), fill_end = text.find('\n', fill);
  const size_t step = text.find("auto step"), step_end = text.find('\n', step);
  std::string why;
  const auto a = HoldAccessor("a", "{ step(i); }\n" + text.substr(fill, step_end - fill), &why);
  const auto b = HoldAccessor("b", "{ step(i); }\n" + text.substr(step, step_end - step), &why);
  ASSERT_TRUE(a && b) << why;
  const HeldInLambdas r = UseHeldInLambdas(text, {{fill, fill_end}, {step, step_end}}, {*a, *b});
  EXPECT_EQ(r.text,
            "int main() {\n  Buf a(n), b(n);\n  auto* cuco_held_a = a.get();\n  auto fill = [&]() { "
            "k<<<1, 1>>>(cuco_held_a); };\n  auto* cuco_held_b = b.get();\n  auto step = [&](int c) { "
            "f(cuco_held_a + c, cuco_held_b); };\n  for (int i = 0; i < 9; ++i) step(i);\n}\n");
  EXPECT_EQ(r.declared, (std::set<std::string>{"a", "b"}));
  ASSERT_EQ(r.lambdas.size(), 2u);
  EXPECT_EQ(r.lambdas[1], "auto step = [&](int c) { f(cuco_held_a + c, cuco_held_b); };");
  EXPECT_EQ(r.after, step_end);  // the loop, after the lambdas, moves by the declarations' bytes
  EXPECT_EQ(r.text.substr(text.find("  for") + r.shift, 5), "  for");
}

// One of two buffers chosen by a ternary: the accessor after its `:` is held too (before, the
// pointer was declared but the program's own buffer kept).
TEST(HeldAccessors, TheAccessorAfterATernarysColonIsHeld) {
  std::string why;
  const auto pong = HoldAccessor("pong", "{ float* c = (b == 0) ? ping.get() : pong.get(); }", &why);
  ASSERT_TRUE(pong) << why;
  EXPECT_EQ(UseHeld("{ float* c = (b == 0) ? ping.get() : pong.get(); f(ns::pong.get(), s.pong.get(), q->pong.get()); }",
                    {*pong}),
            "{ float* c = (b == 0) ? ping.get() : cuco_held_pong; f(ns::pong.get(), s.pong.get(), q->pong.get()); }");
}

TEST(HeldAccessors, AnObjectUsedOtherwiseIsNotHeld) {
  std::string why;
  EXPECT_FALSE(HoldAccessor("v", "{ v.resize(n); f(v.data()); }", &why));
  EXPECT_NE(why.find("otherwise than through one accessor"), std::string::npos) << why;
  EXPECT_FALSE(HoldAccessor("v", "{ f(v.data()); g(v.get()); }", &why));
  EXPECT_NE(why.find("two accessors"), std::string::npos) << why;
  EXPECT_FALSE(HoldAccessor("v", "{ f(v.data().get()); }", &why));  // a device_ptr's member: not a raw pointer
  EXPECT_NE(why.find("a member of what `v`'s accessor returns"), std::string::npos) << why;
  EXPECT_FALSE(HoldAccessor("v", "{ f(v[0]); }", &why));
  EXPECT_FALSE(HoldAccessor("v", "{ f(n); }", &why));
  EXPECT_NE(why.find("no accessor"), std::string::npos) << why;
}

TEST(HeldAccessors, AMemberOfTheSameNameIsAnotherObject) {
  std::string why;
  const auto v = HoldAccessor("v", "{ f(v.data(), s.v, p->v); }", &why);
  ASSERT_TRUE(v) << why;
  EXPECT_EQ(UseHeld("{ f(v.data(), s.v.data()); }", {*v}), "{ f(cuco_held_v, s.v.data()); }");
}

}  // namespace
}  // namespace cuco::scaffold_internal
