// Shared pieces of the vector ops (copy, axpy, dot): typed dispatch, operand set-up
// and the element-wise bound check.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/random.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"

namespace hetbench {

// Calls f.template operator()<T>() with T the storage type of S or D.
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

// Bytes of `vectors` arrays of n elements: what a vector op needs on the device.
inline std::size_t vector_bytes(const Sizes& s, Precision p, std::size_t vectors) {
  return vectors * static_cast<std::size_t>(s.at("n")) * info(p).bytes;
}

template <class T>
bool is_poison(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  for (auto c : b)
    if (c != 0xFF) return false;
  return true;
}

// Checks out[i] against ref(i) with the allowed error bound(i) (both in long double).
template <class T, class Ref, class Bound>
Validation check_elements(const T* out, std::size_t n, Ref ref, Bound bound) {
  Validation v;
  v.checked = n;
  double max_ratio = 0, max_abs = 0, max_rel = 0;
  std::size_t nan = 0, unwritten = 0, over = 0;
#pragma omp parallel for reduction(max : max_ratio, max_abs, max_rel) reduction(+ : nan, unwritten, over) if (n > 65536)
  for (std::size_t i = 0; i < n; ++i) {
    T o = out[i];
    if (is_poison(o)) {
      ++unwritten;
      continue;
    }
    if (std::isnan(o)) {
      ++nan;
      continue;
    }
    long double r = ref(i);
    long double err = std::fabs(static_cast<long double>(o) - r);
    long double b = bound(i);
    double ratio = err == 0 ? 0.0 : (b > 0 ? static_cast<double>(err / b) : INFINITY);
    if (ratio > 1.0) ++over;
    max_ratio = std::max(max_ratio, ratio);
    max_abs = std::max(max_abs, static_cast<double>(err));
    if (r != 0) max_rel = std::max(max_rel, static_cast<double>(err / std::fabs(r)));
  }
  v.max_ratio = max_ratio;
  v.max_abs_err = max_abs;
  v.max_rel_err = max_rel;
  v.nan = nan;
  v.unwritten = unwritten;
  v.over_bound = over;
  return v;
}

template <class T>
const T* typed(const std::vector<unsigned char>& bytes) {
  return reinterpret_cast<const T*>(bytes.data());
}

inline const std::vector<unsigned char>& output(const Outputs& out, const std::string& name) {
  auto it = out.find(name);
  if (it == out.end()) throw Error(fmt::format("internal: output '{}' was not downloaded", name));
  return it->second;
}

}  // namespace hetbench
