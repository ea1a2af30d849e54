#include "mpi/sharded_sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include <mpi.h>
#include <fmt/format.h>

#include "engine/record/session.hpp"
#include "engine/measure/interrupt.hpp"
#include "engine/plan/plan.hpp"
#include "engine/measure/point_executor.hpp"
#include "engine/record/provenance.hpp"
#include "engine/record/report.hpp"
#include "engine/record/results.hpp"
#include "hetbench/error.hpp"
#include "hetbench/record.hpp"
#include "mpi/shard.hpp"
#include "mpi/world.hpp"
#include "tuning/db.hpp"
#include "tuning/shipped.hpp"

namespace hetbench::mpi {

namespace {

enum Tag { kAssign = 1, kRecord, kDone, kFailed };

struct Planned {
  std::string db_path;
  Plan plan;
};

Planned plan_here(const Experiment& e) {
  Planned p;
  p.db_path = tuning::resolve_db_path(e.db);
  const auto db = tuning::open_lookup(p.db_path);
  if (!db->user()) p.db_path.clear();
  p.plan = plan_experiment(e, db.get());
  return p;
}

void send(const std::string& s, Tag tag) {
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, 0, tag, MPI_COMM_WORLD);
}

nlohmann::json measured(PointExecutor& ex, const Plan& plan, std::size_t i, const MpiWorld& w) {
  auto j = to_json(ex.measure(static_cast<int>(i), plan.points[i]));
  j["rank"] = w.rank();
  j["host"] = w.host();
  return j;
}

// Rank 0's own share, measured beside the loop that receives and writes everyone's records,
// so that a rank that dies is noticed while rank 0 is still measuring.
struct OwnShare {
  std::mutex m;
  std::deque<nlohmann::json> records;
  std::string failure;
  std::atomic<bool> done{false};
};

// Rank 0: the checks every rank's plan must pass, the folder, and the points dealt out.
// Returns "" and the shares, or the one message that stops every rank.
struct Setup {
  std::string verdict;
  std::vector<std::vector<std::size_t>> shares;
  std::unique_ptr<ExperimentSession> session;
  ExperimentWriter* writer = nullptr;  // the session's
  ResumeState state;
};

void setup_root(Setup& s, const Experiment& e, const Planned* p, const std::string& own_error,
                const std::vector<std::string>& reports, const ResumeOptions* resume) {
  std::vector<RankPlace> places;
  std::vector<std::string> problems;
  nlohmann::json hosts = nlohmann::json::array();
  for (std::size_t r = 0; r < reports.size(); ++r) {
    const auto j = nlohmann::json::parse(reports[r]);
    places.push_back({j["local_rank"].get<int>(), j["local_size"].get<int>()});
    hosts.push_back(j["host"]);
    const std::string where = fmt::format("rank {} on host {}", r, j["host"].get<std::string>());
    if (!j["error"].get<std::string>().empty())
      problems.push_back(fmt::format("{}: {}", where, j["error"].get<std::string>()));
    else if (p && (j["points"] != p->plan.points.size() || j["digest"] != plan_digest(p->plan, e.seed)))
      problems.push_back(fmt::format("{} planned another sweep ({} points, rank 0 {}): its devices differ from rank "
                                     "0's; give --device selectors or a spec that names devices every host has",
                                     where, j["points"].get<std::size_t>(), p->plan.points.size()));
  }
  if (!problems.empty() || !p) {
    s.verdict = problems.empty() ? own_error : fmt::format("sweep under MPI: {}", fmt::join(problems, "; "));
    return;
  }
  const Plan& plan = p->plan;
  if (resume) {
    s.session = ExperimentSession::lock(resume->dir);
    s.state = match_records(plan, e.seed, read_results(resume->dir), *resume);
  }
  s.state.finished.resize(plan.points.size());
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < plan.points.size(); ++i)
    if (!s.state.finished[i]) todo.push_back(i);
  if (todo.size() < reports.size()) {
    s.verdict = fmt::format("sweep under MPI: {} ranks for {} points to measure: every rank needs at least one; run "
                            "with at most {} ranks (mpirun -np {})",
                            reports.size(), todo.size(), std::max<std::size_t>(todo.size(), 1), todo.size());
    return;
  }
  check_report_files(e.report_files);  // before anything is measured
  s.shares = assign_points(plan, todo, places);
  if (resume) {
    s.session->reopen();
    s.writer = &s.session->writer();
    if (s.state.retried) s.writer->replace_records(s.state.kept);
  } else {
    auto ej = experiment_json(e, plan);
    ej["tuning_db"] = p->db_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(p->db_path);
    ej["mpi"] = {{"ranks", reports.size()}, {"hosts", hosts}};
    s.session = ExperimentSession::create(e, std::move(ej));
    s.writer = &s.session->writer();
  }
}

std::vector<std::size_t> receive_share() {
  MPI_Status st;
  MPI_Probe(0, kAssign, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_UNSIGNED_LONG_LONG, &n);
  std::vector<unsigned long long> v(n);
  MPI_Recv(v.data(), n, MPI_UNSIGNED_LONG_LONG, 0, kAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return {v.begin(), v.end()};
}

int run_other_rank(MpiWorld& w, const Experiment& e, const Plan& plan, const std::string& db_path) {
  const auto share = receive_share();
  InterruptGuard guard;
  try {
    const auto ex = make_point_executor(e, plan, db_path);
    for (std::size_t i : share) {
      if (interrupted()) break;
      send(measured(*ex, plan, i, w).dump(), kRecord);
    }
  } catch (const std::exception& x) {
    send(x.what(), kFailed);
    return 1;
  }
  if (interrupted()) {  // mpirun ends the job: rank 0 records what arrived
    w.abandon();
    return 130;
  }
  send("", kDone);
  return 0;
}

// Rank 0's books: the records written, the ranks' states and the closing, shared by the
// loop that receives from the ranks and a watcher that closes the experiment on a signal.
// The watcher is needed because a rank killed in the middle of a send can leave rank 0
// inside MPI for good: Open MPI's shared-memory transport spins on a message whose sender
// linked it into the queue but died before finishing it, so the receiving loop never
// returns to see the signal. Nothing in the closing calls MPI.
class RootBooks {
 public:
  RootBooks(const MpiWorld& w, const Experiment& e, const Plan& plan, Setup& s)
      : w_(w), e_(e), plan_(plan), s_(s), state_(w.size(), State::running), why_(w.size()) {
    for (const auto& f : s.state.finished)
      if (f) count(*f);
  }

  std::mutex& mutex() { return m_; }
  std::size_t done() const { return done_; }
  void record(nlohmann::json j) {
    const auto i = j["point"].get<std::size_t>();
    s_.writer->append(j);
    count(j);
    print_progress(j);
    s_.state.finished[i] = std::move(j);
  }
  void rank_done(int r) { state_[r] = State::done; }
  void rank_failed(int r, std::string why) { state_[r] = State::failed, why_[r] = std::move(why); }
  bool anyone_running() const {
    return std::any_of(state_.begin(), state_.end(), [](State x) { return x == State::running; });
  }
  // Records rank 0's own thread finished, and its end.
  void drain(OwnShare& own) {
    std::lock_guard<std::mutex> l(own.m);
    for (; !own.records.empty(); own.records.pop_front()) record(std::move(own.records.front()));
    if (own.done && state_[0] == State::running) {
      if (own.failure.empty()) rank_done(0);
      else rank_failed(0, own.failure);
    }
  }
  // Writes experiment.json's closing summary and names every point dealt out and not
  // recorded. A stopped job (a peer lost, or mpirun's signal) ends the process here: the
  // measuring thread may be inside a point and MPI_Finalize would wait for the dead, and
  // everything is on disk. Otherwise returns the exit status. The caller holds mutex().
  int close(bool stopped, OwnShare& own) {
    drain(own);
    auto& finished = s_.state.finished;
    std::vector<std::string> lines;
    nlohmann::json unfinished = nlohmann::json::array();
    for (int r = 0; r < w_.size(); ++r) {
      const std::string cause =
          state_[r] == State::failed ? fmt::format("rank {} failed: {}", r, why_[r])
          : stopped ? fmt::format("the job ended before rank {} finished (a rank died, or a signal)", r)
                    : fmt::format("rank {} ended without it", r);
      for (std::size_t i : s_.shares[r])
        if (!finished[i]) {
          lines.push_back(fmt::format("{} not measured: {}", point_name(plan_, i, e_.seed), cause));
          unfinished.push_back({{"point", i}, {"rank", r}, {"reason", cause}});
        }
    }
    std::vector<nlohmann::json> records;
    for (auto& f : finished)
      if (f) records.push_back(*f);
    std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
      return a["point"].template get<int>() < b["point"].template get<int>();
    });
    // In point order, as one process writes them (a kill between the two leaves them in arrival order).
    if (!stopped) s_.writer->replace_records(records);
    const std::string status = stopped ? "interrupted" : unfinished.empty() ? "complete" : "incomplete";
    s_.writer->finish({{"status", status},
                       {"points", records.size()},
                       {"planned", plan_.points.size()},
                       {"failed", failed_},
                       {"errors", errors_},
                       {"unfinished", unfinished}});
    for (const auto& l : lines) fmt::print(stderr, "hetbench: {}\n", l);
    if (!unfinished.empty())
      fmt::print(stderr, "hetbench: {} points not measured; `hetbench sweep --resume {}` measures them\n",
                 unfinished.size(), s_.writer->dir().string());
    if (stopped) {
      std::fflush(stdout);
      std::fflush(stderr);
      ::_exit(130);
    }
    const auto context = report_context(s_.writer->experiment(), s_.writer->dir().string());
    print_report(records, e_.format, e_.best_only, context);
    write_report_files(e_.report_files, records, e_.best_only, context);
    fmt::print(stderr, "hetbench: {} points, {} failed validation, {} errors{}; results in {}\n", records.size(),
               failed_, errors_, unfinished.empty() ? "" : fmt::format(", {} not measured", unfinished.size()),
               s_.writer->dir().string());
    return failed_ || errors_ || !unfinished.empty() ? 1 : 0;
  }

 private:
  enum class State { running, done, failed };
  void count(const nlohmann::json& j) {
    const std::string st = j.value("status", "");
    failed_ += st == "failed";
    errors_ += st != "ok" && st != "failed" && st != "skipped";
    ++done_;
  }

  const MpiWorld& w_;
  const Experiment& e_;
  const Plan& plan_;
  Setup& s_;
  std::mutex m_;
  std::vector<State> state_;
  std::vector<std::string> why_;
  std::size_t done_ = 0;
  int failed_ = 0, errors_ = 0;
};

// HETBENCH_TEST_MPI_STUCK=N (a test hook): once N records are written, rank 0's receiving
// loop stops calling MPI and waits for ever, as Open MPI's shared-memory receive does on a
// message that a killed rank left half queued, so that the tests reach the watcher's closing.
std::size_t stuck_after() {
  static const std::size_t n = [] {
    const char* v = std::getenv("HETBENCH_TEST_MPI_STUCK");
    return v && *v ? static_cast<std::size_t>(std::atoll(v)) : ~std::size_t(0);
  }();
  return n;
}

// A record or the closing could not be written (a full disk, say): with a thread measuring
// and ranks sending, ending the job is the one way out; what is on disk stays resumable.
[[noreturn]] void give_up(const std::exception& x) {
  fmt::print(stderr, "hetbench: error: {}\n", x.what());
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(2);
}

// The MPI side of rank 0's loop: receives what the ranks send until every rank is done,
// failed or lost, or a signal came. Returns whether a rank was lost. Rank 0's own records
// and its end reach the books through the watcher.
bool receive_all(RootBooks& books) {
  for (;;) {
    bool stuck = false;
    {
      std::lock_guard<std::mutex> l(books.mutex());
      if (interrupted() || !books.anyone_running()) return false;
      stuck = books.done() >= stuck_after();
    }
    while (stuck) std::this_thread::sleep_for(std::chrono::seconds(1));
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS) return true;
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    std::string buf(n, '\0');
    if (MPI_Recv(buf.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
      return true;
    std::lock_guard<std::mutex> l(books.mutex());
    if (st.MPI_TAG == kRecord) books.record(nlohmann::json::parse(buf));
    else if (st.MPI_TAG == kDone) books.rank_done(st.MPI_SOURCE);
    else books.rank_failed(st.MPI_SOURCE, buf);
  }
}

// Rank 0: measures its share on a thread of its own while this loop receives every rank's
// records and writes them as they come, until every rank is done, failed or lost.
int gather_and_write(MpiWorld& w, const Experiment& e, const Plan& plan, const std::string& db_path, Setup& s,
                     bool resumed) {
  RootBooks books(w, e, plan, s);
  fmt::print(stderr, "hetbench: {} {} over {} ranks: {} of {} points finished\n", resumed ? "resuming" : "recording in",
             s.writer->dir().string(), w.size(), books.done(), plan.points.size());
  for (const auto& why : plan.left_out) fmt::print(stderr, "hetbench: {}\n", why);

  InterruptGuard guard;
  OwnShare own;
  std::thread worker([&] {
    try {
      const auto ex = make_point_executor(e, plan, db_path);
      for (std::size_t i : s.shares[0]) {
        if (interrupted()) break;
        auto j = measured(*ex, plan, i, w);
        std::lock_guard<std::mutex> l(own.m);
        own.records.push_back(std::move(j));
      }
    } catch (const std::exception& x) {
      std::lock_guard<std::mutex> l(own.m);
      own.failure = x.what();
    }
    own.done = true;
  });
  // Writes rank 0's own records and closes the experiment on a signal, whatever the
  // receiving loop is doing.
  bool closed = false;  // under books.mutex()
  std::thread watcher([&] {
    try {
      for (;;) {
        {
          std::lock_guard<std::mutex> l(books.mutex());
          if (closed) return;
          if (interrupted()) books.close(true, own);
          books.drain(own);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    } catch (const std::exception& x) {
      give_up(x);
    }
  });
  int status = 0;
  try {
    const bool lost = receive_all(books);
    std::lock_guard<std::mutex> l(books.mutex());
    status = books.close(lost || interrupted(), own);  // returns only when the job was not stopped
    closed = true;
  } catch (const std::exception& x) {
    give_up(x);
  }
  watcher.join();
  worker.join();
  return status;
}

}  // namespace

int run_sharded_experiment(Experiment e, const ResumeOptions* resume) {
  MpiWorld w;
  unsigned long long seed = e.seed;
  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  e.seed = seed;
  std::unique_ptr<Planned> planned;
  std::string error;
  try {
    // Ranks on one host would lock and give back one GPU's clocks under each other.
    if (!e.lock_clocks.empty())
      throw Error("--lock-clocks: not for a sweep sharded over MPI ranks; lock the clocks around mpirun (nvidia-smi "
                  "--lock-gpu-clocks), or run without mpirun");
    planned = std::make_unique<Planned>(plan_here(e));
  } catch (const std::exception& x) {
    error = x.what();
  }
  nlohmann::json report = {{"host", w.host()}, {"local_rank", w.local_rank()}, {"local_size", w.local_size()},
                           {"error", error}};
  if (planned) report["points"] = planned->plan.points.size(), report["digest"] = plan_digest(planned->plan, e.seed);
  const auto reports = w.gather(report.dump());
  Setup s;
  if (w.rank() == 0) {
    try {
      setup_root(s, e, planned.get(), error, reports, resume);
    } catch (const Error& x) {
      s.verdict = x.what();
    }
  }
  const std::string verdict = w.broadcast(s.verdict);
  if (!verdict.empty()) {
    if (w.rank() == 0) throw Error(verdict);
    return kAgreedFailureStatusOffRoot;
  }
  const Plan& plan = planned->plan;
  if (w.rank() != 0) return run_other_rank(w, e, plan, planned->db_path);

  for (int r = 1; r < w.size(); ++r) {
    std::vector<unsigned long long> v(s.shares[r].begin(), s.shares[r].end());
    MPI_Send(v.data(), static_cast<int>(v.size()), MPI_UNSIGNED_LONG_LONG, r, kAssign, MPI_COMM_WORLD);
  }
  return gather_and_write(w, e, plan, planned->db_path, s, resume != nullptr);
}

}  // namespace hetbench::mpi
