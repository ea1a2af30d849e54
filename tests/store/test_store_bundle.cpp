// Bundles: experiments of several machines merge into one store, across backends;
// importing again adds nothing; a bad bundle is one error naming file and line and
// changes nothing.
#include <zlib.h>

#include "hetbench/error.hpp"
#include "store_fixture.hpp"

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
  edited.front() = "{\"hetbench_bundle\":2,\"experiments\":2}";
  expect_error([&] { s.import_bundle(write(edited)); }, {"format version 2, newer than this hetbench's 1"});
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
