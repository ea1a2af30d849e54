#include "mpi/partition.hpp"

#include <algorithm>

namespace hetbench::mpi {

int BlockPartition::owner(std::int64_t i) const {
  // The first rank whose block ends after i.
  int lo = 0, hi = p - 1;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (begin(mid + 1) <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

LocalRows local_rows(const CsrMatrix& a, const BlockPartition& rows, const BlockPartition& cols, int r) {
  LocalRows out;
  const std::int64_t r0 = rows.begin(r), r1 = rows.begin(r + 1);
  const std::int64_t c0 = cols.begin(r), c1 = cols.begin(r + 1);
  for (std::int64_t i = r0; i < r1; ++i)
    for (std::int32_t k = a.rowptr[i]; k < a.rowptr[i + 1]; ++k)
      if (a.colidx[k] < c0 || a.colidx[k] >= c1) out.halo.push_back(a.colidx[k]);
  std::sort(out.halo.begin(), out.halo.end());
  out.halo.erase(std::unique(out.halo.begin(), out.halo.end()), out.halo.end());
  out.halo_counts.assign(cols.p, 0);
  for (auto c : out.halo) ++out.halo_counts[cols.owner(c)];
  const std::int64_t own = c1 - c0;
  out.a.rows = r1 - r0;
  out.a.cols = own + static_cast<std::int64_t>(out.halo.size());
  out.a.rowptr.push_back(0);
  for (std::int64_t i = r0; i < r1; ++i) {
    // Own columns first, then halo ones: both ascending, so each row stays sorted.
    std::vector<std::pair<std::int32_t, double>> row;
    for (std::int32_t k = a.rowptr[i]; k < a.rowptr[i + 1]; ++k) {
      const auto c = a.colidx[k];
      const auto local = c >= c0 && c < c1
                             ? static_cast<std::int32_t>(c - c0)
                             : static_cast<std::int32_t>(own + (std::lower_bound(out.halo.begin(), out.halo.end(), c) -
                                                                 out.halo.begin()));
      row.emplace_back(local, a.values[k]);
    }
    std::sort(row.begin(), row.end());
    for (const auto& [c, v] : row) out.a.colidx.push_back(c), out.a.values.push_back(v);
    out.a.rowptr.push_back(static_cast<std::int32_t>(out.a.colidx.size()));
  }
  return out;
}

}  // namespace hetbench::mpi
