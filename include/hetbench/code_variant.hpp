// Variants written in C++ and registered in code: host loops and vendor-library calls
// (OpenBLAS, Eigen, cuBLAS, CUB, cuSPARSE, CLBlast). One template serves every backend;
// what differs per backend is the Call type: the device class, and what has to happen
// before each call (CUDA makes its device current).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

// What a code variant's functions see: the device, the problem, its operands and the
// parameters. A backend derives its Call from CallBase; a variant that keeps state
// between prepare and run (a library handle, scratch memory) derives from that in turn.
template <class Dev, BackendKind Backend>
struct CallBase {
  using Device = Dev;
  static constexpr BackendKind backend = Backend;
  Dev* dev = nullptr;
  const Problem* prob = nullptr;
  const BufferMap* bufs = nullptr;
  ParamValues params;

  // The operand's Buffer::native() handle as T (a typed pointer, or cl_mem).
  template <class T = void>
  T* ptr(const std::string& name) const {
    auto it = bufs->find(name);
    if (it == bufs->end()) throw PointError(fmt::format("internal: {} variant asked for unknown operand {}", to_string(Backend), name));
    return static_cast<T*>(it->second->native());
  }
  double scalar(const std::string& name) const { return prob->scalar(name)->value; }
  std::int64_t size(const std::string& name) const { return prob->sizes.at(name); }
  // An optional size key (an optional choice's index), `absent` where the problem does not
  // name it (Axis: absent means the first value).
  std::int64_t size_or(const std::string& name, std::int64_t absent) const {
    auto it = prob->sizes.find(name);
    return it == prob->sizes.end() ? absent : it->second;
  }
  long long param(const std::string& name) const { return params.at(name); }
  bool dbl() const { return prob->prec == Precision::D; }
  // Runs before prepare and before every run.
  void enter() const {}
  // Instance::reset and Instance::collect: a Call with state outside the operands hides these.
  void reset() {}
  void collect(Outputs&) {}
};

// What a code variant declares besides its functions.
struct CodeVariantInfo {
  std::string op, name, description;
  VariantKind kind = VariantKind::Library;  // Host for hetbench's own host loops
  std::string library;                      // the origin, e.g. "cuBLAS"; empty: the kind
  std::vector<Precision> precisions{Precision::S, Precision::D};
  std::vector<ParamDef> params;
  // Expressions over sizes and device values (Variant::constraints): a point failing
  // one is skipped with it as the reason.
  std::vector<std::string> constraints = {};
  std::function<std::string(const Device&)> unavailable = {};  // Variant::unavailable
  std::vector<std::string> axes = {};  // opt-in axes of the op it implements (Variant::axes)
};

template <class Call>
class CodeVariant final : public Variant {
 public:
  using Fn = std::function<void(Call&)>;
  // `run` is the timed work; `setup` (optional) runs once per point in prepare, untimed.
  CodeVariant(CodeVariantInfo info, Fn run, Fn setup = {}) : run_(std::move(run)), setup_(std::move(setup)) {
    op = std::move(info.op);
    name = std::move(info.name);
    description = std::move(info.description);
    backend = Call::backend;
    kind = info.kind;
    origin = "built in (" + (info.library.empty() ? to_string(kind) : info.library) + ")";
    precisions = std::move(info.precisions);
    params = std::move(info.params);
    for (auto& c : info.constraints) constraints.emplace_back(std::move(c));
    unavailable = std::move(info.unavailable);
    axes = std::move(info.axes);
  }

  std::unique_ptr<Instance> prepare(Device& dev, const Problem& prob, const BufferMap& bufs,
                                    const ParamValues& pv) const override {
    auto* d = dynamic_cast<typename Call::Device*>(&dev);
    if (!d) throw PointError(fmt::format("{} runs on {} devices only, not on {}", id(), to_string(backend), dev.id()));
    auto i = std::make_unique<Inst>(run_);
    i->call.dev = d;
    i->call.prob = &prob;
    i->call.bufs = &bufs;
    i->call.params = pv;
    i->call.enter();
    if (setup_) setup_(i->call);
    return i;
  }

 private:
  struct Inst final : Instance {
    explicit Inst(const Fn& f) : fn(f) {}
    const Fn& fn;
    Call call;
    void run() override {
      call.enter();
      fn(call);
    }
    void reset() override {
      call.enter();
      call.reset();
    }
    void collect(Outputs& out) override {
      call.enter();
      call.collect(out);
    }
  };
  Fn run_, setup_;
};

// The one way to register a variant from code (in a source file's static initialiser).
template <class Call>
void register_code_variant(CodeVariantInfo info, typename CodeVariant<Call>::Fn run,
                           typename CodeVariant<Call>::Fn setup = {}) {
  register_variant(std::make_shared<CodeVariant<Call>>(std::move(info), std::move(run), std::move(setup)));
}

}  // namespace hetbench
