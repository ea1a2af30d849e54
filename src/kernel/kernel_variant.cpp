// Kernel variants described by metadata, prepared for one point: the program built
// with the point's defines, scratch buffers allocated and the launches' arguments and
// geometry evaluated.
#include "kernel/kernel_variant.hpp"

#include <fmt/format.h>

#include "kernel/kernel_prelude.hpp"
#include "ops/layout_problem.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

namespace {

class KernelInstance final : public Instance {
 public:
  struct Launch {
    std::string kernel;
    std::vector<KernelArg> args;
    Dims global, local;
    std::size_t local_bytes = 0;
  };
  std::shared_ptr<Program> program;
  std::vector<std::unique_ptr<Buffer>> scratch;
  std::vector<Launch> launches;

  void run() override {
    for (const auto& l : launches) program->launch(l.kernel, l.args, l.global, l.local, l.local_bytes);
  }
};

KernelArg::Kind int_kind(const std::string& t) {
  if (t == "int") return KernelArg::I32;
  if (t == "long") return KernelArg::I64;
  if (t == "ulong") return KernelArg::U64;
  return KernelArg::U32;
}

// One launch's arguments (operands, scratch buffers, scalars, named values) and geometry.
template <class Ctx>
KernelInstance::Launch resolve_launch(const LaunchSpec& l, const Problem& prob, const BufferMap& bufs,
                                      const std::map<std::string, Buffer*>& scratch_bufs, const Vars& vars,
                                      const DeviceInfo& di, const Ctx& ctx) {
  const bool wide = info(prob.prec).needs_fp64;
  KernelInstance::Launch out;
  out.kernel = l.kernel;
  for (const auto& a : l.args) {
    KernelArg arg{};
    arg.name = a.name;
    if (auto it = bufs.find(a.name); it != bufs.end()) {
      arg.kind = KernelArg::Buf;
      arg.buf = it->second;
    } else if (auto sit = scratch_bufs.find(a.name); sit != scratch_bufs.end()) {
      arg.kind = KernelArg::Buf;
      arg.buf = sit->second;
    } else if (const auto* sc = prob.scalar(a.name); sc && !sc->is_int) {
      arg.kind = wide ? KernelArg::F64 : KernelArg::F32;
      arg.f = sc->value;
    } else if (auto vit = vars.find(a.name); vit != vars.end()) {
      arg.kind = int_kind(a.type);
      arg.i = static_cast<std::int64_t>(vit->second);
      bool fits = (arg.kind == KernelArg::U32 && arg.i >= 0 && arg.i <= 0xFFFFFFFFll) ||
                  (arg.kind == KernelArg::I32 && arg.i >= INT32_MIN && arg.i <= INT32_MAX) ||
                  arg.kind == KernelArg::I64 || (arg.kind == KernelArg::U64 && arg.i >= 0);
      if (!fits)
        throw PointError(ctx(fmt::format("argument '{}' = {} does not fit a {} kernel argument", a.name, arg.i,
                                         a.type.empty() ? "uint" : a.type)));
    } else {
      throw PointError(
          ctx(fmt::format("kernel {} argument '{}' names no operand, scratch buffer or value", l.kernel, a.name)));
    }
    out.args.push_back(std::move(arg));
  }
  // A negative size is an error of the metadata's arithmetic at this point, not an empty
  // launch; a local size of 0 is kept for launch_misfit to name (clamping it to 1 would
  // run a launch the metadata did not describe).
  auto dim = [&](const Expr& e) {
    const long long v = eval_int(e, vars);
    if (v < 0) throw Error(fmt::format("kernel {}: '{}' is {}, a negative size", l.kernel, e.text(), v));
    return static_cast<std::size_t>(v);
  };
  try {
    for (const auto& g : l.global) out.global.push_back(dim(g));
    for (const auto& g : l.local) out.local.push_back(dim(g));
    if (l.local_bytes) out.local_bytes = dim(*l.local_bytes);
  } catch (const Error& e) {
    throw PointError(ctx(e.what()));
  }
  if (auto why = launch_misfit(di, out.global, out.local); !why.empty())
    throw PointError(ctx(fmt::format("kernel {}: {}", l.kernel, why)));
  return out;
}

}  // namespace

bool set_kernel_scalar(Instance& inst, const std::string& name, double value) {
  auto* k = dynamic_cast<KernelInstance*>(&inst);
  if (!k) return false;
  for (auto& l : k->launches)
    for (auto& a : l.args)
      if (a.name == name && (a.kind == KernelArg::F32 || a.kind == KernelArg::F64)) a.f = value;
  return true;
}

std::unique_ptr<Instance> KernelVariant::prepare(Device& dev, const Problem& prob, const BufferMap& bufs,
                                                 const ParamValues& pv) const {
  auto inst = std::make_unique<KernelInstance>();
  Vars vars = problem_vars(dev.info(), op, prob.sizes, prob.prec);
  for (const auto& [k, v] : pv) vars[k] = static_cast<double>(v);
  for (const auto& s : prob.scalars)
    if (s.is_int) vars[s.name] = s.value;
  auto ctx = [&](const std::string& what) { return fmt::format("{}: {}", origin, what); };
  try {
    for (const auto& [name, e] : lets) vars[name] = static_cast<double>(eval_int(e, vars));
  } catch (const Error& e) {
    throw BuildError(ctx(e.what()));
  }

  ProgramSource src;
  src.path = source_path;
  src.text = kernel_prelude(to_string(backend), prob.prec);
  // A problem over laid-out records brings its field accessors (docs/layouts.md).
  if (const auto* lp = dynamic_cast<const LayoutProblem*>(&prob)) src.text += lp->source_prelude;
  src.text += source_text;
  for (const auto& [k, v] : pv) src.defines.push_back(fmt::format("{}={}", k, v));
  try {
    for (const auto& [name, e] : defines) src.defines.push_back(fmt::format("{}={}", name, eval_int(e, vars)));
  } catch (const Error& e) {
    throw BuildError(ctx(e.what()));
  }
  inst->program = dev.build(src);
  for (const auto& [symbol, operand] : symbols) {
    auto it = bufs.find(operand);
    if (it == bufs.end()) throw PointError(ctx(fmt::format("symbol '{}': operand '{}' has no buffer", symbol, operand)));
    inst->program->copy_to_symbol(symbol, *it->second, prob.array(operand).bytes());
  }

  std::map<std::string, Buffer*> scratch_bufs;
  for (const auto& s : scratch) {
    long long count = 0;
    try {
      count = eval_int(s.count, vars);
    } catch (const Error& e) {
      throw PointError(ctx(e.what()));
    }
    const std::size_t elem = s.is_int ? 4 : info(prob.prec).bytes;
    const double bytes = static_cast<double>(std::max(1LL, count)) * static_cast<double>(elem);
    if (auto why = buffer_misfit(dev.info(), bytes); !why.empty())
      throw PointError(ctx(fmt::format("scratch '{}' of {} elements: {}", s.name, count, why)));
    inst->scratch.push_back(dev.alloc(static_cast<std::size_t>(bytes)));
    if (s.zero) inst->scratch.back()->fill(0);
    scratch_bufs[s.name] = inst->scratch.back().get();
  }

  auto resolve = [&](const std::vector<LaunchSpec>& specs) {
    std::vector<KernelInstance::Launch> out;
    for (const auto& l : specs) {
      if (l.when) {
        long long on = 0;
        try {
          on = eval_int(*l.when, vars);
        } catch (const Error& e) {
          throw PointError(ctx(e.what()));
        }
        if (on == 0) continue;  // this point's configuration needs no such launch
      }
      out.push_back(resolve_launch(l, prob, bufs, scratch_bufs, vars, dev.info(), ctx));
    }
    return out;
  };
  inst->launches = resolve(launches);
  if (!setup.empty()) {
    for (const auto& l : resolve(setup)) inst->program->launch(l.kernel, l.args, l.global, l.local, l.local_bytes);
    dev.finish();
  }
  return inst;
}

}  // namespace hetbench
