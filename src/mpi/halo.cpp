#include "mpi/halo.hpp"

#include "mpi/buffer_range.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <numeric>

namespace hetbench::mpi {

std::size_t Halo::receives() const { return static_cast<std::size_t>(std::accumulate(recv_counts.begin(), recv_counts.end(), 0)); }

int Halo::neighbours() const {
  int n = 0;
  for (std::size_t r = 0; r < send_counts.size(); ++r) n += send_counts[r] > 0 || recv_counts[r] > 0;
  return n;
}

Halo plan_halo(const LocalRows& lr, const BlockPartition& cols, int rank) {
  const int p = cols.p;
  Halo h;
  h.recv_counts = lr.halo_counts;
  h.send_counts.resize(p);
  MPI_Alltoall(h.recv_counts.data(), 1, MPI_INT, h.send_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  h.recv_displs.resize(p);
  h.send_displs.resize(p);
  std::exclusive_scan(h.recv_counts.begin(), h.recv_counts.end(), h.recv_displs.begin(), 0);
  std::exclusive_scan(h.send_counts.begin(), h.send_counts.end(), h.send_displs.begin(), 0);
  // The halo is sorted and blocks are in rank order, so it is already grouped by owner.
  h.send_index.resize(std::accumulate(h.send_counts.begin(), h.send_counts.end(), 0));
  MPI_Alltoallv(lr.halo.data(), h.recv_counts.data(), h.recv_displs.data(), MPI_INT, h.send_index.data(),
                h.send_counts.data(), h.send_displs.data(), MPI_INT, MPI_COMM_WORLD);
  for (auto& c : h.send_index) c -= static_cast<int>(cols.begin(rank));
  return h;
}

HaloExchange::HaloExchange(Device& dev, Halo h, std::size_t own, std::size_t elem)
    : dev_(dev), h_(std::move(h)), own_(own), elem_(elem) {
  const int p = static_cast<int>(h_.send_counts.size());
  spans_.resize(p);
  std::size_t widest = 0;
  for (int d = 0; d < p; ++d) {
    if (!h_.send_counts[d]) continue;
    const auto* first = h_.send_index.data() + h_.send_displs[d];
    const auto [lo, hi] = std::minmax_element(first, first + h_.send_counts[d]);
    spans_[d] = {*lo, *hi};
    widest = std::max<std::size_t>(widest, static_cast<std::size_t>(*hi - *lo + 1));
  }
  stage_.resize(widest * elem_);
  send_.resize(h_.sends() * elem_);
  recv_.resize(h_.receives() * elem_);
  auto bytes = [&](const std::vector<int>& v, std::vector<int>& out) {
    for (int c : v) out.push_back(c * static_cast<int>(elem_));
  };
  bytes(h_.send_counts, sc_);
  bytes(h_.send_displs, sd_);
  bytes(h_.recv_counts, rc_);
  bytes(h_.recv_displs, rd_);
}

void HaloExchange::run(Buffer& x) {
  for (std::size_t d = 0; d < spans_.size(); ++d) {
    const Span s = spans_[d];
    if (!h_.send_counts[d]) continue;
    unsigned char* out = send_.data() + static_cast<std::size_t>(h_.send_displs[d]) * elem_;
    // A dense span (one plane of a banded matrix) lands where it is sent from.
    unsigned char* to = s.dense(h_.send_counts[d]) ? out : stage_.data();
    download_range(dev_, x, to, static_cast<std::size_t>(s.first) * elem_,
                   static_cast<std::size_t>(s.last - s.first + 1) * elem_);
    if (to == out) continue;
    for (int k = 0; k < h_.send_counts[d]; ++k)
      std::memcpy(out + k * elem_, stage_.data() + static_cast<std::size_t>(h_.send_index[h_.send_displs[d] + k] - s.first) * elem_,
                  elem_);
  }
  MPI_Alltoallv(send_.data(), sc_.data(), sd_.data(), MPI_BYTE, recv_.data(), rc_.data(), rd_.data(), MPI_BYTE,
                MPI_COMM_WORLD);
  if (!recv_.empty()) upload_range(dev_, x, recv_.data(), own_ * elem_, recv_.size());
}

}  // namespace hetbench::mpi
