// Every CUDA kernel variant compiles with NVRTC, for Hopper's virtual architecture, at its
// default parameters in every precision and storage it has. NVRTC needs no GPU, so this
// runs on the CI machine without one, where the CUDA tests that launch kernels skip: a
// kernel or prelude change that breaks CUDA is caught before it reaches a GPU machine.
#include <gtest/gtest.h>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"
#include "interop/t1.hpp"
#include "solve/device_scalars.hpp"
#include "test_util.hpp"
#include "util/json_file.hpp"

#ifdef HETBENCH_HAVE_CUDA
#include <nvrtc.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

namespace hetbench {
namespace {

// Thrown by the fake device's build: it carries the source the variant would compile.
struct Built {
  ProgramSource src;
};

// An H200-like CUDA device that builds nothing and launches nothing.
class SourceCapture final : public Device {
 public:
  SourceCapture() : info_(test::h200_info("NVRTC compile check")) {}
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<Buffer> alloc(std::size_t) override { throw Error("the compile check allocates nothing"); }
  void finish() override {}
  double time(const std::function<void()>&) override { return 0; }
  std::shared_ptr<Program> build(const ProgramSource& src) override { throw Built{src}; }

 private:
  DeviceInfo info_;
};

// A few problems per op: odd sizes, every GEMM layout, the double-word storages, both scan
// kinds and its squared input, every reduce kind.
std::vector<Sizes> problems(const Op& op, Precision p) {
  std::vector<std::string> tokens;
  const bool dw = p == Precision::DF || p == Precision::DD;
  if (op.name() == "spmv") {
    std::vector<Sizes> out = op.parse_input("gen:poisson3d:n=8", 1);
    if (dw) out.push_back(op.parse_input("gen:poisson3d:n=8@soa", 1).front());
    return out;
  }
  if (op.name() == "bank_conflict") tokens = {"1000003@stride=1,7@pad=0,1", "4097@stride=63@tile=2048@pad=32"};
  else
  // S/D GEMM: an odd shape in every layout, since regblock copies each operand by its own
  // path when its leading dimension is odd (elements along p, scalar slots along i or j).
  if (op.name() == "gemm") tokens = dw ? std::vector<std::string>{"129x65x33@NT", "64@soa", "64@TN@d64"}
                                       : std::vector<std::string>{"129x65x33@NN", "129x65x33@NT", "129x65x33@TN",
                                                                  "129x65x33@TT", "64@TN", "64@TT"};
  else if (op.name() == "scan") tokens = {"1000003", "1000003@exclusive", "1000003@square@exclusive"};
  else if (op.name() == "reduce") {
    tokens = {"1000003", "1000003@sumsq", "1000003@max"};
    if (p != Precision::I32) tokens.push_back("1000003@norm2");
  }
  else if (op.name() == "copy_strided") tokens = {"1000003", "1000003@offset=3@stride=5"};
  else if (op.name() == "gather") tokens = {"1000003@random", "1000003@blocked=32@scatter"};
  else if (op.name() == "pchase") tokens = {"2^16@loads=1000"};
  else if (std::filesystem::is_directory(std::filesystem::path(data_dir("layouts")) / op.name()))
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(data_dir("layouts")) / op.name()))
      tokens.push_back((op.name() == "stencil3d" ? "37x19x5@"
                        : op.name() == "srad" || op.name() == "seismic" ? "37x19@"
                        : op.name() == "mriq" ? "1001x517@"
                                              : "1001@") +
                       e.path().stem().string());  // every shipped layout (docs/layouts.md)
  else tokens = dw ? std::vector<std::string>{"1000003", "1000003@soa"} : std::vector<std::string>{"1000003"};
  std::vector<Sizes> out;
  for (const auto& t : tokens)
    for (auto& s : op.parse_sizes(t)) out.push_back(s);
  return out;
}

// The defaults, and for register caps (peak reg_pressure: MINB, MAXREG) and SpMV's threads
// per row (TPR: 64 takes a shared-memory path) each alone at its largest value, reduce's
// LOAD and BLOCK at each of their values, and GEMM's split-K at 3 slices, so that those
// builds compile too.
std::vector<ParamValues> nvrtc_param_sets(const Variant& v) {
  std::vector<ParamValues> out{v.defaults()};
  for (const char* cap : {"MINB", "MAXREG", "TPR"})
    if (const ParamDef* d = v.param(cap)) {
      ParamValues pv = v.defaults();
      pv[cap] = d->values.back();
      out.push_back(pv);
    }
  // reduce's cache operators and block algorithms: each value alone.
  for (const char* choice : {"LOAD", "BLOCK"})
    if (const ParamDef* d = v.param(choice))
      for (long long x : d->values)
        if (x != v.defaults().at(choice)) {
          ParamValues pv = v.defaults();
          pv[choice] = x;
          out.push_back(pv);
        }
  // Split-K (gemm regblock, dmma): 3 slices, which the odd problems' k-tiles allow.
  if (const ParamDef* d = v.param("SPLITK"); d && std::find(d->values.begin(), d->values.end(), 3) != d->values.end()) {
    ParamValues pv = v.defaults();
    pv["SPLITK"] = 3;
    out.push_back(pv);
  }
  return out;
}

std::string compile(const ProgramSource& src, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> opts{"--gpu-architecture=compute_90", "-std=c++17"};
  opts.insert(opts.end(), extra.begin(), extra.end());
  if (std::filesystem::exists("/usr/local/cuda/include")) opts.push_back("-I/usr/local/cuda/include");
  for (const auto& d : src.defines) opts.push_back("-D" + d);
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, src.text.c_str(), src.path.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return "nvrtcCreateProgram failed";
  const nvrtcResult r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  std::string log;
  std::size_t n = 0;
  if (r != NVRTC_SUCCESS && nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS) {
    log.resize(n);
    nvrtcGetProgramLog(prog, log.data());
  }
  nvrtcDestroyProgram(&prog);
  return r == NVRTC_SUCCESS ? "" : std::string(nvrtcGetErrorString(r)) + ":\n" + log;
}

// The source `v` would compile for this point: the fake device's build throws it. Empty
// (and a failure) when the variant prepared without building a program.
std::optional<ProgramSource> built_source(const Variant& v, Device& dev, const Problem& prob, const ParamValues& pv) {
  try {
    v.prepare(dev, prob, BufferMap{}, pv);
  } catch (const Built& b) {
    return b.src;
  }
  ADD_FAILURE() << v.id() << " prepared without building a program";
  return std::nullopt;
}

TEST(CudaNvrtc, EveryKernelCompiles) {
  SourceCapture dev;
  int compiled = 0;
  for (const auto& v : all_variants()) {
    if (v->backend != BackendKind::Cuda || v->kind != VariantKind::Kernel) continue;
    const Op& op = find_op(v->op);
    for (Precision p : v->precisions)
      for (const auto& s : problems(op, p))
        for (const ParamValues& pv : nvrtc_param_sets(*v)) {
          if (!v->violated_constraint(dev, s, p, pv).empty()) continue;
          auto prob = op.make_problem(s, p, 1);
          const auto src = built_source(*v, dev, *prob, pv);
          if (!src) continue;
          const std::string err = compile(*src);
          EXPECT_EQ(err, "") << v->id() << " " << name(p) << " " << format_sizes(s) << " " << format_params(pv);
          ++compiled;
        }
  }
  // Every CUDA kernel family of the repository, in more than one precision.
  EXPECT_GE(compiled, 40) << "fewer CUDA programs than the kernels folder holds";
}

// Kernel Tuner's own T1 examples (scripts/setup-python fetches them), imported as
// `kernel import-t1` imports them (an op declared from their arguments, the source wrapped
// in extern "C"), compile with Kernel Tuner's defines at their defaults and at the corners
// of their spaces that the constraints and the shared memory admit.
TEST(CudaNvrtc, KernelTunersOwnExamplesCompile) {
  const std::string dir = test::source_dir() + "/build/pyenv/kernel_tuner-examples";
  if (!std::filesystem::exists(dir + "/test_T1_input.json"))
    GTEST_SKIP() << "no " << dir << ": scripts/setup-python fetches it (skipped with HETBENCH_NO_PYPI=1)";
  SourceCapture dev;
  test::TempDir out;
  int compiled = 0;
  for (const char* f : {"test_T1_input.json", "test_cache_file_T1_input.json"}) {
    const std::string file = dir + "/" + f;
    const T1Import imp = t1_to_metadata(read_json_file<nlohmann::ordered_json>(file), file);
    test::write_text(out.path() / imp.source.filename(), imp.source_text);
    const auto v = parse_variant_json(imp.metadata, out.str(), file);
    const Op& op = find_op(v->op);
    const Sizes s = op.parse_sizes(op.fixed_size()).front();
    const auto prob = op.make_problem(s, v->precisions.front(), 1);
    std::vector<ParamValues> sets{v->defaults()};
    for (bool high : {false, true}) {
      ParamValues pv = v->defaults();
      for (const auto& p : v->params) pv[p.name] = high ? p.values.back() : p.values.front();
      sets.push_back(pv);
    }
    for (const auto& pv : sets) {
      if (!v->violated_constraint(dev, s, v->precisions.front(), pv).empty()) continue;
      std::optional<ProgramSource> src;
      try {
        src = built_source(*v, dev, *prob, pv);
      } catch (const Error& e) {
        continue;  // a launch the device refuses (too large a block): not a compile question
      }
      if (!src) continue;
      EXPECT_EQ(compile(*src), "") << f << " " << format_params(pv);
      ++compiled;
    }
  }
  EXPECT_GE(compiled, 3);
}

// The support kernels that code variants launch through nvcc-compiled launchers (the
// splitting-scheme GEMMs: scaling, splitting, accumulation): CI has no nvcc, so NVRTC
// compiles them here.
TEST(CudaNvrtc, SupportKernelsCompile) {
  for (const char* rel : {"kernels/cuda/gemm/ozaki.cuh"}) {
    const std::filesystem::path path = std::filesystem::path(HETBENCH_SOURCE_DIR) / rel;
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    ProgramSource src;
    src.path = path.string();
    src.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    EXPECT_EQ(compile(src, {"-I" + path.parent_path().string()}), "") << rel;
  }
}

// The solvers' device-scalar kernels (kernels/cuda/solve/device_scalars.cu), built by
// the CG operator itself rather than by a variant, in both of the solve's precisions.
TEST(CudaNvrtc, SolverDeviceScalarsCompile) {
  SourceCapture dev;
  std::shared_ptr<Variant> axpy;
  for (const auto& v : all_variants())
    if (v->backend == BackendKind::Cuda && v->op == "axpy" && v->name == "vec16") axpy = v;
  ASSERT_TRUE(axpy);
  for (Precision p : {Precision::S, Precision::D}) {
    ProgramSource src;
    try {
      DeviceScalars ds(dev, p, 1001, *axpy, axpy->defaults());
      ADD_FAILURE() << "DeviceScalars made without building a program";
      continue;
    } catch (const Built& b) {
      src = b.src;
    }
    EXPECT_EQ(compile(src), "") << name(p);
  }
}

}  // namespace
}  // namespace hetbench

#else
TEST(CudaNvrtc, EveryKernelCompiles) { GTEST_SKIP() << "this build has no CUDA backend (toolkit not found)"; }
#endif
