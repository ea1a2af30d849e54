// Block distribution of vectors and of a CSR matrix's rows over the ranks, and the halo
// of x that a rank's rows read from the other ranks (docs/mpi.md). The halo is computed
// once from the column pattern: every column a rank's rows touch outside its own block,
// grouped by the rank that owns it; each SpMV then only moves those values.
#pragma once

#include <cstdint>
#include <vector>

#include "sparse/csr.hpp"

namespace hetbench::mpi {

// Rank r of p owns [begin(r), begin(r + 1)) of n: the first n mod p ranks one more.
struct BlockPartition {
  std::int64_t n = 0;
  int p = 1;
  std::int64_t begin(int r) const { return r * (n / p) + std::min<std::int64_t>(r, n % p); }
  std::int64_t count(int r) const { return begin(r + 1) - begin(r); }
  int owner(std::int64_t i) const;
};

// A rank's rows with their columns renumbered for a local x of [own block | halo]:
// columns of the own block become 0 .. own-1, halo column halo[k] becomes own + k.
struct LocalRows {
  CsrMatrix a;                      // rows() = the rank's rows, cols = own + halo.size()
  std::vector<std::int32_t> halo;   // global columns read from other ranks, ascending
  std::vector<int> halo_counts;     // per rank: how many of them it owns (ascending ranks)
};

// The rows of rank r under `rows`, x distributed by `cols` (the same partition for a
// square matrix).
LocalRows local_rows(const CsrMatrix& a, const BlockPartition& rows, const BlockPartition& cols, int r);

}  // namespace hetbench::mpi
