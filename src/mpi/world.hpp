// The MPI job this process is a rank of (docs/mpi.md): MPI initialised for the lifetime of
// an MpiWorld, the rank's place in the job and on its host, and the few collectives the
// sharded sweep and the distributed ops share. Only this layer includes <mpi.h>.
#pragma once

#include <string>
#include <vector>

namespace hetbench::mpi {

// The exit status of a rank other than 0 after a failure that rank 0 reports alone: 0, so
// that rank 0 alone ends the job non-zero. mpiexec kills the whole job as soon as any rank
// exits non-zero; had another rank exited 2 first, rank 0 could be killed before it wrote
// its line (seen in CI: the status right, the message gone). mpiexec's status is rank 0's.
// Header-only, so that a build without MPI follows it as well.
inline constexpr int kAgreedFailureStatusOffRoot = 0;

class MpiWorld {
 public:
  // MPI_Init_thread (funneled: only the main thread calls MPI) and the ranks sharing this
  // rank's host (MPI_Comm_split_type, shared memory). Errors return to the caller instead
  // of aborting the job, so that a rank that died is noticed and reported.
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  const std::string& host() const { return host_; }

  // Every rank's `s`, in rank order, at rank 0 (empty elsewhere).
  std::vector<std::string> gather(const std::string& s) const;
  // Rank 0's `s` at every rank.
  std::string broadcast(const std::string& s) const;
  // Skip MPI_Finalize at destruction: a peer died and finalising would wait for it.
  void abandon() { abandoned_ = true; }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  std::string host_;
  bool abandoned_ = false;
};

}  // namespace hetbench::mpi
