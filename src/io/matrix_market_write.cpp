// Writing Matrix Market files (reading: matrix_market_read.cpp).
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "io/matrix_market.hpp"
#include "hetbench/error.hpp"

namespace hetbench {

void write_matrix_market(const CsrMatrix& m, const std::string& path) {
  check_csr(m, path.c_str());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(path + ": cannot open the file for writing (" + std::strerror(errno) + ")");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(f, &std::fclose);

  constexpr size_t chunk = size_t{1} << 20, longest_line = 80;
  std::vector<char> buf(chunk + longest_line);
  char* out = buf.data();
  bool ok = true;
  auto flush = [&] {
    ok = ok && std::fwrite(buf.data(), 1, out - buf.data(), f) == static_cast<size_t>(out - buf.data());
    out = buf.data();
  };
  out += std::snprintf(out, longest_line, "%%%%MatrixMarket matrix coordinate real general\n");
  out += std::snprintf(out, longest_line, "%lld %lld %lld\n", static_cast<long long>(m.rows),
                       static_cast<long long>(m.cols), static_cast<long long>(m.nnz()));
  char* end = buf.data() + buf.size();
  for (int64_t i = 0; i < m.rows; ++i) {
    for (int32_t k = m.rowptr[i]; k < m.rowptr[i + 1]; ++k) {
      out = std::to_chars(out, end, i + 1).ptr;
      *out++ = ' ';
      out = std::to_chars(out, end, int64_t{m.colidx[k]} + 1).ptr;
      *out++ = ' ';
      out = std::to_chars(out, end, m.values[k], std::chars_format::general, 17).ptr;
      *out++ = '\n';
      if (static_cast<size_t>(out - buf.data()) >= chunk) flush();
    }
  }
  flush();
  ok = ok && std::fflush(f) == 0;
  int close_rc = std::fclose(closer.release());
  if (!ok || close_rc != 0) throw Error(path + ": cannot write the file (" + std::strerror(errno) + ")");
}

}  // namespace hetbench
