// hetbench matrix SPEC --out FILE [--seed N]: a generated matrix (gen:NAME:k=v,...) written
// as a Matrix Market file, the same bytes for the same spec and seed, so that a generated
// problem can be shared, read by other tools, or given to spmv as a file (whose SHA-256
// replay then checks).
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "hetbench/error.hpp"
#include "io/matrix_market.hpp"
#include "sparse/generators.hpp"

namespace hetbench::cli {

Command add_matrix(CLI::App& app) {
  auto* sub = app.add_subcommand("matrix", "write a generated matrix (gen:NAME:k=v,..., see list generators) as a "
                                           "Matrix Market file");
  struct Opts {
    std::string spec, out;
    std::uint64_t seed = 1;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("spec", o->spec, "generator spec, e.g. gen:random:n=200000,per_row=12")->required();
  sub->add_option("--out", o->out, "the .mtx file to write (its folder is created)")->required();
  sub->add_option("--seed", o->seed, "the generator's seed (the same file for the same spec and seed)")
      ->capture_default_str();
  return {sub, [o] {
            if (o->spec.rfind("gen:", 0) != 0)
              throw Error(fmt::format("matrix '{}': expected a generator spec gen:NAME:k=v,... (hetbench list "
                                      "generators)",
                                      o->spec));
            const CsrMatrix m = generate_matrix(o->spec, o->seed);
            const auto parent = std::filesystem::path(o->out).parent_path();
            if (!parent.empty()) std::filesystem::create_directories(parent);
            write_matrix_market(m, o->out);
            fmt::print(stderr, "hetbench: {} (seed {}): {} x {}, {} nonzeros, written to {}\n", o->spec, o->seed, m.rows,
                       m.cols, m.nnz(), o->out);
            return 0;
          }};
}

}  // namespace hetbench::cli
