// The vendor composition the solvers are compared with (`hetbench solve --baseline
// vendor`): the same Krylov code (src/solve/krylov.cpp) over cuSPARSE SpMV, cuBLAS dot
// (pointer mode device, the batch read back once, as hetbench's operators do), cuBLAS geam
// for the out-of-place r = a·x + y (one pass, as hetbench's axpy), cuBLAS dgmm for
// Jacobi's diagonal scaling and cuSPARSE's ILU(0) (cusparse_ilu0.cpp). All on the device's stream, so its events time each call.
#include <cublas_v2.h>
#include <cusparse.h>

#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/cuda_dl.hpp"
#include "hetbench/error.hpp"
#include "hetbench/solver_ops.hpp"
#include "sparse/csr.hpp"

namespace hetbench {

namespace {

void sp_check(cusparseStatus_t st, const char* call) {
  if (st != CUSPARSE_STATUS_SUCCESS) throw Error(fmt::format("{} failed with {}", call, HB_DL(cusparseGetErrorName)(st)));
}
void bl_check(cublasStatus_t st, const char* call) {
  if (st != CUBLAS_STATUS_SUCCESS) throw Error(fmt::format("{} failed with {}", call, HB_DL(cublasGetStatusName)(st)));
}

struct Vec final : SolverVector {
  std::unique_ptr<Buffer> buf;
  cusparseDnVecDescr_t desc = nullptr;
  ~Vec() override {
    if (desc) HB_DL(cusparseDestroyDnVec)(desc);
  }
};
Vec& vec(SolverVector& v) { return static_cast<Vec&>(v); }

class VendorOps final : public SolverOps {
 public:
  VendorOps(CudaDevice& d, const CsrMatrix& a, Precision p, Preconditioner m)
      : d_(d), p_(p), n_(static_cast<std::size_t>(a.rows)), dbl_(p == Precision::D) {
    if (p != Precision::S && p != Precision::D)
      throw Error(fmt::format("--baseline vendor runs in S or D, not {}", name(p)));
    type_ = dbl_ ? CUDA_R_64F : CUDA_R_32F;
    d_.activate();
    rowptr_ = upload_copy(d_, a.rowptr.data(), a.rowptr.size() * 4);
    col_ = upload_copy(d_, a.colidx.data(), a.colidx.size() * 4);
    val_ = upload_copy(d_, values(a.values).data(), a.values.size() * elem());
    if (m == Preconditioner::Ilu0) ilu_ = make_vendor_ilu0(d, a, p);
    if (m == Preconditioner::Jacobi) {
      std::vector<double> inv(n_, 0.0);
      for (int64_t i = 0; i < a.rows; ++i) {
        for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q)
          if (a.colidx[q] == i) inv[i] = a.values[q];
        if (inv[i] == 0)
          throw Error(fmt::format("the Jacobi preconditioner needs a nonzero diagonal: row {} (1-based) has none", i + 1));
        inv[i] = 1 / inv[i];
      }
      dinv_ = upload_copy(d_, values(inv).data(), n_ * elem());
    }
    sp_check(HB_DL(cusparseCreate)(&sp_), "cusparseCreate");
    sp_check(HB_DL(cusparseSetStream)(sp_, d_.stream()), "cusparseSetStream");
    sp_check(HB_DL(cusparseCreateCsr)(&A_, a.rows, a.cols, a.nnz(), rowptr_->native(), col_->native(), val_->native(),
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type_),
             "cusparseCreateCsr");
  }
  ~VendorOps() override {
    prepared_.clear();
    if (A_) HB_DL(cusparseDestroySpMat)(A_);
    if (sp_) HB_DL(cusparseDestroy)(sp_);
  }

  std::size_t rows() const override { return n_; }
  Precision precision() const override { return p_; }
  std::unique_ptr<SolverVector> vector() override {
    auto v = std::make_unique<Vec>();
    v->buf = d_.alloc(n_ * elem());
    v->buf->fill(0);
    sp_check(HB_DL(cusparseCreateDnVec)(&v->desc, static_cast<int64_t>(n_), v->buf->native(), type_),
             "cusparseCreateDnVec");
    return v;
  }
  void upload(SolverVector& v, const std::vector<double>& h) override { vec(v).buf->upload(values(h).data()); }
  std::vector<double> download(SolverVector& v) override {
    std::vector<unsigned char> raw(vec(v).buf->bytes());
    vec(v).buf->download(raw.data());
    std::vector<double> out(n_);
    for (std::size_t i = 0; i < n_; ++i)
      out[i] = dbl_ ? reinterpret_cast<const double*>(raw.data())[i] : reinterpret_cast<const float*>(raw.data())[i];
    return out;
  }
  void copy(SolverVector& s, SolverVector& t) override {
    timed(SolverKernel::Axpy, [&] { vec(t).buf->copy_from(*vec(s).buf); });
  }
  void apply(SolverVector& x, SolverVector& y) override { spmv(1, x, 0, y); }
  void residual(SolverVector& b, SolverVector& x, SolverVector& r) override {
    copy(b, r);
    spmv(-1, x, 1, r);
  }
  void precondition(SolverVector& r, SolverVector& z) override {
    timed(SolverKernel::Precond, [&] {
      if (ilu_) return ilu_->apply(*vec(r).buf, *vec(z).buf);
      if (!dinv_) return vec(z).buf->copy_from(*vec(r).buf);
      auto h = blas(CUBLAS_POINTER_MODE_HOST);
      const int n = static_cast<int>(n_);
      if (dbl_)
        bl_check(HB_DL(cublasDdgmm)(h, CUBLAS_SIDE_LEFT, n, 1, ptr<double>(r), n, static_cast<double*>(dinv_->native()),
                                    1, ptr<double>(z), n),
                 "cublasDdgmm");
      else
        bl_check(HB_DL(cublasSdgmm)(h, CUBLAS_SIDE_LEFT, n, 1, ptr<float>(r), n, static_cast<float*>(dinv_->native()),
                                    1, ptr<float>(z), n),
                 "cublasSdgmm");
    });
  }
  double dot(SolverVector& x, SolverVector& y) override { return dots({{&x, &y}})[0]; }
  // Several products in pointer mode device, one read-back and one wait for all, as
  // hetbench's own operators do (so that the comparison is of the kernels).
  std::vector<double> dots(const std::vector<std::pair<SolverVector*, SolverVector*>>& pairs) override {
    if (pairs.size() > 16) return SolverOps::dots(pairs);
    if (!results_) {
      results_ = d_.alloc(16 * 8);
      pinned_ = d_.alloc_host(16 * 8, HostMemoryKind::Pinned);
    }
    auto h = blas(CUBLAS_POINTER_MODE_DEVICE);
    const int n = static_cast<int>(n_);
    auto* res = static_cast<unsigned char*>(results_->native());
    for (std::size_t i = 0; i < pairs.size(); ++i)
      timed(SolverKernel::Dot, [&] {
        auto &x = *pairs[i].first, &y = *pairs[i].second;
        if (dbl_)
          bl_check(HB_DL(cublasDdot)(h, n, ptr<double>(x), 1, ptr<double>(y), 1,
                                     reinterpret_cast<double*>(res + 8 * i)),
                   "cublasDdot");
        else
          bl_check(HB_DL(cublasSdot)(h, n, ptr<float>(x), 1, ptr<float>(y), 1, reinterpret_cast<float*>(res + 8 * i)),
                   "cublasSdot");
      });
    HB_CUDA(cudaMemcpyAsync(pinned_->data(), res, 8 * pairs.size(), cudaMemcpyDeviceToHost, d_.stream()), d_.id());
    HB_CUDA(cudaStreamSynchronize(d_.stream()), d_.id());
    std::vector<double> out(pairs.size());
    const auto* host = static_cast<const unsigned char*>(pinned_->data());
    for (std::size_t i = 0; i < pairs.size(); ++i)
      out[i] = dbl_ ? *reinterpret_cast<const double*>(host + 8 * i) : *reinterpret_cast<const float*>(host + 8 * i);
    return out;
  }
  void axpy(double a, SolverVector& x, SolverVector& y, SolverVector& r) override {
    auto h = blas(CUBLAS_POINTER_MODE_HOST);
    const int n = static_cast<int>(n_);
    timed(SolverKernel::Axpy, [&] {
      if (dbl_) {
        const double one = 1;
        bl_check(HB_DL(cublasDgeam)(h, CUBLAS_OP_N, CUBLAS_OP_N, n, 1, &a, ptr<double>(x), n, &one, ptr<double>(y), n,
                                    ptr<double>(r), n),
                 "cublasDgeam");
      } else {
        const float af = static_cast<float>(a), one = 1;
        bl_check(HB_DL(cublasSgeam)(h, CUBLAS_OP_N, CUBLAS_OP_N, n, 1, &af, ptr<float>(x), n, &one, ptr<float>(y), n,
                                    ptr<float>(r), n),
                 "cublasSgeam");
      }
    });
  }
  void time_kernels(bool on) override { timing_ = on; }
  const KernelTimes& times() const override { return times_; }
  void reset_times() override { times_ = {}; }
  void finish() override { d_.finish(); }
  std::vector<std::string> kernels() const override {
    return {"cuSPARSE cusparseSpMV (CSR, ALG1)", "cuBLAS dot (pointer mode device, one pinned read-back per batch)", "cuBLAS geam (r = a x + y)",
            ilu_ ? "ilu0: " + ilu_->name() : dinv_ ? "cuBLAS dgmm (diag(A)^-1 r)" : "none"};
  }

 private:
  CudaDevice& d_;
  Precision p_;
  std::size_t n_;
  bool dbl_;
  cudaDataType type_{};
  std::unique_ptr<Buffer> rowptr_, col_, val_, dinv_, work_, results_;
  std::unique_ptr<HostMemory> pinned_;
  std::unique_ptr<VendorIlu0> ilu_;
  cusparseHandle_t sp_ = nullptr;
  cusparseSpMatDescr_t A_ = nullptr;
  std::set<std::pair<SolverVector*, SolverVector*>> prepared_;
  bool timing_ = false;
  KernelTimes times_;

  std::size_t elem() const { return dbl_ ? 8 : 4; }
  template <class T>
  T* ptr(SolverVector& v) {
    return static_cast<T*>(vec(v).buf->native());
  }
  std::vector<unsigned char> values(const std::vector<double>& h) const {
    std::vector<unsigned char> out(h.size() * elem());
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (dbl_) std::memcpy(out.data() + 8 * i, &h[i], 8);
      else {
        const float f = static_cast<float>(h[i]);
        std::memcpy(out.data() + 4 * i, &f, 4);
      }
    }
    return out;
  }
  cublasHandle_t blas(cublasPointerMode_t mode) {
    d_.activate();
    auto h = d_.blas();
    bl_check(HB_DL(cublasSetPointerMode)(h, mode), "cublasSetPointerMode");
    return h;
  }
  void spmv(double alpha, SolverVector& x, double beta, SolverVector& y) {
    d_.activate();
    const double ad = alpha, bd = beta;
    const float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
    const void* a = dbl_ ? static_cast<const void*>(&ad) : &af;
    const void* b = dbl_ ? static_cast<const void*>(&bd) : &bf;
    if (prepared_.insert({&x, &y}).second) {
      // One work buffer, sized for the largest pair asked for, analysed once per pair.
      std::size_t bytes = 0;
      sp_check(HB_DL(cusparseSpMV_bufferSize)(sp_, CUSPARSE_OPERATION_NON_TRANSPOSE, a, A_, vec(x).desc, b, vec(y).desc,
                                              type_, CUSPARSE_SPMV_CSR_ALG1, &bytes),
               "cusparseSpMV_bufferSize");
      if (bytes && (!work_ || work_->bytes() < bytes)) work_ = d_.alloc(bytes);
    }
    timed(SolverKernel::SpMV, [&] {
      sp_check(HB_DL(cusparseSpMV)(sp_, CUSPARSE_OPERATION_NON_TRANSPOSE, a, A_, vec(x).desc, b, vec(y).desc, type_,
                                   CUSPARSE_SPMV_CSR_ALG1, work_ ? work_->native() : nullptr),
               "cusparseSpMV");
    });
  }
  template <class F>
  void timed(SolverKernel k, F work) {
    ++times_.calls[static_cast<int>(k)];
    if (timing_) times_.seconds[static_cast<int>(k)] += d_.time(work);
    else work();
  }
};

const bool registered_cuda_solver_ops = [] {
  register_vendor_solver_ops(BackendKind::Cuda, [](Device& dev, std::shared_ptr<const CsrMatrix> a, Precision p,
                                                   Preconditioner m) -> std::unique_ptr<SolverOps> {
    auto* d = dynamic_cast<CudaDevice*>(&dev);
    if (!d) throw Error(fmt::format("--baseline vendor needs a CUDA device, not {}", dev.id()));
    return std::make_unique<VendorOps>(*d, *a, p, m);
  });
  return true;
}();

}  // namespace
}  // namespace hetbench
