#include "solve/device_scalars.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "kernel/kernel_prelude.hpp"
#include "util/json_file.hpp"

namespace hetbench {

namespace {

// A scalar of the solve's precision in device memory: where a dot variant writes its result.
struct DeviceScalar final : SolverScalar {
  std::unique_ptr<Buffer> buf;
};

}  // namespace

DeviceScalars::DeviceScalars(Device& dev, Precision p, std::size_t n, const Variant& axpy, const ParamValues& pv)
    : dev_(dev), p_(p), n_(n) {
  const bool cl = dev.info().backend == BackendKind::OpenCL;
  auto param = [&](const char* k, long long def) {
    const auto it = pv.find(k);
    return axpy.name == (cl ? "vec" : "vec16") && it != pv.end() ? it->second : def;
  };
  const long long wg = std::min<long long>(param("WG", 256), static_cast<long long>(dev.info().max_wg));
  const auto len = static_cast<long long>(n);
  ProgramSource src;
  const std::string dir = kernel_dir();
  src.path = dir + (cl ? "/opencl/solve/device_scalars.cl" : "/cuda/solve/device_scalars.cu");
  src.text = kernel_prelude(cl ? "opencl" : "cuda", p) +
             read_text_file(dir + (cl ? "/opencl/common/vector.cl" : "/cuda/common/vec16.cuh")) + "\n" +
             read_text_file(src.path);
  long long groups = 0;
  if (cl) {
    const long long vw = param("VW", 4), wpt = param("WPT", 4);
    src.defines = {fmt::format("VW={}", vw)};
    groups = std::max(1LL, (len + vw * wpt * wg - 1) / (vw * wpt * wg));
  } else {
    const long long unr = param("UNR", 4), waves = param("WAVES", 8), vec = 16 / static_cast<long long>(info(p).bytes);
    src.defines = {fmt::format("WG={}", wg), fmt::format("UNR={}", unr)};
    groups = std::max(1LL, std::min(dev.info().compute_units * waves, (len + vec * wg * unr - 1) / (vec * wg * unr)));
  }
  prog_ = dev.build(src);
  axpy_global_ = {static_cast<std::size_t>(groups * wg)};
  axpy_local_ = {static_cast<std::size_t>(wg)};
  stop_ = dev.alloc(4);
  stop_->fill(0);
}

std::unique_ptr<SolverScalar> DeviceScalars::scalar() {
  auto s = std::make_unique<DeviceScalar>();
  s->buf = dev_.alloc(info(p_).bytes);
  s->buf->fill(0);
  return s;
}

Buffer& DeviceScalars::buf(SolverScalar& s) {
  auto* d = dynamic_cast<DeviceScalar*>(&s);
  if (!d) throw Error("internal: a scalar of another operator handed to a device operator");
  return *d->buf;
}

void DeviceScalars::axpy_ratio(double sign, SolverScalar& num, SolverScalar& den, Buffer& x, Buffer& y, Buffer& r) {
  const KernelArg::Kind real = p_ == Precision::S ? KernelArg::F32 : KernelArg::F64;
  const std::vector<KernelArg> args = {{KernelArg::U32, nullptr, static_cast<std::int64_t>(n_), 0, "n"},
                                       {real, nullptr, 0, sign, "sign"},
                                       {KernelArg::Buf, &buf(num), 0, 0, "num"},
                                       {KernelArg::Buf, &buf(den), 0, 0, "den"},
                                       {KernelArg::Buf, stop_.get(), 0, 0, "stop"},
                                       {KernelArg::Buf, &x, 0, 0, "x"},
                                       {KernelArg::Buf, &y, 0, 0, "y"},
                                       {KernelArg::Buf, &r, 0, 0, "r"}};
  prog_->launch("hb_axpy_ratio", args, axpy_global_, axpy_local_, 0);
}

void DeviceScalars::watch_start(std::size_t slots) {
  if (!log_ || log_->bytes() < slots * 8) {
    log_ = dev_.alloc(std::max<std::size_t>(slots, 1) * 8);
    log_host_.reset();
    try {
      log_host_ = dev_.alloc_host(log_->bytes(), HostMemoryKind::Pinned);
    } catch (const Error&) {
      // Read back through Buffer::download instead.
    }
  }
  stop_->fill(0);
}

void DeviceScalars::watch(const std::vector<SolverWatch>& w) {
  if (w.empty() || w.size() > 3) throw Error("internal: one to three watches per call");
  if (!log_) throw Error("internal: watch before watch_start");
  std::vector<KernelArg> args;
  for (std::size_t i = 0; i < 3; ++i) {
    const SolverWatch& c = w[std::min(i, w.size() - 1)];
    const int kind = i < w.size() ? (c.guard == SolverGuard::NotPositive ? 0 : 1) : -1;
    if ((c.slot + 1) * 8 > log_->bytes()) throw Error("internal: a watch slot beyond watch_start's");
    args.push_back({KernelArg::Buf, &buf(*c.s), 0, 0, "s"});
    args.push_back({KernelArg::I32, nullptr, kind, 0, "kind"});
    args.push_back({KernelArg::F64, nullptr, 0, c.bound, "bound"});
    args.push_back({KernelArg::U32, nullptr, static_cast<std::int64_t>(c.slot), 0, "slot"});
  }
  args.push_back({KernelArg::Buf, log_.get(), 0, 0, "log"});
  args.push_back({KernelArg::Buf, stop_.get(), 0, 0, "stop"});
  prog_->launch("hb_watch", args, {1}, {1}, 0);
}

std::vector<double> DeviceScalars::watch_read(std::size_t n) {
  std::vector<double> out(n);
  if (n == 0) return out;
  if (!log_ || n * 8 > log_->bytes()) throw Error("internal: more watch values read than watch_start made room for");
  if (log_host_) {
    // One copy queued behind the window's kernels into page-locked memory, one wait.
    dev_.copy_to_host(log_host_->data(), *log_, n * 8, 0);
    dev_.finish();
    std::memcpy(out.data(), log_host_->data(), n * 8);
  } else {
    std::vector<double> all(log_->bytes() / 8);
    log_->download(all.data());
    std::copy(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), out.begin());
  }
  return out;
}

}  // namespace hetbench
