#pragma once
// Tables for the terminal and for Markdown, one implementation for every command that
// prints one (run, compare, tune, ceilings, db list, store list): columns sized to their widest cell,
// so that a long cell (a storage key, a parameter list) never shifts the columns after it.
#include <string>
#include <vector>

namespace hetbench {

using TextRow = std::vector<std::string>;

// The rows (the first is the header) with each column padded to its widest cell, two
// spaces apart, one line each; columns i with right[i] true are right-aligned (numbers).
// Trailing blanks are trimmed.
std::string aligned_table(const std::vector<TextRow>& rows, const std::vector<bool>& right = {});

// The rows as a GitHub-flavoured Markdown table; the first row is the header.
std::string markdown_table(const std::vector<TextRow>& rows);

}  // namespace hetbench
