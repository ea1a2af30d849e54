// Hostile and careless input: sizes near 2^64, launches and buffers no device can give,
// files that are not files, damaged stores and records, misspelt keys. Each gets one clear
// error (exit 2) or, where it belongs to one point, one failed point while the run goes on;
// never a crash, an "internal error" or a write where a refusal is promised.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/record/results.hpp"
#include "test_util.hpp"
#include "util/json_file.hpp"
#include "util/sha256.hpp"

using namespace hetbench::test;
using testing::HasSubstr;
using testing::Not;
namespace fs = std::filesystem;

namespace {

// One clear error: exit 2, the message, no crash and no internal error.
void expect_refused(const CmdResult& r, const std::string& what, const std::string& cmd) {
  EXPECT_EQ(r.status, 2) << cmd << "\n" << r.output;
  EXPECT_THAT(r.output, HasSubstr(what)) << cmd;
  EXPECT_THAT(r.output, Not(HasSubstr("internal error"))) << cmd;
}

std::string file_hash(const fs::path& p) { return hetbench::sha256_file(p.string()); }

// A small finished experiment on the host, for the readers below.
fs::path host_experiment(const TempDir& tmp, const std::string& sub) {
  const auto root = tmp.path() / sub;
  auto r = run_hetbench("run dot --device host --variant omp --precision S --size 100,200,300 --reps 1 --no-db --out " +
                        root.string());
  EXPECT_EQ(r.status, 0) << r.output;
  return only_experiment(root);
}

}  // namespace

TEST(Hostile, SizesNearTwoToTheSixtyFourAreRefusedBeforeAnythingIsAllocated) {
  TempDir tmp;
  // The byte counts these need wrap around in 64-bit arithmetic (2^62 floats = 2^64 bytes):
  // each crashed or claimed to fit before the memory estimate became a real number.
  for (const std::string args :
       {"run dot --variant loop --precision S --size 2^62", "run dot --variant loop --precision S --size 2^61",
        "run axpy --variant loop --precision D --size 2^61", "run copy --variant loop --precision S --size 2^62",
        "run gemm --variant naive --precision D --size 2^31", "run scan --variant std --precision S --size 2^62",
        "run reduce --variant std --precision S --size 2^62", "run nbody --variant omp --precision S --size 2^62",
        "run gemm --precision D --size 3037000500x3037000500x1"}) {
    const auto cmd = args + " --device host --reps 2 --no-db --out " + tmp.str();
    expect_refused(run_hetbench(cmd), "GB, more than the", cmd);
  }
  EXPECT_TRUE(fs::is_empty(tmp.path()));  // refused before an experiment folder was made
}

TEST(Hostile, ALaunchOrScratchBufferNoDeviceCanGiveCostsOnePoint) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device opencl:0:0";
  TempDir root;
  const auto out = root.path() / "out";
  struct {
    fs::path p;
    std::string str() const { return p.string(); }
    const fs::path& path() const { return p; }
  } tmp{root.path() / "k"};
  fs::create_directories(tmp.path());
  write_text(tmp.path() / "k.cl",
             "kernel void k(const uint n, global const REAL* x, global REAL* y, global REAL* s) {\n"
             "  size_t i = get_global_id(0); if (i < n) y[i] = x[i]; }\n");
  auto meta = [&](const std::string& name, const std::string& scratch, const std::string& global,
                  const std::string& extra = "") {
    write_text(tmp.path() / (name + ".json"),
               R"({"name":")" + name + R"(","op":"copy","source":"k.cl","precisions":["S"],"scratch":{"s":{"count":")" +
                   scratch + R"("}},"entry":"k","args":["n","x","y","s"],"global":")" + global + "\"" + extra + "}");
  };
  meta("bigscratch", "2^62+8", "n");   // 2^62 elements: the byte count wrapped around
  meta("bignd", "1", "n*2^52");        // 2^62 work-items: PoCL aborted the whole process
  auto r = run_hetbench("--kernels " + tmp.str() + " run copy --device opencl:0:0 --variant bigscratch,bignd,simple "
                        "--precision S --size 1000 --reps 2 --no-db --out " + out.string());
  EXPECT_EQ(r.status, 1) << r.output;  // two points in error, the run went on
  const auto recs = hetbench::read_results(only_experiment(out));
  ASSERT_EQ(recs.size(), 3u) << r.output;
  std::map<std::string, nlohmann::json> by;
  for (const auto& rec : recs) by[rec["variant"]] = rec;
  EXPECT_EQ(by["bigscratch"]["status"], "error");
  EXPECT_THAT(by["bigscratch"].value("message", ""), HasSubstr("scratch 's' of"));
  EXPECT_THAT(by["bigscratch"].value("message", ""), HasSubstr("more than the largest allocation"));
  EXPECT_EQ(by["bignd"]["status"], "error");
  EXPECT_THAT(by["bignd"].value("message", ""), HasSubstr("outside 0 to 4294967295"));
  EXPECT_EQ(by["simple"]["status"], "ok");
  // Sizes that name nothing are checked in the file: an error naming it, not a point.
  fs::remove(tmp.path() / "bigscratch.json");
  fs::remove(tmp.path() / "bignd.json");
  meta("neg", "1", "-64");
  auto l = run_hetbench("--kernels " + tmp.str() + " list");
  expect_refused(l, "neg.json: key 'global': '-64': a launch dimension of -64 is outside 1 to 4294967295", "neg");
  fs::remove(tmp.path() / "neg.json");
  meta("zero", "1", "n", R"(,"local":"0")");
  expect_refused(run_hetbench("--kernels " + tmp.str() + " list"), "zero.json: key 'local': '0': a launch dimension of 0 is outside 1 to", "zero");
  fs::remove(tmp.path() / "zero.json");
  meta("huge", "1", "2^62");
  expect_refused(run_hetbench("--kernels " + tmp.str() + " list"), "huge.json: key 'global'", "huge");
}

TEST(Hostile, AResumedTuningWritesToTheDatabaseItBeganWith) {
  TempDir tmp;
  const auto home = tmp.path() / "home", x = tmp.path() / "x.db", out = tmp.path() / "out";
  fs::create_directories(home);
  const std::string env = "HOME=" + home.string();
  // Enough evaluations that a kill lands mid-tuning.
  const std::string tune = "tune dot --device host --variant omp --precision S --size 2^18 --strategy exhaustive "
                           "--reps 3 --out " + out.string();
  auto r = run_shell(env + " timeout -s KILL 3 " + std::string(HETBENCH_BINARY) + " " + tune + " --db " + x.string() + " 2>&1");
  const auto dir = only_experiment(out);
  EXPECT_EQ(read_json(dir / "experiment.json")["spec"]["db"], fs::absolute(x).lexically_normal().string());
  // Another database named on resume: refused, nothing measured.
  auto y = run_hetbench("tune --resume " + dir.string() + " --db " + (tmp.path() / "y.db").string(), env);
  expect_refused(y, "the tuning wrote to the database '" + fs::absolute(x).lexically_normal().string() + "'", "y");
  EXPECT_FALSE(fs::exists(tmp.path() / "y.db"));
  // None named: it goes on writing where it began, not to the default database.
  r = run_hetbench("tune --resume " + dir.string(), env);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(home / ".local/share/hetbench/tuning.db")) << r.output;
  auto list = run_hetbench("db list --db " + x.string(), env);
  EXPECT_THAT(list.output, HasSubstr("omp")) << list.output;
}

TEST(Hostile, MisspeltKeysAreNamedWhereverTheyStand) {
  TempDir tmp;
  // Beside "runs", a top-level key is a default for them or the experiment's own.
  write_text(tmp.path() / "s.json", R"({"repz": 2, "runs": [{"op": "dot", "devices": "host", "sizes": "1000"}]})");
  expect_refused(run_hetbench("sweep " + (tmp.path() / "s.json").string() + " --out " + tmp.str()),
                 "s.json: key 'repz': unknown key", "spec");
  // A GEMMbench entry.
  write_text(tmp.path() / "g.cl", "kernel void gemm() {}");
  write_text(tmp.path() / "g.json",
             R"({"name": "g", "file": "g.cl", "type": "S", "transA": "N", "transB": "T", "dj": 1, "di": 1, "dI": 2})");
  expect_refused(run_hetbench("run gemm --kernel " + (tmp.path() / "g.json").string() + " --device host --size 64"),
                 "key 'dI': unknown key in a GEMMbench entry", "gemmbench");
  // A layout file in JSON, at every level.
  for (const auto& [text, key] : std::vector<std::pair<std::string, std::string>>{
           {R"({"archs": [{"arch": "gpu", "structz": []}]})", "archs[0]: unknown key 'structz'"},
           {R"({"archs": [{"arch": "gpu", "structs": [{"name": "p", "fields": [{"type": "fp", "name": "x", "tile": 4}]}]}]})",
            "archs[0].structs[0].fields[0]: unknown key 'tile'"},
           {R"({"archs": [{"arch": "gpu"}], "note": 1})", "unknown key 'note'"}}) {
    write_text(tmp.path() / "l.json", text);
    expect_refused(run_hetbench("run nbody --device host --layout " + (tmp.path() / "l.json").string() +
                                " --size 100 --reps 1 --no-db --out " + tmp.str()),
                   key, text);
  }
}

TEST(Hostile, TwoArchSectionsOfOneNameAreRefused) {
  TempDir tmp;
  write_text(tmp.path() / "a.layout", "Arch gpu\nStruct a\nField fp x\nArch gpu\nStruct b\nField fp y\n");
  expect_refused(run_hetbench("run nbody --device host --layout " + (tmp.path() / "a.layout").string() +
                              " --size 100 --reps 1 --no-db --out " + tmp.str()),
                 "a.layout:4: 'Arch': Arch 'gpu' again: its first section is on line 1", "text");
  write_text(tmp.path() / "a.json", R"({"archs": [{"arch": "gpu"}, {"arch": "gpu"}]})");
  expect_refused(run_hetbench("run nbody --device host --layout " + (tmp.path() / "a.json").string() +
                              " --size 100 --reps 1 --no-db --out " + tmp.str()),
                 "archs[1]: key 'arch': 'gpu' is named twice", "json");
  // A JSON layout's errors name the key, never "line 0".
  write_text(tmp.path() / "b.json", R"({"archs": [{"arch": "gpu", "structs": [
    {"name": "p", "fields": [{"type": "fp", "name": "x"}]}, {"name": "q", "fields": [{"type": "fp", "name": "x"}]}]}]})");
  auto r = run_hetbench("run nbody --device host --layout " + (tmp.path() / "b.json").string() +
                        " --size 100 --reps 1 --no-db --out " + tmp.str());
  expect_refused(r, "archs[0].structs[1].fields[0]: 'x': field x is in two structs (also at archs[0].structs[0].fields[0])",
                 "json line");
  EXPECT_THAT(r.output, Not(HasSubstr("line 0")));
}

// The program under AddressSanitizer maps terabytes of shadow memory at start, which no
// `ulimit -v` of a few GB allows.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

TEST(Hostile, HostMemoryRunningOutCostsOnePointAndTheRunGoesOn) {
  if (kAddressSanitizer)
    GTEST_SKIP() << "AddressSanitizer's shadow memory cannot be mapped under ulimit -v (the ordinary build runs this)";
  TempDir tmp;
  // 2^29 floats twice is 4 GiB, more than the 3 GB the process may map; 1000 fits.
  auto r = run_shell("ulimit -v 3000000; " + std::string(HETBENCH_BINARY) +
                     " run dot --device host --variant loop --precision S --size 2^29,1000 --reps 1 --no-db --out " +
                     tmp.str() + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.output;
  const auto dir = only_experiment(tmp.path());
  const auto recs = hetbench::read_results(dir);
  ASSERT_EQ(recs.size(), 2u) << r.output;
  EXPECT_EQ(recs[0]["status"], "error");
  EXPECT_THAT(recs[0].value("message", ""), HasSubstr("out of host memory"));
  EXPECT_EQ(recs[1]["status"], "ok");
  EXPECT_EQ(read_json(dir / "experiment.json")["status"], "complete");
}

TEST(Hostile, ATuningDatabaseOnAReadOnlyFileSystem) {
  TempDir tmp;
  const auto mnt = tmp.path() / "ro", db = mnt / "t.db", out = tmp.path() / "out";
  fs::create_directories(mnt);
  // A real tuning database, then the folder mounted read-only (a private mount namespace:
  // nothing outside the test sees it).
  auto made = run_hetbench("tune dot --device host --variant omp --precision S --size 4096 --budget 2 --reps 1 "
                           "--out " + out.string() + " --db " + (tmp.path() / "t.db").string());
  ASSERT_EQ(made.status, 0) << made.output;
  const std::string hb = std::string(HETBENCH_BINARY);
  const std::string inside =
      "mount -t tmpfs tmpfs " + mnt.string() + " && cp " + (tmp.path() / "t.db").string() + " " + db.string() +
      " && mount -o remount,ro " + mnt.string() + " && ";
  auto probe = run_shell("unshare -rm sh -c 'mount -t tmpfs tmpfs " + mnt.string() + "' 2>&1");
  if (probe.status != 0) GTEST_SKIP() << "no private mount namespace here (unshare -rm): " << probe.output;
  // run reads it (immutable: nothing can change it there).
  auto r = run_shell("unshare -rm sh -c '" + inside + hb + " run dot --device host --variant auto --precision S --size "
                     "4096 --reps 1 --out " + out.string() + " --db " + db.string() + "' 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("unable to open")));
  // tune refuses before measuring, not at its final write.
  r = run_shell("unshare -rm sh -c '" + inside + hb + " tune dot --device host --variant omp --precision S --size 4096 "
                "--budget 2 --reps 1 --out " + out.string() + " --db " + db.string() + "' 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot be written (Read-only file system)"));
  EXPECT_THAT(r.output, Not(HasSubstr("recording in")));
}

TEST(Hostile, TheStoreRefusesFilesItMustNotWrite) {
  TempDir tmp;
  const auto e = host_experiment(tmp, "e");
  const auto store = (tmp.path() / "s.db").string();
  auto sq = [&](const std::string& sql) {
    ASSERT_EQ(run_shell("sqlite3 " + store + " \"" + sql + "\"").status, 0) << sql;
  };
  ASSERT_EQ(run_hetbench("store add " + e.string() + " --store " + store).status, 0);
  // Another application's id on the file: refused untouched, by writers and readers.
  sq("PRAGMA application_id=1234");
  auto before = file_hash(store);
  for (const std::string cmd : {"store add " + e.string(), "store get 1 --out " + (tmp.path() / "g").string()})
    expect_refused(run_hetbench(cmd + " --store " + store), "is an SQLite database but not a hetbench results store", cmd);
  EXPECT_EQ(file_hash(store), before);
  sq("PRAGMA application_id=1212306003");  // hetbench's own, 0x48425253 ("HBRS")
  ASSERT_EQ(run_hetbench("store list --store " + store).status, 0);
  sq("PRAGMA wal_checkpoint(TRUNCATE)");
  // Damaged pages: quick_check fails, nothing is read or written.
  {
    std::fstream f(store, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0, std::ios::end);
    const auto size = static_cast<long>(f.tellp());
    for (long page = 4096; page + 64 < size; page += 4 * 4096) {
      f.seekp(page);
      f << std::string(64, '\x5a');
    }
  }
  before = file_hash(store);
  for (const std::string cmd : {"store add " + e.string(), "store get 1 --out " + (tmp.path() / "g").string()})
    expect_refused(run_hetbench(cmd + " --store " + store), "is damaged", cmd);
  EXPECT_EQ(file_hash(store), before);
  EXPECT_FALSE(fs::exists(tmp.path() / "g" / e.filename()));
}

TEST(Hostile, OutOfRangeNumbersInRecordsAndStoreRows) {
  TempDir tmp;
  const auto e = host_experiment(tmp, "e");
  // A record holding 1e999 (beyond binary64): one error naming the file and line.
  const auto bad = tmp.path() / "bad";
  fs::copy(e, bad);
  {
    auto text = hetbench::read_text_file((bad / "results.jsonl").string());
    text.replace(text.find("\"point\":1,"), 10, "\"point\":1,\"zz\":1e999,");
    write_text(bad / "results.jsonl", text);
  }
  const auto rj = (bad / "results.jsonl").string();
  for (const std::string cmd : {"replay " + bad.string() + " --out " + (tmp.path() / "r").string(),
                                "compare " + bad.string() + " " + e.string(),
                                "store add " + bad.string() + " --store " + (tmp.path() / "s1.db").string()})
    expect_refused(run_hetbench(cmd), "1e999", cmd);
  // A damaged row in a store: the readers stop with its place and leave no output behind.
  const auto store = (tmp.path() / "s.db").string();
  ASSERT_EQ(run_hetbench("store add " + e.string() + " --store " + store).status, 0);
  ASSERT_EQ(run_shell("sqlite3 " + store + " \"UPDATE points SET record='{\\\"point\\\":1,\\\"x\\\":1e999}' WHERE "
                      "point=1\"").status, 0);
  const auto bundle = tmp.path() / "b.jsonl", got = tmp.path() / "g";
  for (const std::string cmd : {"store get 1 --out " + got.string(), "store export --bundle " + bundle.string(),
                                std::string("compare store:1 store:1")})
    expect_refused(run_hetbench(cmd + " --store " + store), "experiment 1 point 1: invalid JSON", cmd);
  EXPECT_FALSE(fs::exists(bundle));
  EXPECT_TRUE(!fs::exists(got) || fs::is_empty(got));
}

TEST(Hostile, InputsThatAreNotFilesAreRefusedAtOnce) {
  TempDir tmp;
  const auto fifo = tmp.path() / "f.mtx";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // /dev/zero filled memory without bound and /dev/urandom never ended; a FIFO nobody
  // writes to waited for a writer forever.
  for (const auto& [input, what] : std::vector<std::pair<std::string, std::string>>{
           {"/dev/zero", "/dev/zero: is a device, not a file"},
           {"/dev/urandom", "/dev/urandom: is a device, not a file"},
           {fifo.string(), "the file is empty"}}) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = run_shell("timeout 20 " + std::string(HETBENCH_BINARY) + " run spmv --device host --matrix " + input +
                       " --reps 1 --no-db --out " + tmp.str() + " 2>&1");
    expect_refused(r, what, input);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10)) << input;
  }
  expect_refused(run_hetbench("sweep /dev/zero --out " + tmp.str()), "/dev/zero: is a device", "spec");
}

TEST(Hostile, ReadersRefuseExperimentsWithMissingOrRepeatedPoints) {
  TempDir tmp;
  const auto e = host_experiment(tmp, "e");
  const auto lines = [&] {
    std::vector<std::string> out;
    std::ifstream f(e / "results.jsonl");
    for (std::string l; std::getline(f, l);) out.push_back(l);
    return out;
  }();
  ASSERT_EQ(lines.size(), 3u);
  for (const auto& [name, kept, what] : std::vector<std::tuple<std::string, std::vector<int>, std::string>>{
           {"dup", {0, 1, 1, 2}, "point 1 appears twice"}, {"gap", {0, 2}, "point 1 of the complete experiment's 3 is missing"}}) {
    const auto d = tmp.path() / name;
    fs::copy(e, d);
    std::string text;
    for (int i : kept) text += lines[static_cast<std::size_t>(i)] + "\n";
    write_text(d / "results.jsonl", text);
    for (const std::string cmd : {"store add " + d.string() + " --store " + (tmp.path() / "s.db").string(),
                                  "export t4 " + d.string() + " --out " + (tmp.path() / "t4.json").string(),
                                  "report " + d.string() + " --out " + (tmp.path() / "rep").string(),
                                  "compare " + d.string() + " " + e.string()})
      expect_refused(run_hetbench(cmd), what, cmd);
  }
}

TEST(Hostile, LowerSeverityEdges) {
  TempDir tmp;
  // An include may not lead out of the kernel tree: it is pasted into the kernel source.
  write_text(tmp.path() / "k.cl", "kernel void k(const uint n, global REAL* y) {}");
  for (const auto& [inc, what] : std::vector<std::pair<std::string, std::string>>{
           {"/etc/passwd", "'/etc/passwd' is an absolute path"},
           {"../../../../../../../../etc/passwd", "leads out of the kernel tree"}}) {
    write_text(tmp.path() / "i.json", R"({"name":"i","op":"copy","source":"k.cl","includes":[")" + inc +
                                          R"("],"precisions":["S"],"entry":"k","args":["n","y"],"global":"n"})");
    expect_refused(run_hetbench("--kernels " + tmp.str() + " list"), what, inc);
  }
  fs::remove(tmp.path() / "i.json");
  // A Lift entry whose global size divides by zero names its file.
  write_text(tmp.path() / "lift.cl", "kernel void KERNEL(global const float* A, global const float* B, "
                                     "global float* C, int n) {}");
  write_text(tmp.path() / "lift.json", R"({"kernel_name":"KERNEL","global_size":["1/0"],"local_size":["?"],)"
                                       R"("argument_order":["a","b","c","n"]})");
  expect_refused(run_hetbench("run gemm --kernel " + (tmp.path() / "lift.json").string() + " --device host --size 64 "
                              "--no-db --out " + tmp.str()),
                 "lift.json: key 'global_size[0]': in expression '1/0': division by zero", "lift");
  // A tuning database row whose parameter is no integer (1e308) is named, not printed as
  // -9223372036854775808.
  const auto db = (tmp.path() / "t.db").string();
  ASSERT_EQ(run_hetbench("tune dot --device host --variant omp --precision S --size 4096 --budget 1 --reps 1 --out " +
                         tmp.str() + " --db " + db).status, 0);
  ASSERT_EQ(run_shell("sqlite3 " + db + " \"UPDATE entries SET params='{\\\"BLOCK\\\":1e308}'\"").status, 0);
  auto l = run_hetbench("db list --db " + db);
  expect_refused(l, "key 'params.BLOCK': expected an integer, not 1e+308", "db list");
  EXPECT_THAT(l.output, Not(HasSubstr("-9223372036854775808")));
}

TEST(Hostile, CtrlCPressedTwiceNeverLeavesAnExperimentRunning) {
  // Two signals close together, at points of the run's life picked to include its start
  // (before and just after the folder is made) and its middle: every time the experiment
  // ends `interrupted` (or `complete`, had it finished), never `running`.
  for (int delay_ms : {0, 5, 20, 60, 150, 400}) {
    TempDir out;
    const pid_t pid = spawn_hetbench("run dot --device host --variant loop --precision S --size 1000:400000:1000 "
                                     "--reps 3 --no-db --out " + out.str());
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(pid, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    kill(pid, SIGINT);
    int st = 0;
    waitpid(pid, &st, 0);
    SCOPED_TRACE("delay " + std::to_string(delay_ms) + " ms");
    if (!fs::exists(out.path()) || fs::is_empty(out.path())) continue;  // ended before it made a folder
    const auto dir = only_experiment(out.path());
    if (!fs::exists(dir / "experiment.json")) continue;  // ended while making it: nothing recorded
    const std::string status = read_json(dir / "experiment.json")["status"];
    EXPECT_TRUE(status == "interrupted" || status == "complete") << status;
    // 130, or SIGINT's own end where the second signal came after experiment.json was
    // closed (the shell reports both as 130).
    EXPECT_TRUE((WIFEXITED(st) && WEXITSTATUS(st) == 130) || (WIFSIGNALED(st) && WTERMSIG(st) == SIGINT)) << st;
  }
}
