#include "solve/variant_ops.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "kernel/kernel_variant.hpp"
#include "solve/device_scalars.hpp"

namespace hetbench {

std::string default_solver_variant(BackendKind b, const std::string& op) {
  // What a user of the op would pick first: the parallel host loops, and the kernels the
  // op's documentation leads with on each device API.
  static const std::map<std::pair<BackendKind, std::string>, std::string> table = {
      {{BackendKind::Host, "spmv"}, "omp"},       {{BackendKind::Host, "dot"}, "omp"},
      {{BackendKind::Host, "axpy"}, "omp"},       {{BackendKind::OpenCL, "spmv"}, "vector"},
      {{BackendKind::OpenCL, "dot"}, "vec"},      {{BackendKind::OpenCL, "axpy"}, "vec"},
      {{BackendKind::Cuda, "spmv"}, "vector"},    {{BackendKind::Cuda, "dot"}, "vec16"},
      {{BackendKind::Cuda, "axpy"}, "vec16"}};
  return table.at({b, op});
}

CsrMatrix jacobi_inverse(const CsrMatrix& a) {
  CsrMatrix d;
  d.rows = d.cols = a.rows;
  d.rowptr.resize(static_cast<std::size_t>(a.rows) + 1);
  d.colidx.resize(static_cast<std::size_t>(a.rows));
  d.values.resize(static_cast<std::size_t>(a.rows));
  for (int64_t i = 0; i < a.rows; ++i) {
    double diag = 0;
    bool stored = false;
    for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q)
      if (a.colidx[q] == i) {
        diag = a.values[q];
        stored = true;
      }
    if (diag == 0)
      throw Error(fmt::format("the Jacobi preconditioner needs a nonzero diagonal: row {} (1-based) {}", i + 1,
                              stored ? "has a_ii = 0" : "has no diagonal entry"));
    d.rowptr[i + 1] = static_cast<int32_t>(i + 1);
    d.colidx[i] = static_cast<int32_t>(i);
    d.values[i] = 1.0 / diag;
  }
  return d;
}

namespace {

struct DeviceVector final : SolverVector {
  std::unique_ptr<Buffer> buf;
};

Buffer& buf(SolverVector& v) { return *static_cast<DeviceVector&>(v).buf; }

// One variant prepared on one combination of buffers: the problem it reads its sizes and
// scalars from and the buffer map live as long as the instance (code variants keep
// pointers to both).
struct Prepared {
  Problem prob;
  BufferMap bufs;
  std::unique_ptr<Instance> inst;
  void set(const std::string& name, double v) {
    for (auto& s : prob.scalars)
      if (s.name == name) s.value = v;
    set_kernel_scalar(*inst, name, v);
  }
};

// A matrix on the device, as the SpMV operands name its arrays.
struct DeviceCsr {
  std::unique_ptr<Buffer> rowptr, col, val;
  Sizes sizes;
};

class VariantOps final : public SolverOps {
 public:
  VariantOps(Device& dev, std::shared_ptr<const CsrMatrix> a, Precision p, const SolverVariants& v, Preconditioner m,
             std::size_t halo)
      : dev_(dev), p_(p), n_(static_cast<std::size_t>(a->rows)), halo_(halo) {
    if (a->rows + static_cast<int64_t>(halo) != a->cols)
      throw Error(fmt::format("the solvers need a square matrix, not {} x {}", a->rows, a->cols));
    if (p != Precision::S && p != Precision::D)
      throw Error(fmt::format("solve runs its inner loop in S or D, not {} (refinement reaches DF and DD: --refine)",
                              name(p)));
    if (info(p).needs_fp64 && !dev.info().fp64) throw Error(fmt::format("{} has no binary64 for D", dev.id()));
    spmv_ = pick("spmv", v.spmv);
    dot_ = pick("dot", v.dot);
    axpy_ = pick("axpy", v.axpy);
    a_ = upload_csr(*a);
    if (m == Preconditioner::Jacobi) {
      m_ = upload_csr(jacobi_inverse(*a));
      // diag(A)^-1 has one nonzero a row: one thread a row reads it at full width, where
      // a vector kernel sized for A's rows idles most of its lanes (3.2x slower on the H200).
      precond_ = dev.info().backend == BackendKind::Host ? spmv_ : pick("spmv", "scalar");
      check(*precond_.v, m_.sizes, precond_.pv);
    } else if (m == Preconditioner::Ilu0) {
      // A rank's block would be factored without its coupling to the others: block Jacobi,
      // another preconditioner than the one asked for.
      if (halo) throw Error("--precond ilu0 is for one device; distributed solves take jacobi or none");
      ilu_ = make_vendor_ilu0(dev, *a, p);
    }
    try {
      pinned_ = dev.alloc_host(16 * 8, HostMemoryKind::Pinned);
    } catch (const Error&) {
      // The host device has no host link: its results are read directly.
    }
    check(*spmv_.v, a_.sizes, spmv_.pv);
    Sizes vs{{"n", static_cast<int64_t>(n_)}};
    check(*dot_.v, vs, dot_.pv);
    check(*axpy_.v, vs, axpy_.pv);
    // The device keeps the solver's scalars where it can test them in double (the stop
    // tests compare like the host's); the host device keeps the defaults.
    if (dev.info().backend != BackendKind::Host && dev.info().fp64)
      ds_ = std::make_unique<DeviceScalars>(dev, p, n_, *axpy_.v, axpy_.pv);
  }

  std::size_t rows() const override { return n_; }
  Precision precision() const override { return p_; }

  std::unique_ptr<SolverVector> vector() override {
    auto v = std::make_unique<DeviceVector>();
    v->buf = dev_.alloc((n_ + halo_) * info(p_).bytes);
    v->buf->fill(0);
    return v;
  }
  void upload(SolverVector& v, const std::vector<double>& h) override {
    if (h.size() != n_) throw Error(fmt::format("internal: a vector of {} values for {} rows", h.size(), n_));
    auto raw = to_precision(h);
    raw.resize(buf(v).bytes(), 0);  // the halo (distributed operators) stays 0 until exchanged
    buf(v).upload(raw.data());
  }
  std::vector<double> download(SolverVector& v) override {
    std::vector<unsigned char> raw(buf(v).bytes());
    buf(v).download(raw.data());
    return from_precision(raw, n_);
  }
  // The host device's buffers are host memory, where the host's loops serve better.
  Device* device() override { return dev_.info().backend == BackendKind::Host ? nullptr : &dev_; }
  Buffer* buffer(SolverVector& v) override { return &buf(v); }
  void copy(SolverVector& src, SolverVector& dst) override {
    timed(SolverKernel::Axpy, [&] { buf(dst).copy_from(buf(src)); });
  }

  void apply(SolverVector& x, SolverVector& y) override { spmv(spmv_, a_, 1, 0, x, y, SolverKernel::SpMV); }
  void residual(SolverVector& b, SolverVector& x, SolverVector& r) override {
    copy(b, r);
    spmv(spmv_, a_, -1, 1, x, r, SolverKernel::SpMV);
  }
  void precondition(SolverVector& r, SolverVector& z) override {
    if (ilu_)
      timed(SolverKernel::Precond, [&] { ilu_->apply(buf(r), buf(z)); });
    else if (m_.val)
      spmv(precond_, m_, 1, 0, r, z, SolverKernel::Precond);
    else
      timed(SolverKernel::Precond, [&] { buf(z).copy_from(buf(r)); });
  }
  double dot(SolverVector& x, SolverVector& y) override { return dots({{&x, &y}})[0]; }
  std::vector<double> dots(const std::vector<std::pair<SolverVector*, SolverVector*>>& pairs) override {
    const std::size_t eb = info(p_).bytes;
    while (results_.size() < pairs.size()) results_.push_back(dev_.alloc(eb));
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      run_dot(buf(*pairs[i].first), buf(*pairs[i].second), *results_[i]);
    }
    std::vector<unsigned char> raw(pairs.size() * eb);
    if (pinned_ && raw.size() <= pinned_->bytes()) {
      // Copies queued behind the products into page-locked memory, then one wait: a
      // pageable read-back would wait once per product and stage through a bounce buffer.
      auto* host = static_cast<unsigned char*>(pinned_->data());
      for (std::size_t i = 0; i < pairs.size(); ++i) dev_.copy_to_host(host + i * eb, *results_[i], eb, 0);
      dev_.finish();
      std::memcpy(raw.data(), host, raw.size());
    } else {
      for (std::size_t i = 0; i < pairs.size(); ++i) results_[i]->download(raw.data() + i * eb);
    }
    return from_precision(raw, pairs.size());
  }
  void axpy(double a, SolverVector& x, SolverVector& y, SolverVector& r) override {
    if (&r == &x || &r == &y) throw Error("internal: axpy's output must be a vector of its own");
    auto& pr = prepared(axpy_, {&buf(x), &buf(y), &buf(r)}, [&](Prepared& p) {
      p.prob.sizes = {{"n", static_cast<int64_t>(n_)}};
      p.prob.scalars = {{"alpha", false, a}, {"alpha_hi", false, a}, {"alpha_lo", false, 0},
                        {"n", true, static_cast<double>(n_)}};
      p.bufs = {{"x", &buf(x)}, {"y", &buf(y)}, {"r", &buf(r)}};
    });
    pr.set("alpha", a);
    pr.set("alpha_hi", a);
    timed(SolverKernel::Axpy, [&] { pr.inst->run(); });
  }

  std::unique_ptr<SolverScalar> scalar() override { return ds_ ? ds_->scalar() : SolverOps::scalar(); }
  void dot_to(SolverVector& x, SolverVector& y, SolverScalar& s) override {
    if (!ds_) return SolverOps::dot_to(x, y, s);
    run_dot(buf(x), buf(y), ds_->buf(s));
  }
  void axpy_ratio(double sign, SolverScalar& num, SolverScalar& den, SolverVector& x, SolverVector& y,
                  SolverVector& r) override {
    if (!ds_) return SolverOps::axpy_ratio(sign, num, den, x, y, r);
    if (&r == &x || &r == &y) throw Error("internal: axpy's output must be a vector of its own");
    timed(SolverKernel::Axpy, [&] { ds_->axpy_ratio(sign, num, den, buf(x), buf(y), buf(r)); });
  }
  void watch_start(std::size_t slots) override { ds_ ? ds_->watch_start(slots) : SolverOps::watch_start(slots); }
  void watch(const std::vector<SolverWatch>& w) override {
    if (!ds_) return SolverOps::watch(w);
    timed(SolverKernel::Dot, [&] { ds_->watch(w); });
  }
  std::vector<double> watch_read(std::size_t n) override { return ds_ ? ds_->watch_read(n) : SolverOps::watch_read(n); }
  bool watch_stopped() const override { return ds_ ? false : SolverOps::watch_stopped(); }

  void time_kernels(bool on) override { timing_ = on; }
  const KernelTimes& times() const override { return times_; }
  void reset_times() override { times_ = {}; }
  void finish() override { dev_.finish(); }
  std::vector<std::string> kernels() const override {
    std::vector<std::string> out;
    for (const auto* c : {&spmv_, &dot_, &axpy_}) out.push_back(fmt::format("{} {}", c->v->id(), format_params(c->pv)));
    out.push_back(ilu_     ? "ilu0: " + ilu_->name()
                  : m_.val ? fmt::format("jacobi: {} {} on diag(A)^-1", precond_.v->id(), format_params(precond_.pv))
                           : "none");
    return out;
  }

 private:
  struct Choice {
    std::shared_ptr<Variant> v;
    ParamValues pv;
  };
  using Key = std::tuple<const Choice*, Buffer*, Buffer*, Buffer*, const DeviceCsr*>;

  Device& dev_;
  Precision p_;
  std::size_t n_, halo_;
  Choice spmv_, dot_, axpy_, precond_;
  DeviceCsr a_, m_;
  std::vector<std::unique_ptr<Buffer>> results_;  // one per product of a dots() call
  std::unique_ptr<HostMemory> pinned_;
  std::map<Key, std::unique_ptr<Prepared>> prepared_;
  bool timing_ = false;
  KernelTimes times_;

  // Null on the host device, whose scalars stay on the host (SolverOps' defaults).
  std::unique_ptr<DeviceScalars> ds_;
  std::unique_ptr<VendorIlu0> ilu_;  // --precond ilu0

  void run_dot(Buffer& x, Buffer& y, Buffer& res) {
    auto& pr = prepared(dot_, {&x, &y, &res}, [&](Prepared& p) {
      p.prob.sizes = {{"n", static_cast<int64_t>(n_)}};
      p.prob.scalars = {{"n", true, static_cast<double>(n_)}};
      p.bufs = {{"x", &x}, {"y", &y}, {"result", &res}};
    });
    timed(SolverKernel::Dot, [&] { pr.inst->run(); });
  }

  // `want`: NAME, or NAME:K=V,K=V to set parameters (the rest keep their defaults).
  Choice pick(const std::string& op, const std::string& want) {
    const auto colon = want.find(':');
    const std::string name = want.empty() ? default_solver_variant(dev_.info().backend, op) : want.substr(0, colon);
    std::vector<std::string> names;
    for (const auto& v : variants_for(op)) {
      if (v->backend != dev_.info().backend) continue;
      names.push_back(v->name);
      if (v->name != name) continue;
      if (auto why = v->unsupported_reason(dev_, p_); !why.empty())
        throw Error(fmt::format("{} cannot run on {} in {}: {}", v->id(), dev_.id(), hetbench::name(p_), why));
      ParamValues pv;
      for (const auto& d : v->params) pv[d.name] = d.default_for(p_);
      for (std::size_t at = colon; at != std::string::npos && at + 1 < want.size();) {
        const auto next = want.find(',', at + 1);
        const std::string kv = want.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
        const auto eq = kv.find('=');
        const ParamDef* d = eq == std::string::npos ? nullptr : v->param(kv.substr(0, eq));
        if (!d)
          throw Error(fmt::format("--{}-variant '{}': '{}' is not NAME=value of a parameter of {}", op, want, kv, v->id()));
        try {
          pv[d->name] = std::stoll(kv.substr(eq + 1));
        } catch (const std::exception&) {
          throw Error(fmt::format("--{}-variant '{}': '{}' is not an integer", op, want, kv.substr(eq + 1)));
        }
        if (std::find(d->values.begin(), d->values.end(), pv[d->name]) == d->values.end())
          throw Error(fmt::format("--{}-variant '{}': {} = {} is outside the parameter's domain", op, want, d->name,
                                  pv[d->name]));
        at = next;
      }
      return {v, pv};
    }
    throw Error(fmt::format("no {} variant '{}' on {}; there are: {}", op, name, to_string(dev_.info().backend),
                            fmt::join(names, ", ")));
  }

  void check(const Variant& v, const Sizes& s, const ParamValues& pv) const {
    if (auto why = v.violated_constraint(dev_, s, p_, pv); !why.empty())
      throw Error(fmt::format("{} cannot run this problem on {}: {}", v.id(), dev_.id(), why));
  }

  DeviceCsr upload_csr(const CsrMatrix& m) {
    DeviceCsr d;
    d.rowptr = upload_copy(dev_, m.rowptr.data(), m.rowptr.size() * 4);
    d.col = upload_copy(dev_, m.colidx.data(), m.colidx.size() * 4);
    auto vals = to_precision(m.values);
    d.val = upload_copy(dev_, vals.data(), vals.size());
    const auto f = matrix_features(m);
    d.sizes = {{"rows", f.rows}, {"cols", f.cols}, {"nnz", f.nnz}, {"max_row", f.row_max}};
    return d;
  }

  void spmv(const Choice& c, const DeviceCsr& m, double alpha, double beta, SolverVector& x, SolverVector& y,
            SolverKernel k) {
    auto& pr = prepared(c, {&buf(x), &buf(y), nullptr}, [&](Prepared& p) {
      p.prob.sizes = m.sizes;
      p.prob.scalars = {{"alpha", false, alpha}, {"beta", false, beta}};
      for (const auto& [key, v] : m.sizes) p.prob.scalars.push_back({key, true, static_cast<double>(v)});
      p.bufs = {{"row_ptr", m.rowptr.get()}, {"col", m.col.get()}, {"val", m.val.get()},
                {"x", &buf(x)},              {"y", &buf(y)}};
    }, &m);
    pr.set("alpha", alpha);
    pr.set("beta", beta);
    timed(k, [&] { pr.inst->run(); });
  }

  template <class Fill>
  Prepared& prepared(const Choice& c, std::array<Buffer*, 3> b, Fill fill, const DeviceCsr* m = nullptr) {
    auto& slot = prepared_[Key{&c, b[0], b[1], b[2], m}];
    if (!slot) {
      slot = std::make_unique<Prepared>();
      slot->prob.prec = p_;
      fill(*slot);
      slot->inst = c.v->prepare(dev_, slot->prob, slot->bufs, c.pv);
    }
    return *slot;
  }

  template <class F>
  void timed(SolverKernel k, F work) {
    const auto i = static_cast<std::size_t>(k);
    ++times_.calls[i];
    if (timing_)
      times_.seconds[i] += dev_.time(work);
    else
      work();
  }

  std::vector<unsigned char> to_precision(const std::vector<double>& h) const {
    std::vector<unsigned char> out(h.size() * info(p_).bytes);
    if (p_ == Precision::D) {
      std::memcpy(out.data(), h.data(), out.size());
    } else {
      auto* f = reinterpret_cast<float*>(out.data());
      for (std::size_t i = 0; i < h.size(); ++i) f[i] = static_cast<float>(h[i]);
    }
    return out;
  }
  std::vector<double> from_precision(const std::vector<unsigned char>& raw, std::size_t n) const {
    std::vector<double> out(n);
    if (p_ == Precision::D) {
      std::memcpy(out.data(), raw.data(), n * 8);
    } else {
      const auto* f = reinterpret_cast<const float*>(raw.data());
      for (std::size_t i = 0; i < n; ++i) out[i] = f[i];
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<SolverOps> make_variant_ops(Device& dev, std::shared_ptr<const CsrMatrix> a, Precision p,
                                            const SolverVariants& v, Preconditioner m, std::size_t halo) {
  return std::make_unique<VariantOps>(dev, std::move(a), p, v, m, halo);
}

Buffer& solver_buffer(SolverVector& v) { return buf(v); }

}  // namespace hetbench
