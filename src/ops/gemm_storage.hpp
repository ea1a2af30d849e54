// Storage of the GEMM operands A, B, C in the double-word precisions DF and DD, chosen by
// a size suffix: @aos (default; interleaved (hi, lo) pairs, as Mukunoki & Imamura's double-float
// arrays), @soa (all hi words of the matrix, then all lo words: the size key "soa") or
// @d64 (binary64 elements, converted to DF/DD when loaded and rounded back to binary64
// when stored: the DGEMM-D(DF) of Mukunoki & Imamura, "DGEMM using double-float
// arithmetic on Maxwell GPUs"; the size key "d64"). S and D ignore the keys.
#pragma once

#include <type_traits>

#include "ops/double_word.hpp"

namespace hetbench {

enum class GemmStorage { aos, soa, d64 };  // in the order of the axis' values

// Optional: recorded only when a size names it (S and D ignore it); the double-word
// problems always record it, since their kernels read it.
inline const Axis& gemm_storage_axis() {
  static const Axis a = Axis::choice("storage", {"aos", "soa", "d64"}, "double-word operand storage (DF, DD)",
                                     /*indicators=*/true, /*optional=*/true).only_in({Precision::DF, Precision::DD});
  return a;
}

inline GemmStorage gemm_storage(const Sizes& s) { return gemm_storage_axis().get<GemmStorage>(s); }

inline const char* storage_name(GemmStorage s) {
  return s == GemmStorage::d64 ? "d64" : s == GemmStorage::soa ? "soa" : "aos";
}

// Calls f(std::integral_constant<GemmStorage, s>{}), so that the storage is a
// compile-time constant in the element loops.
template <class F>
decltype(auto) with_gemm_storage(GemmStorage s, F&& f) {
  switch (s) {
    case GemmStorage::soa: return f(std::integral_constant<GemmStorage, GemmStorage::soa>{});
    case GemmStorage::d64: return f(std::integral_constant<GemmStorage, GemmStorage::d64>{});
    default: return f(std::integral_constant<GemmStorage, GemmStorage::aos>{});
  }
}

// binary64 -> DF (Dekker split, relative error < 2^-48) or DD (exact).
template <class W>
dw<W> dw_from_binary64(double d) {
  if constexpr (std::is_same_v<W, float>) {
    return to_df(d);
  } else {
    return to_dd(d);
  }
}

// A matrix of `count` elements in storage S seen as double-words of word W. Word is
// what the buffer holds: W, or double for d64.
template <class W, GemmStorage S, bool Mutable = false>
struct DwMatrix {
  using Word = std::conditional_t<S == GemmStorage::d64, double, W>;
  std::conditional_t<Mutable, Word, const Word>* p;
  std::size_t count;

  static constexpr std::size_t words_per_element = S == GemmStorage::d64 ? 1 : 2;

  dw<W> operator[](std::size_t i) const {
    if constexpr (S == GemmStorage::d64) {
      return dw_from_binary64<W>(p[i]);
    } else if constexpr (S == GemmStorage::soa) {
      return {p[i], p[count + i]};
    } else {
      return {p[2 * i], p[2 * i + 1]};
    }
  }
  // The stored value, exactly, in R (long double or binary128: both hold hi + lo of the
  // seeded inputs and every binary64).
  template <class R>
  R value(std::size_t i) const {
    if constexpr (S == GemmStorage::d64) {
      return static_cast<R>(p[i]);
    } else {
      return to_ref<R>((*this)[i]);
    }
  }
  void set(std::size_t i, dw<W> v) const
    requires Mutable
  {
    if constexpr (S == GemmStorage::d64) {
      p[i] = to_double(v);
    } else if constexpr (S == GemmStorage::soa) {
      p[i] = v.hi;
      p[count + i] = v.lo;
    } else {
      p[2 * i] = v.hi;
      p[2 * i + 1] = v.lo;
    }
  }
};

}  // namespace hetbench
