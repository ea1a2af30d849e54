// A CUDA device's report facts: what deviceQuery prints (cudaDeviceGetAttribute, read when
// the report is made) beside what `nvidia-smi -q` prints (NVML: nvml_facts.cpp), and the
// CUDA cores from the architecture table, which no API reports.
#include <fmt/format.h>

#include "api/device_facts.hpp"
#include "backends/cuda/cuda_backend.hpp"
#include "backends/nvidia/nvidia_arch.hpp"
#include "backends/nvidia/nvml_facts.hpp"

namespace hetbench {

namespace {

struct Attrs {
  int dev;
  FactList& f;
  std::optional<int> get(cudaDeviceAttr a) const {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) {
      cudaGetLastError();
      return std::nullopt;
    }
    return v;
  }
  // `scale` turns the attribute's unit into the fact's (kHz -> MHz).
  void add(cudaDeviceAttr a, const char* key, const char* label, const char* unit = "", double scale = 1) const {
    if (auto v = get(a))
      f.add(key, label, scale == 1 ? nlohmann::json(*v) : nlohmann::json(*v * scale), unit, "CUDA runtime");
    else
      f.absent(key, label, unit, "cudaDeviceGetAttribute gave no answer");
  }
  void flag(cudaDeviceAttr a, const char* key, const char* label) const {
    if (auto v = get(a))
      f.add(key, label, *v != 0, "", "CUDA runtime");
    else
      f.absent(key, label, "", "cudaDeviceGetAttribute gave no answer");
  }
  nlohmann::json triple(cudaDeviceAttr x, cudaDeviceAttr y, cudaDeviceAttr z) const {
    nlohmann::json a = nlohmann::json::array();
    for (auto at : {x, y, z}) a.push_back(get(at).value_or(0));
    return a;
  }
};

std::string uuid_string(const cudaUUID_t& u) {
  std::string s = "GPU-";
  for (int k = 0; k < 16; ++k) {
    if (k == 4 || k == 6 || k == 8 || k == 10) s += '-';
    s += fmt::format("{:02x}", static_cast<unsigned char>(u.bytes[k]));
  }
  return s;
}

DeviceFacts cuda_facts(const Device& d) {
  const auto& cd = dynamic_cast<const CudaDevice&>(d);
  const auto& i = d.info();
  const int ordinal = cd.ordinal(), major = cd.cc_major(), minor = cd.cc_minor();
  FactList f;
  Attrs a{ordinal, f};
  add_identity_facts(f, i);
  f.add("compute_capability", "compute capability", fmt::format("{}.{}", major, minor));
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, ordinal) == cudaSuccess)
    f.add("uuid", "UUID", uuid_string(p.uuid));
  else
    cudaGetLastError();
  f.add("pci_bus_id", "PCI bus id", i.extra.value("pci_bus_id", ""));

  f.section("compute");
  const auto [f32, f64] = nvidia_sm_lanes(major, minor);
  const int sms = i.compute_units;
  f.add("sm_count", "multiprocessors (SMs)", sms, "", "CUDA runtime");
  const std::string arch = fmt::format("architecture table, sm_{}{}", major, minor);
  if (f32 > 0) {
    f.add("cores_per_sm", "CUDA cores per SM", f32, "", arch)
        .add("cuda_cores", "CUDA cores", sms * f32, "", "SMs x cores per SM")
        .add("fp64_units_per_sm", "FP64 units per SM", f64, "", arch);
  } else {
    const auto why = fmt::format("sm_{}{} is not in the architecture table (src/backends/nvidia/nvidia_arch.cpp)",
                                 major, minor);
    f.absent("cores_per_sm", "CUDA cores per SM", "", why).absent("cuda_cores", "CUDA cores", "", why);
  }
  a.add(cudaDevAttrWarpSize, "warp_size", "warp size");
  a.add(cudaDevAttrMaxThreadsPerBlock, "max_threads_per_block", "max threads per block");
  a.add(cudaDevAttrMaxThreadsPerMultiProcessor, "max_threads_per_sm", "max threads per SM");
  a.add(cudaDevAttrMaxBlocksPerMultiprocessor, "max_blocks_per_sm", "max blocks per SM");
  f.add("max_block_dims", "max block dimensions",
        a.triple(cudaDevAttrMaxBlockDimX, cudaDevAttrMaxBlockDimY, cudaDevAttrMaxBlockDimZ));
  f.add("max_grid_dims", "max grid dimensions",
        a.triple(cudaDevAttrMaxGridDimX, cudaDevAttrMaxGridDimY, cudaDevAttrMaxGridDimZ));
  a.add(cudaDevAttrMaxRegistersPerBlock, "registers_per_block", "registers per block");
  a.add(cudaDevAttrMaxRegistersPerMultiprocessor, "registers_per_sm", "registers per SM");
  a.add(cudaDevAttrAsyncEngineCount, "copy_engines", "async copy engines");
  a.flag(cudaDevAttrConcurrentKernels, "concurrent_kernels", "concurrent kernels");

  f.section("clocks");
  a.add(cudaDevAttrClockRate, "sm_clock_mhz", "SM clock (max boost, CUDA)", "MHz", 1e-3);
  a.add(cudaDevAttrMemoryClockRate, "mem_clock_mhz", "memory clock (CUDA)", "MHz", 1e-3);

  f.section("memory").add("global_bytes", "global memory", i.global_mem, "bytes", "CUDA runtime");
  a.add(cudaDevAttrGlobalMemoryBusWidth, "bus_width_bits", "memory bus width", "bits");
  a.add(cudaDevAttrL2CacheSize, "l2_bytes", "L2 cache", "bytes");
  a.add(cudaDevAttrMaxPersistingL2CacheSize, "l2_persisting_max_bytes", "L2 persisting max", "bytes");
  a.add(cudaDevAttrMaxSharedMemoryPerBlock, "shared_per_block_bytes", "shared memory per block", "bytes");
  a.add(cudaDevAttrMaxSharedMemoryPerBlockOptin, "shared_per_block_optin_bytes", "shared memory per block (opt-in)",
        "bytes");
  a.add(cudaDevAttrMaxSharedMemoryPerMultiprocessor, "shared_per_sm_bytes", "shared memory per SM", "bytes");
  a.add(cudaDevAttrTotalConstantMemory, "constant_bytes", "constant memory", "bytes");
  a.flag(cudaDevAttrEccEnabled, "ecc", "ECC enabled");
  a.flag(cudaDevAttrManagedMemory, "managed_memory", "managed memory");
  a.flag(cudaDevAttrUnifiedAddressing, "unified_addressing", "unified addressing (UVA)");
  a.flag(cudaDevAttrCanMapHostMemory, "host_mapped_memory", "host page-locked memory mapping");
  a.flag(cudaDevAttrIntegrated, "integrated", "integrated GPU sharing host memory");
  a.add(cudaDevAttrMaxPitch, "max_pitch_bytes", "max memory pitch", "bytes");

  // deviceQuery's texture and surface lines: the largest texture of each shape and the
  // alignments a texture or surface needs.
  f.section("textures");
  a.add(cudaDevAttrMaxTexture1DWidth, "texture_1d_width", "max texture 1D width");
  f.add("texture_2d", "max texture 2D (width, height)",
        nlohmann::json::array({a.get(cudaDevAttrMaxTexture2DWidth).value_or(0),
                               a.get(cudaDevAttrMaxTexture2DHeight).value_or(0)}));
  f.add("texture_3d", "max texture 3D (width, height, depth)",
        a.triple(cudaDevAttrMaxTexture3DWidth, cudaDevAttrMaxTexture3DHeight, cudaDevAttrMaxTexture3DDepth));
  f.add("texture_1d_layered", "max layered 1D texture (width, layers)",
        nlohmann::json::array({a.get(cudaDevAttrMaxTexture1DLayeredWidth).value_or(0),
                               a.get(cudaDevAttrMaxTexture1DLayeredLayers).value_or(0)}));
  f.add("texture_2d_layered", "max layered 2D texture (width, height, layers)",
        a.triple(cudaDevAttrMaxTexture2DLayeredWidth, cudaDevAttrMaxTexture2DLayeredHeight,
                 cudaDevAttrMaxTexture2DLayeredLayers));
  a.add(cudaDevAttrTextureAlignment, "texture_alignment_bytes", "texture alignment", "bytes");
  a.add(cudaDevAttrTexturePitchAlignment, "texture_pitch_alignment_bytes", "texture pitch alignment", "bytes");
  a.add(cudaDevAttrSurfaceAlignment, "surface_alignment_bytes", "surface alignment", "bytes");

  f.section("modes");
  a.flag(cudaDevAttrKernelExecTimeout, "kernel_timeout", "run time limit on kernels");
  a.flag(cudaDevAttrComputePreemptionSupported, "compute_preemption", "compute preemption");
  a.flag(cudaDevAttrCooperativeLaunch, "cooperative_launch", "cooperative kernel launch");
  if (auto m = a.get(cudaDevAttrComputeMode)) {
    static const char* names[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
    f.add("compute_mode", "compute mode", *m >= 0 && *m < 4 ? names[*m] : "unknown", "", "CUDA runtime");
  } else {
    f.absent("compute_mode", "compute mode", "", "cudaDeviceGetAttribute gave no answer");
  }

  f.section("software")
      .add("driver_version", "CUDA driver version", i.extra.value("driver_version", ""))
      .add("runtime_version", "CUDA runtime version", i.extra.value("runtime_version", ""));
  add_nvml_facts(f, i);
  add_peak_facts(f, i);
  return f.take();
}

const FactsRegistrar registered_cuda_facts(BackendKind::Cuda, cuda_facts);

}  // namespace

}  // namespace hetbench
