// The build path every JIT backend shares: programs are kept in memory for the process
// and their binaries on disk (util/cache) across processes. A backend supplies two hooks:
// how to compile a source into a program plus its binary, and how to load a binary.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hetbench/device.hpp"

namespace hetbench {

class ProgramCache {
 public:
  struct Built {
    std::shared_ptr<Program> program;
    std::string binary;  // what the disk cache keeps; empty when the API gives none
  };
  // Throws BuildError (with the build log) when the source does not compile.
  using Compile = std::function<Built()>;
  // nullptr when the binary does not load (stale or foreign): it is then compiled again.
  using Load = std::function<std::shared_ptr<Program>(const std::string& binary)>;

  // `kind` names the on-disk folder ("opencl", "cuda").
  explicit ProgramCache(std::string kind) : kind_(std::move(kind)) {}
  // `key` lists everything that determines the binary (device, driver, compiler,
  // options, source text); the parts are joined with newlines.
  std::shared_ptr<Program> get(const std::vector<std::string>& key, const Load& load, const Compile& compile);
  // Drops the programs: a device calls it before releasing the context they live in.
  void clear();

 private:
  std::string kind_;
  std::map<std::string, std::shared_ptr<Program>> programs_;
  std::mutex mu_;
};

}  // namespace hetbench
