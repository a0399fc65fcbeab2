// The cuDNN frontend behind cuco/impl/cudnn_sdpa.h: one SDPA graph per call shape, built with
// heuristics mode A and cached; a workspace grown to the largest. Compiled once per toolchain
// (the frontend's headers take about a minute) and linked with -lcudnn -lnvrtc.
#include <cuco/impl/cudnn_sdpa.h>

#include <cmath>
#include <cstring>  // before the frontend, whose shim uses std::strlen without including it
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>

#define CUDNN_FRONTEND_SKIP_JSON_LIB  // no graph serialisation: keeps the frontend's own JSON out
#pragma nv_diag_suppress 128          // "loop is not reachable" in the frontend's error macros
#include <cudnn_frontend.h>
#pragma nv_diag_default 128

namespace cuco {
namespace codesign {

namespace fe = cudnn_frontend;

struct CudnnSdpa::Impl {
  enum : int64_t { kQ = 1, kK, kV, kO, kLse };
  // sq, sk, hq, hkv, d, q / k / v token strides, band, right bound, LSE head stride (0: none), scale
  using Key = std::tuple<int64_t, int64_t, int, int, int, int64_t, int64_t, int64_t, bool, int64_t, int64_t, float>;
  struct Plan {
    std::shared_ptr<fe::graph::Graph> graph;
    int64_t workspace = 0;
  };
  cudnnHandle_t handle = nullptr;
  std::map<Key, Plan> plans;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;

  static Status Check(fe::error_t e, const char* step) {
    if (e.is_good()) return Status::Ok();
    return Status::Error(std::string("cuDNN SDPA ") + step + ": " + e.get_message());
  }

  Status Build(const Key& key, Plan* out) {
    const auto [sq, sk, hq, hkv, d, qs, ks, vs, band, right_bound, lse_stride, scale] = key;
    const bool stats = lse_stride > 0;
    auto g = std::make_shared<fe::graph::Graph>();
    g->set_io_data_type(fe::DataType_t::BFLOAT16)
        .set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    // Dims (batch, heads, tokens, d); the token-major memory is in the strides.
    auto tensor = [&](const char* name, int64_t uid, int64_t heads, int64_t tokens, int64_t stride) {
      return g->tensor(fe::graph::Tensor_attributes()
                           .set_name(name)
                           .set_uid(uid)
                           .set_dim({1, heads, tokens, d})
                           .set_stride({tokens * stride, d, stride, 1}));
    };
    auto q = tensor("Q", kQ, hq, sq, qs);
    auto k = tensor("K", kK, hkv, sk, ks);
    auto v = tensor("V", kV, hkv, sk, vs);
    auto opts = fe::graph::SDPA_attributes().set_name("cuco_sdpa").set_generate_stats(stats).set_attn_scale(scale);
    if (band) {  // the two plain causal forms where they apply (the best-supported), else a band
      if (right_bound == sk - sq) {
        opts.set_diagonal_alignment(fe::DiagonalAlignment_t::BOTTOM_RIGHT).set_diagonal_band_right_bound(0);
      } else {
        opts.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT).set_diagonal_band_right_bound(static_cast<int>(right_bound));
      }
    }
    auto [o, lse] = g->sdpa(q, k, v, opts);
    o->set_output(true).set_uid(kO).set_dim({1, hq, sq, d}).set_stride({sq * hq * d, d, int64_t{hq} * d, 1});
    if (stats)
      lse->set_output(true).set_uid(kLse).set_data_type(fe::DataType_t::FLOAT).set_dim({1, hq, sq, 1}).set_stride(
          {hq * lse_stride, lse_stride, 1, 1});
    if (Status s = Check(g->validate(), "validate"); !s.ok()) return s;
    if (Status s = Check(g->build_operation_graph(handle), "build_operation_graph"); !s.ok()) return s;
    if (Status s = Check(g->create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans"); !s.ok()) return s;
    if (Status s = Check(g->check_support(handle), "check_support"); !s.ok()) return s;
    if (Status s = Check(g->build_plans(handle), "build_plans"); !s.ok()) return s;
    out->graph = g;
    return Check(g->get_workspace_size(out->workspace), "get_workspace_size");
  }
};

CudnnSdpa::CudnnSdpa() : impl_(new Impl) {}

CudnnSdpa::~CudnnSdpa() {
  if (impl_->workspace != nullptr) cudaFree(impl_->workspace);
  if (impl_->handle != nullptr) cudnnDestroy(impl_->handle);
  delete impl_;
}

Status CudnnSdpa::run(const CudnnSdpaCall& c, cudaStream_t stream) {
  Impl& m = *impl_;
  if (c.q == nullptr || c.k == nullptr || c.v == nullptr || c.o == nullptr) return Status::Error("cuDNN SDPA: null q / k / v / o");
  if (c.sq <= 0 || c.sk <= 0) return Status::Error("cuDNN SDPA: empty query or key block");
  if (c.band && c.right_bound < 0) return Status::Error("cuDNN SDPA: right_bound < 0 (leave the rows that see no key out)");
  if (m.handle == nullptr && cudnnCreate(&m.handle) != CUDNN_STATUS_SUCCESS)
    return Status::Error("cuDNN SDPA: cudnnCreate failed (libcudnn 9 missing, or too old for this driver?)");
  if (cudnnSetStream(m.handle, stream) != CUDNN_STATUS_SUCCESS) return Status::Error("cuDNN SDPA: cudnnSetStream failed");
  const int64_t qs = c.q_stride > 0 ? c.q_stride : int64_t{c.hq} * c.d;
  const int64_t ks = c.k_stride > 0 ? c.k_stride : int64_t{c.hkv} * c.d;
  const int64_t vs = c.v_stride > 0 ? c.v_stride : int64_t{c.hkv} * c.d;
  const float scale = c.scale > 0.0f ? c.scale : 1.0f / std::sqrt(static_cast<float>(c.d));
  const int64_t lse_stride = c.lse == nullptr ? 0 : (c.lse_stride > 0 ? c.lse_stride : c.sq);
  const Impl::Key key{c.sq, c.sk, c.hq, c.hkv, c.d, qs, ks, vs, c.band, c.band ? c.right_bound : 0, lse_stride, scale};
  auto it = m.plans.find(key);
  if (it == m.plans.end()) {
    Impl::Plan p;
    if (Status s = m.Build(key, &p); !s.ok()) return s;
    it = m.plans.emplace(key, std::move(p)).first;
  }
  const size_t need = static_cast<size_t>(std::max<int64_t>(it->second.workspace, 1));
  if (m.workspace_bytes < need) {
    if (m.workspace != nullptr) cudaFree(m.workspace);
    m.workspace = nullptr;
    m.workspace_bytes = 0;
    if (cudaMalloc(&m.workspace, need) != cudaSuccess)
      return Status::Error("cuDNN SDPA: cudaMalloc of a " + std::to_string(need) + "-byte workspace failed");
    m.workspace_bytes = need;
  }
  std::unordered_map<int64_t, void*> pack = {{Impl::kQ, const_cast<__nv_bfloat16*>(c.q)},
                                             {Impl::kK, const_cast<__nv_bfloat16*>(c.k)},
                                             {Impl::kV, const_cast<__nv_bfloat16*>(c.v)},
                                             {Impl::kO, c.o}};
  if (c.lse != nullptr) pack[Impl::kLse] = c.lse;
  return Impl::Check(it->second.graph->execute(m.handle, pack, m.workspace), "execute");
}

}  // namespace codesign
}  // namespace cuco
