// Vendor baselines on OpenCL devices: CLBlast's AXPY and DOT as variants of kind
// "library". CLBlast picks its kernel parameters from its own tuning database; a device
// it does not know (PoCL, for one) gets its defaults.
#include "hetbench/variant.hpp"

#ifdef HETBENCH_HAVE_CLBLAST
#include <clblast.h>

#include <fmt/format.h>

#include "backends/opencl/cl_backend.hpp"
#include "backends/opencl/cl_check.hpp"
#include "hetbench/error.hpp"
#endif

namespace hetbench {

namespace {

#ifdef HETBENCH_HAVE_CLBLAST

const char* status_name(clblast::StatusCode s) {
  using S = clblast::StatusCode;
  switch (s) {
    case S::kNotImplemented: return "kNotImplemented";
    case S::kInvalidVectorX: return "kInvalidVectorX";
    case S::kInvalidVectorY: return "kInvalidVectorY";
    case S::kInvalidDimension: return "kInvalidDimension";
    case S::kInvalidIncrementX: return "kInvalidIncrementX";
    case S::kInvalidIncrementY: return "kInvalidIncrementY";
    case S::kInsufficientMemoryX: return "kInsufficientMemoryX";
    case S::kInsufficientMemoryY: return "kInsufficientMemoryY";
    case S::kInvalidLocalMemUsage: return "kInvalidLocalMemUsage";
    case S::kNoHalfPrecision: return "kNoHalfPrecision";
    case S::kNoDoublePrecision: return "kNoDoublePrecision";
    case S::kInvalidVectorScalar: return "kInvalidVectorScalar";
    case S::kInsufficientMemoryScalar: return "kInsufficientMemoryScalar";
    case S::kDatabaseError: return "kDatabaseError";
    case S::kUnknownError: return "kUnknownError";
    case S::kUnexpectedError: return "kUnexpectedError";
    default: break;
  }
  // The remaining codes are OpenCL's own.
  return cl_error_name(static_cast<cl_int>(s));
}

void check(clblast::StatusCode s, const char* routine, const std::string& where) {
  if (s != clblast::StatusCode::kSuccess)
    throw PointError(fmt::format("{}: CLBlast {} failed: {} ({})", where, routine, status_name(s), static_cast<int>(s)));
}

cl_mem mem(const BufferMap& bufs, const std::string& name) {
  auto it = bufs.find(name);
  if (it == bufs.end()) throw PointError("internal: CLBlast variant asked for unknown operand " + name);
  return dynamic_cast<ClBuffer&>(*it->second).mem();
}

// A library variant: run() gets the device, the problem and the cl_mem of the operands.
class ClblastVariant final : public Variant {
 public:
  using Fn = void (*)(ClDevice&, const Problem&, const BufferMap&);
  ClblastVariant(std::string op_, std::string desc, Fn fn) : fn_(fn) {
    op = std::move(op_);
    name = "clblast";
    backend = "opencl";
    kind = "library";
    description = std::move(desc);
    origin = "CLBlast (libclblast)";
    precisions = {Precision::S, Precision::D};
  }
  std::unique_ptr<Instance> prepare(Device& dev, const Problem& prob, const BufferMap& bufs,
                                    const ParamValues&) const override {
    auto* cl = dynamic_cast<ClDevice*>(&dev);
    if (!cl) throw PointError(fmt::format("{}: {} is not an OpenCL device", id(), dev.id()));
    if (prob.sizes.at("n") > 0x7FFFFFFF)
      throw PointError(fmt::format("{}: CLBlast's kernels index with int, n must stay below 2^31", id()));
    struct Inst final : Instance {
      Fn fn;
      ClDevice* dev;
      const Problem* prob;
      const BufferMap* bufs;
      void run() override { fn(*dev, *prob, *bufs); }
    };
    auto i = std::make_unique<Inst>();
    i->fn = fn_;
    i->dev = cl;
    i->prob = &prob;
    i->bufs = &bufs;
    return i;
  }

 private:
  Fn fn_;
};

// r = y (clEnqueueCopyBuffer), then CLBlast's in-place y := a·x + y on r. The copy's event
// opens the timed interval and Axpy's (one kernel) closes it.
template <class T>
void axpy_t(ClDevice& dev, const Problem& prob, const BufferMap& bufs) {
  const auto n = static_cast<std::size_t>(prob.sizes.at("n"));
  cl_command_queue q = dev.queue();
  const cl_mem r = mem(bufs, "r");
  HB_CL(clEnqueueCopyBuffer(q, mem(bufs, "y"), r, 0, 0, n * sizeof(T), 0, nullptr, dev.event_slot()), dev.id());
  dev.take_slot();
  check(clblast::Axpy<T>(n, static_cast<T>(prob.scalar("alpha")->value), mem(bufs, "x"), 0, 1, r, 0, 1, &q,
                         dev.event_slot()),
        "Axpy", dev.id());
  dev.take_slot();
}

// CLBlast's Dot runs two kernels (partial sums, then an epilogue) and its event is the
// epilogue's only; a marker enqueued first opens the timed interval, so it covers both
// kernels, plus CLBlast's host-side set-up between them (it creates a small scratch
// buffer per call), which matters only for tiny n.
template <class T>
void dot_t(ClDevice& dev, const Problem& prob, const BufferMap& bufs) {
  const auto n = static_cast<std::size_t>(prob.sizes.at("n"));
  cl_command_queue q = dev.queue();
  HB_CL(clEnqueueMarkerWithWaitList(q, 0, nullptr, dev.event_slot()), dev.id());
  dev.take_slot();
  check(clblast::Dot<T>(n, mem(bufs, "result"), 0, mem(bufs, "x"), 0, 1, mem(bufs, "y"), 0, 1, &q, dev.event_slot()),
        "Dot", dev.id());
  dev.take_slot();
}

// Row-major GEMM with hetbench's layouts: T means the matrix is stored transposed, so
// its leading dimension is the other extent. CLBlast may pad or transpose operands in
// extra kernels; the marker before the call opens the timed interval over all of them.
template <class T>
void gemm_t(ClDevice& dev, const Problem& prob, const BufferMap& bufs) {
  const auto& s = prob.sizes;
  const std::size_t m = s.at("m"), n = s.at("n"), k = s.at("k");
  const bool ta = s.at("ta") != 0, tb = s.at("tb") != 0;
  using clblast::Transpose;
  cl_command_queue q = dev.queue();
  HB_CL(clEnqueueMarkerWithWaitList(q, 0, nullptr, dev.event_slot()), dev.id());
  dev.take_slot();
  check(clblast::Gemm<T>(clblast::Layout::kRowMajor, ta ? Transpose::kYes : Transpose::kNo,
                         tb ? Transpose::kYes : Transpose::kNo, m, n, k, static_cast<T>(prob.scalar("alpha")->value),
                         mem(bufs, "A"), 0, ta ? m : k, mem(bufs, "B"), 0, tb ? k : n,
                         static_cast<T>(prob.scalar("beta")->value), mem(bufs, "C"), 0, n, &q, dev.event_slot()),
        "Gemm", dev.id());
  dev.take_slot();
}

void gemm(ClDevice& dev, const Problem& prob, const BufferMap& bufs) {
  prob.prec == Precision::S ? gemm_t<float>(dev, prob, bufs) : gemm_t<double>(dev, prob, bufs);
}

void axpy(ClDevice& dev, const Problem& prob, const BufferMap& bufs) {
  prob.prec == Precision::S ? axpy_t<float>(dev, prob, bufs) : axpy_t<double>(dev, prob, bufs);
}
void dot(ClDevice& dev, const Problem& prob, const BufferMap& bufs) {
  prob.prec == Precision::S ? dot_t<float>(dev, prob, bufs) : dot_t<double>(dev, prob, bufs);
}

const bool registered = [] {
  register_variant(std::make_shared<ClblastVariant>(
      "axpy", "CLBlast: r = y (clEnqueueCopyBuffer) then clblast::Axpy on r; the copy is timed, the op is out of place",
      axpy));
  register_variant(std::make_shared<ClblastVariant>(
      "dot", "CLBlast clblast::Dot (2 kernels); timed from a marker before it, so CLBlast's host set-up is included",
      dot));
  register_variant(std::make_shared<ClblastVariant>(
      "gemm", "CLBlast clblast::Gemm, row-major; timed from a marker before it (padding/transpose kernels included)",
      gemm));
  return true;
}();

#else

const bool registered = [] {
  for (const char* id : {"opencl/axpy/clblast", "opencl/dot/clblast", "opencl/gemm/clblast"})
    missing_baselines().emplace_back(id, "CLBlast was not found at build time (install libclblast-dev)");
  return true;
}();

#endif

}  // namespace
}  // namespace hetbench
