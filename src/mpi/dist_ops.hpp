// Distributed DOT, AXPY and CSR SpMV over block-distributed operands (docs/mpi.md), run
// by `mpirun -np N hetbench dist OP`: each rank's block goes through an ordinary op
// variant on the rank's device (mpi/local_kernel.hpp), partial dots are summed by
// MPI_Allreduce, and SpMV exchanges the halo of x (mpi/partition.hpp) before each product.
// The result is validated against the bounds of docs/validation.md ("Distributed ops").
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "hetbench/error.hpp"
#include "hetbench/precision.hpp"

namespace hetbench::mpi {

struct DistOptions {
  std::string op;          // dot, axpy, spmv
  std::int64_t n = 0;      // dot, axpy: the global length
  std::string matrix;      // spmv: a Matrix Market file or gen:NAME:k=v,...
  Precision prec = Precision::D;
  std::string device = "host";
  std::string variant;     // empty: the first that runs on the device
  int reps = 5;
  std::uint64_t seed = 0;
};

// An error every rank throws alike (bad input, a rank without its device): rank 0 alone
// reports it.
struct AgreedError : Error {
  using Error::Error;
};

// Runs the op on every rank; rank 0 returns the summary (validation, timing, the ranks'
// devices and halos), the other ranks null. Throws AgreedError.
nlohmann::json run_distributed(const DistOptions& o);

}  // namespace hetbench::mpi
