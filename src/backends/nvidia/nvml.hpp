// NVML, loaded at run time with dlopen("libnvidia-ml.so.1"): no link-time dependency, so
// one build runs on machines without the NVIDIA driver. Only the few calls hetbench uses.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/device.hpp"

namespace hetbench::nvml {

using Device = struct nvmlDevice_st*;
using Return = int;  // nvmlReturn_t; 0 is success
constexpr Return kSuccess = 0;
constexpr unsigned kClockSM = 1, kClockMem = 2;  // nvmlClockType_t

// nvmlClocksEventReasons (formerly nvmlClocksThrottleReasons) bits, from the NVML API
// reference. Idle, application-clock and display-clock settings are choices, not
// slowdowns: a sample is marked throttled only for the others.
constexpr std::uint64_t kReasonGpuIdle = 0x1, kReasonAppClocks = 0x2, kReasonSwPowerCap = 0x4,
                        kReasonHwSlowdown = 0x8, kReasonSyncBoost = 0x10, kReasonSwThermal = 0x20,
                        kReasonHwThermal = 0x40, kReasonHwPowerBrake = 0x80, kReasonDisplayClocks = 0x100;
constexpr std::uint64_t kThrottleReasons =
    kReasonSwPowerCap | kReasonHwSlowdown | kReasonSyncBoost | kReasonSwThermal | kReasonHwThermal | kReasonHwPowerBrake;

struct Api {
  Return (*DeviceGetHandleByPciBusId)(const char*, Device*) = nullptr;
  Return (*DeviceGetPowerUsage)(Device, unsigned*) = nullptr;                   // mW
  Return (*DeviceGetTotalEnergyConsumption)(Device, unsigned long long*) = nullptr;  // mJ
  Return (*DeviceGetClockInfo)(Device, unsigned, unsigned*) = nullptr;          // MHz
  Return (*DeviceGetCurrentClocksEventReasons)(Device, unsigned long long*) = nullptr;  // bits above
  Return (*DeviceGetCurrPcieLinkGeneration)(Device, unsigned*) = nullptr;
  Return (*DeviceGetCurrPcieLinkWidth)(Device, unsigned*) = nullptr;
  Return (*DeviceGetMaxPcieLinkGeneration)(Device, unsigned*) = nullptr;
  Return (*DeviceGetMaxPcieLinkWidth)(Device, unsigned*) = nullptr;
  const char* (*ErrorString)(Return) = nullptr;
  // For the device report (nvml_facts.cpp): what `nvidia-smi -q` prints. Any may be
  // missing from an older driver's library; callers check.
  Return (*DeviceGetMaxClockInfo)(Device, unsigned, unsigned*) = nullptr;              // MHz
  Return (*DeviceGetApplicationsClock)(Device, unsigned, unsigned*) = nullptr;         // MHz
  Return (*DeviceGetDefaultApplicationsClock)(Device, unsigned, unsigned*) = nullptr;  // MHz
  Return (*DeviceGetPowerManagementLimit)(Device, unsigned*) = nullptr;                // mW
  Return (*DeviceGetPowerManagementDefaultLimit)(Device, unsigned*) = nullptr;         // mW
  Return (*DeviceGetEnforcedPowerLimit)(Device, unsigned*) = nullptr;                  // mW
  Return (*DeviceGetComputeMode)(Device, int*) = nullptr;                              // nvmlComputeMode_t
  Return (*DeviceGetEccMode)(Device, int*, int*) = nullptr;           // current, pending nvmlEnableState_t
  Return (*DeviceGetPersistenceMode)(Device, int*) = nullptr;         // nvmlEnableState_t
  Return (*DeviceGetTemperature)(Device, int, unsigned*) = nullptr;   // sensor 0: the GPU die, deg C
  Return (*DeviceGetVbiosVersion)(Device, char*, unsigned) = nullptr;
  Return (*SystemGetDriverVersion)(char*, unsigned) = nullptr;
  // Health, as `nvidia-smi -q` shows it (ECC errors, retired pages, remapped rows,
  // performance state, supported clocks, temperature thresholds).
  Return (*DeviceGetPerformanceState)(Device, int*) = nullptr;  // nvmlPstates_t: 0 = P0
  Return (*DeviceGetTotalEccErrors)(Device, int, int, unsigned long long*) = nullptr;  // error type, counter type
  Return (*DeviceGetRetiredPages)(Device, int, unsigned*, unsigned long long*) = nullptr;  // cause, count, addresses
  Return (*DeviceGetRetiredPagesPendingStatus)(Device, int*) = nullptr;
  Return (*DeviceGetRemappedRows)(Device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  Return (*DeviceGetSupportedMemoryClocks)(Device, unsigned*, unsigned*) = nullptr;          // count, MHz
  Return (*DeviceGetSupportedGraphicsClocks)(Device, unsigned, unsigned*, unsigned*) = nullptr;  // mem MHz, count, MHz
  Return (*DeviceGetTemperatureThreshold)(Device, int, unsigned*) = nullptr;  // nvmlTemperatureThresholds_t
  // Clock control (--lock-clocks; clock_lock.cpp), root or the driver's setting.
  Return (*DeviceSetGpuLockedClocks)(Device, unsigned, unsigned) = nullptr;  // min, max MHz
  Return (*DeviceResetGpuLockedClocks)(Device) = nullptr;
};

// NVML return codes the callers tell apart (nvmlReturn_t).
constexpr Return kErrorNoPermission = 4, kErrorInsufficientSize = 7;

// The names `nvidia-smi -q` gives the slowdown reasons among `bits` (kThrottleReasons only),
// in bit order.
std::vector<std::string> throttle_reason_names(std::uint64_t bits);

// The loaded and initialised API, or nullptr with `why` set (one line).
const Api* api(std::string* why = nullptr);
// NVML handle of the GPU at PCI domain:bus:device; nullptr with `why` set when not found.
Device device_by_pci(unsigned domain, unsigned bus, unsigned dev, std::string* why = nullptr);
std::string error(Return r);
// The handle of a CUDA device or an NVIDIA OpenCL device, matched by PCI address, looked
// up once per device; otherwise nullptr and why (one line).
std::pair<Device, std::string> device_for(const DeviceInfo& info);
// The PCI address ("dddd:bb:dd.0") under which NVML knows that device, or "" with `why`.
std::string pci_address(const DeviceInfo& info, std::string* why = nullptr);

}  // namespace hetbench::nvml
