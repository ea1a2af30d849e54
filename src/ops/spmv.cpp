// SpMV: y = α·A·x + β·y with A sparse in CSR (int32 row pointers and sorted column
// indices), read from a Matrix Market file or made by a generator (--matrix).
//
// Bound per row. ŷ_i = fl(fl(α·ŝ_i) + fl(β·y_i)) where ŝ_i is the computed sum of the
// nnz_i products a_ij·x_j. As for GEMM, any summation order gives every product at most
// nnz_i roundings (nnz_i − 1 additions and its multiplication), α one more and the final
// addition one more, so
//   |ŷ_i − y_i| ≤ γ_{nnz_i+2}·(|α|·Σ_j |a_ij·x_j| + |β|·|y_i|).
// An empty row is ŷ_i = fl(β·y_i) (or fl(α·0 + β·y_i)), within γ_2·|β·y_i|. The
// reference, in ref_t (double for S, long double for D), adds its own γ_{nnz_i+2}(u_ref).
//
// DF and DD (val, x, y, α, β double-words, @aos or @soa): ops/spmv_dw.cpp.
//
// Bytes: values + column indices + row pointers + x once + y read and written (β ≠ 0,
// so y must be read).
#include <mutex>

#include "io/matrix_market.hpp"
#include "util/sha256.hpp"
#include "ops/spmv_dw.hpp"
#include "ops/spmv_rules.hpp"
#include "sparse/generators.hpp"

namespace hetbench {

namespace {

using spmv_detail::SpmvProblem;

class SpmvOp final : public Op {
 public:
  std::string name() const override { return "spmv"; }
  std::string description() const override { return "y = alpha*A*x + beta*y, A sparse in CSR (--matrix)"; }
  std::vector<Precision> precisions() const override {
    return {Precision::S, Precision::D, Precision::DF, Precision::DD};
  }
  // The dimensions are the input matrix's, and integer scalars too.
  const OpSignature& signature() const override {
    static const OpSignature sig{
        {{"row_ptr", true, Elem::Int}, {"col", true, Elem::Int}, {"val"}, {"x"}, {"y", true, Elem::Real, Access::InOut},
         // Every precision has the words of α and β (S, D: the value and 0), so that one
         // operand list serves all.
         {"alpha", false}, {"alpha_hi", false}, {"alpha_lo", false}, {"beta", false}, {"beta_hi", false},
         {"beta_lo", false}, {"rows", false, Elem::Int}, {"cols", false, Elem::Int},
         {"nnz", false, Elem::Int}, {"max_row", false, Elem::Int}},
        {Axis::dimension("rows"), Axis::dimension("cols"), Axis::dimension("nnz"),
         Axis::dimension("max_row", "longest row"), spmv_detail::spmv_storage_axis()}};
    return sig;
  }
  std::string input_kind() const override { return "matrix"; }

  // MATRIX[@aos|@soa]: the storage suffix is kept in the input token, so that a replay
  // of a generator point parses the same sizes.
  std::vector<Sizes> parse_input(const std::string& token, std::uint64_t seed) const override {
    const auto storage = spmv_detail::split_storage(token).second;
    auto a = matrix(token, seed);
    const auto f = matrix_features(*a);
    Sizes s{{"rows", f.rows}, {"cols", f.cols}, {"nnz", f.nnz}, {"max_row", f.row_max}};
    if (storage) spmv_detail::spmv_storage_axis().set(s, *storage);
    s.input = token;
    return {s};
  }

  std::string input_source(const std::string& token) const override {
    return spmv_detail::split_storage(token).first;
  }

  nlohmann::json features(const Sizes& s, std::uint64_t seed) const override {
    auto f = summary(*matrix(s.input, seed));
    f["matrix"] = s.input;
    add_file_hash(f, s.input);
    return f;
  }

  // Tuning (ops/spmv_rules.hpp): classes of row-length statistics, the kernel order and
  // parameters those statistics decide; rated by bytes (SpMV is bound by memory).
  nlohmann::json class_features(const Sizes&, const nlohmann::json& f) const override { return f; }
  ClassCoords problem_class(const nlohmann::json& f) const override { return spmv_detail::spmv_class(f); }
  double class_reach() const override { return spmv_detail::kSpmvReach; }
  VariantPreference preferred_variants(const nlohmann::json& f) const override {
    return spmv_detail::spmv_preference(f);
  }
  std::map<std::string, ParamRule> param_rules(const Variant& v, const nlohmann::json& f) const override {
    return spmv_detail::spmv_param_rules(v, f);
  }
  OpRates rates() const override { return {.by_flops = false, .shows_flops = true}; }

  double device_bytes(const Sizes& s, Precision p) const override {
    const double b = info(p).bytes, rows = s.at("rows"), nnz = s.at("nnz"), cols = s.at("cols");
    return (rows + 1) * 4 + nnz * (4 + b) + cols * b + 2 * rows * b;
  }

  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = std::make_unique<SpmvProblem>();
    prob->prec = p;
    prob->sizes = s;
    prob->a = matrix(s.input, seed);
    const CsrMatrix& a = *prob->a;
    const auto rows = static_cast<std::size_t>(a.rows), cols = static_cast<std::size_t>(a.cols),
               nnz = static_cast<std::size_t>(a.nnz());
    prob->arrays.push_back(int_array("row_ptr", a.rowptr));
    prob->arrays.push_back(int_array("col", a.colidx));
    if (is_double_word(p)) spmv_detail::build_dw(*prob, seed);
    else with_real(p, [&]<class T>() {
      ArrayOperand val{"val", false, Access::In, nnz, sizeof(T), {}};
      val.host.resize(nnz * sizeof(T));
      T* v = reinterpret_cast<T*>(val.host.data());
      for (std::size_t i = 0; i < nnz; ++i) v[i] = static_cast<T>(a.values[i]);
      prob->arrays.push_back(std::move(val));
      prob->arrays.push_back(random_array<T>("x", cols, seed, 11));
      prob->arrays.push_back(random_array<T>("y", rows, seed, 12));
      prob->arrays.back().access = Access::InOut;
      const T alpha = random_coefficient<T>(seed, 13), beta = random_coefficient<T>(seed, 14);
      for (const char* nm : {"alpha", "alpha_hi"}) prob->scalars.push_back({nm, false, static_cast<double>(alpha)});
      prob->scalars.push_back({"alpha_lo", false, 0.0});
      for (const char* nm : {"beta", "beta_hi"}) prob->scalars.push_back({nm, false, static_cast<double>(beta)});
      prob->scalars.push_back({"beta_lo", false, 0.0});
      compute_reference<T>(*prob, alpha, beta);
      return 0;
    });
    for (const char* k : {"rows", "cols", "nnz", "max_row"})
      prob->scalars.push_back({k, true, static_cast<double>(s.at(k))});
    const double b = static_cast<double>(info(p).bytes);
    prob->flops = 2.0 * static_cast<double>(nnz);
    prob->min_bytes = static_cast<double>(nnz) * (b + 4) + 4.0 * (rows + 1) + b * cols + 2 * b * rows;
    const nlohmann::json storage = prob->features.value("storage", nlohmann::json());
    prob->features = summary(a);
    if (!storage.is_null()) prob->features["storage"] = storage;
    prob->features["matrix"] = s.input;
    add_file_hash(prob->features, s.input);
    return prob;
  }

  Validation validate(const Problem& base, const Outputs& out) const override {
    const auto& prob = static_cast<const SpmvProblem&>(base);
    if (is_double_word(prob.prec)) return spmv_detail::validate_dw(prob, out);
    return with_real(prob.prec, [&]<class T>() {
      const auto& rp = prob.a->rowptr;
      const double u = info(prob.prec).u;
      auto v = check_elements(
          typed<T>(output(out, "y")), prob.ref.size(), [&](std::size_t i) { return prob.ref[i]; },
          [&](std::size_t i) {
            const double len = static_cast<double>(rp[i + 1] - rp[i]) + 2;
            return (gamma_n(len, u) + gamma_n(len, ref_u<T>())) * prob.mag[i];
          });
      v.bound = "|y_i - ref_i| <= (gamma_{nnz_i+2} + gamma_{nnz_i+2}(u_ref)) (|alpha| sum_j |a_ij x_j| + |beta| |y0_i|)";
      return v;
    });
  }

 private:
  // Matrices are read once per token and seed and shared by every point that uses them;
  // a file that could not be read is not read again either (its message is kept).
  mutable std::mutex mu_;
  mutable std::map<std::pair<std::string, std::uint64_t>, std::shared_ptr<const CsrMatrix>> cache_;
  // A file's content hash, taken when it is read: a replay refuses a file that changed.
  mutable std::map<std::string, std::string> file_hash_;
  mutable std::map<std::string, std::string> unreadable_;

  void add_file_hash(nlohmann::json& f, const std::string& input) const {
    const std::string token = spmv_detail::split_storage(input).first;
    std::lock_guard lock(mu_);
    if (auto it = file_hash_.find(token); it != file_hash_.end()) f["matrix_sha256"] = it->second;
  }

  std::shared_ptr<const CsrMatrix> matrix(const std::string& input, std::uint64_t seed) const {
    const std::string token = spmv_detail::split_storage(input).first;
    if (token.empty()) throw Error("spmv needs a matrix: --matrix FILE.mtx or gen:NAME:k=v,...");
    const bool gen = token.rfind("gen:", 0) == 0;
    std::lock_guard lock(mu_);
    auto key = std::make_pair(token, gen ? seed : 0);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    if (auto it = unreadable_.find(token); it != unreadable_.end()) throw InputError(it->second);
    if (gen) return cache_[key] = checked(token, generate_matrix(token, seed), false);
    try {
      auto a = checked(token, read_matrix_market(token), true);
      file_hash_[token] = sha256_file(token);
      return cache_[key] = a;
    } catch (const InputError& e) {
      unreadable_[token] = e.what();
      throw;
    }
  }

  static std::shared_ptr<const CsrMatrix> checked(const std::string& token, CsrMatrix a, bool file) {
    if (a.rows >= 1 && a.cols >= 1) return std::make_shared<const CsrMatrix>(std::move(a));
    auto why = fmt::format("{}: a {}x{} matrix is impossible for spmv: it needs at least one row and column", token,
                           a.rows, a.cols);
    if (file) throw InputError(why);
    throw Error(why);
  }

  // The matrix features, plus the two ratios that decide between the kernels (the
  // problem class of the tuning database and the rule of --variant auto use them).
  static nlohmann::json summary(const CsrMatrix& a) {
    const auto f = matrix_features(a);
    auto j = to_json(f);
    j["row_max_mean"] = f.row_mean > 0 ? static_cast<double>(f.row_max) / f.row_mean : 0.0;
    j["row_cv"] = f.row_mean > 0 ? f.row_std / f.row_mean : 0.0;
    return j;
  }

  static ArrayOperand int_array(const std::string& name, const std::vector<int32_t>& v) {
    ArrayOperand a{name, true, Access::In, v.size(), sizeof(int32_t), {}};
    a.host.resize(v.size() * sizeof(int32_t));
    std::memcpy(a.host.data(), v.data(), a.host.size());
    return a;
  }

  template <class T>
  static void compute_reference(SpmvProblem& prob, T alpha, T beta) {
    using R = ref_t<T>;
    const CsrMatrix& a = *prob.a;
    const T* val = typed<T>(prob.array("val").host);
    const T* x = typed<T>(prob.array("x").host);
    const T* y = typed<T>(prob.array("y").host);
    const auto rows = static_cast<std::size_t>(a.rows);
    prob.ref.assign(rows, 0);
    prob.mag.assign(rows, 0);
    const R al = alpha, be = beta;
#pragma omp parallel for schedule(dynamic, 1024) if (a.nnz() > 65536)
    for (std::size_t i = 0; i < rows; ++i) {
      R sum = 0, abs = 0;
      for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q) {
        const R t = static_cast<R>(val[q]) * static_cast<R>(x[a.colidx[q]]);
        sum += t;
        abs += t < 0 ? -t : t;
      }
      const R y0 = y[i];
      prob.ref[i] = static_cast<long double>(al * sum + be * y0);
      prob.mag[i] = static_cast<long double>((al < 0 ? -al : al) * abs + (be < 0 ? -be : be) * (y0 < 0 ? -y0 : y0));
    }
  }
};

OpRegistrar<SpmvOp> registered_spmv;

}  // namespace
}  // namespace hetbench
