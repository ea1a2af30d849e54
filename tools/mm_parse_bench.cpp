// Matrix Market parse speed: writes a generated ~100 MB .mtx, then times reading it back.
// Built with hetbench (the target mm_parse_bench); run by hand:
//   build/mm_parse_bench [megabytes=100] [path=$TMPDIR/hetbench_mm_parse_bench.mtx]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "hetbench/error.hpp"
#include "io/matrix_market.hpp"
#include "sparse/generators.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) try {
  namespace fs = std::filesystem;
  double megabytes = argc > 1 ? std::atof(argv[1]) : 100.0;
  std::string path = argc > 2 ? argv[2] : (fs::temp_directory_path() / "hetbench_mm_parse_bench.mtx").string();
  // A line "row col value\n" with 17 significant digits is about 34 bytes.
  auto rows = static_cast<long long>(megabytes * 1e6 / (34.0 * 10));
  std::string spec = "gen:random:n=" + std::to_string(rows) + ",per_row=10";

  auto t0 = std::chrono::steady_clock::now();
  hetbench::CsrMatrix m = hetbench::generate_matrix(spec, 1);
  double t_gen = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  hetbench::write_matrix_market(m, path);
  double t_write = seconds_since(t0);
  double mb = static_cast<double>(fs::file_size(path)) / 1e6;
  std::printf("%s: %lld nnz, generated in %.2f s, %.1f MB written in %.2f s\n", spec.c_str(),
              static_cast<long long>(m.nnz()), t_gen, mb, t_write);

  double best = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    t0 = std::chrono::steady_clock::now();
    hetbench::CsrMatrix r = hetbench::read_matrix_market(path);
    double t = seconds_since(t0);
    best = std::min(best, t);
    if (!(r == m)) {
      std::fprintf(stderr, "read back a different matrix\n");
      return 1;
    }
    std::printf("read %d: %.3f s, %.0f MB/s, %.1f M nnz/s\n", rep + 1, t, mb / t, m.nnz() / t / 1e6);
  }
  std::printf("best: %.0f MB/s\n", mb / best);
  fs::remove(path);
  return 0;
} catch (const hetbench::Error& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
