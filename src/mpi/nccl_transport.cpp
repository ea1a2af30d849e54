#include "mpi/nccl_transport.hpp"

#include <dlfcn.h>
#include <glob.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "mpi/dist_common.hpp"
#ifdef HETBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace hetbench::mpi {

namespace {

#ifdef HETBENCH_HAVE_CUDA
std::vector<std::string> nccl_candidates() {
  std::vector<std::string> out;
  if (const char* e = std::getenv("HETBENCH_NCCL"); e && *e) return {e};
  out.push_back("libnccl.so.2");
  for (const char* pattern : {"/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
                              "/usr/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
                              "/usr/local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2"}) {
    glob_t g{};
    if (glob(pattern, 0, nullptr, &g) == 0)
      for (std::size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  return out;
}

void* open_nccl(std::string* path, std::string* why) {
  std::string tried;
  for (const auto& c : nccl_candidates()) {
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      *path = c;
      return h;
    }
    tried += fmt::format("{}{} ({})", tried.empty() ? "" : "; ", c, dlerror());
  }
  *why = fmt::format("libnccl not found: tried {}; set HETBENCH_NCCL to its path", tried);
  return nullptr;
}

// NCCL's C API as nccl.h declares it (stable since NCCL 2.0): only what the transport uses.
struct NcclId {
  char internal[128];
};
using NcclComm = void*;
constexpr int kNcclUint8 = 1;
struct Nccl {
  void* lib = nullptr;
  int (*GetUniqueId)(NcclId*);
  int (*CommInitRank)(NcclComm*, int, NcclId, int);
  int (*CommDestroy)(NcclComm);
  int (*Send)(const void*, std::size_t, int, int, NcclComm, cudaStream_t);
  int (*Recv)(void*, std::size_t, int, int, NcclComm, cudaStream_t);
  int (*GroupStart)();
  int (*GroupEnd)();
  const char* (*GetErrorString)(int);
  template <class F>
  void get(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f) throw Error(fmt::format("libnccl has no {}", name));
  }
  explicit Nccl(void* h) : lib(h) {
    get(GetUniqueId, "ncclGetUniqueId");
    get(CommInitRank, "ncclCommInitRank");
    get(CommDestroy, "ncclCommDestroy");
    get(Send, "ncclSend");
    get(Recv, "ncclRecv");
    get(GroupStart, "ncclGroupStart");
    get(GroupEnd, "ncclGroupEnd");
    get(GetErrorString, "ncclGetErrorString");
  }
  void check(int rc, const char* what) const {
    if (rc != 0) throw Error(fmt::format("{}: {}", what, GetErrorString(rc)));
  }
};

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

// The halo between device buffers: per neighbour one ncclSend of the span it needs (dense:
// checked by make_transport) straight from x's own block and one ncclRecv into x's halo,
// grouped, on a stream of its own that the device's kernels are finished before.
class NcclHalo final : public HaloExchange {
 public:
  NcclHalo(Device& dev, Halo h, std::size_t own, std::size_t elem, std::shared_ptr<Nccl> nccl, NcclComm comm,
           std::string lib)
      : HaloExchange(dev, std::move(h), own, elem), nccl_(std::move(nccl)), comm_(comm), lib_(std::move(lib)) {
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~NcclHalo() override {
    cudaStreamDestroy(stream_);
    nccl_->CommDestroy(comm_);
  }
  void run(Buffer& x) override {
    auto* base = static_cast<unsigned char*>(x.native());
    nccl_->check(nccl_->GroupStart(), "ncclGroupStart");
    for (std::size_t d = 0; d < spans_.size(); ++d) {
      if (h_.send_counts[d])
        nccl_->check(nccl_->Send(base + static_cast<std::size_t>(spans_[d].first) * elem_,
                                 static_cast<std::size_t>(h_.send_counts[d]) * elem_, kNcclUint8, static_cast<int>(d),
                                 comm_, stream_),
                     "ncclSend");
      if (h_.recv_counts[d])
        nccl_->check(nccl_->Recv(base + (own_ + static_cast<std::size_t>(h_.recv_displs[d])) * elem_,
                                 static_cast<std::size_t>(h_.recv_counts[d]) * elem_, kNcclUint8, static_cast<int>(d),
                                 comm_, stream_),
                     "ncclRecv");
    }
    nccl_->check(nccl_->GroupEnd(), "ncclGroupEnd");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (NCCL halo)");
  }
  std::string transport() const override { return fmt::format("nccl send/recv between device buffers ({})", lib_); }

 private:
  std::shared_ptr<Nccl> nccl_;
  NcclComm comm_;
  cudaStream_t stream_ = nullptr;
  std::string lib_;
};
#endif

}  // namespace

Transport make_transport(const std::string& want, Device& dev, Halo h, std::size_t own, std::size_t elem) {
  if (want != "auto" && want != "mpi" && want != "nccl")
    throw AgreedError(fmt::format("--transport '{}': expected auto, mpi or nccl", want));
  Transport t;
  t.reduce = std::make_unique<DotReduce>();
  // Why this rank cannot use NCCL ("" when it can).
  std::string why, lib;
  void* handle = nullptr;
  if (want == "mpi") {
    why = "--transport mpi";
  } else if (dev.info().backend != BackendKind::Cuda) {
    why = fmt::format("{} is no CUDA device", dev.id());
  } else {
#ifdef HETBENCH_HAVE_CUDA
    handle = open_nccl(&lib, &why);
    HaloExchange probe(dev, h, own, elem);
    for (std::size_t d = 0; d < probe.spans().size() && why.empty(); ++d)
      if (h.send_counts[d] && !probe.spans()[d].dense(h.send_counts[d]))
        why = fmt::format("the halo sent to rank {} is not one contiguous span of the block", d);
#else
    why = "this hetbench was built without CUDA";
#endif
  }
  int ok = why.empty(), all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    // One reason for the record: the first rank's that has one.
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<char> mine(256, 0), every(rank == 0 ? 256 * size : 0);
    std::strncpy(mine.data(), why.c_str(), 255);
    MPI_Gather(mine.data(), 256, MPI_CHAR, every.data(), 256, MPI_CHAR, 0, MPI_COMM_WORLD);
    std::string first, named;
    for (int r = 0; r < static_cast<int>(every.size() / 256); ++r)
      if (every[r * 256]) {
        if (first.empty()) first = every.data() + r * 256;
        named += fmt::format("{}rank {}: {}", named.empty() ? "" : "; ", r, every.data() + r * 256);
      }
    if (want == "nccl") throw AgreedError("--transport nccl: " + named);
    t.why = first;
    if (handle) dlclose(handle);
    t.halo = std::make_unique<HaloExchange>(dev, std::move(h), own, elem);
    return t;
  }
#ifdef HETBENCH_HAVE_CUDA
  auto nccl = std::make_shared<Nccl>(handle);
  // NVLink SHARP (multicast) needs a fabric manager set-up the lent machines lack.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  const int ordinal = std::stoi(dev.id().substr(dev.id().find(':') + 1));
  cuda_check(cudaSetDevice(ordinal), "cudaSetDevice");
  NcclId id{};
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) nccl->check(nccl->GetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  NcclComm comm = nullptr;
  nccl->check(nccl->CommInitRank(&comm, size, id, rank), "ncclCommInitRank");
  t.halo = std::make_unique<NcclHalo>(dev, std::move(h), own, elem, nccl, comm, lib);
#endif
  return t;
}

}  // namespace hetbench::mpi
