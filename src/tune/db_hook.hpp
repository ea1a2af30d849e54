// The tuner's results into the tuning database: one entry per problem and variant, keyed
// exactly as `run` looks parameters up (device identity, variant hash, precision,
// storage, problem class), so that a later `run` on the same problem finds them.
#pragma once

#include "tune/tuner.hpp"
#include "tuning/db.hpp"

namespace hetbench::tune {

// The rate an entry keeps: GFLOP/s for ops whose work is arithmetic (gemm, peak), GB/s
// for the memory-bound ones, as the reports rank them.
bool rated_by_flops(const std::string& op);

// A hook that puts each found best into `db` and says on stderr what it stored.
ResultHook database_hook(tuning::TuningDb& db, std::uint64_t seed);

}  // namespace hetbench::tune
