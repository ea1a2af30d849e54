// The host CPU as a device: buffers in host memory, variants are C++ functions.
#pragma once

#include "hetbench/device.hpp"

namespace hetbench {

class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(std::size_t bytes);
  ~HostBuffer() override;
  void upload(const void* src) override;
  void download(void* dst) override;
  void fill(unsigned char byte) override;
  void copy_from(Buffer& src) override;
  void* data() { return data_; }
  void* native() const override { return data_; }

 private:
  void* data_;
};

class HostDevice final : public Device {
 public:
  HostDevice();
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<Buffer> alloc(std::size_t bytes) override;
  void finish() override {}
  double time(const std::function<void()>& work) override;

 private:
  DeviceInfo info_;
};

std::shared_ptr<HostDevice> host_device();

// Host pointer of a buffer that lives on the host device.
template <class T>
T* host_ptr(Buffer* b) {
  return static_cast<T*>(static_cast<HostBuffer*>(b)->data());
}

}  // namespace hetbench
