// Host variants: C++ functions registered in code (register_code_variant<HostCall>), run
// on the "host" device.
#pragma once

#include "backends/host/host_backend.hpp"
#include "hetbench/code_variant.hpp"

namespace hetbench {

struct HostCall : CallBase<HostDevice, BackendKind::Host> {};

// hetbench's own host code (kind "host") with the precisions S and D unless given.
inline CodeVariantInfo host_code(std::string op, std::string name, std::string description,
                                 std::vector<ParamDef> params = {},
                                 std::vector<Precision> precisions = {Precision::S, Precision::D}) {
  return {.op = std::move(op),
          .name = std::move(name),
          .description = std::move(description),
          .kind = VariantKind::Host,
          .precisions = std::move(precisions),
          .params = std::move(params)};
}

// Registers one host variant; true, so that a file's registrations chain with && into
// one static initialiser.
inline bool add_host_code(const char* op, const char* name, const char* desc, std::vector<ParamDef> params,
                          CodeVariant<HostCall>::Fn fn,
                          std::vector<Precision> precisions = {Precision::S, Precision::D}) {
  register_code_variant<HostCall>(host_code(op, name, desc, std::move(params), std::move(precisions)), std::move(fn));
  return true;
}

// Thread counts 1..hardware threads in powers of two, default all of them.
ParamDef threads_param();

}  // namespace hetbench
