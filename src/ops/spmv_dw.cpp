// SpMV in DF and DD: y = α·A·x + β·y with val, x, y, α and β double-words.
//
// Bound per row (docs/validation.md, "SpMV in DF and DD"). A kernel forms the row's nnz_i
// products with the accurate multiply (relative error ≤ m = 5u), adds them and β·y_i
// (one more multiply) through accurate additions (relative error ≤ a = 3u/(1 − 4u_w) of
// each result) in any order, α multiplying the row sum or partial sums of it (merge-path
// carries). Every term then carries two multiplies (β·y_i one) and at most nnz_i + 1
// additions (counting a first addition into zero, which is exact), so
//   |ŷ_i − y_i| ≤ ((1 + m)^2 (1 + a)^(nnz_i+1) − 1)·(|α|·Σ_j |a_ij·x_j| + |β|·|y_i|),
// and the reference (long double for DF, binary128 for DD) adds γ_{nnz_i+2}(u_ref).
#include "ops/spmv_dw.hpp"

#include <cctype>

namespace hetbench::spmv_detail {

const Axis& spmv_storage_axis() {
  static const Axis a = Axis::choice("storage", {"aos", "soa"}, "double-word operand storage (DF, DD)",
                                     /*indicators=*/true, /*optional=*/true).only_in({Precision::DF, Precision::DD});
  return a;
}

std::pair<std::string, std::optional<std::size_t>> split_storage(const std::string& token) {
  const auto at = token.rfind('@');
  if (at == std::string::npos || at + 1 == token.size()) return {token, std::nullopt};
  const std::string suffix = token.substr(at + 1);
  for (unsigned char c : suffix)
    if (!std::isalnum(c)) return {token, std::nullopt};
  const auto& axis = spmv_storage_axis();
  if (Sizes named; axis.set(named, suffix)) return {token.substr(0, at), axis.index(named)};
  throw Error(fmt::format("spmv input '{}': '@{}' is not a storage of spmv (aos, soa)", token, suffix));
}

namespace {

template <class W, bool Soa>
void fill_and_reference(SpmvProblem& prob, std::uint64_t seed) {
  using R = dw_ref_t<W>;
  const CsrMatrix& a = *prob.a;
  const auto rows = static_cast<std::size_t>(a.rows), cols = static_cast<std::size_t>(a.cols),
             nnz = static_cast<std::size_t>(a.nnz());
  // The matrix's binary64 values as hi words, with a seeded lo word (never zero) as every
  // double-word input has, so that a kernel that drops val's lo cannot pass.
  ArrayOperand val{"val", false, Access::In, nnz, 2 * sizeof(W), {}};
  val.host.resize(val.bytes());
  const DwSpan<W, Soa> v{reinterpret_cast<W*>(val.host.data()), nnz};
#pragma omp parallel for schedule(static) if (nnz > 65536)
  for (std::size_t q = 0; q < nnz; ++q) v.set(q, random_dw<W>(a.values[q], seed, 10, q));
  prob.arrays.push_back(std::move(val));
  prob.arrays.push_back(random_dw_array<W>("x", cols, Soa, seed, 11));
  prob.arrays.push_back(random_dw_array<W>("y", rows, Soa, seed, 12));
  prob.arrays.back().access = Access::InOut;
  // Neither 0 nor ±1, so that a variant that drops α or β cannot pass.
  auto scalar = [&](std::uint64_t stream) {
    double c = random_value(seed, stream, 0);
    if (static_cast<W>(c) == W(1) || static_cast<W>(c) == W(-1)) c *= 0.75;
    return random_dw<W>(c, seed, stream, 0);
  };
  const dw<W> alpha = scalar(13), beta = scalar(14);
  for (auto [nm, d] : {std::pair{"alpha", alpha}, std::pair{"beta", beta}}) {
    prob.scalars.push_back({nm, false, static_cast<double>(d.hi)});
    prob.scalars.push_back({std::string(nm) + "_hi", false, static_cast<double>(d.hi)});
    prob.scalars.push_back({std::string(nm) + "_lo", false, static_cast<double>(d.lo)});
  }

  const DwSpan<const W, Soa> val_s{typed<W>(prob.array("val").host), nnz}, x{typed<W>(prob.array("x").host), cols},
      y{typed<W>(prob.array("y").host), rows};
  prob.ref_dw.assign(rows, 0);
  prob.mag.assign(rows, 0);
  const R al = to_ref<R>(alpha), be = to_ref<R>(beta);
  const long double aal = abs_ld(al), abe = abs_ld(be);
#pragma omp parallel for schedule(dynamic, 1024) if (nnz > 65536)
  for (std::size_t i = 0; i < rows; ++i) {
    R sum = 0;
    long double abs = 0;
    for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q) {
      const R t = to_ref<R>(val_s[q]) * to_ref<R>(x[a.colidx[q]]);
      sum += t;
      abs += abs_ld(t);
    }
    const R y0 = to_ref<R>(y[i]);
    prob.ref_dw[i] = static_cast<quad_t>(al * sum + be * y0);
    prob.mag[i] = aal * abs + abe * abs_ld(y0);
  }
}

}  // namespace

void build_dw(SpmvProblem& prob, std::uint64_t seed) {
  const bool soa = spmv_storage_axis().index(prob.sizes) != 0;
  // Kernels read the storage from the sizes (metadata "defines"): always present here.
  spmv_storage_axis().set(prob.sizes, std::size_t{soa});
  with_word(prob.prec, [&]<class W>() {
    with_layout(soa, [&](auto l) { fill_and_reference<W, decltype(l)::value>(prob, seed); });
    return 0;
  });
  prob.features["storage"] = soa ? "soa" : "aos";
}

Validation validate_dw(const SpmvProblem& prob, const Outputs& out) {
  const bool soa = spmv_storage_axis().index(prob.sizes) != 0;
  return with_word(prob.prec, [&]<class W>() {
    using R = dw_ref_t<W>;
    const DwBounds b = dw_bounds(prob.prec);
    const auto& rp = prob.a->rowptr;
    const std::size_t rows = prob.ref_dw.size();
    // (1 + m)^2 (1 + γ_{k+1}(a)) − 1 expanded: 1 + u would round away in any binary type here.
    auto bound = [&](std::size_t i) {
      const double k = static_cast<double>(rp[i + 1] - rp[i]);
      const long double m = b.mul, ga = gamma_n(k + 1, b.add);
      return (m * (2 + m) + ga * (1 + m) * (1 + m) + gamma_n(k + 2, dw_ref_u<W>())) * prob.mag[i];
    };
    auto v = with_layout(soa, [&](auto l) {
      const DwSpan<const W, decltype(l)::value> y{typed<W>(output(out, "y")), rows};
      return check_dw_elements(y, [&](std::size_t i) { return static_cast<R>(prob.ref_dw[i]); }, bound);
    });
    v.bound =
        "|y_i - ref_i| <= ((1 + 5u)^2 (1 + gamma_{nnz_i+1}(a)) - 1 + gamma_{nnz_i+2}(u_ref)) (|alpha| sum_j |a_ij x_j| "
        "+ |beta| |y0_i|), a = 3u/(1 - 4u_w)";
    return v;
  });
}

}  // namespace hetbench::spmv_detail
