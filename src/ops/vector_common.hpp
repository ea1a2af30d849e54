// Shared pieces of the vector ops (copy, axpy, dot): typed dispatch, operand set-up
// and the element-wise bound check.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "util/random.hpp"
#include "util/ranges.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"

namespace hetbench {

// Calls f.template operator()<T>() with T the storage type of S or D (double-word
// precisions: with_word in ops/double_word.hpp).
template <class F>
decltype(auto) with_real(Precision p, F&& f) {
  switch (p) {
    case Precision::S: return f.template operator()<float>();
    case Precision::D: return f.template operator()<double>();
    default: throw Error(fmt::format("precision {} is not supported by this op yet", name(p)));
  }
}

// The reference type: well above the variant's precision, so that its own error is
// negligible (it is still added to the bound).
template <class T>
using ref_t = std::conditional_t<std::is_same_v<T, float>, double, long double>;

template <class T>
constexpr double ref_u() {
  return std::is_same_v<T, float> ? 0x1p-53 : static_cast<double>(std::numeric_limits<long double>::epsilon()) / 2;
}

template <class T>
ArrayOperand random_array(const std::string& name, std::size_t n, std::uint64_t seed, std::uint64_t stream) {
  ArrayOperand a{name, false, Access::In, n, sizeof(T), {}};
  a.host.resize(n * sizeof(T));
  fill_random(reinterpret_cast<T*>(a.host.data()), n, seed, stream);
  return a;
}

// A scaling coefficient (GEMM's and SpMV's α, β): exactly representable in T, so that
// every variant multiplies by the same value, and neither 0 nor ±1, so that a variant
// that drops it cannot pass.
template <class T>
T random_coefficient(std::uint64_t seed, std::uint64_t stream) {
  T v = static_cast<T>(random_value(seed, stream, 0));
  if (v == T(1) || v == T(-1)) v *= T(0.75);
  return v;
}

inline ArrayOperand output_array(const std::string& name, std::size_t n, std::size_t elem) {
  return ArrayOperand{name, false, Access::Out, n, elem, {}};
}

// A problem of the given sizes and precision, to be filled by the op.
template <class P = Problem>
std::unique_ptr<P> new_problem(const Sizes& s, Precision p) {
  auto prob = std::make_unique<P>();
  prob->prec = p;
  prob->sizes = s;
  return prob;
}

// Bytes of `vectors` arrays of n elements: what a vector op needs on the device (a real
// number: Op::device_bytes).
inline double vector_bytes(const Sizes& s, Precision p, std::size_t vectors) {
  return static_cast<double>(vectors) * static_cast<double>(s.at("n")) * info(p).bytes;
}

template <class T>
bool is_poison(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  for (auto c : b)
    if (c != 0xFF) return false;
  return true;
}

// One checked element: unwritten (poison), NaN, or its error and reference.
struct ElementError {
  enum State { ok, unwritten, nan } state = ok;
  long double err = 0, ref = 0;  // |computed - reference| and the reference
};

// The element-wise check: elem(i) gives the element's ElementError and bound(i) its
// allowed error; error / bound <= 1 passes.
template <class Elem, class Bound>
Validation check_each(std::size_t n, Elem elem, Bound bound) {
  Validation v;
  v.checked = n;
  double max_ratio = 0, max_abs = 0, max_rel = 0;
  std::size_t nan = 0, unwritten = 0, over = 0;
#pragma omp parallel for reduction(max : max_ratio, max_abs, max_rel) reduction(+ : nan, unwritten, over) if (n > 65536)
  for (std::size_t i = 0; i < n; ++i) {
    const ElementError e = elem(i);
    if (e.state == ElementError::unwritten) {
      ++unwritten;
      continue;
    }
    if (e.state == ElementError::nan) {
      ++nan;
      continue;
    }
    long double b = bound(i);
    double ratio = e.err == 0 ? 0.0 : (b > 0 ? static_cast<double>(e.err / b) : INFINITY);
    if (ratio > 1.0) ++over;
    max_ratio = std::max(max_ratio, ratio);
    max_abs = std::max(max_abs, static_cast<double>(e.err));
    if (e.ref != 0) max_rel = std::max(max_rel, static_cast<double>(e.err / std::fabs(e.ref)));
  }
  v.max_ratio = max_ratio;
  v.max_abs_err = max_abs;
  v.max_rel_err = max_rel;
  v.nan = nan;
  v.unwritten = unwritten;
  v.over_bound = over;
  return v;
}

// Checks out[i] against ref(i) with the allowed error bound(i) (both in long double).
template <class T, class Ref, class Bound>
Validation check_elements(const T* out, std::size_t n, Ref ref, Bound bound) {
  return check_each(
      n,
      [&](std::size_t i) {
        const T o = out[i];
        if (is_poison(o)) return ElementError{ElementError::unwritten};
        if (std::isnan(o)) return ElementError{ElementError::nan};
        const long double r = ref(i);
        return ElementError{ElementError::ok, std::fabs(static_cast<long double>(o) - r), r};
      },
      bound);
}

template <class T>
const T* typed(const Bytes& bytes) {
  return reinterpret_cast<const T*>(bytes.data());
}

// The storage of double-word (DF, DD) vector operands: interleaved (hi, lo) pairs (aos),
// or the n hi words followed by the n lo words (soa, the size key "soa"). S and D have one
// word per element, so both storages are the same there.
inline const Axis& vector_storage_axis() {
  static const Axis a = Axis::choice("storage", {"aos", "soa"}, "double-word operand storage (DF, DD)",
                                     /*indicators=*/true).only_in({Precision::DF, Precision::DD});
  return a;
}

// The operands and axes of a vector op of length n: the arrays given, the scalars (real
// ones first, then the integer n), and with `storage` the double-word storage axis.
inline OpSignature vector_signature(std::vector<OperandSpec> arrays, const std::vector<std::string>& reals,
                                    bool storage) {
  OpSignature sig{std::move(arrays), {Axis::dimension("n", "vector length")}};
  for (const auto& r : reals) sig.operands.push_back({r, false});
  sig.operands.push_back({"n", false, Elem::Int});
  if (storage) sig.axes.push_back(vector_storage_axis());
  return sig;
}

// Sizes of AXPY and DOT: the integer list of Op::parse_sizes, optionally followed by
// @aos or @soa (vector_storage_axis).
inline std::vector<Sizes> parse_vector_sizes(const std::string& op, const std::string& token) {
  std::string list = token;
  Sizes storage;
  vector_storage_axis().set(storage, std::size_t{0});
  if (auto at = token.rfind('@'); at != std::string::npos) {
    list = token.substr(0, at);
    if (!vector_storage_axis().set(storage, token.substr(at + 1)))
      throw Error(fmt::format("malformed {} size '{}': expected sizes, optionally followed by @aos or @soa", op, token));
  }
  std::vector<Sizes> out;
  for (long long n : parse_int_list(list, "size")) {
    if (n < 1) throw Error(fmt::format("size n = {} is impossible: {} needs n >= 1", n, op));
    Sizes s = storage;
    s["n"] = n;
    out.push_back(s);
  }
  return out;
}

inline const Bytes& output(const Outputs& out, const std::string& name) {
  auto it = out.find(name);
  if (it == out.end()) throw Error(fmt::format("internal: output '{}' was not downloaded", name));
  return it->second;
}

}  // namespace hetbench
