// Distributed DOT, AXPY and CSR SpMV over block-distributed operands (docs/mpi.md), run
// by `mpirun -np N hetbench dist OP`: each rank's block goes through an ordinary op
// variant on the rank's device (mpi/local_kernel.hpp), partial dots are summed by
// MPI_Allreduce, and SpMV exchanges the halo of x (mpi/partition.hpp) before each product.
// The result is validated against the bounds of docs/validation.md ("Distributed ops").
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/precision.hpp"

namespace hetbench::mpi {

struct DistOptions {
  std::string op;          // dot, axpy, spmv, cg, bicgstab
  std::int64_t n = 0;      // dot, axpy: the global length
  std::string matrix;      // spmv, cg, bicgstab: a Matrix Market file or gen:NAME:k=v,...
  Precision prec = Precision::D;
  std::string device = "host";
  std::string variant;     // empty: the first that runs on the device
  int reps = 5;
  std::uint64_t seed = 0;
  // cg, bicgstab: as `hetbench solve` takes them (docs/solvers.md).
  double tol = 1e-8;
  long max_iter = 1000;
  bool jacobi = true;
  std::string spmv_variant, dot_variant, axpy_variant;
  std::string transport = "auto";  // auto (NCCL for CUDA buffers when found), mpi, nccl
  std::string solution;            // a file rank 0 writes x to, one value a line
  // The experiment folder rank 0 writes (like run and solve); json: the summary on stdout too.
  std::string out_root = "hetbench-results", name, command_line;
  bool record = true, json = false;
};

bool is_solver(const std::string& op);

// An error every rank throws alike (bad input, a rank without its device): rank 0 alone
// reports it.
struct AgreedError : Error {
  using Error::Error;
};

// Runs the op on every rank; rank 0 returns the summary (validation, timing, the ranks'
// devices and halos), the other ranks null. Throws AgreedError.
// cg, bicgstab: the summary is the solve's record (docs/solvers.md's keys and `dist`'s),
// with "exit" the status `solve` would return (0, 1; a breakdown throws AgreedError).
nlohmann::json run_distributed(const DistOptions& o);

// Rank 0: writes the experiment folder of a summary (rank 0's device `dev`); returns its path.
std::string record_distributed(const DistOptions& o, const nlohmann::json& summary, const DeviceInfo& dev);

}  // namespace hetbench::mpi
