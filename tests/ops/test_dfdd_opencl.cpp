// Bitwise agreement of the OpenCL instantiation of kernels/common/dfdd.h (the prelude's
// word type, names dw_*) with the host's, for DF and DD.
#include <gtest/gtest.h>

#include <CL/cl.h>

#include <fstream>

#include "kernel/kernel_prelude.hpp"
#include "test_dfdd_util.hpp"

// ---- OpenCL agreement -------------------------------------------------------------------

namespace {
std::string read_dfdd_h() {
  std::ifstream f(std::string(HETBENCH_SOURCE_DIR) + "/kernels/common/dfdd.h");
  return f ? std::string(std::istreambuf_iterator<char>(f), {}) : std::string();
}

constexpr int n_out = 8;  // results per element, in kernel order
const char* const kernel_src = R"CL(
__kernel void ops(__global const REAL2* a, __global const REAL2* b, __global const REAL2* c,
                  __global REAL2* o, const int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  REAL2 x = a[i], y = b[i], z = c[i];
  o += 8 * i;
  o[0] = dw_add_accurate(x, y);
  o[1] = dw_add_sloppy(x, y);
  o[2] = dw_mul_accurate(x, y);
  o[3] = dw_mul_sloppy(x, y);
  o[4] = dw_mul_word(x, y.x);
  o[5] = dw_add_accurate(dw_mul_accurate(x, y), z);
  o[6] = dw_add_sloppy(dw_mul_sloppy(x, y), z);
  o[7] = dw_two_sum(x.x, y.x);
}
#ifdef DW_HAVE_DOUBLE
__kernel void split(__global const double* d, __global float2* o, const int n) {
  int i = get_global_id(0);
  if (i < n) o[i] = dw_to_df(d[i]);
}
#endif
)CL";

template <class T>
void host_ops(const in3<T>& in, dw<T>* o) {
  o[0] = add_accurate(in.a, in.b);
  o[1] = add_sloppy(in.a, in.b);
  o[2] = mul_accurate(in.a, in.b);
  o[3] = mul_sloppy(in.a, in.b);
  o[4] = mul(in.a, in.b.hi);
  o[5] = mad<dw_variant::accurate>(in.a, in.b, in.c);
  o[6] = mad<dw_variant::sloppy>(in.a, in.b, in.c);
  o[7] = two_sum(in.a.hi, in.b.hi);
}

struct cl_session {
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;
  cl_device_id dev = nullptr;
  std::string why_not;  // non-empty: skip reason
  std::string extensions;
  ~cl_session() {
    if (queue) clReleaseCommandQueue(queue);
    if (ctx) clReleaseContext(ctx);
  }
};

void open_cl(cl_session& s) {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) {
    s.why_not = "no OpenCL platform";
    return;
  }
  std::vector<cl_platform_id> plats(np);
  clGetPlatformIDs(np, plats.data(), nullptr);
  for (cl_device_type type : {cl_device_type(CL_DEVICE_TYPE_CPU), cl_device_type(CL_DEVICE_TYPE_ALL)}) {
    for (auto pl : plats)
      if (clGetDeviceIDs(pl, type, 1, &s.dev, nullptr) == CL_SUCCESS) break;
    if (s.dev) break;
  }
  if (!s.dev) {
    s.why_not = "no OpenCL device";
    return;
  }
  size_t len = 0;
  clGetDeviceInfo(s.dev, CL_DEVICE_EXTENSIONS, 0, nullptr, &len);
  s.extensions.resize(len);
  clGetDeviceInfo(s.dev, CL_DEVICE_EXTENSIONS, len, s.extensions.data(), nullptr);
  cl_int err = 0;
  s.ctx = clCreateContext(nullptr, 1, &s.dev, nullptr, nullptr, &err);
  if (err == CL_SUCCESS) s.queue = clCreateCommandQueueWithProperties(s.ctx, s.dev, nullptr, &err);
  if (err != CL_SUCCESS) s.why_not = "OpenCL context/queue creation failed: " + std::to_string(err);
}

template <class V>
cl_mem to_device(cl_session& s, std::vector<V>& v) {
  cl_int err = 0;
  cl_mem m = clCreateBuffer(s.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(V), v.data(), &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return m;
}

// The prelude of precision p, dfdd.h and the test kernels, built for the session's
// device; null (with the build log in `log`) on failure.
cl_program build(cl_session& s, Precision p, std::string& log) {
  static const std::string dfdd = read_dfdd_h();
  const std::string src = kernel_prelude("opencl", p) + dfdd + kernel_src;
  const char* text = src.c_str();
  cl_int err = 0;
  cl_program prog = clCreateProgramWithSource(s.ctx, 1, &text, nullptr, &err);
  if (err != CL_SUCCESS) return nullptr;
  // No -cl-fast-relaxed-math / -cl-mad-enable: they would void the algorithms.
  if (clBuildProgram(prog, 1, &s.dev, "-cl-std=CL1.2", nullptr, nullptr) == CL_SUCCESS) return prog;
  size_t len = 0;
  clGetProgramBuildInfo(prog, s.dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
  log.assign(len, '\0');
  clGetProgramBuildInfo(prog, s.dev, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
  clReleaseProgram(prog);
  return nullptr;
}

// Runs `name` over (bufs..., n) and reads the last buffer back into out.
template <class V>
void run_kernel(cl_session& s, cl_program prog, const char* name, std::vector<cl_mem> bufs, std::vector<V>& out,
                int n) {
  cl_int err = 0;
  cl_kernel k = clCreateKernel(prog, name, &err);
  ASSERT_EQ(err, CL_SUCCESS) << name;
  for (cl_uint i = 0; i < bufs.size(); ++i) clSetKernelArg(k, i, sizeof(cl_mem), &bufs[i]);
  clSetKernelArg(k, cl_uint(bufs.size()), sizeof(int), &n);
  size_t global = (size_t(n) + 63) / 64 * 64;
  EXPECT_EQ(clEnqueueNDRangeKernel(s.queue, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(clEnqueueReadBuffer(s.queue, bufs.back(), CL_TRUE, 0, out.size() * sizeof(V), out.data(), 0, nullptr,
                                nullptr),
            CL_SUCCESS);
  clReleaseKernel(k);
  for (cl_mem m : bufs) clReleaseMemObject(m);
}

template <class T>
void compare_ops(cl_session& s, cl_program prog, int n) {
  static_assert(sizeof(dw<T>) == 2 * sizeof(T));
  rng_t g(run_seed() + traits<T>::p);
  std::vector<dw<T>> a(n), b(n), c(n), dev(size_t(n) * n_out), host(size_t(n) * n_out);
  for (int i = 0; i < n; ++i) {
    in3<T> in = draw<T>(g, op::mad_acc, i % 8 == 0 ? set::cancel : set::random);
    if (i % 8 == 1) in.b = near_neg(g, in.a);
    a[i] = in.a, b[i] = in.b, c[i] = in.c;
    host_ops(in, &host[size_t(i) * n_out]);
  }
  run_kernel(s, prog, "ops", {to_device(s, a), to_device(s, b), to_device(s, c), to_device(s, dev)}, dev, n);
  size_t bad[n_out] = {};
  std::string first;
  for (size_t i = 0; i < host.size(); ++i) {
    if (same_bits(host[i], dev[i])) continue;
    if (bad[i % n_out]++ == 0 && first.empty())
      first = "op " + std::to_string(i % n_out) + " at " + describe_inputs(in3<T>{a[i / n_out], b[i / n_out], c[i / n_out]});
  }
  const char* names[n_out] = {"add_accurate", "add_sloppy",   "mul_accurate", "mul_sloppy",
                              "mul_word",     "mad_accurate", "mad_sloppy",   "two_sum"};
  for (int k = 0; k < n_out; ++k) EXPECT_EQ(bad[k], 0u) << traits<T>::name << " " << names[k] << ": " << first;
}
}  // namespace

TEST(DfddOpenCL, MatchesHostBitwise) {
  SCOPED_TRACE(seed_note());
  ASSERT_FALSE(read_dfdd_h().empty()) << "kernels/common/dfdd.h not found under " << HETBENCH_SOURCE_DIR;
  cl_session s;
  open_cl(s);
  if (!s.why_not.empty()) GTEST_SKIP() << s.why_not;
  constexpr int n = 100000;
  std::string log;
  cl_program df_prog = build(s, Precision::DF, log);
  ASSERT_NE(df_prog, nullptr) << "dfdd.h (DF) failed to build: " << log;
  compare_ops<float>(s, df_prog, n);
  if (s.extensions.find("cl_khr_fp64") == std::string::npos) {
    clReleaseProgram(df_prog);
    std::cout << "[dfdd-err] OpenCL device lacks cl_khr_fp64: DD and double->DF not compared\n";
    return;
  }
  rng_t g(run_seed() + 11);
  std::vector<double> d(n);
  std::vector<df> dev(n);
  for (auto& v : d) v = rand_word<double>(g, uni(g, -100, 100));
  run_kernel(s, df_prog, "split", {to_device(s, d), to_device(s, dev)}, dev, n);
  clReleaseProgram(df_prog);
  size_t bad = 0;
  for (int i = 0; i < n; ++i) bad += !same_bits(dev[i], to_df(d[i]));
  EXPECT_EQ(bad, 0u) << "dw_to_df differs from to_df";
  cl_program dd_prog = build(s, Precision::DD, log);
  ASSERT_NE(dd_prog, nullptr) << "dfdd.h (DD) failed to build: " << log;
  compare_ops<double>(s, dd_prog, n);
  clReleaseProgram(dd_prog);
  std::cout << "[dfdd-err] OpenCL (" << n << " inputs x 8 ops, DF and DD, + double->DF): bitwise mismatches = "
            << bad << std::endl;
}
