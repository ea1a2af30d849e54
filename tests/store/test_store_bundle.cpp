// Bundles: experiments of several machines merge into one store, across backends;
// importing again adds nothing; a bad bundle is one error naming file and line and
// changes nothing.
#include <zlib.h>

#include "hetbench/error.hpp"
#include "store_fixture.hpp"
#include "util/json_file.hpp"
#include "util/sha256.hpp"

namespace hetbench::test {

namespace fs = std::filesystem;
using store::Store;

namespace {

std::int64_t points_in(Store& s) {
  std::int64_t n = 0;
  s.query({}, [&](const store::QueryRow&) { ++n; });
  return n;
}

std::string gunzip(const fs::path& p) {
  gzFile f = gzopen(p.c_str(), "rb");
  std::string out;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

void expect_error(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << parts.front();
  } catch (const Error& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

}  // namespace

TEST_P(StoreTest, BundlesFromTwoMachinesMergeAndImportingAgainAddsNothing) {
  // Machine a stores e1 and e2; machine b (an SQLite store) e2 and e3; this store
  // imports both bundles: three experiments, e2 once.
  const auto e1 = synthetic_experiment(tmp.path(), "e1", a, 120, seed);
  const auto e2 = synthetic_experiment(tmp.path(), "e2", a, 80, seed + 1);
  const auto e3 = synthetic_experiment(tmp.path(), "e3", b, 60, seed + 2);
  FreshStore other("sqlite");
  Store sa(fresh.url()), sb(other.url());
  sa.add({store::read_experiment_folder(e1), store::read_experiment_folder(e2)});
  sb.add({store::read_experiment_folder(e2), store::read_experiment_folder(e3)});
  const auto ba = tmp.path() / "a.jsonl.gz", bb = tmp.path() / "b.jsonl";
  EXPECT_EQ(sa.export_bundle(ba, {}), 200);
  EXPECT_EQ(sb.export_bundle(bb, {}), 140);
  EXPECT_EQ(gunzip(ba).substr(0, 12), "{\"created\":\"");  // compressed: .gz
  EXPECT_EQ(file_text(bb).substr(0, 12), "{\"created\":\"");  // plain otherwise

  FreshStore merged_url(GetParam());
  Store m(merged_url.url());
  auto n = m.import_bundle(ba);
  EXPECT_EQ(n.experiments, 2);
  EXPECT_EQ(n.points, 200);
  n = m.import_bundle(bb);
  EXPECT_EQ(n.experiments, 1);
  EXPECT_EQ(n.duplicates, 1);
  EXPECT_EQ(n.points, 60);
  ASSERT_EQ(m.experiments().size(), 3u);
  EXPECT_EQ(points_in(m), 260);
  n = m.import_bundle(bb);
  EXPECT_EQ(n.experiments, 0);
  EXPECT_EQ(n.duplicates, 2);
  EXPECT_EQ(points_in(m), 260);
  // A merged experiment comes back exactly, whichever machine it came from; adding its
  // folder adds nothing.
  const auto id3 = m.resolve(store::read_experiment_folder(e3).hash.substr(0, 16));
  const auto back = m.write_folder(id3, tmp.path() / "back");
  EXPECT_EQ(file_text(back / "results.jsonl"), file_text(e3 / "results.jsonl"));
  EXPECT_EQ(file_text(back / "experiment.json"), file_text(e3 / "experiment.json"));
  store::ImportCount c;
  m.add({store::read_experiment_folder(back)}, &c);
  EXPECT_EQ(c.duplicates, 1);
  // A bundle of some experiments.
  const auto part = tmp.path() / "part.jsonl";
  EXPECT_EQ(m.export_bundle(part, {id3}), 60);
  FreshStore one(GetParam());
  EXPECT_EQ(Store(one.url()).import_bundle(part).points, 60);
}

TEST_P(StoreTest, ABadBundleIsRefusedWholeNamingFileAndLine) {
  const auto e1 = synthetic_experiment(tmp.path(), "e1", a, 40, seed);
  const auto e2 = synthetic_experiment(tmp.path(), "e2", b, 40, seed + 1);
  FreshStore src("sqlite");
  Store from(src.url());
  from.add({store::read_experiment_folder(e1), store::read_experiment_folder(e2)});
  const auto good = tmp.path() / "good.jsonl";
  from.export_bundle(good, {});
  const auto text = file_text(good);
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const auto nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  ASSERT_EQ(lines.size(), 1u + 2 * 41 + 1);
  auto write = [&](const std::vector<std::string>& ls) {
    const auto p = tmp.path() / "bad.jsonl";
    std::string t;
    for (const auto& l : ls) t += l + "\n";
    write_text(p, t);
    return p;
  };
  Store s(fresh.url());
  // The first experiment is imported, so a failure in the second must take it back.
  auto edited = lines;
  auto& rec = edited[50];  // a record of the second experiment
  rec.insert(rec.find("\"gflops\":") + 9, "1");  // a digit more: always another value
  const auto bad = write(edited);
  expect_error([&] { s.import_bundle(bad); }, {bad.string(), "line 43", "does not match its hash", "nothing was imported"});
  edited = lines;
  edited[30] = "{\"point\": 29, \"op\": ";
  expect_error([&] { s.import_bundle(write(edited)); }, {"line 31: not JSON"});
  edited = lines;
  edited[30] = "{\"point\": 29}";
  expect_error([&] { s.import_bundle(write(edited)); }, {"line 31: key 'op' is missing"});
  edited.assign(lines.begin(), lines.begin() + 60);
  expect_error([&] { s.import_bundle(write(edited)); }, {"truncated at line 60", "40 points, 17 are there"});
  edited.assign(lines.begin(), lines.end() - 1);
  expect_error([&] { s.import_bundle(write(edited)); }, {"truncated after line 83 (no end line)"});
  edited = lines;
  edited.back() = "{\"end\":{\"experiments\":2,\"points\":81}}";
  expect_error([&] { s.import_bundle(write(edited)); }, {"line 84: the end line counts"});
  edited = lines;
  edited.front() = "{\"hetbench_bundle\":3,\"experiments\":2}";
  expect_error([&] { s.import_bundle(write(edited)); }, {"format version 3, newer than this hetbench's 2"});
  edited.front() = "{\"something\":1}";
  expect_error([&] { s.import_bundle(write(edited)); }, {"line 1: not a hetbench bundle"});
  expect_error([&] { s.import_bundle(tmp.path() / "missing.jsonl"); }, {"cannot read bundle"});
  EXPECT_TRUE(s.experiments().empty());
  EXPECT_EQ(points_in(s), 0);
  EXPECT_EQ(fresh.exec("SELECT count(*) FROM points"), "0");
  // The good one still goes in.
  EXPECT_EQ(s.import_bundle(good).points, 80);
}

}  // namespace hetbench::test

namespace hetbench::test {

// An experiment that ran kernels from outside the build (run --kernel) keeps them in the
// store and in bundles: written back, imported into another store and written back from
// there, its kernels/ files are the ones it ran; a file edited in the folder or in the
// bundle, or a name that leaves the folder, is refused by name.
TEST_P(StoreTest, KernelFilesTravelThroughTheStoreAndBundles) {
  const auto dir = synthetic_experiment(tmp.path(), "k", a, 7, seed);
  std::mt19937_64 rng(seed);
  const std::string cl = fmt::format("kernel void gemm() {{ /* {} */ }}\n", rng());
  const std::string entry = fmt::format(R"({{"name": "K{}", "file": "k.cl"}})", rng() % 1000);
  fs::create_directories(dir / "kernels");
  std::ofstream(dir / "kernels" / "k.cl", std::ios::binary) << cl;
  std::ofstream(dir / "kernels" / "K.json", std::ios::binary) << entry;
  auto ej = read_json_file((dir / "experiment.json").string());
  ej["kernels"] = {{"format", "GEMMbench"},
                   {"entry", "kernels/K.json"},
                   {"files",
                    {{"kernels/k.cl", {{"sha256", sha256_file((dir / "kernels" / "k.cl").string())}}},
                     {"kernels/K.json", {{"sha256", sha256_file((dir / "kernels" / "K.json").string())}}}}}};
  std::ofstream(dir / "experiment.json") << ej.dump(2) << '\n';

  Store s(fresh.url());
  const auto ids = s.add_folders({dir});
  const auto back = s.write_folder(ids[0], tmp.path() / "back");
  EXPECT_EQ(file_text(back / "kernels" / "k.cl"), cl);
  EXPECT_EQ(file_text(back / "kernels" / "K.json"), entry);
  const auto bundle = tmp.path() / "k.jsonl";
  s.export_bundle(bundle, {});
  FreshStore other("sqlite");
  Store o(other.url());
  EXPECT_EQ(o.import_bundle(bundle).experiments, 1);
  const auto there = o.write_folder(o.experiments().at(0).id, tmp.path() / "there");
  EXPECT_EQ(file_text(there / "kernels" / "k.cl"), cl);
  EXPECT_EQ(store::read_experiment_folder(there).hash, store::read_experiment_folder(dir).hash);

  // Edited in the bundle: refused whole.
  auto text = file_text(bundle);
  const auto at = text.find("kernel void gemm()");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 6, "KERNEL");
  std::ofstream(tmp.path() / "edited.jsonl") << text;
  FreshStore third("sqlite");
  Store t(third.url());
  expect_error([&] { t.import_bundle(tmp.path() / "edited.jsonl"); },
               {"line 2", "kernel file 'kernels/k.cl' does not match its SHA-256"});
  EXPECT_TRUE(t.experiments().empty());
  // Edited in the folder, missing, or named outside it: refused naming the file.
  std::ofstream(dir / "kernels" / "k.cl", std::ios::app) << "// edited\n";
  expect_error([&] { store::read_experiment_folder(dir); }, {"kernel file 'kernels/k.cl' does not match"});
  fs::remove(dir / "kernels" / "k.cl");
  expect_error([&] { store::read_experiment_folder(dir); }, {"kernel file 'kernels/k.cl' is missing"});
  ej["kernels"]["files"]["kernels/../../x"] = {{"sha256", "0"}};
  std::ofstream(dir / "experiment.json") << ej.dump(2) << '\n';
  expect_error([&] { store::read_experiment_folder(dir); }, {"'kernels/../../x': expected a name kernels/FILE"});
}

}  // namespace hetbench::test
