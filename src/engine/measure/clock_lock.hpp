// --lock-clocks: the GPUs of an experiment run at one SM clock, locked for the experiment
// and given back to the driver at its end (docs/measurement.md, "Locked clocks").
//
// The lock is written down before any GPU is locked (a record in the user's state folder:
// which GPUs, by which process) and removed once every GPU is given back, so that a lock
// outlives no process silently: at the end of the experiment, after Ctrl-C, after a
// worker's crash (the lock is the parent's) and through the watchdog's forced exit the
// lock gives the clocks back itself; after a kill of the process (or a crash of it) the
// next hetbench to start finds the record of a process that is gone and gives them back
// (restore_left_clock_locks). A GPU the process may not lock is refused in one line with
// nothing left locked. The calls go through ClockControl (hetbench/clock_control.hpp), so
// that tests plant failures between lock and restore.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hetbench/clock_control.hpp"
#include "hetbench/device.hpp"

#include <memory>

namespace hetbench {

// The record of a lock in force: $HETBENCH_STATE_DIR/clock-lock.json, else under
// $XDG_STATE_HOME/hetbench, else ~/.local/state/hetbench.
std::filesystem::path clock_lock_record_path();

class ClockLock {
 public:
  // Locks the SM clock of every NVIDIA GPU among `devices` (one lock per GPU where CUDA and
  // OpenCL devices share it) at `request`: "max" (the highest SM clock), "base" (the
  // default application clock) or a clock in MHz. Restores a lock left by a process that
  // is gone first. Throws Error, one line, with nothing locked, where the request is
  // malformed or above a GPU's highest clock, no device is an NVIDIA GPU, another live
  // process holds a lock, or a GPU may not be locked (permission, driver).
  ClockLock(ClockControl& control, const std::vector<DeviceInfo>& devices, const std::string& request,
            std::filesystem::path record = clock_lock_record_path());
  ~ClockLock();
  ClockLock(const ClockLock&) = delete;
  ClockLock& operator=(const ClockLock&) = delete;

  // What experiment.json records: {"request", "gpus": [{"gpu", "devices", "mhz"}], "since"}.
  const nlohmann::json& recorded() const { return record_; }
  // Gives every GPU back now (idempotent): "" when all went back, else one line (the
  // record stays for the next start to try again).
  std::string release();

 private:
  std::string give_back();  // release() without the exit hook's removal (the hook calls it)

  ClockControl& control_;
  std::filesystem::path path_;
  nlohmann::json record_;
  bool released_ = false;
  int exit_hook_ = -1;
};

// A lock record left by a process that is gone: give its GPUs back and remove it. Returns
// what to say (one line each; none where there was no such record). A record of a live
// process is left alone; where `control` is null or a GPU does not go back, the record
// stays and the line says why.
std::vector<std::string> restore_left_clock_locks(ClockControl* control,
                                                  const std::filesystem::path& record = clock_lock_record_path());

struct Plan;
// The lock an experiment asks for (`request`: Experiment::lock_clocks) over its plan's
// devices, said on stderr; null where it asks for none.
std::unique_ptr<ClockLock> lock_experiment_clocks(const std::string& request, const Plan& plan);

}  // namespace hetbench
