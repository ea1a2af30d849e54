// cuBLAS, cuSPARSE and NVRTC are opened on first use (dlopen), not linked. With cuBLASLt
// they are close to a gigabyte of shared objects whose mapping, relocation and static
// constructors cost every hetbench process about 0.1 s, also the many that never touch a
// GPU (store, compare, report, an isolated worker on the host or PoCL).
//
// HB_DL(f) is the function f of one of those libraries, looked up once per call site:
// `HB_DL(cublasSgemm)(h, ...)`. The indirection lets the library's own macros apply first
// (cuBLAS's cublasSgemm is cublasSgemm_v2). A library that cannot be opened throws Error
// naming it and the loader's reason, at the first call, as a point error would be.
#pragma once

namespace hetbench::cuda_dl {
void* symbol(const char* name);
}

#define HB_DL(f) HB_DL_(f)
#define HB_DL_(f)                                                                                  \
  ([]() {                                                                                          \
    static const auto hb_dl_p_ = reinterpret_cast<decltype(&::f)>(::hetbench::cuda_dl::symbol(#f)); \
    return hb_dl_p_;                                                                               \
  }())
