// NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): no link-time dependency, so
// one build runs on machines without the NVIDIA driver. Only the few calls hetbench uses.
#pragma once

#include <string>

namespace hetbench::nvml {

using Device = struct nvmlDevice_st*;
using Return = int;  // nvmlReturn_t; 0 is success
constexpr Return kSuccess = 0;
constexpr unsigned kClockSM = 1, kClockMem = 2;  // nvmlClockType_t

struct Api {
  Return (*DeviceGetHandleByPciBusId)(const char*, Device*) = nullptr;
  Return (*DeviceGetPowerUsage)(Device, unsigned*) = nullptr;                   // mW
  Return (*DeviceGetTotalEnergyConsumption)(Device, unsigned long long*) = nullptr;  // mJ
  Return (*DeviceGetClockInfo)(Device, unsigned, unsigned*) = nullptr;          // MHz
  Return (*DeviceGetCurrPcieLinkGeneration)(Device, unsigned*) = nullptr;
  Return (*DeviceGetCurrPcieLinkWidth)(Device, unsigned*) = nullptr;
  Return (*DeviceGetMaxPcieLinkGeneration)(Device, unsigned*) = nullptr;
  Return (*DeviceGetMaxPcieLinkWidth)(Device, unsigned*) = nullptr;
  const char* (*ErrorString)(Return) = nullptr;
};

// The loaded and initialised API, or nullptr with `why` set (one line).
const Api* api(std::string* why = nullptr);
// NVML handle of the GPU at PCI domain:bus:device; nullptr with `why` set when not found.
Device device_by_pci(unsigned domain, unsigned bus, unsigned dev, std::string* why = nullptr);
std::string error(Return r);

}  // namespace hetbench::nvml
