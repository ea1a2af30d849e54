// ILU(0) from cuSPARSE (`hetbench solve --precond ilu0` on CUDA devices): A's values are
// factored in place into L (unit diagonal, not stored) and U by csrilu02 with level
// scheduling, once; each application is two triangular solves with the generic SpSV API,
// z = U^-1·(L^-1·r), analysed once. csrilu02 is deprecated in CUDA 12 and 13 but has no
// generic-API successor, which is why NVIDIA's own preconditioned-BiCGStab sample still
// calls it.
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>

#include <fmt/format.h>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/cuda_dl.hpp"
#include "hetbench/error.hpp"
#include "hetbench/solver_ops.hpp"
#include "sparse/csr.hpp"

namespace hetbench {

namespace {

void ilu_check(cusparseStatus_t st, const char* call) {
  if (st != CUSPARSE_STATUS_SUCCESS)
    throw Error(fmt::format("ILU(0): {} failed with {}", call, HB_DL(cusparseGetErrorName)(st)));
}

class CusparseIlu0 final : public VendorIlu0 {
 public:
  CusparseIlu0(CudaDevice& d, const CsrMatrix& a, Precision p) : d_(d), dbl_(p == Precision::D) {
    if (p != Precision::S && p != Precision::D) throw Error(fmt::format("--precond ilu0 runs in S or D, not {}", hetbench::name(p)));
    if (a.rows != a.cols) throw Error(fmt::format("ILU(0) needs a square matrix, not {} x {}", a.rows, a.cols));
    const int n = static_cast<int>(a.rows), nnz = static_cast<int>(a.nnz());
    type_ = dbl_ ? CUDA_R_64F : CUDA_R_32F;
    d_.activate();
    rowptr_ = upload_copy(d_, a.rowptr.data(), a.rowptr.size() * 4, 8);
    col_ = upload_copy(d_, a.colidx.data(), a.colidx.size() * 4, 8);
    if (dbl_) {
      val_ = upload_copy(d_, a.values.data(), a.values.size() * 8, 8);
    } else {
      const std::vector<float> f(a.values.begin(), a.values.end());
      val_ = upload_copy(d_, f.data(), f.size() * 4, 8);
    }
    tmp_ = d_.alloc(std::max<std::size_t>(static_cast<std::size_t>(n) * elem(), 8));
    ilu_check(HB_DL(cusparseCreate)(&h_), "cusparseCreate");
    ilu_check(HB_DL(cusparseSetStream)(h_, d_.stream()), "cusparseSetStream");
    factor(n, nnz);

    // L and U share the factored arrays; the attributes say which triangle each reads.
    for (auto* m : {&L_, &U_})
      ilu_check(HB_DL(cusparseCreateCsr)(m, n, n, nnz, rowptr_->native(), col_->native(), val_->native(),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type_),
                "cusparseCreateCsr");
    set(L_, CUSPARSE_FILL_MODE_LOWER, CUSPARSE_DIAG_TYPE_UNIT);
    set(U_, CUSPARSE_FILL_MODE_UPPER, CUSPARSE_DIAG_TYPE_NON_UNIT);
    // r and z point at a scratch vector until apply() gives them the caller's buffers.
    auto scratch = d_.alloc(tmp_->bytes());
    for (auto* v : {&r_, &z_})
      ilu_check(HB_DL(cusparseCreateDnVec)(v, n, scratch->native(), type_), "cusparseCreateDnVec");
    ilu_check(HB_DL(cusparseCreateDnVec)(&t_, n, tmp_->native(), type_), "cusparseCreateDnVec");
    analyse(L_, r_, t_, sL_, bufL_);
    analyse(U_, t_, z_, sU_, bufU_);
    d_.finish();  // the scratch vector is freed here
  }
  ~CusparseIlu0() override {
    for (auto* s : {sL_, sU_})
      if (s) HB_DL(cusparseSpSV_destroyDescr)(s);
    for (auto* v : {r_, t_, z_})
      if (v) HB_DL(cusparseDestroyDnVec)(v);
    for (auto* m : {L_, U_})
      if (m) HB_DL(cusparseDestroySpMat)(m);
    if (h_) HB_DL(cusparseDestroy)(h_);
  }

  void apply(Buffer& r, Buffer& z) override {
    d_.activate();
    ilu_check(HB_DL(cusparseDnVecSetValues)(r_, r.native()), "cusparseDnVecSetValues");
    ilu_check(HB_DL(cusparseDnVecSetValues)(z_, z.native()), "cusparseDnVecSetValues");
    ilu_check(HB_DL(cusparseSpSV_solve)(h_, CUSPARSE_OPERATION_NON_TRANSPOSE, one(), L_, r_, t_, type_,
                                        CUSPARSE_SPSV_ALG_DEFAULT, sL_),
              "cusparseSpSV_solve (L)");
    ilu_check(HB_DL(cusparseSpSV_solve)(h_, CUSPARSE_OPERATION_NON_TRANSPOSE, one(), U_, t_, z_, type_,
                                        CUSPARSE_SPSV_ALG_DEFAULT, sU_),
              "cusparseSpSV_solve (U)");
  }
  std::string name() const override {
    return fmt::format("cuSPARSE csrilu02 (level scheduling) + SpSV L and U, {}", dbl_ ? "D" : "S");
  }

 private:
  CudaDevice& d_;
  bool dbl_;
  cudaDataType type_{};
  std::unique_ptr<Buffer> rowptr_, col_, val_, tmp_, bufL_, bufU_;
  cusparseHandle_t h_ = nullptr;
  cusparseSpMatDescr_t L_ = nullptr, U_ = nullptr;
  cusparseDnVecDescr_t r_ = nullptr, t_ = nullptr, z_ = nullptr;
  cusparseSpSVDescr_t sL_ = nullptr, sU_ = nullptr;
  double one_d_ = 1;
  float one_f_ = 1;

  std::size_t elem() const { return dbl_ ? 8 : 4; }
  const void* one() const { return dbl_ ? static_cast<const void*>(&one_d_) : &one_f_; }

  // csrilu02 in place; a zero pivot (structural or numerical) is named by its row.
  void factor(int n, int nnz) {
    cusparseMatDescr_t desc = nullptr;
    csrilu02Info_t info = nullptr;
    ilu_check(HB_DL(cusparseCreateMatDescr)(&desc), "cusparseCreateMatDescr");
    ilu_check(HB_DL(cusparseCreateCsrilu02Info)(&info), "cusparseCreateCsrilu02Info");
    struct Free {
      cusparseMatDescr_t d;
      csrilu02Info_t i;
      ~Free() {
        HB_DL(cusparseDestroyCsrilu02Info)(i);
        HB_DL(cusparseDestroyMatDescr)(d);
      }
    } free_them{desc, info};
    HB_DL(cusparseSetMatIndexBase)(desc, CUSPARSE_INDEX_BASE_ZERO);
    HB_DL(cusparseSetMatType)(desc, CUSPARSE_MATRIX_TYPE_GENERAL);
    const auto* rp = static_cast<const int*>(rowptr_->native());
    const auto* ci = static_cast<const int*>(col_->native());
    int bytes = 0;
    if (dbl_)
      ilu_check(HB_DL(cusparseDcsrilu02_bufferSize)(h_, n, nnz, desc, static_cast<double*>(val_->native()), rp, ci,
                                                    info, &bytes),
                "cusparseDcsrilu02_bufferSize");
    else
      ilu_check(HB_DL(cusparseScsrilu02_bufferSize)(h_, n, nnz, desc, static_cast<float*>(val_->native()), rp, ci,
                                                    info, &bytes),
                "cusparseScsrilu02_bufferSize");
    auto work = d_.alloc(std::max(bytes, 8));
    const auto policy = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
    if (dbl_)
      ilu_check(HB_DL(cusparseDcsrilu02_analysis)(h_, n, nnz, desc, static_cast<double*>(val_->native()), rp, ci, info,
                                                  policy, work->native()),
                "cusparseDcsrilu02_analysis");
    else
      ilu_check(HB_DL(cusparseScsrilu02_analysis)(h_, n, nnz, desc, static_cast<float*>(val_->native()), rp, ci, info,
                                                  policy, work->native()),
                "cusparseScsrilu02_analysis");
    zero_pivot(info, "a structural zero: row {} (1-based) has no diagonal entry");
    if (dbl_)
      ilu_check(HB_DL(cusparseDcsrilu02)(h_, n, nnz, desc, static_cast<double*>(val_->native()), rp, ci, info, policy,
                                         work->native()),
                "cusparseDcsrilu02");
    else
      ilu_check(HB_DL(cusparseScsrilu02)(h_, n, nnz, desc, static_cast<float*>(val_->native()), rp, ci, info, policy,
                                         work->native()),
                "cusparseScsrilu02");
    zero_pivot(info, "a zero pivot: U's diagonal is 0 at row {} (1-based)");
  }
  void zero_pivot(csrilu02Info_t info, const char* what) {
    int at = -1;
    const auto st = HB_DL(cusparseXcsrilu02_zeroPivot)(h_, info, &at);  // waits for the stream
    if (st == CUSPARSE_STATUS_ZERO_PIVOT)
      throw Error(fmt::format("ILU(0) breaks down on {}", fmt::format(fmt::runtime(what), at + 1)));
    ilu_check(st, "cusparseXcsrilu02_zeroPivot");
  }
  void set(cusparseSpMatDescr_t m, cusparseFillMode_t fill, cusparseDiagType_t diag) {
    ilu_check(HB_DL(cusparseSpMatSetAttribute)(m, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof(fill)),
              "cusparseSpMatSetAttribute");
    ilu_check(HB_DL(cusparseSpMatSetAttribute)(m, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof(diag)),
              "cusparseSpMatSetAttribute");
  }
  void analyse(cusparseSpMatDescr_t m, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y, cusparseSpSVDescr_t& s,
               std::unique_ptr<Buffer>& buf) {
    ilu_check(HB_DL(cusparseSpSV_createDescr)(&s), "cusparseSpSV_createDescr");
    std::size_t bytes = 0;
    ilu_check(HB_DL(cusparseSpSV_bufferSize)(h_, CUSPARSE_OPERATION_NON_TRANSPOSE, one(), m, x, y, type_,
                                             CUSPARSE_SPSV_ALG_DEFAULT, s, &bytes),
              "cusparseSpSV_bufferSize");
    buf = d_.alloc(std::max<std::size_t>(bytes, 8));  // kept: the solves use it
    ilu_check(HB_DL(cusparseSpSV_analysis)(h_, CUSPARSE_OPERATION_NON_TRANSPOSE, one(), m, x, y, type_,
                                           CUSPARSE_SPSV_ALG_DEFAULT, s, buf->native()),
              "cusparseSpSV_analysis");
  }
};

const bool registered_cusparse_ilu0 = [] {
  register_vendor_ilu0(BackendKind::Cuda, [](Device& dev, const CsrMatrix& a, Precision p) -> std::unique_ptr<VendorIlu0> {
    auto* d = dynamic_cast<CudaDevice*>(&dev);
    if (!d) throw Error(fmt::format("--precond ilu0 needs a CUDA device, not {}", dev.id()));
    return std::make_unique<CusparseIlu0>(*d, a, p);
  });
  return true;
}();

}  // namespace
}  // namespace hetbench
