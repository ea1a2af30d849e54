// The exchange of x's halo between the ranks of a row-block distributed matrix
// (docs/mpi.md): planned once from the column pattern (which rank needs which of whose
// entries), then run before every product. `dist spmv` runs it on host arrays; the
// distributed solvers on device vectors, moving per neighbour only the range of the
// vector that holds what it needs (for a banded matrix such as 3-D Poisson: one plane).
#pragma once

#include <cstddef>
#include <vector>

#include "hetbench/device.hpp"
#include "mpi/partition.hpp"

namespace hetbench::mpi {

// What each rank sends (offsets into its own block, grouped by destination) and receives
// (its halo, grouped by source), as MPI_Alltoallv counts and displacements.
struct Halo {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  std::vector<int> send_index;
  std::size_t sends() const { return send_index.size(); }
  std::size_t receives() const;
  // Ranks this rank sends to or receives from.
  int neighbours() const;
};

// Collective: every rank passes its own rows.
Halo plan_halo(const LocalRows& lr, const BlockPartition& cols, int rank);

// The exchange on a device vector: [own block | halo] of `elem` bytes per element; the
// halo part of the buffer is written, the own block read.
class HaloExchange {
 public:
  HaloExchange(Device& dev, Halo h, std::size_t own, std::size_t elem);
  virtual ~HaloExchange() = default;
  const Halo& halo() const { return h_; }
  // Host staging: per destination one ranged read of the block (the span of its sends),
  // packed, MPI_Alltoallv, one ranged write of the halo. Collective.
  virtual void run(Buffer& x);
  virtual std::string transport() const { return "mpi (host staging)"; }
  // Per destination [first, last] offset of its sends (empty when it gets none).
  struct Span {
    int first = 0, last = -1;
    bool dense(int count) const { return last - first + 1 == count; }
  };
  const std::vector<Span>& spans() const { return spans_; }

 protected:
  Device& dev_;
  Halo h_;
  std::size_t own_, elem_;
  std::vector<Span> spans_;
  std::vector<unsigned char> stage_, send_, recv_;
  std::vector<int> sc_, sd_, rc_, rd_;  // counts and displacements in bytes
};

}  // namespace hetbench::mpi
