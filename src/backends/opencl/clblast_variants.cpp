// Vendor baselines on OpenCL devices: CLBlast's AXPY, DOT and GEMM. CLBlast picks its kernel parameters from its own tuning database; a device
// it does not know (PoCL, for one) gets its defaults.
#include "hetbench/code_variant.hpp"

#ifdef HETBENCH_HAVE_CLBLAST
#include <clblast.h>

#include "backends/opencl/cl_backend.hpp"
#include "backends/opencl/cl_check.hpp"
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

struct ClCall : CallBase<ClDevice, BackendKind::OpenCL> {
  cl_mem mem(const std::string& name) const { return static_cast<cl_mem>(ptr(name)); }
};

// CLBlast's kernels index with int.
void check_n(ClCall& c) {
  if (c.size("n") > 0x7FFFFFFF)
    throw PointError(fmt::format("{}: CLBlast's kernels index with int, n must stay below 2^31", c.dev->id()));
}

// r = y (clEnqueueCopyBuffer), then CLBlast's in-place y := a·x + y on r. The copy's event
// opens the timed interval and Axpy's (one kernel) closes it.
template <class T>
void axpy_t(ClCall& c) {
  auto& dev = *c.dev;
  const auto n = static_cast<std::size_t>(c.size("n"));
  cl_command_queue q = dev.queue();
  const cl_mem r = c.mem("r");
  HB_CL(clEnqueueCopyBuffer(q, c.mem("y"), r, 0, 0, n * sizeof(T), 0, nullptr, dev.event_slot()), dev.id());
  dev.take_slot();
  check(clblast::Axpy<T>(n, static_cast<T>(c.scalar("alpha")), c.mem("x"), 0, 1, r, 0, 1, &q,
                         dev.event_slot()),
        "Axpy", dev.id());
  dev.take_slot();
}

// CLBlast's Dot runs two kernels (partial sums, then an epilogue) and its event is the
// epilogue's only; a marker enqueued first opens the timed interval, so it covers both
// kernels, plus CLBlast's host-side set-up between them (it creates a small scratch
// buffer per call), which matters only for tiny n.
template <class T>
void dot_t(ClCall& c) {
  auto& dev = *c.dev;
  const auto n = static_cast<std::size_t>(c.size("n"));
  cl_command_queue q = dev.queue();
  HB_CL(clEnqueueMarkerWithWaitList(q, 0, nullptr, dev.event_slot()), dev.id());
  dev.take_slot();
  check(clblast::Dot<T>(n, c.mem("result"), 0, c.mem("x"), 0, 1, c.mem("y"), 0, 1, &q, dev.event_slot()),
        "Dot", dev.id());
  dev.take_slot();
}

// Row-major GEMM with hetbench's layouts: T means the matrix is stored transposed, so
// its leading dimension is the other extent. CLBlast may pad or transpose operands in
// extra kernels; the marker before the call opens the timed interval over all of them.
template <class T>
void gemm_t(ClCall& c) {
  auto& dev = *c.dev;
  const std::size_t m = c.size("m"), n = c.size("n"), k = c.size("k");
  const bool ta = c.size("ta") != 0, tb = c.size("tb") != 0;
  using clblast::Transpose;
  cl_command_queue q = dev.queue();
  HB_CL(clEnqueueMarkerWithWaitList(q, 0, nullptr, dev.event_slot()), dev.id());
  dev.take_slot();
  check(clblast::Gemm<T>(clblast::Layout::kRowMajor, ta ? Transpose::kYes : Transpose::kNo,
                         tb ? Transpose::kYes : Transpose::kNo, m, n, k, static_cast<T>(c.scalar("alpha")),
                         c.mem("A"), 0, ta ? m : k, c.mem("B"), 0, tb ? k : n,
                         static_cast<T>(c.scalar("beta")), c.mem("C"), 0, n, &q, dev.event_slot()),
        "Gemm", dev.id());
  dev.take_slot();
}

const bool registered_clblast_variants = [] {
  auto info = [](const char* op, const char* description) {
    return CodeVariantInfo{.op = op, .name = "clblast", .description = description, .library = "CLBlast"};
  };
  register_code_variant<ClCall>(
      info("axpy", "CLBlast: r = y (clEnqueueCopyBuffer) then clblast::Axpy on r; the copy is timed, the op is out of "
                   "place"),
      [](ClCall& c) { c.dbl() ? axpy_t<double>(c) : axpy_t<float>(c); }, check_n);
  register_code_variant<ClCall>(
      info("dot", "CLBlast clblast::Dot (2 kernels); timed from a marker before it, so CLBlast's host set-up is "
                  "included"),
      [](ClCall& c) { c.dbl() ? dot_t<double>(c) : dot_t<float>(c); }, check_n);
  register_code_variant<ClCall>(
      info("gemm", "CLBlast clblast::Gemm, row-major; timed from a marker before it (padding/transpose kernels "
                   "included)"),
      [](ClCall& c) { c.dbl() ? gemm_t<double>(c) : gemm_t<float>(c); }, check_n);
  return true;
}();

#else

const bool registered_clblast_variants = [] {
  for (const char* id : {"opencl/axpy/clblast", "opencl/dot/clblast", "opencl/gemm/clblast"})
    missing_baselines().emplace_back(id, "CLBlast was not found at build time (install libclblast-dev)");
  return true;
}();

#endif

}  // namespace
}  // namespace hetbench
