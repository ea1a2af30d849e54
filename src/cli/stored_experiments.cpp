// Stored experiments as arguments of compare and report (commands.hpp, docs/store.md).
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "cli/commands.hpp"
#include "hetbench/error.hpp"
#include "store/store.hpp"

namespace hetbench::cli {

void StoredExperiments::add_option(CLI::App* sub) {
  sub->add_option("--store", store_,
                  "the results store that store:ID arguments name (default: $HETBENCH_STORE or "
                  "~/.local/share/hetbench/results.db)");
}

std::vector<std::string> StoredExperiments::folders(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    if (store::is_store_ref(a) && scratch_.empty()) {
      std::string tmpl = (std::filesystem::temp_directory_path() / "hetbench-stored-XXXXXX").string();
      if (!mkdtemp(tmpl.data())) throw Error("cannot create a scratch folder for " + a + " in the temporary folder");
      scratch_ = tmpl;
    }
    out.push_back(store::experiment_folder(a, store_, scratch_).string());
  }
  return out;
}

nlohmann::json StoredExperiments::reference(const std::string& arg) const {
  if (!store::is_store_ref(arg)) return nullptr;
  store::Store s(store::resolve_store_url(store_));
  const auto id = s.resolve(arg.substr(6));
  const auto e = s.experiments({id}).at(0);
  return {{"store", store::redact_url(s.url())}, {"id", id}, {"hash", e.hash}};
}

StoredExperiments::~StoredExperiments() {
  std::error_code ec;  // a scratch folder left behind is no reason to fail the command
  if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ec);
}

}  // namespace hetbench::cli
