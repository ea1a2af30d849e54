// Hashing the canonical content of an experiment (content.cpp).
#pragma once

#include <string>
#include <string_view>

#include "store/store.hpp"

struct evp_md_ctx_st;

namespace hetbench::store {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void add(std::string_view s);
  std::string hex();  // 64 hex digits; once

 private:
  evp_md_ctx_st* ctx_;
};

// SHA-256 of experiment.dump() and each record's canonical text, each followed by "\n".
std::string content_hash(const ExperimentContent& e);

}  // namespace hetbench::store
