#include "backends/cuda/cuda_backend.hpp"
#include "backends/nvidia/nvidia_arch.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "backends/cuda/cuda_dl.hpp"
#include "backends/nvidia/pcie_link.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

void cuda_fail(cudaError_t err, const char* call, const std::string& where) {
  std::string fn(call);
  fn = fn.substr(0, fn.find('('));
  auto msg = fmt::format("{}: {} failed with {} ({})", where, fn, cudaGetErrorName(err), cudaGetErrorString(err));
  if (err == cudaErrorMemoryAllocation) msg += ": the device is out of memory";
  cudaGetLastError();  // clear a non-sticky error so that later points start clean
  throw PointError(msg);
}

namespace {

int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return v;
}

std::string version_str(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

}  // namespace

CudaDevice::CudaDevice(int ordinal) : ordinal_(ordinal) {
  const std::string where = fmt::format("cuda:{}", ordinal);
  HB_CUDA(cudaSetDevice(ordinal), where);
  cudaDeviceProp p{};
  HB_CUDA(cudaGetDeviceProperties(&p, ordinal), where);
  // Non-blocking: the legacy default stream must not serialise with our work.
  HB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), where);
  HB_CUDA(cudaEventCreate(&ev_start_), where);
  HB_CUDA(cudaEventCreate(&ev_stop_), where);
  cc_major_ = p.major;
  cc_minor_ = p.minor;

  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  // CUDA 13 dropped the clock fields from cudaDeviceProp: attributes give them (kHz).
  const int sm_khz = attr(cudaDevAttrClockRate, ordinal);
  const int mem_khz = attr(cudaDevAttrMemoryClockRate, ordinal);
  const int bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, ordinal);

  DeviceInfo& i = info_;
  i.id = where;
  i.backend = BackendKind::Cuda;
  i.name = p.name;
  i.vendor = "NVIDIA Corporation";
  i.driver = "CUDA driver " + version_str(drv);
  i.version = fmt::format("CUDA runtime {}, sm_{}{}", version_str(rt), p.major, p.minor);
  i.type = "gpu";
  i.compute_units = p.multiProcessorCount;
  i.max_clock_mhz = sm_khz / 1000;
  i.global_mem = p.totalGlobalMem;
  i.max_alloc = p.totalGlobalMem;
  i.local_mem = p.sharedMemPerBlock;
  i.local_mem_launch = p.sharedMemPerBlockOptin;
  i.constant_mem = p.totalConstMem;
  i.llc_bytes = static_cast<std::uint64_t>(attr(cudaDevAttrL2CacheSize, ordinal));
  i.max_wg = static_cast<std::size_t>(p.maxThreadsPerBlock);
  i.pref_wg_multiple = static_cast<std::size_t>(p.warpSize);
  i.fp64 = true;

  char bus_id[32] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal) != cudaSuccess) cudaGetLastError();
  auto [f32, f64] = nvidia_sm_lanes(p.major, p.minor);
  auto& x = i.extra;
  x["compute_capability"] = fmt::format("{}.{}", p.major, p.minor);
  x["architecture"] = nvidia_arch_name(p.major, p.minor);
  x["sm_count"] = p.multiProcessorCount;
  x["fp32_lanes_per_sm"] = f32;
  x["fp64_lanes_per_sm"] = f64;
  x["sm_clock_mhz"] = sm_khz / 1000;
  x["mem_clock_mhz"] = mem_khz / 1000;
  x["mem_bus_width_bits"] = bus_bits;
  x["l2_bytes"] = p.l2CacheSize;
  x["shared_per_block"] = p.sharedMemPerBlock;
  x["shared_per_sm"] = p.sharedMemPerMultiprocessor;
  x["shared_per_block_optin"] = p.sharedMemPerBlockOptin;
  x["regs_per_block"] = p.regsPerBlock;
  x["regs_per_sm"] = p.regsPerMultiprocessor;
  x["max_threads_per_sm"] = p.maxThreadsPerMultiProcessor;
  x["warp_size"] = p.warpSize;
  x["ecc"] = p.ECCEnabled != 0;
  x["pci_bus_id"] = bus_id;
  x["pci_domain"] = p.pciDomainID;
  x["pci_bus"] = p.pciBusID;
  x["pci_device"] = p.pciDeviceID;
  x["driver_version"] = version_str(drv);
  x["runtime_version"] = version_str(rt);
  add_pcie_link(i);

  std::vector<std::string> note;
  if (f32 > 0 && sm_khz > 0) {
    const double ghz = sm_khz * 1e-6;
    i.peak_gflops_s = p.multiProcessorCount * f32 * 2.0 * ghz;
    i.peak_gflops_d = p.multiProcessorCount * f64 * 2.0 * ghz;
    note.push_back(fmt::format("GFLOP/s = {} SMs x {}/{} FP32/FP64 lanes (sm_{}{}) x 2 (FMA) x {} MHz",
                               p.multiProcessorCount, f32, f64, p.major, p.minor, sm_khz / 1000));
  }
  if (mem_khz > 0 && bus_bits > 0) {
    i.peak_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) * 1e-9;
    note.push_back(fmt::format("GB/s = 2 (DDR) x {} MHz x {} bits / 8", mem_khz / 1000, bus_bits));
  }
  for (const auto& s : note) i.peak_note += (i.peak_note.empty() ? "" : "; ") + s;
}

CudaDevice::~CudaDevice() {
  // Devices live until process exit, when the static runtime may already be torn down:
  // errors are ignored, and the cuBLAS handle is left to the driver (destroying it after
  // the runtime's teardown is not safe).
  programs_.clear();
  cudaSetDevice(ordinal_);
  if (ev_start_) cudaEventDestroy(ev_start_);
  if (ev_stop_) cudaEventDestroy(ev_stop_);
  if (fork_) cudaEventDestroy(fork_);
  if (join_) cudaEventDestroy(join_);
  if (side_) cudaStreamDestroy(side_);
  if (stream_) cudaStreamDestroy(stream_);
}

void CudaDevice::activate() const { HB_CUDA(cudaSetDevice(ordinal_), info_.id); }

cublasHandle_t CudaDevice::blas() {
  if (!blas_) {
    activate();
    cublasStatus_t st = HB_DL(cublasCreate)(&blas_);
    if (st != CUBLAS_STATUS_SUCCESS)
      throw PointError(fmt::format("{}: cublasCreate failed with {}", info_.id, HB_DL(cublasGetStatusName)(st)));
    st = HB_DL(cublasSetStream)(blas_, stream_);
    if (st != CUBLAS_STATUS_SUCCESS)
      throw PointError(fmt::format("{}: cublasSetStream failed with {}", info_.id, HB_DL(cublasGetStatusName)(st)));
  }
  return blas_;
}

std::unique_ptr<Buffer> CudaDevice::alloc(std::size_t bytes) {
  activate();
  return std::make_unique<CudaBuffer>(*this, bytes);
}

void CudaDevice::finish() {
  activate();
  join_side();
  HB_CUDA(cudaStreamSynchronize(stream_), info_.id);
}

double CudaDevice::time(const std::function<void()>& work) {
  finish();
  HB_CUDA(cudaEventRecord(ev_start_, stream_), info_.id);
  work();
  join_side();
  HB_CUDA(cudaEventRecord(ev_stop_, stream_), info_.id);
  HB_CUDA(cudaEventSynchronize(ev_stop_), info_.id);
  float ms = 0;
  HB_CUDA(cudaEventElapsedTime(&ms, ev_start_, ev_stop_), info_.id);
  return ms * 1e-3;
}

cudaStream_t CudaDevice::lane(int lane) {
  if (lane == 0) return stream_;
  if (!side_) {
    HB_CUDA(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), info_.id);
    HB_CUDA(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), info_.id);
    HB_CUDA(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming), info_.id);
  }
  HB_CUDA(cudaEventRecord(fork_, stream_), info_.id);
  HB_CUDA(cudaStreamWaitEvent(side_, fork_, 0), info_.id);
  side_pending_ = true;
  return side_;
}

// stream_ waits for the side lane, so that its stop event and synchronisation cover both.
void CudaDevice::join_side() {
  if (!side_pending_) return;
  side_pending_ = false;
  HB_CUDA(cudaEventRecord(join_, side_), info_.id);
  HB_CUDA(cudaStreamWaitEvent(stream_, join_, 0), info_.id);
}

namespace {

class CudaHostMemory final : public HostMemory {
 public:
  CudaHostMemory(const CudaDevice& dev, std::size_t bytes, HostMemoryKind kind)
      : HostMemory(bytes), pinned_(kind == HostMemoryKind::Pinned) {
    const std::size_t n = bytes == 0 ? 1 : bytes;
    if (pinned_) {
      const cudaError_t err = cudaMallocHost(&data_, n);
      if (err != cudaSuccess) {
        cudaGetLastError();
        throw PointError(fmt::format("{}: cannot pin {} bytes of host memory (cudaMallocHost: {})", dev.id(), bytes,
                                     cudaGetErrorName(err)));
      }
    } else {
      data_ = std::malloc(n);
      if (!data_) throw PointError(fmt::format("{}: out of host memory allocating {} bytes", dev.id(), bytes));
    }
  }
  ~CudaHostMemory() override {
    if (pinned_) cudaFreeHost(data_);
    else std::free(data_);
  }

 private:
  bool pinned_;
};

}  // namespace

std::unique_ptr<HostMemory> CudaDevice::alloc_host(std::size_t bytes, HostMemoryKind kind) {
  activate();
  return std::make_unique<CudaHostMemory>(*this, bytes, kind);
}

void CudaDevice::copy_to_device(Buffer& dst, const void* src, std::size_t bytes, int lane_no) {
  activate();
  auto& d = dynamic_cast<CudaBuffer&>(dst);
  HB_CUDA(cudaMemcpyAsync(d.ptr(), src, bytes, cudaMemcpyHostToDevice, lane(lane_no)), info_.id);
}

void CudaDevice::copy_to_host(void* dst, Buffer& src, std::size_t bytes, int lane_no) {
  activate();
  auto& s = dynamic_cast<CudaBuffer&>(src);
  HB_CUDA(cudaMemcpyAsync(dst, s.ptr(), bytes, cudaMemcpyDeviceToHost, lane(lane_no)), info_.id);
}

void CudaDevice::copy_peer(Buffer& dst, Device& dst_dev, Buffer& src, std::size_t bytes) {
  activate();
  auto& peer = dynamic_cast<CudaDevice&>(dst_dev);
  // Direct peer access where the topology allows it (NVLink, or PCIe under one switch);
  // otherwise the driver stages the copy through host memory. Enabling it twice is harmless.
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, ordinal_, peer.ordinal()) == cudaSuccess && can) {
    const cudaError_t e = cudaDeviceEnablePeerAccess(peer.ordinal(), 0);
    if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) cuda_fail(e, "cudaDeviceEnablePeerAccess", info_.id);
    cudaGetLastError();
  }
  HB_CUDA(cudaMemcpyPeerAsync(dynamic_cast<CudaBuffer&>(dst).ptr(), peer.ordinal(), dynamic_cast<CudaBuffer&>(src).ptr(),
                              ordinal_, bytes, stream_),
          info_.id);
}

CudaBuffer::CudaBuffer(CudaDevice& dev, std::size_t bytes) : Buffer(bytes), dev_(dev) {
  cudaError_t err = cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (err == cudaErrorMemoryAllocation)
      throw PointError(fmt::format("{}: out of device memory allocating {} bytes (cudaMalloc: {})", dev.id(), bytes,
                                   cudaGetErrorName(err)));
    cuda_fail(err, "cudaMalloc", dev.id());
  }
  poison();
  dev.finish();
}

CudaBuffer::~CudaBuffer() {
  if (ptr_) {
    cudaSetDevice(dev_.ordinal());
    cudaFree(ptr_);
  }
}

void CudaBuffer::upload(const void* src) {
  if (!bytes_) return;
  dev_.activate();
  HB_CUDA(cudaMemcpyAsync(ptr_, src, bytes_, cudaMemcpyHostToDevice, dev_.stream()), dev_.id());
  HB_CUDA(cudaStreamSynchronize(dev_.stream()), dev_.id());
}

void CudaBuffer::download(void* dst) {
  if (!bytes_) return;
  dev_.activate();
  HB_CUDA(cudaMemcpyAsync(dst, ptr_, bytes_, cudaMemcpyDeviceToHost, dev_.stream()), dev_.id());
  HB_CUDA(cudaStreamSynchronize(dev_.stream()), dev_.id());
}

void CudaBuffer::fill(unsigned char byte) {
  if (!bytes_) return;
  dev_.activate();
  HB_CUDA(cudaMemsetAsync(ptr_, byte, bytes_, dev_.stream()), dev_.id());
}

void CudaBuffer::copy_from(Buffer& src) {
  auto& s = dynamic_cast<CudaBuffer&>(src);
  if (!bytes_) return;
  dev_.activate();
  HB_CUDA(cudaMemcpyAsync(ptr_, s.ptr(), std::min(bytes_, s.bytes()), cudaMemcpyDeviceToDevice, dev_.stream()),
          dev_.id());
}

namespace {

class CudaBackend final : public ScanningBackend {
 public:
  BackendKind kind() const override { return BackendKind::Cuda; }

 private:
  void scan() override {
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n == 0) {
      cudaGetLastError();
      if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice || n == 0)
        reason_ = fmt::format("CUDA unavailable: no NVIDIA driver or GPU ({})",
                              err == cudaSuccess ? "cudaGetDeviceCount returned 0" : cudaGetErrorName(err));
      else
        reason_ = fmt::format("CUDA unavailable: cudaGetDeviceCount failed with {} ({})", cudaGetErrorName(err),
                              cudaGetErrorString(err));
      return;
    }
    for (int d = 0; d < n; ++d) {
      try {
        devices_.push_back(std::make_shared<CudaDevice>(d));
      } catch (const Error& e) {
        fmt::print(stderr, "hetbench: warning: skipping cuda:{}: {}\n", d, e.what());
      }
    }
    if (devices_.empty()) reason_ = "CUDA unavailable: no usable CUDA device";
    for (auto& d : devices_) static_cast<CudaDevice&>(*d).set_peers(static_cast<int>(devices_.size()) - 1);
  }
};

const BackendRegistrar registrar(BackendKind::Cuda, [] { return std::make_shared<CudaBackend>(); });

}  // namespace

}  // namespace hetbench
