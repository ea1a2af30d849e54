// An OpenCL device's report facts: the clGetDeviceInfo fields clinfo prints that bear on
// performance (memory sizes and caches, work-group limits, vector widths, fp64/fp16), and
// on NVIDIA's platform what NVML adds (clocks, PCIe, power) as for CUDA devices.
#include <CL/cl_ext.h>

#include <fmt/format.h>

#include "api/device_facts.hpp"
#include "backends/nvidia/nvml_facts.hpp"
#include "backends/opencl/cl_backend.hpp"

namespace hetbench {

namespace {

// A scalar clGetDeviceInfo value; empty when the device does not answer.
template <class T>
std::optional<T> query(cl_device_id d, cl_device_info what) {
  T v{};
  if (clGetDeviceInfo(d, what, sizeof v, &v, nullptr) != CL_SUCCESS) return std::nullopt;
  return v;
}

template <class T>
void add_query(FactList& f, cl_device_id d, cl_device_info what, const char* key, const char* label,
               const char* unit = "") {
  if (auto v = query<T>(d, what))
    f.add(key, label, *v, unit);
  else
    f.absent(key, label, unit, "clGetDeviceInfo gave no answer");
}

std::string fp_config(cl_device_fp_config c) {
  if (!c) return "none";
  std::string s;
  for (auto [bit, name] : {std::pair{CL_FP_FMA, "fma"}, std::pair{CL_FP_DENORM, "denorms"},
                           std::pair{CL_FP_INF_NAN, "inf/nan"}, std::pair{CL_FP_ROUND_TO_NEAREST, "round to nearest"},
                           std::pair{CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT, "correctly rounded div/sqrt"}})
    if (c & bit) s += (s.empty() ? "" : ", ") + std::string(name);
  return s.empty() ? "yes" : s;
}

DeviceFacts cl_facts(const Device& dev) {
  const auto& i = dev.info();
  const cl_device_id d = dynamic_cast<const ClDevice&>(dev).device();
  FactList f;
  add_identity_facts(f, i);
  f.add("platform", "platform", i.extra.value("platform", ""))
      .add("platform_version", "platform version", i.extra.value("platform_version", ""))
      .add("opencl_c_version", "OpenCL C version", i.extra.value("opencl_c_version", ""));
  add_query<cl_uint>(f, d, CL_DEVICE_VENDOR_ID, "vendor_id", "vendor id");
  if (i.extra.contains("compute_capability")) f.add("compute_capability", "compute capability", i.extra["compute_capability"]);

  f.section("compute").add("compute_units", "compute units", i.compute_units);
  f.add("max_work_group_size", "max work-group size", i.max_wg)
      .add("preferred_work_group_multiple", "preferred work-group multiple", i.pref_wg_multiple);
  if (auto dims = query<cl_uint>(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS); dims && *dims <= 3) {
    std::size_t sizes[3] = {0, 0, 0};
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(std::size_t) * *dims, sizes, nullptr) == CL_SUCCESS) {
      nlohmann::json a = nlohmann::json::array();
      for (cl_uint k = 0; k < *dims; ++k) a.push_back(sizes[k]);
      f.add("max_work_item_sizes", "max work-item sizes", a);
    }
  }
  f.add("max_sub_groups", "max sub-groups per work-group", i.extra.value("max_sub_groups", 0));
  add_query<cl_uint>(f, d, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, "native_vector_width_float", "native vector width float");
  add_query<cl_uint>(f, d, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, "native_vector_width_double",
                     "native vector width double");
  f.add("fp64", "FP64", i.fp64);
  if (auto c = query<cl_device_fp_config>(d, CL_DEVICE_SINGLE_FP_CONFIG)) f.add("fp32_config", "FP32 config", fp_config(*c));
  if (auto c = query<cl_device_fp_config>(d, CL_DEVICE_DOUBLE_FP_CONFIG)) f.add("fp64_config", "FP64 config", fp_config(*c));
  f.add("fp16", "FP16 (cl_khr_fp16)", i.has_extension("cl_khr_fp16"));

  f.section("clocks").add("max_clock_mhz", "max clock", i.max_clock_mhz, "MHz");
  if (auto r = query<std::size_t>(d, CL_DEVICE_PROFILING_TIMER_RESOLUTION))
    f.add("timer_resolution_ns", "profiling timer resolution", *r, "ns");

  f.section("memory")
      .add("global_bytes", "global memory", i.global_mem, "bytes")
      .add("max_alloc_bytes", "largest allocation", i.max_alloc, "bytes");
  add_query<cl_ulong>(f, d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, "global_cache_bytes", "global memory cache", "bytes");
  add_query<cl_uint>(f, d, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, "cache_line_bytes", "global cache line", "bytes");
  if (auto t = query<cl_device_mem_cache_type>(d, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE))
    f.add("global_cache_type", "global cache type",
          *t == CL_READ_WRITE_CACHE ? "read/write" : *t == CL_READ_ONLY_CACHE ? "read-only" : "none");
  f.add("local_bytes", "local memory", i.local_mem, "bytes");
  if (auto t = query<cl_device_local_mem_type>(d, CL_DEVICE_LOCAL_MEM_TYPE))
    f.add("local_type", "local memory type", *t == CL_LOCAL ? "dedicated" : *t == CL_GLOBAL ? "global (emulated)" : "none");
  add_query<cl_ulong>(f, d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, "constant_bytes", "constant buffer", "bytes");
  if (auto e = query<cl_bool>(d, CL_DEVICE_ERROR_CORRECTION_SUPPORT)) f.add("ecc", "error correction", *e != 0);
  if (auto u = query<cl_bool>(d, CL_DEVICE_HOST_UNIFIED_MEMORY)) f.add("host_unified", "host unified memory", *u != 0);

  f.section("software");
  // A summary, not the list: the JSON keeps every extension under "extensions".
  std::string khr;
  for (const char* e : {"cl_khr_fp64", "cl_khr_fp16", "cl_khr_subgroups", "cl_khr_int64_base_atomics",
                        "cl_khr_global_int32_base_atomics", "cl_nv_device_attribute_query", "cl_intel_subgroups"})
    if (i.has_extension(e)) khr += (khr.empty() ? "" : " ") + std::string(e);
  f.add("extension_count", "extensions", i.extensions.size(), "", khr.empty() ? "" : "among them " + khr);
  f.add("extensions", "extension list", i.extensions);
  if (i.extra.contains("pci_bus_id_nv")) add_nvml_facts(f, i);
  add_peak_facts(f, i);
  return f.take();
}

const FactsRegistrar registered_cl_facts(BackendKind::OpenCL, cl_facts);

}  // namespace

}  // namespace hetbench
