// A worker process and the link to it: the hetbench program itself started again
// (fork + exec of /proc/self/exe with the hidden subcommand `__worker`, since CUDA and
// OpenCL state do not survive a bare fork), in a process group of its own and killed by
// the kernel when its parent dies, talking length-prefixed JSON over a socket pair.
#pragma once

#include <sys/types.h>

#include <string>

#include <nlohmann/json.hpp>

namespace hetbench {

// The descriptor a worker finds its end of the link on.
inline constexpr int kWorkerFd = 3;

// One message: a 4-byte big-endian length, then that many bytes of JSON text.
// Returns false when the other end has gone.
bool send_message(int fd, const nlohmann::json& msg);
// Blocks until a whole message arrives; false at end of file (the parent has gone).
bool read_message(int fd, nlohmann::json& msg);

class WorkerProcess {
 public:
  WorkerProcess();  // starts it; throws Error when it cannot
  ~WorkerProcess();  // kills it (the whole group) and reaps it
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  bool send(const nlohmann::json& msg) { return send_message(fd_, msg); }
  enum class Got { message, nothing_yet, closed };
  // Waits at most timeout_ms for a whole message.
  Got receive(nlohmann::json& msg, int timeout_ms);
  void signal(int sig);  // to the worker's process group
  // Kills the group and reaps the worker; returns how it ended, e.g. "killed by
  // SIGSEGV (Segmentation fault)" or "exited with status 1". Waits up to grace_ms for
  // it to end of its own before killing.
  std::string end(int grace_ms = 0);

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string in_;  // bytes received, not yet a whole message
  std::string ended_;
};

}  // namespace hetbench
