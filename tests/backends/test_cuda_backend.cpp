// CUDA backend: every CUDA variant (JIT kernels and vendor libraries) validated through
// the real runner path, NVRTC errors, buffers and energy records. Without a usable CUDA
// device every test is skipped with the backend's one-line reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "test_util.hpp"

namespace {

using namespace hetbench;

std::shared_ptr<Backend> cuda_backend() {
  for (auto& b : backends())
    if (b->name() == "cuda") return b;
  return nullptr;
}

// The first CUDA device, or nullptr with why.
std::shared_ptr<Device> cuda_device(std::string& why) {
  auto b = cuda_backend();
  if (!b) {
    why = "no CUDA backend registered";
    return nullptr;
  }
  why = b->unavailable_reason();
  if (!why.empty()) return nullptr;
  auto ds = b->devices();
  if (ds.empty()) {
    why = "CUDA backend lists no device";
    return nullptr;
  }
  return ds.front();
}

#define REQUIRE_CUDA(dev)              \
  std::string why_;                    \
  auto dev = cuda_device(why_);        \
  if (!dev) GTEST_SKIP() << why_

// Runs one variant through the runner (test::run_points) and returns its records.
std::vector<nlohmann::json> run_variant(const std::string& op, const std::string& variant,
                                        const std::map<std::string, std::string>& params, const std::string& device,
                                        const std::vector<std::string>& sizes, int reps = 2,
                                        const std::vector<Precision>& precisions = {Precision::S, Precision::D},
                                        const std::vector<std::string>& inputs = {}) {
  RunSpec r;
  r.op = op;
  r.variants = {variant};
  r.devices = device;
  r.sizes = sizes;
  r.inputs = inputs;
  r.params = params;
  r.precisions = precisions;
  r.reps = reps;
  r.warmup = 1;
  return test::run_points(r);
}

// A few values of each parameter: first, default and last of its domain; beyond the
// first two parameters only the default, to keep the product small.
std::map<std::string, std::string> few_values(const Variant& v) {
  std::map<std::string, std::string> out;
  int i = 0;
  for (const auto& p : v.params) {
    std::set<long long> vals{p.def};
    if (i++ < 2) {
      vals.insert(p.values.front());
      vals.insert(p.values.back());
    }
    std::string s;
    for (auto x : vals) s += (s.empty() ? "" : ",") + std::to_string(x);
    out[p.name] = s;
  }
  return out;
}

struct EnvGuard {
  std::string name;
  std::string old;
  bool had;
  EnvGuard(const char* n, const char* v) : name(n) {
    const char* o = std::getenv(n);
    had = o != nullptr;
    if (o) old = o;
    setenv(n, v, 1);
  }
  ~EnvGuard() {
    if (had) setenv(name.c_str(), old.c_str(), 1);
    else unsetenv(name.c_str());
  }
};

TEST(CudaBackend, UnavailableReasonIsOneLine) {
  auto b = cuda_backend();
  ASSERT_TRUE(b);
  auto why = b->unavailable_reason();
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  if (!why.empty()) {
    EXPECT_EQ(why.rfind("CUDA unavailable: ", 0), 0u) << why;
    GTEST_SKIP() << why;
  }
}

TEST(CudaBackend, DeviceInfo) {
  REQUIRE_CUDA(dev);
  const auto& i = dev->info();
  EXPECT_EQ(i.id, "cuda:0");
  EXPECT_EQ(i.type, "gpu");
  EXPECT_GT(i.compute_units, 0);
  EXPECT_GE(i.max_wg, 256u);
  EXPECT_EQ(i.pref_wg_multiple, 32u);
  EXPECT_GT(i.local_mem, 0u);
  for (const char* k : {"compute_capability", "sm_clock_mhz", "mem_clock_mhz", "mem_bus_width_bits", "l2_bytes",
                        "pci_bus_id", "warp_size"})
    EXPECT_TRUE(i.extra.contains(k)) << k;
  EXPECT_TRUE(i.peak_gflops_s.has_value());
  EXPECT_TRUE(i.peak_gbs.has_value());
  EXPECT_FALSE(i.peak_note.empty());
}

TEST(CudaBackend, BuffersRoundTrip) {
  REQUIRE_CUDA(dev);
  const std::size_t n = 4099;  // not a multiple of anything
  std::vector<unsigned char> in(n), out(n), ff(n, 0xFF);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>(i * 7 + 3);
  auto a = dev->alloc(n), b = dev->alloc(n);
  b->download(out.data());
  EXPECT_EQ(out, ff) << "a new buffer is poisoned";
  a->upload(in.data());
  a->download(out.data());
  EXPECT_EQ(out, in);
  b->copy_from(*a);
  dev->finish();
  b->download(out.data());
  EXPECT_EQ(out, in);
  a->poison();
  dev->finish();
  a->download(out.data());
  EXPECT_EQ(out, ff);
  auto z = dev->alloc(0);  // empty buffers are legal
  z->upload(in.data());
}

TEST(CudaBackend, OutOfMemoryIsPointError) {
  REQUIRE_CUDA(dev);
  try {
    auto huge = dev->alloc(std::size_t{1} << 50);
    FAIL() << "a 1 PiB allocation succeeded";
  } catch (const PointError& e) {
    EXPECT_NE(std::string(e.what()).find("out of"), std::string::npos) << e.what();
  }
  auto ok = dev->alloc(1024);  // the device is still usable
  ok->poison();
  dev->finish();
}

TEST(CudaBackend, BuildErrorCarriesLog) {
  REQUIRE_CUDA(dev);
  ProgramSource src;
  src.path = "broken.cu";
  src.text = "extern \"C\" __global__ void k(int* x) { x[0] = hb_no_such_name; }\n";
  try {
    dev->build(src);
    FAIL() << "a broken kernel built";
  } catch (const PointError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("kernel build failed"), std::string::npos) << m;
    EXPECT_NE(m.find("hb_no_such_name"), std::string::npos) << m;
    EXPECT_NE(m.find("broken.cu"), std::string::npos) << m;
  }
}

// A kernel that writes i * MUL + add: the define and the grid must both reach it.
ProgramSource fill_source() {
  ProgramSource src;
  src.path = "fill.cu";
  src.text =
      "extern \"C\" __global__ void fill(unsigned n, int* out, long long add) {\n"
      "  unsigned i = blockIdx.y * gridDim.x * blockDim.x + blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = (int)(i * MUL + add);\n"
      "}\n";
  src.defines = {"MUL=3"};
  return src;
}

TEST(CudaBackend, LaunchDefinesAndGrid) {
  REQUIRE_CUDA(dev);
  const ProgramSource src = fill_source();
  auto prog = dev->build(src);
  EXPECT_EQ(prog, dev->build(src)) << "the in-memory cache returns the same program";
  const unsigned n = 64 * 4 * 2;
  auto buf = dev->alloc(n * sizeof(int));
  KernelArg an{KernelArg::U32};
  an.i = n;
  KernelArg ab{KernelArg::Buf};
  ab.buf = buf.get();
  KernelArg aa{KernelArg::I64};
  aa.i = 5;
  prog->launch("fill", {an, ab, aa}, {256, 2}, {64, 1}, 0);
  dev->finish();
  std::vector<int> out(n);
  buf->download(out.data());
  for (unsigned i = 0; i < n; ++i) ASSERT_EQ(out[i], static_cast<int>(i * 3 + 5)) << i;
  EXPECT_THROW(prog->launch("fill", {an, ab, aa}, {100}, {64}, 0), PointError);  // not a multiple
}

// More dynamic shared memory than the 48 KiB a block gets without asking: the launch
// must raise the kernel's limit first. Every thread writes its slots of a 160 KiB array,
// then reads another thread's after the barrier, so a short allocation cannot pass.
TEST(CudaBackend, LaunchWithMoreThan48KiBOfDynamicSharedMemory) {
  REQUIRE_CUDA(dev);
  const std::size_t bytes = 160 * 1024, words = bytes / sizeof(int);
  ASSERT_GE(dev->info().local_mem_launch, bytes) << "an H100/H200 allows 227 KiB";
  ProgramSource src;
  src.path = "dyn.cu";
  src.text =
      "extern \"C\" __global__ void dyn(unsigned words, int* out, long long add) {\n"
      "  extern __shared__ int s[];\n"
      "  for (unsigned w = threadIdx.x; w < words; w += blockDim.x) s[w] = (int)(w * 7 + add + blockIdx.x);\n"
      "  __syncthreads();\n"
      "  long long sum = 0;\n"
      "  for (unsigned w = blockDim.x - 1 - threadIdx.x; w < words; w += blockDim.x) sum += s[w];\n"
      "  out[blockIdx.x * blockDim.x + threadIdx.x] = (int)sum;\n"
      "}\n";
  auto prog = dev->build(src);
  const unsigned blocks = 3, threads = 256;
  auto buf = dev->alloc(blocks * threads * sizeof(int));
  KernelArg an{KernelArg::U32};
  an.i = static_cast<std::int64_t>(words);
  KernelArg ab{KernelArg::Buf};
  ab.buf = buf.get();
  KernelArg aa{KernelArg::I64};
  aa.i = 11;
  prog->launch("dyn", {an, ab, aa}, {blocks * threads}, {threads}, bytes);
  dev->finish();
  std::vector<int> out(blocks * threads);
  buf->download(out.data());
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t) {
      long long sum = 0;
      for (std::size_t w = threads - 1 - t; w < words; w += threads) sum += static_cast<long long>(w * 7 + 11 + b);
      ASSERT_EQ(out[b * threads + t], static_cast<int>(sum)) << "block " << b << " thread " << t;
    }
}

// Apart from the test above because the refused attribute is a CUDA API error on purpose,
// which compute-sanitizer reports: scripts/gpu-sanitize leaves this test out.
TEST(CudaBackend, DynamicSharedMemoryPastTheLimitIsPointError) {
  REQUIRE_CUDA(dev);
  ProgramSource src;
  src.path = "dyn_over.cu";
  src.text = "extern \"C\" __global__ void dyn_over(int* out) { extern __shared__ int s[]; s[0] = 1; out[0] = s[0]; }\n";
  auto prog = dev->build(src);
  auto buf = dev->alloc(sizeof(int));
  KernelArg ab{KernelArg::Buf};
  ab.buf = buf.get();
  const std::size_t bytes = dev->info().local_mem_launch + 1024;
  try {
    prog->launch("dyn_over", {ab}, {32}, {32}, bytes);
    FAIL() << "a launch past the opt-in limit ran";
  } catch (const PointError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr(std::to_string(bytes) + " bytes of dynamic shared memory"));
  }
}

// A test of its own because the failed kernel lookup is a CUDA API error on purpose, which
// compute-sanitizer reports: scripts/gpu-sanitize leaves this test out.
TEST(CudaBackend, LaunchOfAMissingKernelIsPointError) {
  REQUIRE_CUDA(dev);
  auto prog = dev->build(fill_source());
  auto buf = dev->alloc(64 * sizeof(int));
  KernelArg an{KernelArg::U32};
  an.i = 64;
  KernelArg ab{KernelArg::Buf};
  ab.buf = buf.get();
  KernelArg aa{KernelArg::I64};
  aa.i = 5;
  EXPECT_THROW(prog->launch("no_such_kernel", {an, ab, aa}, {64}, {64}, 0), PointError);
}

TEST(CudaBackend, TimeIsPositive) {
  REQUIRE_CUDA(dev);
  auto a = dev->alloc(1 << 24), b = dev->alloc(1 << 24);
  double t = dev->time([&] { b->copy_from(*a); });
  EXPECT_GT(t, 0.0);
  EXPECT_LT(t, 1.0);
}

TEST(CudaBackend, AllVariantsValidate) {
  REQUIRE_CUDA(dev);
  EnvGuard energy("HETBENCH_ENERGY_MS", "2");  // energy is tested on its own below
  const std::vector<std::string> sizes{"1", "7", "1000", "4097", "1048579"};  // 2^20 + 3
  std::set<std::string> ops_seen;
  int points = 0;
  for (const auto& v : all_variants()) {
    if (v->backend != BackendKind::Cuda) continue;
    ops_seen.insert(v->op);
    // GEMM kernels compile once per layout and parameter set (seconds each with NVRTC):
    // their defaults in every layout, at sizes that are multiples of no tile.
    auto params = v->op == "gemm" ? std::map<std::string, std::string>{} : few_values(*v);
    // Double-word variants also in the other storages (size suffixes @soa, @d64).
    bool dw = false;
    for (auto p : v->precisions) dw |= p == Precision::DF || p == Precision::DD;
    SCOPED_TRACE(v->id() + " " + nlohmann::json(params).dump());
    // peak: 1024 FMA steps per element make the host reference slow at 2^20.
    std::vector<std::string> vsizes =
        v->op == "peak" ? std::vector<std::string>(sizes.begin(), sizes.end() - 1) : sizes;
    std::vector<std::string> inputs;
    // GEMM: every layout; in S and D also the plain form (BLAS's beta = 0: C unset, nothing
    // of it read) and @iter (the variants that loop run it, the others are skipped). The
    // double-word storages have no plain form (gemm_dw.cpp refuses it).
    if (v->op == "gemm") vsizes = {"1x1x1@NN", "17x33x5@NT", "129x65x257@TN", "129x65x257@TT", "300x200x100"};
    if (v->op == "gemm" && !dw) vsizes.insert(vsizes.end(), {"129x65x257@NT@plain", "129x65x257@TN@iter=2"});
    if (v->op == "gemm" && dw) vsizes.insert(vsizes.end(), {"129x65x257@NT@soa", "300x200x100@TN@d64"});
    if (v->op == "spmv") {
      vsizes.clear();
      // 1x1, a dense row far longer than a block, empty rows in a rectangular matrix,
      // power-law rows, a regular stencil
      inputs = {"gen:poisson2d:n=1", "gen:dense_row:n=5000,row=3", "gen:random:n=3000,per_row=9,cols=4001,empty=0.2",
                "gen:powerlaw:n=20000,avg=12", "gen:poisson3d:n=20"};
      if (dw)  // double-word variants in both storages (matrix suffix @soa)
        for (std::size_t i = 0, n = inputs.size(); i < n; ++i) inputs.push_back(inputs[i] + "@soa");
    }
    // scan's exclusive kind, and its transformed input (the prefix sum of squares).
    if (v->op == "scan")
      for (const auto& s : sizes) {
        vsizes.push_back(s + "@exclusive");
        vsizes.push_back(s + "@square");
      }
    // reduce's other kinds, at sizes that fill no tile (@norm2 has no I32, which every
    // variant here has: it shares @sumsq's kernels but for the final square root, and
    // CudaNvrtc compiles it).
    if (v->op == "reduce")
      for (const char* kind : {"@sumsq", "@max"})
        for (const char* n : {"7", "4097", "1048579"}) vsizes.push_back(std::string(n) + kind);
    // A pointer chase's working set is whole 64-byte slots, at least two.
    if (v->op == "pchase") vsizes = {"128", "4096+192", "2^20"};
    // Laid-out records (docs/layouts.md): every shipped layout, at sizes whose host
    // reference stays quick (nbody's is n^2).
    static const std::map<std::string, std::string> layout_sizes{{"nbody", "1,7,1000,4097@"},
                                                                 {"stencil3d", "1,37x19x5,129x65x33@"},
                                                                 {"srad", "2x1,37x19,1031x517@"},
                                                                 {"seismic", "1,37x19,1031x517@"},
                                                                 {"mriq", "1,7x300,4097x1031@"}};
    if (auto ls = layout_sizes.find(v->op); ls != layout_sizes.end()) {
      vsizes.clear();
      for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(data_dir("layouts")) / v->op))
        vsizes.push_back(ls->second + e.path().stem().string());
    }
    if (dw && v->op != "gemm" && v->op != "spmv")
      for (const auto& s : sizes) vsizes.push_back(s + "@soa");
    std::vector<nlohmann::json> recs;
    try {  // one variant whose run throws must not hide the others
      recs = run_variant(v->op, v->name, params, dev->id(), vsizes, 2, v->precisions, inputs);
    } catch (const std::exception& e) {
      ADD_FAILURE() << v->id() << ": " << e.what();
      continue;
    }
    // A point that the variant's own constraint excludes (status skipped) is neither a
    // failure nor a pass; every other point must pass, and at least one must.
    std::set<std::string> precs;
    int passed = 0;
    for (const auto& r : recs) {
      precs.insert(r.value("precision", ""));
      if (r.value("status", "") == "skipped") continue;
      ++points;
      passed += r.value("status", "") == "ok";
      EXPECT_EQ(r.value("status", ""), "ok") << test::describe(r);
      EXPECT_TRUE(r.contains("energy") && r["energy"].contains("available")) << r.dump();
    }
    EXPECT_GT(passed, 0) << v->id() << ": no point was measured and passed";
    for (auto p : v->precisions) EXPECT_TRUE(precs.count(name(p))) << name(p) << " ran";
  }
  for (const char* op : {"copy", "axpy", "dot", "gemm", "spmv"}) EXPECT_TRUE(ops_seen.count(op)) << "no CUDA variant of " << op;
  RecordProperty("points", points);
}

// Split-K: k sliced over blocks and summed in slice order by the last slice. Odd m, n, k
// in every layout, slice counts that divide the k-tiles and ones that do not, small tiles
// and the default ones. Each point runs its warm-up, timed and validated launches on the
// same counters, so a slice count left behind by one launch would fail the next.
TEST(CudaBackend, GemmSplitKValidates) {
  REQUIRE_CUDA(dev);
  EnvGuard energy("HETBENCH_ENERGY_MS", "2");
  const std::vector<std::string> sizes{"129x65x1033@NN", "129x65x1033@NT", "129x65x1033@TN", "129x65x1033@TT",
                                       "67x200x77", "33x17x4099@NT"};
  struct Case {
    const char* variant;
    std::map<std::string, std::string> params;
    std::vector<Precision> precs;
  };
  const std::vector<Case> cases{
      {"regblock", {{"SPLITK", "2,3,8,32"}}, {Precision::S, Precision::D}},
      {"regblock", {{"BM", "32"}, {"BN", "32"}, {"WM", "16"}, {"WN", "32"}, {"TM", "4"}, {"TN", "4"}, {"SPLITK", "3,12"}},
       {Precision::S, Precision::D}},
      {"dmma", {{"SPLITK", "2,3,8,32"}}, {Precision::D}},
      {"dmma", {{"BM", "32"}, {"BN", "32"}, {"WM", "16"}, {"WN", "16"}, {"SPLITK", "3,12"}}, {Precision::D}}};
  int passed = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.variant) + " " + nlohmann::json(c.params).dump());
    for (const auto& r : run_variant("gemm", c.variant, c.params, dev->id(), sizes, 3, c.precs)) {
      if (r.value("status", "") == "skipped") continue;  // more slices than k-tiles
      EXPECT_EQ(r.value("status", ""), "ok") << test::describe(r);
      passed += r.value("status", "") == "ok";
    }
  }
  EXPECT_GE(passed, 60);
}

TEST(CudaBackend, LibraryBaselinesRegistered) {
#ifndef HETBENCH_HAVE_CUDA
  GTEST_SKIP() << backends()[2]->unavailable_reason();
#endif
  std::set<std::string> ids;
  for (const auto& v : all_variants())
    if (v->backend == BackendKind::Cuda && v->kind == VariantKind::Library) ids.insert(v->id());
  for (const char* id : {"cuda/axpy/cublas", "cuda/dot/cublas", "cuda/dot/cub", "cuda/gemm/cublas", "cuda/spmv/cusparse"})
    EXPECT_TRUE(ids.count(id)) << id;
}

TEST(CudaBackend, EnergyRecorded) {
  REQUIRE_CUDA(dev);
  auto recs = run_variant("copy", "vec16", {}, dev->id(), {"2^24"}, 5);
  ASSERT_FALSE(recs.empty());
  for (const auto& r : recs) {
    ASSERT_EQ(r.value("status", ""), "ok") << r.value("message", "");
    ASSERT_TRUE(r.contains("energy")) << r.dump();
    const auto& e = r["energy"];
    ASSERT_TRUE(e.contains("available"));
    if (e["available"].get<bool>()) {
      EXPECT_GT(e.value("avg_power_w", 0.0), 0.0) << e.dump();
      EXPECT_GT(e.value("energy_per_rep_j", 0.0), 0.0) << e.dump();
      EXPECT_GT(e.value("gb_per_j", 0.0), 0.0) << e.dump();
      // The back-to-back window is HETBENCH_ENERGY_MS (default 250 ms).
      const char* ms = std::getenv("HETBENCH_ENERGY_MS");
      const double window = (ms && *ms ? std::atof(ms) : 250.0) * 1e-3;
      EXPECT_GE(e.value("seconds", 0.0), 0.8 * window) << e.dump();
      EXPECT_TRUE(e.contains("method"));
    } else {
      EXPECT_FALSE(e.value("reason", "").empty()) << e.dump();
    }
  }
}

}  // namespace
