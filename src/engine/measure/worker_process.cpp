#include "engine/measure/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench {

namespace {

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    // MSG_NOSIGNAL: a worker that died answers EPIPE instead of killing its parent.
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// A whole message at the front of `buf`, taken out; false when it is not all there yet.
bool take_message(std::string& buf, nlohmann::json& msg) {
  if (buf.size() < 4) return false;
  const auto* b = reinterpret_cast<const unsigned char*>(buf.data());
  const std::size_t len = (std::size_t{b[0]} << 24) | (std::size_t{b[1]} << 16) | (std::size_t{b[2]} << 8) | b[3];
  if (buf.size() < 4 + len) return false;
  msg = nlohmann::json::parse(buf.begin() + 4, buf.begin() + 4 + static_cast<std::ptrdiff_t>(len));
  buf.erase(0, 4 + len);
  return true;
}

// Appends what is readable now; false at end of file or on an error.
bool read_some(int fd, std::string& buf) {
  char chunk[65536];
  for (;;) {
    const ssize_t r = ::read(fd, chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    buf.append(chunk, static_cast<std::size_t>(r));
    return true;
  }
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return fmt::format("killed by SIG{} ({})", abbrev ? abbrev : std::to_string(sig).c_str(), strsignal(sig));
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "ended";
}

}  // namespace

bool send_message(int fd, const nlohmann::json& msg) {
  const std::string body = msg.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::size_t n = body.size();
  const unsigned char head[4] = {static_cast<unsigned char>(n >> 24), static_cast<unsigned char>(n >> 16),
                                 static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n)};
  return write_all(fd, reinterpret_cast<const char*>(head), 4) && write_all(fd, body.data(), n);
}

bool read_message(int fd, nlohmann::json& msg) {
  static std::string buf;
  while (!take_message(buf, msg))
    if (!read_some(fd, buf)) return false;
  return true;
}

WorkerProcess::WorkerProcess() {
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) throw Error(fmt::format("cannot start a worker: readlink /proc/self/exe: {}", std::strerror(errno)));
  exe[n] = '\0';
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw Error(fmt::format("cannot start a worker: socketpair: {}", std::strerror(errno)));
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    throw Error(fmt::format("cannot start a worker: fork: {}", std::strerror(errno)));
  }
  if (pid_ == 0) {
    // Async-signal-safe calls only until exec. Its own group: Ctrl-C at the terminal
    // reaches the parent alone, which stops the worker in order.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
    if (sv[1] == kWorkerFd) ::fcntl(kWorkerFd, F_SETFD, 0);
    else ::dup2(sv[1], kWorkerFd);
    ::dup2(2, 1);  // a kernel's or a driver's prints stay off the parent's report
    ::execl(exe, exe, "__worker", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid_, pid_);
  ::close(sv[1]);
  fd_ = sv[0];
}

WorkerProcess::~WorkerProcess() { end(0); }

WorkerProcess::Got WorkerProcess::receive(nlohmann::json& msg, int timeout_ms) {
  if (take_message(in_, msg)) return Got::message;
  if (fd_ < 0) return Got::closed;
  pollfd p{fd_, POLLIN, 0};
  const int r = ::poll(&p, 1, timeout_ms);
  if (r <= 0) return Got::nothing_yet;  // a timeout, or a signal (the caller checks interrupted())
  if (!read_some(fd_, in_)) {
    ::close(fd_);
    fd_ = -1;
    return take_message(in_, msg) ? Got::message : Got::closed;
  }
  return take_message(in_, msg) ? Got::message : Got::nothing_yet;
}

void WorkerProcess::signal(int sig) {
  if (pid_ > 0) ::kill(-pid_, sig);
}

std::string WorkerProcess::end(int grace_ms) {
  if (pid_ <= 0) return ended_;
  if (fd_ >= 0) {
    ::close(fd_);  // a waiting worker reads end of file and leaves
    fd_ = -1;
  }
  int status = 0;
  pid_t r = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while ((r = ::waitpid(pid_, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (r == 0) {
    ::kill(-pid_, SIGKILL);
    while ((r = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
  }
  ::kill(-pid_, SIGKILL);  // anything the worker started in its group
  pid_ = -1;
  ended_ = r > 0 ? describe_status(status) : "ended";
  return ended_;
}

}  // namespace hetbench
