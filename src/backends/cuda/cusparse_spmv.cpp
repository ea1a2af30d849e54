// cuSPARSE SpMV (CSR) as the CUDA baseline of the spmv op. The handle, descriptors and
// the external buffer are made in prepare (untimed); the timed call is cusparseSpMV
// alone, on the device's stream, so the runner's events time it like a JIT kernel.
#include <cusparse.h>

#include <fmt/format.h>

#include "backends/cuda/cuda_backend.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

namespace {

void check(cusparseStatus_t st, const char* call, const CudaDevice& d) {
  if (st != CUSPARSE_STATUS_SUCCESS)
    throw PointError(fmt::format("{}: {} failed with {}{}", d.id(), call, cusparseGetErrorName(st),
                                 st == CUSPARSE_STATUS_ALLOC_FAILED ? ": the device is out of memory" : ""));
}

// Algorithm choices of cusparseSpMV for CSR: ALG1 (default, fastest, not bitwise
// deterministic between runs) and ALG2 (merge-based, deterministic).
const cusparseSpMVAlg_t kAlgs[] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};

class CusparseSpmv final : public Variant {
 public:
  CusparseSpmv() {
    op = "spmv";
    name = "cusparse";
    backend = "cuda";
    kind = "library";
    description = "cusparseSpMV on CSR (int32 indices); ALG=1: CUSPARSE_SPMV_CSR_ALG1, ALG=2: CSR_ALG2 "
                  "(deterministic); buffer sized and cusparseSpMV_preprocess run before timing";
    origin = "built in (cuSPARSE)";
    precisions = {Precision::S, Precision::D};
    params = {ParamDef{"ALG", {1, 2}, 1, "cuSPARSE CSR algorithm"}};
  }

  std::unique_ptr<Instance> prepare(Device& dev, const Problem& prob, const BufferMap& bufs,
                                    const ParamValues& pv) const override {
    auto* cd = dynamic_cast<CudaDevice*>(&dev);
    if (!cd) throw PointError(fmt::format("{} runs on CUDA devices only", id()));
    struct Inst final : Instance {
      CudaDevice* d = nullptr;
      cusparseHandle_t h = nullptr;
      cusparseSpMatDescr_t A = nullptr;
      cusparseDnVecDescr_t x = nullptr, y = nullptr;
      std::unique_ptr<Buffer> work;
      cusparseSpMVAlg_t alg{};
      cudaDataType type{};
      double alpha = 0, beta = 0;
      float alpha_f = 0, beta_f = 0;
      ~Inst() override {
        if (x) cusparseDestroyDnVec(x);
        if (y) cusparseDestroyDnVec(y);
        if (A) cusparseDestroySpMat(A);
        if (h) cusparseDestroy(h);
      }
      const void* a() const { return type == CUDA_R_64F ? static_cast<const void*>(&alpha) : &alpha_f; }
      const void* b() const { return type == CUDA_R_64F ? static_cast<const void*>(&beta) : &beta_f; }
      void run() override {
        d->activate();
        check(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, a(), A, x, b(), y, type, alg,
                           work ? static_cast<CudaBuffer*>(work.get())->ptr() : nullptr),
              "cusparseSpMV", *d);
      }
    };
    auto ptr = [&](const char* n) { return static_cast<CudaBuffer*>(bufs.at(n))->ptr(); };
    auto i = std::make_unique<Inst>();
    i->d = cd;
    cd->activate();
    i->type = prob.prec == Precision::D ? CUDA_R_64F : CUDA_R_32F;
    i->alg = kAlgs[pv.at("ALG") - 1];
    i->alpha = prob.scalar("alpha")->value;
    i->beta = prob.scalar("beta")->value;
    i->alpha_f = static_cast<float>(i->alpha);
    i->beta_f = static_cast<float>(i->beta);
    const auto rows = prob.sizes.at("rows"), cols = prob.sizes.at("cols"), nnz = prob.sizes.at("nnz");
    check(cusparseCreate(&i->h), "cusparseCreate", *cd);
    check(cusparseSetStream(i->h, cd->stream()), "cusparseSetStream", *cd);
    check(cusparseCreateCsr(&i->A, rows, cols, nnz, ptr("row_ptr"), ptr("col"), ptr("val"), CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, i->type),
          "cusparseCreateCsr", *cd);
    check(cusparseCreateDnVec(&i->x, cols, ptr("x"), i->type), "cusparseCreateDnVec", *cd);
    check(cusparseCreateDnVec(&i->y, rows, ptr("y"), i->type), "cusparseCreateDnVec", *cd);
    std::size_t bytes = 0;
    check(cusparseSpMV_bufferSize(i->h, CUSPARSE_OPERATION_NON_TRANSPOSE, i->a(), i->A, i->x, i->b(), i->y, i->type,
                                  i->alg, &bytes),
          "cusparseSpMV_bufferSize", *cd);
    if (bytes) i->work = cd->alloc(bytes);
    void* wp = i->work ? static_cast<CudaBuffer*>(i->work.get())->ptr() : nullptr;
    // The preprocessing analyses the matrix once; cuSPARSE then reuses it in every call.
    check(cusparseSpMV_preprocess(i->h, CUSPARSE_OPERATION_NON_TRANSPOSE, i->a(), i->A, i->x, i->b(), i->y, i->type,
                                  i->alg, wp),
          "cusparseSpMV_preprocess", *cd);
    return i;
  }
};

const VariantRegistrar<CusparseSpmv> reg;

}  // namespace
}  // namespace hetbench
