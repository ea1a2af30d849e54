#include "solve/device_dw_residual.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "kernel/kernel_prelude.hpp"
#include "util/json_file.hpp"

namespace hetbench {

namespace {

class DeviceDwResidual final : public DwResidual {
 public:
  DeviceDwResidual(Device& dev, std::shared_ptr<const CsrMatrix> a, Precision p, SolverOps& ops,
                   const std::vector<double>& b)
      : dev_(dev), p_(p), ops_(ops), n_(static_cast<std::size_t>(a->rows)) {
    if (p != Precision::DF && p != Precision::DD) throw Error(fmt::format("--refine takes DF or DD, not {}", name(p)));
    if (ops.device() != &dev) throw Error("internal: the device residual needs the inner solve's own device");
    if (!dev.info().fp64) throw Error(fmt::format("{} has no binary64 for the refinement's device residual", dev.id()));
    if (b.size() != n_ || a->rows != a->cols) throw Error("internal: the refinement needs square A and b of its rows");
    if (n_ >= std::numeric_limits<std::uint32_t>::max())
      throw Error(fmt::format("the refinement's device kernels index rows in 32 bits, not {}", n_));
    const bool cl = dev.info().backend == BackendKind::OpenCL;
    const bool df = p == Precision::DF;
    // A power of two (the norm's tree), within the device's limit.
    wg_ = 256;
    while (wg_ > 1 && wg_ > dev.info().max_wg) wg_ /= 2;
    ProgramSource src;
    const std::string dir = kernel_dir();
    src.path = dir + "/portable/solve/dw_refine.k";
    src.text = kernel_prelude(cl ? "opencl" : "cuda", p) + read_text_file(dir + "/common/dfdd.h") + "\n" +
               read_text_file(src.path);
    src.defines = {fmt::format("WG={}", wg_), fmt::format("INNER={}", ops.precision() == Precision::S ? "float" : "double"),
                   fmt::format("AVAL={}", df ? "float" : "double"), fmt::format("A_SPLIT={}", df ? 1 : 0)};
    prog_ = dev.build(src);

    rowptr_ = upload_copy(dev, a->rowptr.data(), a->rowptr.size() * sizeof(a->rowptr[0]), 8);
    col_ = upload_copy(dev, a->colidx.data(), a->colidx.size() * sizeof(a->colidx[0]), 8);
    if (df) {
      // Split once, as the host's DF residual does: hi = RN(a), lo = RN(a − hi).
      std::vector<float> hi(a->values.size()), lo(a->values.size());
      for (std::size_t q = 0; q < a->values.size(); ++q) {
        hi[q] = static_cast<float>(a->values[q]);
        lo[q] = static_cast<float>(a->values[q] - static_cast<double>(hi[q]));
      }
      a_hi_ = upload_copy(dev, hi.data(), hi.size() * 4, 8);
      a_lo_ = upload_copy(dev, lo.data(), lo.size() * 4, 8);
    } else {
      a_hi_ = upload_copy(dev, a->values.data(), a->values.size() * 8, 8);
      a_lo_ = dev.alloc(8);  // unread (A_SPLIT 0)
    }
    b_ = upload_copy(dev, b.data(), n_ * 8, 8);
    const std::size_t wb = info(p).bytes / 2;  // one word
    for (auto* v : {&x_hi_, &x_lo_, &r_hi_, &r_lo_}) {
      *v = dev.alloc(std::max<std::size_t>(n_ * wb, 8));
      (*v)->fill(0);
    }
    groups_ = std::clamp<std::size_t>((n_ + wg_ - 1) / wg_, 1, 1024);
    partial_ = dev.alloc(groups_ * 8);
    try {
      partial_host_ = dev.alloc_host(groups_ * 8, HostMemoryKind::Pinned);
    } catch (const Error&) {
      // Read back through Buffer::download instead.
    }
  }

  Precision precision() const override { return p_; }
  const char* where() const override { return "device"; }

  double residual() override {
    launch("hb_dw_residual", {u32(n_, "rows"), arg(*rowptr_, "row_ptr"), arg(*col_, "col"), arg(*a_hi_, "a_hi"),
                              arg(*a_lo_, "a_lo"), arg(*b_, "b"), arg(*x_hi_, "x_hi"), arg(*x_lo_, "x_lo"),
                              arg(*r_hi_, "r_hi"), arg(*r_lo_, "r_lo")});
    prog_->launch("hb_dw_norm2", {u32(n_, "n"), arg(*r_hi_, "r_hi"), arg(*r_lo_, "r_lo"), arg(*partial_, "partial")},
                  {groups_ * wg_}, {wg_}, 0);
    std::vector<double> part(groups_);
    if (partial_host_) {
      dev_.copy_to_host(partial_host_->data(), *partial_, groups_ * 8, 0);
      dev_.finish();
      std::memcpy(part.data(), partial_host_->data(), groups_ * 8);
    } else {
      partial_->download(part.data());
    }
    long double s = 0;
    for (const double v : part) s += v;
    return static_cast<double>(std::sqrt(s));
  }

  void right_hand_side(double scale, SolverVector& rhs) override {
    launch("hb_dw_rhs", {u32(n_, "n"), arg(*r_hi_, "r_hi"), arg(*r_lo_, "r_lo"), f64(scale, "scale"),
                         arg(inner(rhs), "rhs")});
  }

  void update(SolverVector& d, double scale) override {
    launch("hb_dw_update",
           {u32(n_, "n"), arg(inner(d), "d"), f64(scale, "scale"), arg(*x_hi_, "x_hi"), arg(*x_lo_, "x_lo")});
  }

  DwVector solution() override { return {read(*x_hi_), read(*x_lo_)}; }

 private:
  Device& dev_;
  Precision p_;
  SolverOps& ops_;
  std::size_t n_, wg_ = 256, groups_ = 1;
  std::shared_ptr<Program> prog_;
  std::unique_ptr<Buffer> rowptr_, col_, a_hi_, a_lo_, b_, x_hi_, x_lo_, r_hi_, r_lo_, partial_;
  std::unique_ptr<HostMemory> partial_host_;

  static KernelArg arg(Buffer& b, const char* name) { return {KernelArg::Buf, &b, 0, 0, name}; }
  static KernelArg u32(std::size_t v, const char* name) {
    return {KernelArg::U32, nullptr, static_cast<std::int64_t>(v), 0, name};
  }
  static KernelArg f64(double v, const char* name) { return {KernelArg::F64, nullptr, 0, v, name}; }

  // One work-item per row.
  void launch(const char* kernel, const std::vector<KernelArg>& args) {
    prog_->launch(kernel, args, {(n_ + wg_ - 1) / wg_ * wg_}, {wg_}, 0);
  }
  Buffer& inner(SolverVector& v) {
    Buffer* b = ops_.buffer(v);
    if (!b) throw Error("internal: the inner solve's vector is not in a device buffer");
    return *b;
  }
  // A plane of words as doubles (a float converts exactly).
  std::vector<double> read(Buffer& plane) const {
    return p_ == Precision::DD ? read_as<double>(plane) : read_as<float>(plane);
  }
  template <class W>
  std::vector<double> read_as(Buffer& plane) const {
    std::vector<W> all(plane.bytes() / sizeof(W));
    plane.download(all.data());
    return {all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n_)};
  }
};

}  // namespace

std::unique_ptr<DwResidual> device_dw_residual(Device& dev, std::shared_ptr<const CsrMatrix> a, Precision p,
                                               SolverOps& ops, const std::vector<double>& b) {
  return std::make_unique<DeviceDwResidual>(dev, std::move(a), p, ops, b);
}

}  // namespace hetbench
