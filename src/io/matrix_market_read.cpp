// Reading Matrix Market files: one read of the whole file (util/input_file.cpp), then
// parsing from memory.
#include "io/matrix_market.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/error.hpp"
#include "util/input_file.hpp"
#include "io/matrix_market_lenient.hpp"
#include "io/matrix_market_text.hpp"

namespace hetbench {
namespace {

using namespace mm;

constexpr int64_t max32 = std::numeric_limits<int32_t>::max();

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew };

class Parser {
 public:
  Parser(const std::string& path, const char* begin, const char* end, std::vector<std::string>* warnings)
      : path_(path), begin_(begin), p_(begin), end_(end), departures_(path, warnings) {}

  CsrMatrix parse() {
    if (begin_ == end_) fail("the file is empty");
    note_crlf();
    parse_banner();
    if (!next_data_line()) fail_at(last_line(), "the file ends before the size line");
    size_line_ = line_;
    parse_sizes();
    body_ = p_;
    if (format_ == Format::coordinate) parse_coordinate();
    else parse_array();
    CsrMatrix m = csr_from_coo(rows_, cols_, r_, c_, v_);
    if (m.nnz() < static_cast<int64_t>(r_.size())) check_repeats(m);
    return m;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { fail_at(line_, why); }
  [[noreturn]] void fail_at(int64_t line, const std::string& why) const {
    throw InputError(path_ + ":" + std::to_string(line) + ": " + why);
  }
  void note(Departure d, const std::string& what) { departures_.note(d, line_, what); }

  // The number of the file's last line, for errors at end-of-file.
  int64_t last_line() const { return end_[-1] == '\n' ? line_ - 1 : line_; }

  void skip_blanks() {
    while (p_ < end_ && is_blank(*p_)) ++p_;
  }
  void skip_line() {
    auto* nl = static_cast<const char*>(std::memchr(p_, '\n', end_ - p_));
    p_ = nl ? nl : end_;
  }
  bool at_eol() const { return p_ == end_ || *p_ == '\n'; }
  bool at_token_end(const char* q) const { return q == end_ || *q == '\n' || is_blank(*q); }

  std::string_view token() const {
    const char* q = p_;
    while (!at_token_end(q)) ++q;
    return {p_, static_cast<size_t>(q - p_)};
  }

  // Blanks read '\r' as a blank, so a CR before each LF costs nothing; said at the first.
  void note_crlf() {
    if (auto* cr = static_cast<const char*>(::memmem(begin_, end_ - begin_, "\r\n", 2)))
      departures_.note(Departure::crlf, 1 + std::count(begin_, cr, '\n'), "CRLF line ends, read as LF");
  }

  // After an entry: only blanks may follow before the newline, or (`comment_ok`, after a
  // coordinate entry) a '%' comment, which both readers skip.
  void end_entry(const char* what_follows, bool comment_ok = false) {
    skip_blanks();
    if (comment_ok && p_ < end_ && *p_ == '%') {
      note(Departure::trailing_comment, "a comment after the entry, skipped");
      skip_line();
    }
    if (!at_eol()) fail("unexpected " + quote(token()) + " after the " + what_follows);
    if (p_ < end_) {
      ++p_;
      ++line_;
    }
  }

  // Skips blank and comment lines; false at end of file. The specification has comments
  // only before the size line and no blank lines (blank lines at the end are not worth a
  // word: nothing follows them).
  bool next_data_line() {
    int64_t blank = 0;
    for (;;) {
      skip_blanks();
      if (p_ == end_) return false;
      if (*p_ == '\n') {
        if (!blank) blank = line_;
        ++p_;
        ++line_;
      } else if (*p_ == '%') {
        if (size_line_) note(Departure::body_comment, "a comment line after the size line, skipped");
        skip_line();
        if (p_ < end_) ++p_, ++line_;  // its newline is no blank line
      } else {
        if (blank) departures_.note(Departure::blank_line, blank, "a blank line, skipped");
        return true;
      }
    }
  }

  // "%%MatrixMarket". fast_matrix_market reads "%MatrixMarket" too (some writers emit it),
  // and hetbench has always read the word in any case.
  void check_banner_word(std::string_view w) {
    std::string_view rest;
    if (w.starts_with("%%")) rest = w.substr(2);
    else if (w.starts_with("%")) rest = w.substr(1);
    if (!iequals(rest, "matrixmarket")) fail("missing the '%%MatrixMarket matrix <format> <field> <symmetry>' banner");
    if (!w.starts_with("%%")) note(Departure::single_percent, "the banner starts with one '%', not '%%MatrixMarket'");
    if (rest != "MatrixMarket") note(Departure::banner_spelling, "the banner " + quote(w) + " is not spelled '%%MatrixMarket'");
  }

  void parse_banner() {
    if (end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) {
      p_ += 3;
      note(Departure::byte_order_mark, "a UTF-8 byte-order mark before the banner, skipped");
    }
    if (p_ < end_ && is_blank(*p_)) note(Departure::banner_indent, "blanks before the banner");
    std::vector<std::string_view> words;
    for (skip_blanks(); !at_eol(); skip_blanks()) {
      words.push_back(token());
      p_ += words.back().size();
    }
    check_banner_word(words.empty() ? std::string_view() : words[0]);
    if (words.size() < 5)
      fail("the banner needs four words after %%MatrixMarket: matrix, format, field, symmetry");
    if (words.size() > 5)
      note(Departure::banner_extra, "ignoring " + quote(words[5]) + (words.size() > 6 ? " and what follows" : "") +
                                        " after the banner's four words");
    for (size_t i = 1; i < 5; ++i)
      if (!is_lower(words[i])) {
        note(Departure::word_case, "the banner word " + quote(words[i]) + " is not lower case");
        break;
      }
    if (!iequals(words[1], "matrix")) fail("object " + quote(words[1]) + " is unsupported, only 'matrix' is");

    if (iequals(words[2], "coordinate")) format_ = Format::coordinate;
    else if (iequals(words[2], "array")) format_ = Format::array;
    else fail("unknown format " + quote(words[2]) + ", expected 'coordinate' or 'array'");

    if (iequals(words[3], "real")) field_ = Field::real;
    else if (iequals(words[3], "integer")) field_ = Field::integer;
    else if (iequals(words[3], "pattern")) field_ = Field::pattern;
    else if (iequals(words[3], "complex")) fail("complex matrices are unsupported");
    else if (iequals(words[3], "double")) field_ = Field::real;
    else if (iequals(words[3], "unsigned-integer")) field_ = Field::integer, unsigned_ = true;
    else fail("unknown field " + quote(words[3]) + ", expected 'real', 'integer' or 'pattern'");
    if (iequals(words[3], "double")) note(Departure::field_double, "the field 'double' is not standard, read as 'real'");
    if (unsigned_)
      note(Departure::field_unsigned, "the field 'unsigned-integer' (scipy's) is not standard, read as 'integer' >= 0");

    if (iequals(words[4], "general")) symmetry_ = Symmetry::general;
    else if (iequals(words[4], "symmetric")) symmetry_ = Symmetry::symmetric;
    else if (iequals(words[4], "skew-symmetric")) symmetry_ = Symmetry::skew;
    else if (iequals(words[4], "hermitian")) fail("hermitian matrices are unsupported");
    else fail("unknown symmetry " + quote(words[4]) + ", expected 'general', 'symmetric' or 'skew-symmetric'");

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
      if (parse_int(t, unused) == IntParse::not_integer) {
        if (!is_integral_real(t)) fail("expected an integer value, found " + quote(t));
        note(Departure::integer_as_real, "the integer value " + quote(t) + " is written as a real");
      }
      if (unsigned_ && v < 0) fail("negative value " + quote(t) + " in an unsigned-integer file");
    }
    p_ = ptr;
    return v;
  }

  // A value after a pattern entry's indices: both readers skip it, and so does hetbench
  // when it is one number (anything else is left for end_entry to reject).
  void skip_pattern_value() {
    skip_blanks();
    if (at_eol() || *p_ == '%') return;
    const auto t = token();
    double unused;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), unused);
    if (ec == std::errc::invalid_argument || ptr != t.data() + t.size()) return;
    note(Departure::pattern_value, "the value " + quote(t) + " after the indices of a pattern entry, ignored");
    p_ += t.size();
  }

  // Repeated entries are summed, as scipy's conversions and hetbench always did; one that
  // meets the mirror of the other triangle of a symmetric file would be doubled instead.
  void check_repeats(const CsrMatrix& m) {
    const bool sym = symmetry_ != Symmetry::general;
    const auto rep = first_repeat(m, r_, c_, sym);
    if (!rep) return;
    const auto line = line_of_entry(entry_of_push(r_, c_, sym, rep->push));
    const auto at = "(" + std::to_string(r_[rep->push] + 1) + "," + std::to_string(c_[rep->push] + 1) + ")";
    if (rep->clash)
      fail_at(line, at + " is given in both triangles of a symmetric file: with the mirrors it would count twice");
    departures_.note(Departure::duplicates, line, "entry " + at + " repeats an earlier one; repeated entries are summed");
  }

  // The line of the e-th entry, found again from the size line: only a warning needs it.
  int64_t line_of_entry(std::size_t e) {
    p_ = body_;
    line_ = size_line_ + 1;
    for (std::size_t k = 0; next_data_line() && k < e; ++k) {
      skip_line();
      if (p_ < end_) ++p_, ++line_;
    }
    return line_;
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
      } else {
        skip_pattern_value();
      }
      int64_t line = line_;
      end_entry(field_ == Field::pattern ? "indices of a pattern entry" : "entry", true);
      if (symmetry_ != Symmetry::general) {
        const auto at = "(" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ")";
        if (symmetry_ == Symmetry::skew && i == j && v != 0)
          fail_at(line, "a skew-symmetric file cannot have the nonzero diagonal entry " + at);
        if (i == j && symmetry_ == Symmetry::skew)
          departures_.note(Departure::skew_zero_diagonal, line, "the explicit zero " + at +
                                                                    " on the diagonal of a skew-symmetric file, kept");
        if (j > i)
          departures_.note(Departure::upper_triangle, line, "entry " + at +
                           " lies above the diagonal of a symmetric file; read with its mirror as the readers do");
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
  const char* body_ = nullptr;  // the line after the size line
  Departures departures_;
  bool unsigned_ = false;
  Format format_ = Format::coordinate;
  Field field_ = Field::real;
  Symmetry symmetry_ = Symmetry::general;
  int64_t rows_ = 0, cols_ = 0, declared_ = 0;
  std::vector<int32_t> r_, c_;
  std::vector<double> v_;
};

}  // namespace

CsrMatrix read_matrix_market(const std::string& path, std::vector<std::string>* warnings) {
  try {
    InputBytes b = read_input_bytes(path);
    return Parser(path, b.data.get(), b.data.get() + b.size, warnings).parse();
  } catch (const std::bad_alloc&) {
    throw InputError(path + ": not enough memory to read the matrix");
  }
}

CsrMatrix read_matrix_market_text(std::string_view text, const std::string& name, std::vector<std::string>* warnings) {
  try {
    return Parser(name, text.data(), text.data() + text.size(), warnings).parse();
  } catch (const std::bad_alloc&) {
    throw InputError(name + ": not enough memory to read the matrix");
  }
}

}  // namespace hetbench
