// Reading Matrix Market files: one read of the whole file, then parsing from memory.
#include "io/matrix_market.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/error.hpp"

namespace hetbench {
namespace {

constexpr int64_t max32 = std::numeric_limits<int32_t>::max();

struct Buffer {
  std::unique_ptr<char[]> data;
  size_t size = 0;
};

// One read of the whole file: parsing from memory is what makes 100+ MB/s possible.
Buffer read_whole_file(const std::string& path) {
  auto fail = [&](const char* what) {
    throw Error(path + ": cannot " + what + " the file (" + std::strerror(errno) + ")");
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("open");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("inspect");
  if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory, not a Matrix Market file");
  // One spare byte, so that a regular file reaches end-of-file without a regrowth.
  size_t cap = (S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : size_t{1} << 20) + 1;
  Buffer b{std::make_unique_for_overwrite<char[]>(cap), 0};
  for (;;) {
    if (b.size == cap) {
      auto bigger = std::make_unique_for_overwrite<char[]>(cap * 2);
      std::memcpy(bigger.get(), b.data.get(), b.size);
      b.data = std::move(bigger);
      cap *= 2;
    }
    ssize_t n = ::read(fd, b.data.get() + b.size, cap - b.size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read");
    if (n == 0) break;
    b.size += static_cast<size_t>(n);
  }
  return b;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

// A token for an error message: quoted, shortened, with unprintable bytes escaped.
std::string quote(std::string_view t) {
  std::string s = "'";
  for (size_t i = 0; i < t.size() && i < 32; ++i) {
    auto c = static_cast<unsigned char>(t[i]);
    if (c >= 0x20 && c < 0x7f) {
      s += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      s += hex;
    }
  }
  if (t.size() > 32) s += "...";
  return s + "'";
}

enum class IntParse { ok, not_integer, overflow };

// [+-]digits, any length; the value saturates (overflow) rather than wrapping.
IntParse parse_int(std::string_view t, int64_t& v) {
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
  if (i == t.size()) return IntParse::not_integer;
  bool overflow = false;
  int64_t acc = 0;
  for (; i < t.size(); ++i) {
    unsigned d = static_cast<unsigned char>(t[i]) - unsigned{'0'};
    if (d > 9) return IntParse::not_integer;
    if (acc > (std::numeric_limits<int64_t>::max() - d) / 10) overflow = true;
    else acc = acc * 10 + d;
  }
  v = neg ? -acc : acc;
  return overflow ? IntParse::overflow : IntParse::ok;
}

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew };

class Parser {
 public:
  Parser(const std::string& path, const char* begin, const char* end)
      : path_(path), begin_(begin), p_(begin), end_(end) {}

  CsrMatrix parse() {
    if (begin_ == end_) fail("the file is empty");
    parse_banner();
    if (!next_data_line()) fail_at(last_line(), "the file ends before the size line");
    size_line_ = line_;
    parse_sizes();
    if (format_ == Format::coordinate) parse_coordinate();
    else parse_array();
    return csr_from_coo(rows_, cols_, r_, c_, v_);
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { fail_at(line_, why); }
  [[noreturn]] void fail_at(int64_t line, const std::string& why) const {
    throw Error(path_ + ":" + std::to_string(line) + ": " + why);
  }

  // The number of the file's last line, for errors at end-of-file.
  int64_t last_line() const { return end_[-1] == '\n' ? line_ - 1 : line_; }

  void skip_blanks() {
    while (p_ < end_ && is_blank(*p_)) ++p_;
  }
  bool at_eol() const { return p_ == end_ || *p_ == '\n'; }
  bool at_token_end(const char* q) const { return q == end_ || *q == '\n' || is_blank(*q); }

  std::string_view token() const {
    const char* q = p_;
    while (!at_token_end(q)) ++q;
    return {p_, static_cast<size_t>(q - p_)};
  }

  // After an entry: only blanks may follow before the newline.
  void end_entry(const char* what_follows) {
    skip_blanks();
    if (!at_eol()) fail("unexpected " + quote(token()) + " after the " + what_follows);
    if (p_ < end_) {
      ++p_;
      ++line_;
    }
  }

  // Skips blank and comment lines; false at end of file.
  bool next_data_line() {
    for (;;) {
      skip_blanks();
      if (p_ == end_) return false;
      if (*p_ == '\n') {
        ++p_;
        ++line_;
      } else if (*p_ == '%') {
        auto* nl = static_cast<const char*>(std::memchr(p_, '\n', end_ - p_));
        p_ = nl ? nl : end_;
      } else {
        return true;
      }
    }
  }

  void parse_banner() {
    if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;  // UTF-8 BOM
    std::vector<std::string_view> words;
    for (skip_blanks(); !at_eol() && words.size() < 6; skip_blanks()) {
      words.push_back(token());
      p_ += words.back().size();
    }
    if (words.empty() || !iequals(words[0], "%%matrixmarket"))
      fail("missing the '%%MatrixMarket matrix <format> <field> <symmetry>' banner");
    if (words.size() < 5)
      fail("the banner needs four words after %%MatrixMarket: matrix, format, field, symmetry");
    if (!iequals(words[1], "matrix")) fail("object " + quote(words[1]) + " is unsupported, only 'matrix' is");

    if (iequals(words[2], "coordinate")) format_ = Format::coordinate;
    else if (iequals(words[2], "array")) format_ = Format::array;
    else fail("unknown format " + quote(words[2]) + ", expected 'coordinate' or 'array'");

    if (iequals(words[3], "real")) field_ = Field::real;
    else if (iequals(words[3], "integer")) field_ = Field::integer;
    else if (iequals(words[3], "pattern")) field_ = Field::pattern;
    else if (iequals(words[3], "complex")) fail("complex matrices are unsupported");
    else fail("unknown field " + quote(words[3]) + ", expected 'real', 'integer' or 'pattern'");

    if (iequals(words[4], "general")) symmetry_ = Symmetry::general;
    else if (iequals(words[4], "symmetric")) symmetry_ = Symmetry::symmetric;
    else if (iequals(words[4], "skew-symmetric")) symmetry_ = Symmetry::skew;
    else if (iequals(words[4], "hermitian")) fail("hermitian matrices are unsupported");
    else fail("unknown symmetry " + quote(words[4]) + ", expected 'general', 'symmetric' or 'skew-symmetric'");

    if (words.size() > 5) fail("unexpected " + quote(words[5]) + " after the banner");
    if (format_ == Format::array && field_ == Field::pattern)
      fail("the array format cannot have the pattern field");
    if (symmetry_ == Symmetry::skew && field_ == Field::pattern)
      fail("a pattern matrix cannot be skew-symmetric");
    end_entry("banner");
  }

  void parse_sizes() {
    static const char* const names[] = {"row count", "column count", "nonzero count"};
    int want = format_ == Format::coordinate ? 3 : 2;
    int64_t size[3] = {0, 0, 0};
    for (int i = 0; i < want; ++i) {
      skip_blanks();
      if (at_eol())
        fail(format_ == Format::coordinate ? "the size line needs three numbers: rows, columns, nonzeros"
                                           : "the size line needs two numbers: rows, columns");
      auto t = token();
      IntParse r = parse_int(t, size[i]);
      if (r == IntParse::not_integer)
        fail(std::string("the ") + names[i] + " on the size line must be an integer, not " + quote(t));
      if (size[i] < 0) fail(std::string("negative ") + names[i] + " " + quote(t));
      if (r == IntParse::overflow || size[i] > max32)
        fail(std::string("the ") + names[i] + " " + quote(t) + " exceeds the int32 limit 2147483647");
      p_ += t.size();
    }
    end_entry("sizes");
    rows_ = size[0];
    cols_ = size[1];
    declared_ = size[2];
    if (symmetry_ != Symmetry::general && rows_ != cols_)
      fail_at(size_line_, "a symmetric or skew-symmetric matrix must be square, not " +
                              std::to_string(rows_) + "x" + std::to_string(cols_));
  }

  // A 1-based index in 1..bound, returned 0-based.
  int32_t parse_index(int64_t bound, const char* what) {
    const char* q = p_;
    int64_t v = 0;
    while (q < end_ && q - p_ < 10 && static_cast<unsigned>(*q - '0') <= 9) v = v * 10 + (*q++ - '0');
    if (q == p_ || !at_token_end(q)) {  // rare: signs, leading zeros, junk
      auto t = token();
      if (parse_int(t, v) == IntParse::not_integer)
        fail(std::string("expected a ") + what + " index, found " + quote(t));
      q = p_ + t.size();
      if (parse_int(t, v) == IntParse::overflow) v = -1;
    }
    if (v < 1 || v > bound) {
      std::string t(token());
      fail(std::string(what) + " index " + quote(t) +
           (bound == 0 ? std::string(" is out of range: the matrix has no ") + what + "s"
                       : " is out of range 1.." + std::to_string(bound)));
    }
    p_ = q;
    return static_cast<int32_t>(v - 1);
  }

  double parse_value() {
    const char* q = p_;
    if (q < end_ && *q == '+' && q + 1 < end_ && q[1] != '-') ++q;  // from_chars rejects '+'
    double v = 0;
    auto [ptr, ec] = std::from_chars(q, end_, v);
    if (ec == std::errc::invalid_argument || !at_token_end(ptr))
      fail((field_ == Field::integer ? "expected an integer value, found " : "expected a real value, found ") +
           quote(token()));
    std::string_view t(p_, static_cast<size_t>(ptr - p_));
    if (ec == std::errc::result_out_of_range) {
      v = std::strtod(std::string(t).c_str(), nullptr);  // underflow is fine, to 0 or subnormal
      if (std::isinf(v)) fail("value " + quote(t) + " is out of the binary64 range");
    }
    if (!std::isfinite(v)) fail("value " + quote(t) + " is not a finite number");
    if (field_ == Field::integer) {
      int64_t unused;
      if (parse_int(t, unused) == IntParse::not_integer)
        fail("expected an integer value, found " + quote(t));
    }
    p_ = ptr;
    return v;
  }

  void push(int32_t i, int32_t j, double v) {
    if (static_cast<int64_t>(r_.size()) >= max32)
      fail("the matrix has more than 2^31-1 entries, which int32 CSR cannot index");
    r_.push_back(i);
    c_.push_back(j);
    v_.push_back(v);
  }

  void reserve(int64_t entries, int64_t min_entry_bytes) {
    int64_t fits = (end_ - p_) / min_entry_bytes + 1;  // a lying size line must not allocate
    int64_t n = std::min(entries, fits) * (symmetry_ == Symmetry::general ? 1 : 2);
    r_.reserve(n);
    c_.reserve(n);
    v_.reserve(n);
  }

  void parse_coordinate() {
    reserve(declared_, field_ == Field::pattern ? 4 : 6);
    for (int64_t k = 0; k < declared_; ++k) {
      if (!next_data_line())
        fail_at(last_line(), "the file ends after " + std::to_string(k) + " of the " +
                                 std::to_string(declared_) + " entries declared on line " +
                                 std::to_string(size_line_));
      int32_t i = parse_index(rows_, "row");
      skip_blanks();
      if (at_eol()) fail("missing column index");
      int32_t j = parse_index(cols_, "column");
      double v = 1.0;
      if (field_ != Field::pattern) {
        skip_blanks();
        if (at_eol()) fail("missing value after the row and column indices");
        v = parse_value();
      }
      int64_t line = line_;
      end_entry(field_ == Field::pattern ? "indices of a pattern entry" : "entry");
      if (symmetry_ != Symmetry::general) {
        if (j > i)
          fail_at(line, "entry (" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
                            ") is above the diagonal, but a symmetric file stores only the lower triangle");
        if (symmetry_ == Symmetry::skew && i == j)
          fail_at(line, "a skew-symmetric file cannot have the diagonal entry (" +
                            std::to_string(i + 1) + "," + std::to_string(j + 1) + ")");
      }
      push(i, j, v);
      if (symmetry_ != Symmetry::general && i != j) push(j, i, symmetry_ == Symmetry::skew ? -v : v);
    }
    if (next_data_line())
      fail("more entries than the " + std::to_string(declared_) + " declared on line " +
           std::to_string(size_line_));
  }

  void parse_array() {
    int64_t n = rows_;
    int64_t expected = symmetry_ == Symmetry::general   ? rows_ * cols_
                       : symmetry_ == Symmetry::symmetric ? n * (n + 1) / 2
                                                          : n * (n - 1) / 2;
    int64_t stored = symmetry_ == Symmetry::skew ? n * n - n : rows_ * cols_;
    if (stored > max32)
      fail_at(size_line_, "a " + std::to_string(rows_) + "x" + std::to_string(cols_) +
                              " array has more than 2^31-1 entries, which int32 CSR cannot index");
    reserve(expected, 2);
    int64_t k = 0;
    // k < expected: a 0 x 2147483647 array has no value, and its 2^31 empty columns took
    // seconds to walk (fuzz/regressions/matrix_market/array-no-rows-many-columns).
    for (int64_t j = 0; j < cols_ && k < expected; ++j) {
      int64_t first = symmetry_ == Symmetry::general ? 0 : symmetry_ == Symmetry::symmetric ? j : j + 1;
      for (int64_t i = first; i < rows_; ++i, ++k) {
        if (!next_data_line())
          fail_at(last_line(), "the file ends after " + std::to_string(k) + " of the " +
                                   std::to_string(expected) + " array values");
        double v = parse_value();
        end_entry("value (an array file has one value per line)");
        auto ii = static_cast<int32_t>(i), jj = static_cast<int32_t>(j);
        push(ii, jj, v);
        if (symmetry_ != Symmetry::general && i != j) push(jj, ii, symmetry_ == Symmetry::skew ? -v : v);
      }
    }
    if (next_data_line())
      fail("more values than the " + std::to_string(expected) + " of a " + std::to_string(rows_) + "x" +
           std::to_string(cols_) + " array");
  }

  const std::string& path_;
  const char* begin_;
  const char* p_;
  const char* end_;
  int64_t line_ = 1;
  int64_t size_line_ = 0;
  Format format_ = Format::coordinate;
  Field field_ = Field::real;
  Symmetry symmetry_ = Symmetry::general;
  int64_t rows_ = 0, cols_ = 0, declared_ = 0;
  std::vector<int32_t> r_, c_;
  std::vector<double> v_;
};

}  // namespace

CsrMatrix read_matrix_market(const std::string& path) {
  try {
    Buffer b = read_whole_file(path);
    return Parser(path, b.data.get(), b.data.get() + b.size).parse();
  } catch (const std::bad_alloc&) {
    throw Error(path + ": not enough memory to read the matrix");
  }
}

CsrMatrix read_matrix_market_text(std::string_view text, const std::string& name) {
  try {
    return Parser(name, text.data(), text.data() + text.size()).parse();
  } catch (const std::bad_alloc&) {
    throw Error(name + ": not enough memory to read the matrix");
  }
}

}  // namespace hetbench
