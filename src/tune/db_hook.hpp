// The tuner's results into the tuning database: one entry per problem and variant, keyed
// exactly as `run` looks parameters up (device identity, variant hash, precision,
// storage, problem class), so that a later `run` on the same problem finds them.
#pragma once

#include "tune/tuner.hpp"
#include "tuning/db.hpp"

namespace hetbench::tune {

// A hook that puts each found best into `db` and says on stderr what it stored.
ResultHook database_hook(tuning::TuningDb& db, std::uint64_t seed);

}  // namespace hetbench::tune
