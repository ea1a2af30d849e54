#include "io/matrix_market_lenient.hpp"

#include <algorithm>
#include <cstdio>

namespace hetbench::mm {

void Departures::note(Departure d, int64_t line, const std::string& what) {
  bool& said = said_[static_cast<int>(d)];
  if (said) return;
  said = true;
  std::string text = path_ + ":" + std::to_string(line) + ": " + what;
  if (sink_) sink_->push_back(std::move(text));
  else std::fprintf(stderr, "hetbench: warning: %s\n", text.c_str());
}

namespace {

// Whether push k is the mirror of the push before it: pushes come as the entry as written,
// then its mirror when it is off the diagonal.
std::vector<bool> mirrors(std::span<const int32_t> row, std::span<const int32_t> col, bool symmetric) {
  std::vector<bool> out(row.size(), false);
  if (!symmetric) return out;
  for (std::size_t k = 0; k < row.size(); ++k)
    if (row[k] != col[k] && k + 1 < row.size()) out[++k] = true;
  return out;
}

}  // namespace

std::optional<Repeat> first_repeat(const CsrMatrix& m, std::span<const int32_t> row, std::span<const int32_t> col,
                                   bool symmetric) {
  const auto mirror = mirrors(row, col, symmetric);
  std::vector<std::uint8_t> seen(m.colidx.size(), 0);  // 0 unseen, 1 as written, 2 a mirror
  std::optional<Repeat> first;
  for (std::size_t k = 0; k < row.size(); ++k) {
    const auto b = m.colidx.begin() + m.rowptr[row[k]], e = m.colidx.begin() + m.rowptr[row[k] + 1];
    auto& s = seen[static_cast<std::size_t>(std::lower_bound(b, e, col[k]) - m.colidx.begin())];
    const std::uint8_t kind = mirror[k] ? 2 : 1;
    if (s == 0) {
      s = kind;
    } else if (s != kind) {
      return Repeat{k, true};
    } else if (!first) {
      first = Repeat{k, false};
      if (!symmetric) return first;
    }
  }
  return first;
}

std::size_t entry_of_push(std::span<const int32_t> row, std::span<const int32_t> col, bool symmetric, std::size_t k) {
  const auto mirror = mirrors(row.first(k + 1), col.first(k + 1), symmetric);
  return static_cast<std::size_t>(std::count(mirror.begin(), mirror.end(), false)) - 1;
}

}  // namespace hetbench::mm
