// CUDA backend: one non-default stream per device; kernels are JIT-built with NVRTC and
// loaded through the runtime's library API, so nothing links against libcuda.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "api/program_cache.hpp"
#include "hetbench/device.hpp"

typedef struct cublasContext* cublasHandle_t;

namespace hetbench {

[[noreturn]] void cuda_fail(cudaError_t err, const char* call, const std::string& where);

// Every CUDA runtime call goes through this: the message names the error, the call and
// the device.
#define HB_CUDA(call, where)                                        \
  do {                                                              \
    cudaError_t hb_err_ = (call);                                   \
    if (hb_err_ != cudaSuccess) ::hetbench::cuda_fail(hb_err_, #call, where); \
  } while (0)

class CudaDevice;

class CudaBuffer final : public Buffer {
 public:
  CudaBuffer(CudaDevice& dev, std::size_t bytes);
  ~CudaBuffer() override;
  void upload(const void* src) override;
  void download(void* dst) override;
  void fill(unsigned char byte) override;
  void copy_from(Buffer& src) override;
  void* ptr() const { return ptr_; }
  void* native() const override { return ptr_; }

 private:
  CudaDevice& dev_;
  void* ptr_ = nullptr;
};

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal);
  ~CudaDevice() override;
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<Buffer> alloc(std::size_t bytes) override;
  void finish() override;
  double time(const std::function<void()>& work) override;
  std::shared_ptr<Program> build(const ProgramSource& src) override;
  std::unique_ptr<HostMemory> alloc_host(std::size_t bytes, HostMemoryKind kind) override;
  void copy_to_device(Buffer& dst, const void* src, std::size_t bytes, int lane) override;
  void copy_to_host(void* dst, Buffer& src, std::size_t bytes, int lane) override;
  void copy_peer(Buffer& dst, Device& dst_dev, Buffer& src, std::size_t bytes) override;
  void set_peers(int n) { info_.peers = n; }

  int ordinal() const { return ordinal_; }
  cudaStream_t stream() const { return stream_; }
  // Makes this device current for the calling thread (several GPUs share one process).
  void activate() const;
  // cuBLAS handle bound to this device's stream, created on first use.
  cublasHandle_t blas();
  int cc_major() const { return cc_major_; }
  int cc_minor() const { return cc_minor_; }

 private:
  int ordinal_;
  int cc_major_ = 0, cc_minor_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t ev_start_ = nullptr, ev_stop_ = nullptr;
  // The second lane of the host link (created on first use), forked from and joined
  // back into stream_ with events.
  cudaStream_t side_ = nullptr;
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
  bool side_pending_ = false;
  cudaStream_t lane(int lane);
  void join_side();
  cublasHandle_t blas_ = nullptr;
  DeviceInfo info_;
  ProgramCache programs_{"cuda"};
};

}  // namespace hetbench
