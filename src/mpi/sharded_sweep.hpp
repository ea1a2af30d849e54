// `mpirun -np N hetbench sweep SPEC` (docs/mpi.md): every rank plans the same experiment,
// rank 0 deals the points out (mpi/shard.hpp), each rank measures its share on its own
// devices through the usual point executor and sends each record to rank 0 as it
// finishes, and rank 0 alone writes the one experiment folder, as a single process would.
#pragma once

#include "engine/record/resume.hpp"
#include "engine/plan/spec.hpp"

namespace hetbench::mpi {

// As run_experiment (engine/runner.hpp), sharded over the ranks of the MPI job. Rank 0
// returns the exit status a single process would; a rank that failed or died costs its
// unfinished points, which rank 0 names and records under "unfinished" in experiment.json.
int run_sharded_experiment(Experiment e, const ResumeOptions* resume);

}  // namespace hetbench::mpi
