// Directive-based GEMM variants on CUDA devices: OpenMP target offload and OpenACC, built
// by GCC 12's NVPTX offloading into two shared libraries (src/backends/offload/,
// docs/directive-gemm.md). They run on CUDA devices so that the record names the GPU that
// did the work and the engine's buffers are device memory: libgomp's nvptx plugin shares
// the CUDA primary context when it is current at the first region (GCC 12's
// nvptx_open_device takes cuCtxGetCurrent), and CudaCall::enter makes it current first.
//
// Three forms of each: "device" (omp_target, acc) — A, B, C are the engine's device
// buffers, handed over with is_device_ptr / deviceptr (placed once per point, like every
// CUDA variant's), so the timed call is the compute region alone; "mapped" (omp_target_map,
// acc_copy) — the timed call maps A, B and the initial C from host memory, computes, and
// copies C back, as a stand-alone program does, around every multiply of @iter=N; "data
// region" (omp_target_data, acc_data) — the OpenACC walk-through's fix, one `target data`
// / `acc data` region around the N multiplies: copied in once, C copied out once.
// The regions are synchronous; libgomp launches on its own stream, which the device's
// timing events do not see, so the events bracket the whole host call (docs/directive-gemm.md).
#ifdef HETBENCH_HAVE_OFFLOAD

#include <iterator>
#include <vector>

#include "backends/cuda/cuda_call.hpp"
#include "backends/offload/directive_gemm.hpp"

namespace hetbench {

namespace {

struct DirectiveCall : CudaCall {
  std::vector<unsigned char> c_host;  // the mapped form copies C back into it
};

using directive::GemmArgs;

GemmArgs args(DirectiveCall& c, directive::Data data, bool openacc) {
  GemmArgs a;
  a.m = static_cast<std::size_t>(c.size("m"));
  a.n = static_cast<std::size_t>(c.size("n"));
  a.k = static_cast<std::size_t>(c.size("k"));
  a.ta = c.size("ta") != 0;
  a.tb = c.size("tb") != 0;
  a.plain = c.size_or("plain", 0) != 0;
  a.iter = static_cast<int>(c.size_or("iter", 1));
  a.dbl = c.dbl();
  a.alpha = c.scalar("alpha");
  a.beta = c.scalar("beta");
  a.device = c.dev->ordinal();
  a.teams = static_cast<int>(c.param(openacc ? "GANGS" : "TEAMS"));
  a.threads = static_cast<int>(c.param(openacc ? "VECTOR" : "THREADS"));
  a.simd = openacc || c.param("SIMD") != 0;
  a.data = data;
  a.C = c.ptr("C");
  if (data == directive::Data::device) {
    a.A = c.ptr("A");
    a.B = c.ptr("B");
  } else {
    a.A = c.prob->array("A").host.data();
    a.B = c.prob->array("B").host.data();
    a.C0 = a.plain ? nullptr : c.prob->array("C").host.data();  // a plain problem has no initial C
    a.c_host = c.c_host.data();
  }
  return a;
}

void setup_mapped(DirectiveCall& c) { c.c_host.resize(c.prob->array("C").bytes()); }

std::string why_not(bool openacc, const Device& d) {
  const auto* cuda = dynamic_cast<const CudaDevice*>(&d);
  const int ordinal = cuda ? cuda->ordinal() : 0;
  return openacc ? directive::acc_unavailable(ordinal) : directive::omp_target_unavailable(ordinal);
}

std::vector<ParamDef> omp_params() {
  return {{"TEAMS", {66, 100, 132, 264, 528, 1056, 2112, 4224}, 528, "num_teams"},
          {"THREADS", {1, 2, 4, 8, 16, 32}, 8, "thread_limit (GCC's nvptx: OpenMP threads are warps)"},
          {"SIMD", {0, 1}, 1, "1: 'parallel for simd' (the 32 lanes of a warp share the iterations)"}};
}

std::vector<ParamDef> acc_params() {
  std::vector<long long> vl(std::begin(directive::acc_vector_lengths), std::end(directive::acc_vector_lengths));
  return {{"GANGS", {66, 100, 132, 264, 528, 1056, 2112, 4224}, 528, "num_gangs (100: the walk-through's gang(100))"},
          {"VECTOR", vl, 128, "vector_length (compiled in: GCC's nvptx takes it only as a constant)"}};
}

std::string form_text(bool openacc, directive::Data data) {
  switch (data) {
    case directive::Data::device:
      return openacc ? "the engine's device buffers through deviceptr, compute only"
                     : "the engine's device buffers through is_device_ptr, compute only";
    case directive::Data::per_iteration:
      return openacc ? "copyin of A, B (C0) and acc_memcpy_from_device of C around every multiply of @iter"
                     : "map(to:) of A, B (C0) and omp_target_memcpy of C around every multiply of @iter";
    case directive::Data::once:
      return openacc ? "one 'acc data copyin' region around the @iter multiplies ('present' inside), C copied out once"
                     : "one 'target data map(to:)' region around the @iter multiplies, C copied out once";
  }
  return "";
}

void add(const char* name, bool openacc, directive::Data data) {
  const std::string desc =
      (openacc ? "OpenACC 'parallel loop gang vector collapse(2)' (GCC 12 nvptx); "
               : "OpenMP 'target teams distribute parallel for [simd] collapse(2)' (GCC 12 nvptx); ") +
      form_text(openacc, data);
  register_code_variant<DirectiveCall>(
      {.op = "gemm", .name = name, .description = desc, .library = openacc ? "OpenACC" : "OpenMP offload",
       .params = openacc ? acc_params() : omp_params(),
       .unavailable = [openacc](const Device& d) { return why_not(openacc, d); },
       .axes = {"iter"}},
      [openacc, data](DirectiveCall& c) {
        const GemmArgs a = args(c, data, openacc);
        openacc ? directive::acc_gemm(a) : directive::omp_target_gemm(a);
      },
      data == directive::Data::device ? CodeVariant<DirectiveCall>::Fn{} : CodeVariant<DirectiveCall>::Fn{setup_mapped});
}

const bool registered_directive_gemm_variants = [] {
  using directive::Data;
  add("omp_target", false, Data::device);
  add("omp_target_map", false, Data::per_iteration);
  add("omp_target_data", false, Data::once);
  add("acc", true, Data::device);
  add("acc_copy", true, Data::per_iteration);
  add("acc_data", true, Data::once);
  return true;
}();

}  // namespace
}  // namespace hetbench

#endif
