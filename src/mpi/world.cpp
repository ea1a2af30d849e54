#include "mpi/world.hpp"

#include <unistd.h>

#include <mpi.h>
#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench::mpi {

MpiWorld::MpiWorld() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw Error("MPI_Init_thread failed");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  host_ = name;
}

MpiWorld::~MpiWorld() {
  if (!abandoned_) MPI_Finalize();
}

std::vector<std::string> MpiWorld::gather(const std::string& s) const {
  int n = static_cast<int>(s.size());
  std::vector<int> lens(rank_ == 0 ? size_ : 0), offs(lens.size());
  MPI_Gather(&n, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank_ == 0) {
    int total = 0;
    for (int r = 0; r < size_; ++r) offs[r] = total, total += lens[r];
    all.resize(total);
  }
  MPI_Gatherv(s.data(), n, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int r = 0; r < static_cast<int>(lens.size()); ++r) out.push_back(all.substr(offs[r], lens[r]));
  return out;
}

std::string MpiWorld::broadcast(const std::string& s) const {
  int n = static_cast<int>(s.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string out = rank_ == 0 ? s : std::string(n, '\0');
  MPI_Bcast(out.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}

}  // namespace hetbench::mpi
