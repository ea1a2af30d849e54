// The names of the typed kinds, used only in JSON, messages and metadata.
#include <array>
#include <utility>

#include "hetbench/device.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

namespace {

template <class E, std::size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;

constexpr Names<BackendKind, 3> kBackends{
    {{BackendKind::Host, "host"}, {BackendKind::OpenCL, "opencl"}, {BackendKind::Cuda, "cuda"}}};
constexpr Names<VariantKind, 3> kVariantKinds{
    {{VariantKind::Kernel, "kernel"}, {VariantKind::Host, "host"}, {VariantKind::Library, "library"}}};

template <class E, std::size_t N>
std::string name_of(const Names<E, N>& names, E e) {
  for (const auto& [k, n] : names)
    if (k == e) return std::string(n);
  return "?";
}

template <class E, std::size_t N>
std::optional<E> parse(const Names<E, N>& names, std::string_view s) {
  for (const auto& [k, n] : names)
    if (n == s) return k;
  return std::nullopt;
}

}  // namespace

std::string to_string(BackendKind b) { return name_of(kBackends, b); }
std::optional<BackendKind> parse_backend(std::string_view s) { return parse(kBackends, s); }
std::string to_string(VariantKind k) { return name_of(kVariantKinds, k); }
std::optional<VariantKind> parse_variant_kind(std::string_view s) { return parse(kVariantKinds, s); }

}  // namespace hetbench
