// Vendor baselines on CUDA devices: cuBLAS axpy, dot and gemm, CUB dot.
#include <cublas_v2.h>

#include <fmt/format.h>

#include "backends/cuda/cuda_dl.hpp"
#include "backends/cuda/cub_dot.hpp"
#include "backends/cuda/cuda_call.hpp"
#include "backends/cuda/cublas_gemm.hpp"

namespace hetbench {

namespace {

// CUB's temporary storage: sized and allocated in setup, never timed.
struct CubCall : CudaCall {
  std::unique_ptr<Buffer> temp;
  std::size_t temp_bytes = 0;
};

CodeVariantInfo cuda_lib(const char* op, const char* name, const char* library, const char* description) {
  return {.op = op, .name = name, .description = description, .library = library};
}

const bool registered_cuda_library = [] {
  register_code_variant<CudaCall>(
    cuda_lib("axpy", "cublas", "cuBLAS",
    "cuBLAS Saxpy/Daxpy; cuBLAS axpy is in place (y = a*x + y), so the time includes a device-to-device "
    "cudaMemcpyAsync y -> r on the same stream before the call (2n extra elements moved, not counted in GB/s)"),
    [](CudaCall& c) {
      auto& d = *c.dev;
      HB_CUDA(cudaMemcpyAsync(c.ptr("r"), c.ptr("y"), c.prob->array("y").bytes(), cudaMemcpyDeviceToDevice,
                              d.stream()),
              d.id());
      auto h = d.blas();
      blas_check(HB_DL(cublasSetPointerMode)(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode", d);
      const double a = c.scalar("alpha");
      if (c.dbl()) {
        blas_check(HB_DL(cublasDaxpy)(h, c.int_size("n"), &a, c.ptr<const double>("x"), 1,
                               c.ptr<double>("r"), 1),
                   "cublasDaxpy", d);
      } else {
        const float af = static_cast<float>(a);
        blas_check(HB_DL(cublasSaxpy)(h, c.int_size("n"), &af, c.ptr<const float>("x"), 1,
                               c.ptr<float>("r"), 1),
                   "cublasSaxpy", d);
      }
    });

  register_code_variant<CudaCall>(
    cuda_lib("dot", "cublas", "cuBLAS", "cuBLAS Sdot/Ddot, pointer mode DEVICE: the result stays on the device"),
    [](CudaCall& c) {
      auto& d = *c.dev;
      auto h = d.blas();
      blas_check(HB_DL(cublasSetPointerMode)(h, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode", d);
      if (c.dbl())
        blas_check(HB_DL(cublasDdot)(h, c.int_size("n"), c.ptr<const double>("x"), 1,
                              c.ptr<const double>("y"), 1, c.ptr<double>("result")),
                   "cublasDdot", d);
      else
        blas_check(HB_DL(cublasSdot)(h, c.int_size("n"), c.ptr<const float>("x"), 1,
                              c.ptr<const float>("y"), 1, c.ptr<float>("result")),
                   "cublasSdot", d);
    });

  // @iter=N (the plain form: beta = 0, C not read) calls it N times on the resident
  // operands: the ceiling of the directive variants' data-region loop.
  auto gemm_info = cuda_lib("gemm", "cublas", "cuBLAS",
                            "cuBLAS Sgemm/Dgemm on row-major data (computed as C^T = B^T A^T), default math mode");
  gemm_info.axes = {"iter"};
  register_code_variant<CudaCall>(gemm_info, [](CudaCall& c) {
    auto& d = *c.dev;
    const RowMajorGemm g = row_major_gemm(c);
    auto h = d.blas();
    blas_check(HB_DL(cublasSetPointerMode)(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode", d);
    const double a = c.scalar("alpha"), b = c.scalar("beta");
    const float af = static_cast<float>(a), bf = static_cast<float>(b);
    // Only the calls repeat: the shape, handle and pointer mode are set once per timed call.
    for (auto it = c.size_or("iter", 1); it > 0; --it) {
      if (c.dbl())
        blas_check(HB_DL(cublasDgemm)(h, g.opb, g.opa, g.n, g.m, g.k, &a, c.ptr<const double>("B"), g.ldb,
                               c.ptr<const double>("A"), g.lda, &b, c.ptr<double>("C"), g.ldc),
                   "cublasDgemm", d);
      else
        blas_check(HB_DL(cublasSgemm)(h, g.opb, g.opa, g.n, g.m, g.k, &af, c.ptr<const float>("B"), g.ldb,
                               c.ptr<const float>("A"), g.lda, &bf, c.ptr<float>("C"), g.ldc),
                   "cublasSgemm", d);
    }
  });

  register_code_variant<CubCall>(
    cuda_lib("dot", "cub", "CUB",
    "CUB DeviceReduce::TransformReduce of x[i]*y[i] (nvcc); temporary storage allocated before timing"),
    [](CubCall& c) {
      auto& d = *c.dev;
      HB_CUDA(cub_dot(c.dbl(), c.temp->native(),
                      c.temp_bytes, c.ptr("x"), c.ptr("y"), c.ptr("result"), static_cast<std::size_t>(c.size("n")),
                      d.stream()),
              d.id());
    },
    [](CubCall& c) {
      c.temp_bytes = 0;
      HB_CUDA(cub_dot(c.dbl(), nullptr, c.temp_bytes, c.ptr("x"), c.ptr("y"), c.ptr("result"),
                      static_cast<std::size_t>(c.size("n")), c.dev->stream()),
              c.dev->id());
      c.temp_bytes = std::max<std::size_t>(c.temp_bytes, 1);
      c.temp = c.dev->alloc(c.temp_bytes);
    });
  return true;
}();

}  // namespace

}  // namespace hetbench
