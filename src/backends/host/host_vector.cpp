// Host implementations of COPY, AXPY and DOT: a plain loop and an OpenMP version each.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "backends/host/host_variant.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

ParamDef threads_param() {
  ParamDef p{"THREADS", {}, 0, "OpenMP threads"};
  long long hw = std::max(1u, std::thread::hardware_concurrency());
  for (long long t = 1; t < hw; t *= 2) p.values.push_back(t);
  p.values.push_back(hw);
  p.def = hw;
  return p;
}

namespace {

const std::vector<Precision> kSD{Precision::S, Precision::D};

void copy_loop(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T* __restrict x = c.ptr<T>("x");
    T* __restrict y = c.ptr<T>("y");
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i];
    return 0;
  });
}

void copy_omp(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T* __restrict x = c.ptr<T>("x");
    T* __restrict y = c.ptr<T>("y");
#pragma omp parallel for simd schedule(static) num_threads(c.param("THREADS"))
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i];
    return 0;
  });
}

void axpy_loop(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T a = static_cast<T>(c.scalar("alpha"));
    const T* __restrict x = c.ptr<T>("x");
    const T* __restrict y = c.ptr<T>("y");
    T* __restrict r = c.ptr<T>("r");
    for (std::size_t i = 0; i < n; ++i) r[i] = a * x[i] + y[i];
    return 0;
  });
}

void axpy_omp(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T a = static_cast<T>(c.scalar("alpha"));
    const T* __restrict x = c.ptr<T>("x");
    const T* __restrict y = c.ptr<T>("y");
    T* __restrict r = c.ptr<T>("r");
#pragma omp parallel for simd schedule(static) num_threads(c.param("THREADS"))
    for (std::size_t i = 0; i < n; ++i) r[i] = a * x[i] + y[i];
    return 0;
  });
}

void dot_loop(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const T* x = c.ptr<T>("x");
    const T* y = c.ptr<T>("y");
    T s = 0;
    for (std::size_t i = 0; i < n; ++i) s += x[i] * y[i];
    *c.ptr<T>("result") = s;
    return 0;
  });
}

// Blocked summation: each thread sums contiguous blocks of BLOCK products with 8
// independent accumulators (SIMD-friendly, and the error grows with the block length
// and the number of blocks rather than with n), then the partial sums are added.
void dot_omp(const HostCall& c) {
  with_real(c.prob->prec, [&]<class T>() {
    const auto n = static_cast<std::size_t>(c.size("n"));
    const auto block = static_cast<std::size_t>(c.param("BLOCK"));
    const T* __restrict x = c.ptr<T>("x");
    const T* __restrict y = c.ptr<T>("y");
    T total = 0;
#pragma omp parallel num_threads(c.param("THREADS")) reduction(+ : total)
    {
      T mine = 0;
#pragma omp for schedule(static)
      for (std::size_t b = 0; b < n; b += block) {
        const std::size_t e = std::min(n, b + block);
        T acc[8] = {};
        std::size_t i = b;
        for (; i + 8 <= e; i += 8)
          for (int k = 0; k < 8; ++k) acc[k] += x[i + k] * y[i + k];
        for (; i < e; ++i) acc[0] += x[i] * y[i];
        mine += ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
      }
      total += mine;
    }
    *c.ptr<T>("result") = total;
    return 0;
  });
}

ParamDef block_param() { return {"BLOCK", {256, 1024, 4096, 16384, 65536}, 4096, "products per block"}; }

bool add(const char* op, const char* name, const char* desc, std::vector<ParamDef> params, HostVariant::Fn fn) {
  register_variant(std::make_shared<HostVariant>(op, name, desc, kSD, std::move(params), std::move(fn)));
  return true;
}

const bool registered = add("copy", "loop", "sequential loop", {}, copy_loop) &&
                        add("copy", "omp", "OpenMP parallel loop", {threads_param()}, copy_omp) &&
                        add("axpy", "loop", "sequential loop", {}, axpy_loop) &&
                        add("axpy", "omp", "OpenMP parallel loop", {threads_param()}, axpy_omp) &&
                        add("dot", "loop", "sequential recursive summation", {}, dot_loop) &&
                        add("dot", "omp", "OpenMP blocked summation, 8 accumulators per block",
                            {threads_param(), block_param()}, dot_omp);

}  // namespace
}  // namespace hetbench
