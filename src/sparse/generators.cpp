#include "sparse/generators.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <new>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>

#include "sparse/generator_kit.hpp"
#include "hetbench/error.hpp"

namespace hetbench {
namespace {

using namespace generator_detail;

// Laplacian on an n^dims grid: `box` takes all 3^dims neighbours, otherwise the 2*dims axis
// neighbours. Dirichlet boundary: the diagonal is the full neighbour count everywhere.
CsrMatrix stencil(Params& p, int dims, bool box) {
  int64_t n = p.integer("n", std::nullopt, 1, max32);
  p.done("n");
  int64_t rows = 1;
  for (int d = 0; d < dims; ++d) {
    rows *= n;
    if (rows > max32) p.fail("key 'n' gives more than 2^31-1 rows");
  }
  int64_t nnz = 1;  // per axis: box (3n-2); star n^dims + dims*2(n-1)n^(dims-1)
  if (box) {
    for (int d = 0; d < dims; ++d) nnz *= 3 * n - 2;
  } else {
    nnz = rows + dims * 2 * (n - 1) * (rows / n);
  }
  if (nnz > max32) p.fail("key 'n' gives more than 2^31-1 nonzeros");

  struct Offset {
    int dz, dy, dx;
  };
  std::vector<Offset> offsets;  // ascending (dz,dy,dx), so columns come out sorted
  int zr = dims == 3 ? 1 : 0;
  for (int dz = -zr; dz <= zr; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (box || std::abs(dz) + std::abs(dy) + std::abs(dx) <= 1) offsets.push_back({dz, dy, dx});
  const double diag = static_cast<double>(offsets.size() - 1);

  Builder b(rows, rows, nnz);
  int64_t nz = dims == 3 ? n : 1;
  for (int64_t z = 0; z < nz; ++z)
    for (int64_t y = 0; y < n; ++y)
      for (int64_t x = 0; x < n; ++x) {
        for (const Offset& o : offsets) {
          int64_t zz = z + o.dz, yy = y + o.dy, xx = x + o.dx;
          if (zz < 0 || zz >= nz || yy < 0 || yy >= n || xx < 0 || xx >= n) continue;
          bool centre = o.dz == 0 && o.dy == 0 && o.dx == 0;
          b.add((zz * n + yy) * n + xx, centre ? diag : -1.0);
        }
        b.close_row(p);
      }
  return std::move(b.m);
}

CsrMatrix banded(Params& p, Rng& rng) {
  int64_t n = p.integer("n", std::nullopt, 1, max32);
  int64_t bw = p.integer("bw", std::nullopt, 0, n - 1);
  double density = p.real("density", 1.0, 0.0, 1.0, true);
  p.done("n, bw, density");
  double full = static_cast<double>(n) * static_cast<double>(2 * bw + 1) - static_cast<double>(bw) * (bw + 1);
  if (full * density > 0.99 * max32) p.fail("keys n, bw and density give more than 2^31-1 nonzeros");
  Builder b(n, n, static_cast<int64_t>(full * density * 1.01) + 16);
  // Geometric gaps between kept entries: O(nnz) work whatever the density.
  const double log_miss = std::log1p(-density);
  for (int64_t i = 0; i < n; ++i) {
    int64_t lo = std::max<int64_t>(0, i - bw), hi = std::min(n - 1, i + bw);
    if (density == 1.0) {
      for (int64_t j = lo; j <= hi; ++j) b.add(j, rng.value());
    } else {
      for (int64_t j = lo - 1;;) {
        double gap = std::floor(std::log(rng.open_unit()) / log_miss);
        if (gap >= static_cast<double>(hi - j)) break;
        j += 1 + static_cast<int64_t>(gap);
        b.add(j, rng.value());
      }
    }
    b.close_row(p);
  }
  return std::move(b.m);
}

// `k` distinct sorted columns out of 0..cols-1, written to out[0..k).
void distinct_columns(Rng& rng, int64_t k, int64_t cols, int32_t* out) {
  if (k * 4 > cols) {
    // Dense case: selection sampling (Knuth's algorithm S), already sorted.
    int64_t need = k;
    for (int64_t j = 0; j < cols && need > 0; ++j)
      if (static_cast<int64_t>(rng.below(cols - j)) < need) out[k - need--] = static_cast<int32_t>(j);
    return;
  }
  int64_t got = 0;  // redraw the duplicates until k distinct remain
  while (got < k) {
    for (int64_t t = got; t < k; ++t) out[t] = static_cast<int32_t>(rng.below(cols));
    std::sort(out, out + k);
    got = std::unique(out, out + k) - out;
  }
}

CsrMatrix random_rows(Params& p, Rng& rng) {
  int64_t n = p.integer("n", std::nullopt, 1, max32);
  int64_t cols = p.integer("cols", n, 1, max32);
  int64_t per_row = p.integer("per_row", std::nullopt, 0, cols);
  double empty = p.real("empty", 0.0, 0.0, 1.0, false);
  p.done("n, per_row, cols, empty");
  int64_t empty_rows = std::llround(empty * static_cast<double>(n));
  if ((n - empty_rows) * per_row > max32) p.fail("keys n and per_row give more than 2^31-1 nonzeros");
  CsrMatrix m;
  m.rows = n;
  m.cols = cols;
  m.rowptr.assign(n + 1, 0);
  int64_t need = empty_rows;  // exactly empty_rows empty rows, chosen by selection sampling
  for (int64_t i = 0; i < n; ++i) {
    bool is_empty = need > 0 && static_cast<int64_t>(rng.below(n - i)) < need;
    need -= is_empty;
    m.rowptr[i + 1] = static_cast<int32_t>(m.rowptr[i] + (is_empty ? 0 : per_row));
  }
  m.colidx.resize(m.rowptr[n]);
  for (int64_t i = 0; i < n; ++i)
    distinct_columns(rng, m.rowptr[i + 1] - m.rowptr[i], cols, m.colidx.data() + m.rowptr[i]);
  m.values.resize(m.colidx.size());
  for (double& v : m.values) v = rng.value();
  return m;
}

// A random-looking bijection on 0..n-1 with no table, since a table lookup per entry is a
// cache miss: a 4-round Feistel network on 2*half bits, cycle-walking back into range.
class Relabel {
 public:
  Relabel(int64_t n, bool enabled, Rng& rng) : n_(static_cast<uint64_t>(n)), enabled_(enabled) {
    while ((uint64_t{1} << (2 * half_)) < n_) ++half_;
    mask_ = (uint64_t{1} << half_) - 1;
    for (auto& k : keys_) k = rng.next();
  }
  int64_t operator()(int64_t x) const {
    if (!enabled_) return x;
    auto y = static_cast<uint64_t>(x);
    do y = rounds(y);
    while (y >= n_);
    return static_cast<int64_t>(y);
  }

 private:
  uint64_t rounds(uint64_t y) const {
    uint64_t l = y >> half_, r = y & mask_;
    for (uint64_t k : keys_) {
      uint64_t f = r ^ k;
      f = (f ^ (f >> 31)) * 0xbf58476d1ce4e5b9ULL;
      l ^= (f ^ (f >> 29)) & mask_;
      std::swap(l, r);
    }
    return (l << half_) | r;
  }
  uint64_t n_, mask_ = 0;
  int half_ = 1;
  bool enabled_;
  uint64_t keys_[4];
};

// Chung–Lu style: a row of rank k has about w_k = c (k+1)^(-1/(alpha-1)) entries (mean avg),
// so row lengths follow a power law of exponent alpha; its distinct columns are drawn from
// the same law. Ranks are relabelled at random (shuffle=1) so heavy rows and columns are
// spread out as in real graphs. Draws use the closed-form inverse CDF: no tables, O(nnz).
CsrMatrix powerlaw(Params& p, Rng& rng) {
  int64_t n = p.integer("n", std::nullopt, 1, max32);
  double avg = p.real("avg", std::nullopt, 0.0, static_cast<double>(n), true);
  // Below 2 the heaviest rows would need more distinct columns than exist.
  double alpha = p.real("alpha", 2.5, 2.0, 100.0, false);
  bool shuffle = p.integer("shuffle", 1, 0, 1) == 1;
  p.done("n, avg, alpha, shuffle");
  if (avg * static_cast<double>(n) > 0.99 * max32) p.fail("keys n and avg give more than 2^31-1 nonzeros");

  const double beta = 1.0 / (alpha - 1.0);
  double sum = 0;
  for (int64_t k = n; k >= 1; --k) sum += std::pow(static_cast<double>(k), -beta);  // small terms first
  const double scale = avg * static_cast<double>(n) / sum;

  // Column density proportional to x^-beta on [1, n+1), column = floor(x) - 1.
  const double e = 1.0 - beta;
  const bool log_form = std::abs(e) < 1e-9;
  const double span = log_form ? std::log(n + 1.0) : std::pow(n + 1.0, e) - 1.0;

  const Relabel relabel(n, shuffle, rng);
  auto draw = [&] {
    double u = rng.unit();
    double x = log_form ? std::exp(span * u) : std::pow(span * u + 1.0, 1.0 / e);
    auto j = static_cast<int64_t>(x) - 1;
    return static_cast<int32_t>(relabel(std::clamp<int64_t>(j, 0, n - 1)));
  };

  CsrMatrix m;
  m.rows = m.cols = n;
  m.rowptr.assign(n + 1, 0);
  m.colidx.reserve(static_cast<size_t>(avg * static_cast<double>(n) * 1.01) + 16);
  for (int64_t r = 0; r < n; ++r) {
    double w = scale * std::pow(static_cast<double>(relabel(r)) + 1.0, -beta);
    double whole = std::floor(w);
    auto len = static_cast<int64_t>(std::min(whole + (rng.unit() < w - whole), static_cast<double>(n)));
    size_t begin = m.colidx.size();
    // Redraw duplicates a few times; a heavy row may stay a little short of len.
    for (int round = 0, have = 0; have < len && round < 8; ++round) {
      for (int64_t t = have; t < len; ++t) m.colidx.push_back(draw());
      std::sort(m.colidx.begin() + begin, m.colidx.end());
      m.colidx.erase(std::unique(m.colidx.begin() + begin, m.colidx.end()), m.colidx.end());
      have = static_cast<int>(m.colidx.size() - begin);
    }
    if (m.colidx.size() > static_cast<size_t>(max32)) p.fail("the matrix would have more than 2^31-1 entries");
    m.rowptr[r + 1] = static_cast<int32_t>(m.colidx.size());
  }
  m.values.resize(m.colidx.size());
  for (double& v : m.values) v = rng.value();
  return m;
}

CsrMatrix dense_row(Params& p, Rng& rng) {
  int64_t n = p.integer("n", std::nullopt, 1, max32 / 2);
  int64_t row = p.integer("row", 0, 0, n - 1);
  p.done("n, row");
  Builder b(n, n, 2 * n);
  for (int64_t i = 0; i < n; ++i) {
    if (i == row) {
      for (int64_t j = 0; j < n; ++j) b.add(j, rng.value());
    } else {
      b.add(i, rng.value());
    }
    b.close_row(p);
  }
  return std::move(b.m);
}

struct Entry {
  GeneratorInfo info;
  CsrMatrix (*make)(Params&, Rng&);
};

const std::vector<Entry>& registry() {
  static const std::vector<Entry> entries = {
      {{"poisson2d", "gen:poisson2d:n=N", "5-point Laplacian on an N x N grid"},
       [](Params& p, Rng&) { return stencil(p, 2, false); }},
      {{"laplace2d9", "gen:laplace2d9:n=N", "9-point Laplacian on an N x N grid"},
       [](Params& p, Rng&) { return stencil(p, 2, true); }},
      {{"poisson3d", "gen:poisson3d:n=N", "7-point Laplacian on an N x N x N grid"},
       [](Params& p, Rng&) { return stencil(p, 3, false); }},
      {{"laplace3d27", "gen:laplace3d27:n=N", "27-point Laplacian on an N x N x N grid"},
       [](Params& p, Rng&) { return stencil(p, 3, true); }},
      {{"banded", "gen:banded:n=N,bw=B[,density=D]",
        "random values within |i-j| <= B, each entry kept with probability D (default 1)"},
       banded},
      {{"random", "gen:random:n=N,per_row=K[,cols=C,empty=F]",
        "K uniform random distinct columns per row; a fraction F of the rows empty"},
       random_rows},
      {{"powerlaw", "gen:powerlaw:n=N,avg=A[,alpha=2.5,shuffle=1]",
        "power-law row lengths (exponent alpha) and columns, Chung-Lu style, mean about A per row"},
       powerlaw},
      {{"dense_row", "gen:dense_row:n=N[,row=R]", "row R full, every other row only its diagonal"},
       dense_row},
  };
  return entries;
}

}  // namespace

CsrMatrix generate_matrix(const std::string& spec, uint64_t seed) {
  std::string_view s = spec;
  if (s.substr(0, 4) != "gen:") throw Error(spec + ": a generator spec starts with 'gen:'");
  s.remove_prefix(4);
  size_t colon = s.find(':');
  std::string name(s.substr(0, colon));
  std::string_view kv = colon == std::string_view::npos ? std::string_view{} : s.substr(colon + 1);
  for (const Entry& e : registry()) {
    if (e.info.name != name) continue;
    Params params(spec, kv);
    Rng rng(seed);
    try {
      return e.make(params, rng);
    } catch (const std::bad_alloc&) {
      throw Error(spec + ": not enough memory to generate the matrix");
    }
  }
  std::string known;
  for (const Entry& e : registry()) known += (known.empty() ? "" : ", ") + e.info.name;
  throw Error(spec + ": unknown generator '" + name + "' (known: " + known + ")");
}

std::vector<GeneratorInfo> generator_infos() {
  std::vector<GeneratorInfo> out;
  for (const Entry& e : registry()) out.push_back(e.info);
  return out;
}

std::vector<std::string> generator_names() {
  std::vector<std::string> out;
  for (const Entry& e : registry()) out.push_back(e.info.name);
  return out;
}

}  // namespace hetbench
