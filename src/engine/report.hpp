// Human-readable views of point records: progress lines and the final table.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetbench {

void print_progress(const nlohmann::json& rec);  // one line on stderr
// format: table (aligned text), md (markdown table), csv, json (one record per line).
void print_report(const std::vector<nlohmann::json>& recs, const std::string& format, bool best_only);
std::string format_seconds(double s);

}  // namespace hetbench
