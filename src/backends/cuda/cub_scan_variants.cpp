// CUB baselines of scan and reduce, registered as code variants like CUB dot
// (cuda_library.cpp): temporary storage sized and allocated in setup, never timed.
#include <algorithm>

#include "backends/cuda/cub_scan.hpp"
#include "backends/cuda/cuda_call.hpp"

namespace hetbench {

namespace {

struct CubScanCall : CudaCall {
  std::unique_ptr<Buffer> temp;
  std::size_t temp_bytes = 0;
  std::size_t n() const { return static_cast<std::size_t>(size("n")); }
  bool exclusive() const { return size("exclusive") != 0; }
  bool square() const { return size_or("square", 0) != 0; }  // scan's @square
  int kind() const { return static_cast<int>(size_or("kind", 0)); }  // reduce's kind; 0 sum
};

const std::vector<Precision> kSDI{Precision::S, Precision::D, Precision::I32};

CodeVariantInfo cub_info(const char* op, const char* description) {
  return {.op = op, .name = "cub", .description = description, .library = "CUB", .precisions = kSDI};
}

CodeVariantInfo thrust_info(const char* op, const char* description) {
  return {.op = op, .name = "thrust", .description = description, .library = "Thrust", .precisions = kSDI};
}

// Asks CUB for its temporary storage (the call with a null pointer) and allocates it.
template <class Call>
void alloc_temp(CubScanCall& c, Call&& call) {
  c.temp_bytes = 0;
  HB_CUDA(call(nullptr), c.dev->id());
  c.temp_bytes = std::max<std::size_t>(c.temp_bytes, 1);
  c.temp = c.dev->alloc(c.temp_bytes);
}

const bool registered_cub_scan_variants = [] {
  auto scan = [](CubScanCall& c, void* temp) {
    return cub_scan(c.prob->prec, c.exclusive(), c.square(), c.param("LOAD") != 0, temp, c.temp_bytes, c.ptr("x"),
                    c.ptr("y"), c.n(), c.dev->stream());
  };
  auto scan_info = cub_info("scan",
                            "CUB DeviceScan::InclusiveSum / ExclusiveSum (nvcc; I32 as unsigned int), of squares "
                            "through a transform iterator for @square; temporary storage allocated before timing");
  // CUB's scan study: CUB reads a plain pointer through the read-only cache by itself,
  // but not an iterator; LOAD=1 wraps x in CacheModifiedInputIterator<LOAD_LDG>.
  scan_info.params = {{"LOAD", {0, 1}, 0, "0: x as a pointer; 1: through CacheModifiedInputIterator<LOAD_LDG>"}};
  register_code_variant<CubScanCall>(
      scan_info, [scan](CubScanCall& c) { HB_CUDA(scan(c, c.temp->native()), c.dev->id()); },
      [scan](CubScanCall& c) { alloc_temp(c, [&](void* t) { return scan(c, t); }); });
  const char* thrust_scan_text =
      "Thrust inclusive_scan / exclusive_scan on the device's stream (of a transform_iterator of squares for "
      "@square): its own temporary storage in every call, timed, as Thrust's users pay it";
  register_code_variant<CubScanCall>(thrust_info("scan", thrust_scan_text), [](CubScanCall& c) {
    HB_CUDA(thrust_scan(c.prob->prec, c.exclusive(), c.square(), c.ptr("x"), c.ptr("y"), c.n(), c.dev->stream()),
            c.dev->id());
  });

  auto reduce = [](CubScanCall& c, void* temp) {
    return cub_reduce(c.prob->prec, c.kind(), temp, c.temp_bytes, c.ptr("x"), c.ptr("result"), c.n(),
                      c.dev->stream());
  };
  register_code_variant<CubScanCall>(
      cub_info("reduce", "CUB DeviceReduce::Sum, TransformReduce of squares (then a square root for @norm2) or Max "
                         "(nvcc; I32 as unsigned int, as int for the maximum); temporary storage allocated before "
                         "timing"),
      [reduce](CubScanCall& c) { HB_CUDA(reduce(c, c.temp->native()), c.dev->id()); },
      [reduce](CubScanCall& c) { alloc_temp(c, [&](void* t) { return reduce(c, t); }); });
  const char* thrust_reduce_text =
      "Thrust reduce / transform_reduce on the device's stream: its own temporary storage in every call, the result "
      "back through the host, both timed, as Thrust's users pay them";
  register_code_variant<CubScanCall>(thrust_info("reduce", thrust_reduce_text), [](CubScanCall& c) {
    HB_CUDA(thrust_reduce(c.prob->prec, c.kind(), c.ptr("x"), c.ptr("result"), c.n(), c.dev->stream()), c.dev->id());
  });
  return true;
}();

}  // namespace
}  // namespace hetbench
