// OpenCL backend: one context and one in-order profiling queue per device.
#pragma once

#include <CL/cl.h>

#include <vector>

#include "api/program_cache.hpp"
#include "hetbench/device.hpp"

namespace hetbench {

class ClDevice;

class ClBuffer final : public Buffer {
 public:
  ClBuffer(ClDevice& dev, std::size_t bytes);
  ~ClBuffer() override;
  void upload(const void* src) override;
  void download(void* dst) override;
  void fill(unsigned char byte) override;
  void copy_from(Buffer& src) override;
  cl_mem mem() const { return mem_; }
  void* native() const override { return mem_; }

 private:
  ClDevice& dev_;
  cl_mem mem_ = nullptr;
};

class ClDevice final : public Device {
 public:
  ClDevice(cl_platform_id p, cl_device_id d, int pi, int di);
  ~ClDevice() override;
  const DeviceInfo& info() const override { return info_; }
  std::unique_ptr<Buffer> alloc(std::size_t bytes) override;
  void finish() override;
  double time(const std::function<void()>& work) override;
  std::shared_ptr<Program> build(const ProgramSource& src) override;
  std::unique_ptr<HostMemory> alloc_host(std::size_t bytes, HostMemoryKind kind) override;
  void copy_to_device(Buffer& dst, const void* src, std::size_t bytes, int lane) override;
  void copy_to_host(void* dst, Buffer& src, std::size_t bytes, int lane) override;

  cl_context context() const { return ctx_; }
  cl_command_queue queue() const { return queue_; }
  cl_device_id device() const { return dev_; }
  // Commands issued inside time() hand their events here; outside it, events are released.
  void record(cl_event ev);
  // Event pointer for an enqueue call: non-null only while timing.
  cl_event* event_slot();
  void take_slot();

 private:
  cl_device_id dev_;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  // The host link's second lane: a profiling queue of the same context, created on first use.
  cl_command_queue side_ = nullptr;
  cl_command_queue lane(int lane, cl_event* after);
  void issued(int lane, cl_event after, cl_event ev);
  void transfer(Buffer& buf, void* host, std::size_t bytes, int lane, bool to_device);
  DeviceInfo info_;
  std::vector<cl_event>* recording_ = nullptr;
  cl_event slot_ = nullptr;
  ProgramCache programs_{"opencl"};
};

}  // namespace hetbench
