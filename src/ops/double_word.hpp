// Double-word (DF, DD) operands of the vector ops: the two storages, seeded inputs, the
// reference type, the per-operation error bounds and the element-wise check. The
// arithmetic is include/hetbench/dfdd.hpp; the bounds are derived in docs/validation.md.
#pragma once

#include <cfloat>
#include <type_traits>

#include "hetbench/dfdd.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

inline bool is_double_word(Precision p) { return p == Precision::DF || p == Precision::DD; }

// Calls f.template operator()<W>() with W the word type of DF (float) or DD (double).
template <class F>
decltype(auto) with_word(Precision p, F&& f) {
  switch (p) {
    case Precision::DF: return f.template operator()<float>();
    case Precision::DD: return f.template operator()<double>();
    default: throw Error(fmt::format("internal: {} is not a double-word precision", name(p)));
  }
}

// The reference: long double (64-bit significand on x86-64) for DF, binary128 for DD
// (GCC's __float128, soft-float in libgcc: no libquadmath needed). Both hold an input's
// hi + lo exactly: the seeded inputs span at most 2p + 5 bits (core/random.hpp).
#if defined(__SIZEOF_FLOAT128__)
using quad_t = __float128;
constexpr int kQuadDigits = 113;
#else
using quad_t = long double;
constexpr int kQuadDigits = LDBL_MANT_DIG;
#endif
static_assert(LDBL_MANT_DIG >= 64 && kQuadDigits >= 113, "DF/DD references need 64- and 113-bit significands");

template <class W>
using dw_ref_t = std::conditional_t<std::is_same_v<W, float>, long double, quad_t>;

template <class W>
constexpr double dw_ref_u() {
  return std::is_same_v<W, float> ? 0x1p-64 : 0x1p-113;
}

template <class R>
R to_ref(dw<float> x) {
  return static_cast<R>(x.hi) + static_cast<R>(x.lo);
}
template <class R>
R to_ref(dw<double> x) {
  return static_cast<R>(x.hi) + static_cast<R>(x.lo);
}
template <class R>
long double abs_ld(R x) {
  return static_cast<long double>(x < 0 ? -x : x);
}

// Relative error bounds of the double-word operations the ops are specified with, in
// terms of the precision's u = info(p).u = u_w^2 (u_w: the word's unit roundoff):
// accurate add (JMP 2017 Alg. 6) 3u/(1 - 4u_w); multiply (Alg. 12) 5u as published.
struct DwBounds {
  double add, mul;
};
inline DwBounds dw_bounds(Precision p) {
  const double u = info(p).u, uw = std::sqrt(u);
  return {3 * u / (1 - 4 * uw), 5 * u};
}

// Element i of an array of n double-word elements: interleaved (hi, lo) pairs (AoS) or
// the n hi words followed by the n lo words (SoA). W may be const.
template <class W, bool Soa>
struct DwSpan {
  W* p;
  std::size_t n;
  W& hi(std::size_t i) const { return Soa ? p[i] : p[2 * i]; }
  W& lo(std::size_t i) const { return Soa ? p[n + i] : p[2 * i + 1]; }
  dw<std::remove_const_t<W>> operator[](std::size_t i) const { return {hi(i), lo(i)}; }
  void set(std::size_t i, dw<W> v) const {
    hi(i) = v.hi;
    lo(i) = v.lo;
  }
};

// Calls f(std::bool_constant<soa>{}), so that the layout is a compile-time constant.
template <class F>
decltype(auto) with_layout(bool soa, F&& f) {
  return soa ? f(std::true_type{}) : f(std::false_type{});
}

inline bool soa_storage(const Problem& p) { return vector_storage_axis().index(p.sizes) != 0; }

// A double-word value: hi from random_value, lo from random_lo (never zero, |lo| <= ulp(hi)/2).
template <class W>
dw<W> random_dw(double hi_value, std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  const W hi = static_cast<W>(hi_value);
  return {hi, random_lo(hi, seed, stream, i)};
}

template <class W>
ArrayOperand random_dw_array(const std::string& name, std::size_t n, bool soa, std::uint64_t seed,
                             std::uint64_t stream) {
  ArrayOperand a{name, false, Access::In, n, 2 * sizeof(W), {}};
  a.host.resize(a.bytes());
  W* w = reinterpret_cast<W*>(a.host.data());
  with_layout(soa, [&](auto s) {
    const DwSpan<W, decltype(s)::value> v{w, n};
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::size_t i = 0; i < n; ++i) v.set(i, random_dw<W>(random_value(seed, stream, i), seed, stream, i));
  });
  return a;
}

// Checks double-word outputs against ref(i) (in dw_ref_t<W>) with the allowed error
// bound(i) (long double). The error (hi - ref) + lo is formed in the reference type,
// where hi - ref is exact whenever hi is within a factor 2 of ref (Sterbenz), so the
// check adds no error of its own beyond u_ref|error|. An element with either word
// unwritten counts as unwritten.
template <class W, bool Soa, class Ref, class Bound>
Validation check_dw_elements(const DwSpan<const W, Soa>& out, Ref ref, Bound bound) {
  using R = dw_ref_t<W>;
  return check_each(
      out.n,
      [&](std::size_t i) {
        const W h = out.hi(i), l = out.lo(i);
        if (is_poison(h) || is_poison(l)) return ElementError{ElementError::unwritten};
        if (std::isnan(h) || std::isnan(l)) return ElementError{ElementError::nan};
        const R r = ref(i);
        const R e = (static_cast<R>(h) - r) + static_cast<R>(l);
        return ElementError{ElementError::ok, abs_ld(e), static_cast<long double>(r)};
      },
      bound);
}

}  // namespace hetbench
