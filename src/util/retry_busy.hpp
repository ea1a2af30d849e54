// Retrying an SQLite set-up that another process's lock refused at once. Two processes
// opening one new database file can meet in a lock upgrade (one turns on WAL or writes
// the schema while the other reads), which SQLite answers with SQLITE_BUSY past its busy
// handler; the tuning database and the results store retry their opening on it, for as
// long as the handler would have waited.
#pragma once

#include <chrono>
#include <thread>

namespace hetbench {

// Calls attempt() until it returns without throwing Busy, for up to `limit`; after a
// refused try, undo() (ending whatever the try left open) and a pause of a few ms. The
// last Busy, and anything else attempt() throws, propagate.
template <class Busy, class Attempt, class Undo>
void retry_while_busy(std::chrono::milliseconds limit, Attempt attempt, Undo undo) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (int tries = 0;; ++tries) {
    try {
      attempt();
      return;
    } catch (const Busy&) {
      if (std::chrono::steady_clock::now() > deadline) throw;
      undo();
      std::this_thread::sleep_for(std::chrono::milliseconds(1 + tries % 16));
    }
  }
}

}  // namespace hetbench
