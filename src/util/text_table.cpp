#include "util/text_table.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace hetbench {

std::string aligned_table(const std::vector<TextRow>& rows, const std::vector<bool>& right) {
  std::vector<std::size_t> w;
  for (const auto& row : rows) {
    if (row.size() > w.size()) w.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool r = i < right.size() && right[i];
      line += r ? fmt::format("{:>{}}", row[i], w[i]) : fmt::format("{:<{}}", row[i], w[i]);
      if (i + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  }
  return out;
}

std::string markdown_table(const std::vector<TextRow>& rows) {
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line = "|";
    for (const auto& cell : rows[r]) line += " " + cell + " |";
    out += line + '\n';
    if (r == 0) {
      std::string sep = "|";
      for (std::size_t i = 0; i < rows[0].size(); ++i) sep += " --- |";
      out += sep + '\n';
    }
  }
  return out;
}

}  // namespace hetbench
