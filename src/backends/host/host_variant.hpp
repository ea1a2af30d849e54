// Host variants: C++ functions registered in code, run on the "host" device.
#pragma once

#include <functional>

#include "backends/host/host_backend.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

// What a host variant sees: typed pointers to the operands, scalars and parameters.
struct HostCall {
  const Problem* prob;
  const BufferMap* bufs;
  ParamValues params;

  template <class T>
  T* ptr(const std::string& name) const {
    auto it = bufs->find(name);
    if (it == bufs->end()) throw PointError("internal: host variant asked for unknown operand " + name);
    return host_ptr<T>(it->second);
  }
  double scalar(const std::string& name) const { return prob->scalar(name)->value; }
  std::int64_t size(const std::string& name) const { return prob->sizes.at(name); }
  long long param(const std::string& name) const { return params.at(name); }
};

class HostVariant final : public Variant {
 public:
  using Fn = std::function<void(const HostCall&)>;
  HostVariant(std::string op_, std::string name_, std::string desc, std::vector<Precision> precs,
              std::vector<ParamDef> pdefs, Fn fn, std::string kind_ = "host")
      : fn_(std::move(fn)) {
    op = std::move(op_);
    name = std::move(name_);
    description = std::move(desc);
    precisions = std::move(precs);
    params = std::move(pdefs);
    backend = "host";
    kind = std::move(kind_);
    origin = "built in (" + kind + ")";
  }
  std::unique_ptr<Instance> prepare(Device&, const Problem& prob, const BufferMap& bufs,
                                    const ParamValues& pv) const override {
    struct Inst final : Instance {
      Fn fn;
      HostCall call;
      void run() override { fn(call); }
    };
    auto i = std::make_unique<Inst>();
    i->fn = fn_;
    i->call = HostCall{&prob, &bufs, pv};
    return i;
  }

 private:
  Fn fn_;
};

// Thread counts 1..hardware threads in powers of two, default all of them.
ParamDef threads_param();

}  // namespace hetbench
