// What the JIT backends share: the argument packer and the program cache.
#include <cstring>

#include <fmt/format.h>

#include "api/program_cache.hpp"
#include "hetbench/error.hpp"
#include "util/cache.hpp"

namespace hetbench {

PackedArg pack(const KernelArg& a) {
  PackedArg p;
  auto put = [&](const auto& v) {
    static_assert(sizeof v <= sizeof p.bytes);
    p.size = sizeof v;
    std::memcpy(p.bytes.data(), &v, sizeof v);
  };
  switch (a.kind) {
    case KernelArg::Buf: put(a.buf->native()); break;
    case KernelArg::I32: put(static_cast<std::int32_t>(a.i)); break;
    case KernelArg::U32: put(static_cast<std::uint32_t>(a.i)); break;
    case KernelArg::I64: put(static_cast<std::int64_t>(a.i)); break;
    case KernelArg::U64: put(static_cast<std::uint64_t>(a.i)); break;
    case KernelArg::F32: put(static_cast<float>(a.f)); break;
    case KernelArg::F64: put(a.f); break;
  }
  return p;
}

void Program::copy_to_symbol(const std::string& symbol, Buffer&, std::size_t) {
  throw BuildError(fmt::format("module global '{}': this backend's programs have none (OpenCL passes constant memory "
                               "as a __constant argument)",
                               symbol));
}

std::shared_ptr<Program> Device::build(const ProgramSource& src) {
  throw BuildError(fmt::format("{}: device {} cannot build kernels", src.path, id()));
}

namespace {
[[noreturn]] void no_host_link(const Device& d) {
  throw PointError(fmt::format("{}: the host has no host link (transfer needs a CUDA or OpenCL device)", d.id()));
}
}  // namespace

std::unique_ptr<HostMemory> Device::alloc_host(std::size_t, HostMemoryKind) { no_host_link(*this); }
void Device::copy_to_device(Buffer&, const void*, std::size_t, int) { no_host_link(*this); }
void Device::copy_to_host(void*, Buffer&, std::size_t, int) { no_host_link(*this); }
void Device::copy_peer(Buffer&, Device&, Buffer&, std::size_t) {
  throw PointError(fmt::format("{}: no device-to-device copies on this backend", id()));
}

std::shared_ptr<Program> ProgramCache::get(const std::vector<std::string>& key_parts, const Load& load,
                                           const Compile& compile) {
  std::string key;
  for (const auto& part : key_parts) {
    if (&part != &key_parts.front()) key += '\n';
    key += part;
  }
  std::lock_guard lock(mu_);
  if (auto it = programs_.find(key); it != programs_.end()) return it->second;
  std::shared_ptr<Program> p;
  if (auto blob = cache_load(kind_, key)) p = load(*blob);
  if (!p) {
    auto built = compile();
    p = std::move(built.program);
    if (!built.binary.empty()) cache_store(kind_, key, built.binary);
  }
  programs_[key] = p;
  return p;
}

void ProgramCache::clear() {
  std::lock_guard lock(mu_);
  programs_.clear();
}

}  // namespace hetbench
