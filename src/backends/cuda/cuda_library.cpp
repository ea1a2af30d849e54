// Vendor baselines on CUDA devices: cuBLAS axpy and dot, CUB dot. Code-registered
// variants (kind "library") whose work goes on the device's own stream, so that the
// runner times them with the same events as the JIT kernels.
#include <cublas_v2.h>

#include <climits>
#include <cstdint>

#include <fmt/format.h>

#include "backends/cuda/cub_dot.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

namespace {

struct CudaCall {
  CudaDevice* dev;
  const Problem* prob;
  BufferMap bufs;
  std::unique_ptr<Buffer> temp;  // allocated in prepare, never timed
  std::size_t temp_bytes = 0;

  void* ptr(const std::string& name) const {
    auto it = bufs.find(name);
    if (it == bufs.end()) throw PointError("internal: CUDA library variant asked for unknown operand " + name);
    return static_cast<CudaBuffer*>(it->second)->ptr();
  }
  bool dbl() const { return prob->prec == Precision::D; }
  std::int64_t n() const { return prob->sizes.at("n"); }
  int n32() const {
    if (n() > INT32_MAX) throw PointError(fmt::format("cuBLAS takes n as int: n = {} is too large", n()));
    return static_cast<int>(n());
  }
};

void blas_check(cublasStatus_t st, const char* call, const CudaDevice& d) {
  if (st != CUBLAS_STATUS_SUCCESS)
    throw PointError(fmt::format("{}: {} failed with {}{}", d.id(), call, cublasGetStatusName(st),
                                 st == CUBLAS_STATUS_ALLOC_FAILED ? ": the device is out of memory" : ""));
}

class CudaLibVariant final : public Variant {
 public:
  using Prep = std::function<void(CudaCall&)>;
  using Fn = std::function<void(CudaCall&)>;
  CudaLibVariant(std::string op_, std::string name_, std::string lib, std::string desc, Fn fn, Prep prep = {})
      : fn_(std::move(fn)), prep_(std::move(prep)) {
    op = std::move(op_);
    name = std::move(name_);
    description = std::move(desc);
    precisions = {Precision::S, Precision::D};
    backend = "cuda";
    kind = "library";
    origin = "built in (" + lib + ")";
  }
  std::unique_ptr<Instance> prepare(Device& dev, const Problem& prob, const BufferMap& bufs,
                                    const ParamValues&) const override {
    struct Inst final : Instance {
      Fn fn;
      CudaCall call;
      void run() override {
        call.dev->activate();
        fn(call);
      }
    };
    auto* cd = dynamic_cast<CudaDevice*>(&dev);
    if (!cd) throw PointError(fmt::format("{} runs on CUDA devices only", id()));
    auto i = std::make_unique<Inst>();
    i->fn = fn_;
    i->call.dev = cd;
    i->call.prob = &prob;
    i->call.bufs = bufs;
    cd->activate();
    if (prep_) prep_(i->call);
    return i;
  }

 private:
  Fn fn_;
  Prep prep_;
};

const VariantRegistrar<CudaLibVariant> reg_axpy(
    "axpy", "cublas", "cuBLAS",
    "cuBLAS Saxpy/Daxpy; cuBLAS axpy is in place (y = a*x + y), so the time includes a device-to-device "
    "cudaMemcpyAsync y -> r on the same stream before the call (2n extra elements moved, not counted in GB/s)",
    [](CudaCall& c) {
      auto& d = *c.dev;
      HB_CUDA(cudaMemcpyAsync(c.ptr("r"), c.ptr("y"), c.prob->array("y").bytes(), cudaMemcpyDeviceToDevice,
                              d.stream()),
              d.id());
      auto h = d.blas();
      blas_check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode", d);
      const double a = c.prob->scalar("alpha")->value;
      if (c.dbl()) {
        blas_check(cublasDaxpy(h, c.n32(), &a, static_cast<const double*>(c.ptr("x")), 1,
                               static_cast<double*>(c.ptr("r")), 1),
                   "cublasDaxpy", d);
      } else {
        const float af = static_cast<float>(a);
        blas_check(cublasSaxpy(h, c.n32(), &af, static_cast<const float*>(c.ptr("x")), 1,
                               static_cast<float*>(c.ptr("r")), 1),
                   "cublasSaxpy", d);
      }
    });

const VariantRegistrar<CudaLibVariant> reg_dot(
    "dot", "cublas", "cuBLAS", "cuBLAS Sdot/Ddot, pointer mode DEVICE: the result stays on the device",
    [](CudaCall& c) {
      auto& d = *c.dev;
      auto h = d.blas();
      blas_check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode", d);
      if (c.dbl())
        blas_check(cublasDdot(h, c.n32(), static_cast<const double*>(c.ptr("x")), 1,
                              static_cast<const double*>(c.ptr("y")), 1, static_cast<double*>(c.ptr("result"))),
                   "cublasDdot", d);
      else
        blas_check(cublasSdot(h, c.n32(), static_cast<const float*>(c.ptr("x")), 1,
                              static_cast<const float*>(c.ptr("y")), 1, static_cast<float*>(c.ptr("result"))),
                   "cublasSdot", d);
    });

// Row-major C = alpha op(A) op(B) + beta C through column-major cuBLAS: the row-major
// C (m x n) is the column-major C^T, and C^T = alpha op(B)^T op(A)^T + beta C^T, so the
// operands swap places. A stored row-major m x k reads as a column-major k x m (ld k);
// stored transposed (k x m) as a column-major m x k (ld m); B likewise.
const VariantRegistrar<CudaLibVariant> reg_gemm(
    "gemm", "cublas", "cuBLAS", "cuBLAS Sgemm/Dgemm on row-major data (computed as C^T = B^T A^T), default math mode",
    [](CudaCall& c) {
      auto& d = *c.dev;
      const auto& s = c.prob->sizes;
      const auto m = s.at("m"), n = s.at("n"), k = s.at("k");
      for (auto v : {m, n, k})
        if (v > INT32_MAX) throw PointError(fmt::format("cuBLAS takes sizes as int: {} is too large", v));
      const bool ta = s.at("ta") != 0, tb = s.at("tb") != 0;
      const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
      const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
      const int lda = ta ? M : K, ldb = tb ? K : N;
      auto h = d.blas();
      blas_check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode", d);
      const double a = c.prob->scalar("alpha")->value, b = c.prob->scalar("beta")->value;
      if (c.dbl()) {
        blas_check(cublasDgemm(h, opb, opa, N, M, K, &a, static_cast<const double*>(c.ptr("B")), ldb,
                               static_cast<const double*>(c.ptr("A")), lda, &b, static_cast<double*>(c.ptr("C")), N),
                   "cublasDgemm", d);
      } else {
        const float af = static_cast<float>(a), bf = static_cast<float>(b);
        blas_check(cublasSgemm(h, opb, opa, N, M, K, &af, static_cast<const float*>(c.ptr("B")), ldb,
                               static_cast<const float*>(c.ptr("A")), lda, &bf, static_cast<float*>(c.ptr("C")), N),
                   "cublasSgemm", d);
      }
    });

const VariantRegistrar<CudaLibVariant> reg_cub(
    "dot", "cub", "CUB",
    "CUB DeviceReduce::TransformReduce of x[i]*y[i] (nvcc, sm_90); temporary storage allocated before timing",
    [](CudaCall& c) {
      auto& d = *c.dev;
      HB_CUDA(cub_dot(c.dbl(), c.temp->bytes() ? static_cast<CudaBuffer*>(c.temp.get())->ptr() : nullptr,
                      c.temp_bytes, c.ptr("x"), c.ptr("y"), c.ptr("result"), static_cast<std::size_t>(c.n()),
                      d.stream()),
              d.id());
    },
    [](CudaCall& c) {
      c.temp_bytes = 0;
      HB_CUDA(cub_dot(c.dbl(), nullptr, c.temp_bytes, c.ptr("x"), c.ptr("y"), c.ptr("result"),
                      static_cast<std::size_t>(c.n()), c.dev->stream()),
              c.dev->id());
      c.temp_bytes = std::max<std::size_t>(c.temp_bytes, 1);
      c.temp = c.dev->alloc(c.temp_bytes);
    });

}  // namespace

}  // namespace hetbench
