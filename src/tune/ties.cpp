#include "tune/ties.hpp"

namespace hetbench::tune {

Pick pick_best(const std::vector<Measured>& m, const Space& space) {
  Pick p;
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m[i].valid && (!p.found || m[i].median < m[p.fastest].median)) {
      p.fastest = i;
      p.found = true;
    }
  if (!p.found) return p;
  const Measured& f = m[p.fastest];
  p.best = p.fastest;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (!m[i].valid || m[i].lo > f.hi || m[i].hi < f.lo) continue;
    p.tied.push_back(i);
    if (space.simpler(m[i].config, m[p.best].config)) p.best = i;
  }
  return p;
}

}  // namespace hetbench::tune
