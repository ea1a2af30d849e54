// cuSPARSE SpMV (CSR) as the CUDA baseline of the spmv op. The handle, descriptors and
// the external buffer are made in prepare (untimed); the timed call is cusparseSpMV
// alone, on the device's stream, so the runner's events time it like a JIT kernel.
#include <cusparse.h>

#include <fmt/format.h>

#include "backends/cuda/cuda_dl.hpp"
#include "backends/cuda/cuda_call.hpp"

namespace hetbench {

namespace {

void check(cusparseStatus_t st, const char* call, const CudaDevice& d) {
  if (st != CUSPARSE_STATUS_SUCCESS)
    throw PointError(fmt::format("{}: {} failed with {}{}", d.id(), call, HB_DL(cusparseGetErrorName)(st),
                                 st == CUSPARSE_STATUS_ALLOC_FAILED ? ": the device is out of memory" : ""));
}

// Algorithm choices of cusparseSpMV for CSR: ALG1 (default, fastest, not bitwise
// deterministic between runs) and ALG2 (merge-based, deterministic).
const cusparseSpMVAlg_t kAlgs[] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};

// The library's state for one point, made in setup and used by every timed call.
struct CusparseCall : CudaCall {
  cusparseHandle_t h = nullptr;
  cusparseSpMatDescr_t A = nullptr;
  cusparseDnVecDescr_t x = nullptr, y = nullptr;
  std::unique_ptr<Buffer> work;
  cusparseSpMVAlg_t alg{};
  cudaDataType type{};
  double alpha = 0, beta = 0;
  float alpha_f = 0, beta_f = 0;

  CusparseCall() = default;
  CusparseCall(const CusparseCall&) = delete;
  CusparseCall& operator=(const CusparseCall&) = delete;
  ~CusparseCall() {
    if (x) HB_DL(cusparseDestroyDnVec)(x);
    if (y) HB_DL(cusparseDestroyDnVec)(y);
    if (A) HB_DL(cusparseDestroySpMat)(A);
    if (h) HB_DL(cusparseDestroy)(h);
  }
  const void* a() const { return type == CUDA_R_64F ? static_cast<const void*>(&alpha) : &alpha_f; }
  const void* b() const { return type == CUDA_R_64F ? static_cast<const void*>(&beta) : &beta_f; }
  void* work_ptr() const { return work ? work->native() : nullptr; }
};

void setup(CusparseCall& c) {
  auto& d = *c.dev;
  c.type = c.dbl() ? CUDA_R_64F : CUDA_R_32F;
  c.alg = kAlgs[c.param("ALG") - 1];
  c.alpha = c.scalar("alpha");
  c.beta = c.scalar("beta");
  c.alpha_f = static_cast<float>(c.alpha);
  c.beta_f = static_cast<float>(c.beta);
  check(HB_DL(cusparseCreate)(&c.h), "cusparseCreate", d);
  check(HB_DL(cusparseSetStream)(c.h, d.stream()), "cusparseSetStream", d);
  check(HB_DL(cusparseCreateCsr)(&c.A, c.size("rows"), c.size("cols"), c.size("nnz"), c.ptr("row_ptr"), c.ptr("col"),
                          c.ptr("val"), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, c.type),
        "cusparseCreateCsr", d);
  check(HB_DL(cusparseCreateDnVec)(&c.x, c.size("cols"), c.ptr("x"), c.type), "cusparseCreateDnVec", d);
  check(HB_DL(cusparseCreateDnVec)(&c.y, c.size("rows"), c.ptr("y"), c.type), "cusparseCreateDnVec", d);
  std::size_t bytes = 0;
  check(HB_DL(cusparseSpMV_bufferSize)(c.h, CUSPARSE_OPERATION_NON_TRANSPOSE, c.a(), c.A, c.x, c.b(), c.y, c.type, c.alg,
                                &bytes),
        "cusparseSpMV_bufferSize", d);
  if (bytes) c.work = d.alloc(bytes);
  // The preprocessing analyses the matrix once; cuSPARSE then reuses it in every call.
  check(HB_DL(cusparseSpMV_preprocess)(c.h, CUSPARSE_OPERATION_NON_TRANSPOSE, c.a(), c.A, c.x, c.b(), c.y, c.type, c.alg,
                                c.work_ptr()),
        "cusparseSpMV_preprocess", d);
}

void spmv(CusparseCall& c) {
  check(HB_DL(cusparseSpMV)(c.h, CUSPARSE_OPERATION_NON_TRANSPOSE, c.a(), c.A, c.x, c.b(), c.y, c.type, c.alg,
                     c.work_ptr()),
        "cusparseSpMV", *c.dev);
}

const bool registered_cusparse_spmv = [] {
  register_code_variant<CusparseCall>(
      {.op = "spmv",
       .name = "cusparse",
       .description = "cusparseSpMV on CSR (int32 indices); ALG=1: CUSPARSE_SPMV_CSR_ALG1, ALG=2: CSR_ALG2 "
                      "(deterministic); buffer sized and cusparseSpMV_preprocess run before timing",
       .library = "cuSPARSE",
       .params = {ParamDef{"ALG", {1, 2}, 1, "cuSPARSE CSR algorithm"}}},
      spmv, setup);
  return true;
}();

}  // namespace
}  // namespace hetbench
