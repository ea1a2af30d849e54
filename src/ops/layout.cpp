// Layouts checked against an op's fields and placed in memory; the accessors generated
// for kernels and the host-side conversion between per-field arrays and a layout's buffer.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "ops/layout.hpp"

namespace hetbench {

std::size_t OperandLayout::words(std::size_t n) const { return base(groups.size(), n); }

std::size_t OperandLayout::base(std::size_t g, std::size_t n) const {
  std::size_t b = 0;
  for (std::size_t k = 0; k < g; ++k) b += (n + groups[k].block - 1) / groups[k].block * groups[k].block * groups[k].width;
  return b;
}

std::pair<std::size_t, std::size_t> OperandLayout::find(const std::string& field) const {
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t k = 0; k < groups[g].fields.size(); ++k)
      if (groups[g].fields[k] == field) return {g, k};
  throw Error(fmt::format("internal: operand {} has no field '{}'", operand, field));
}

std::size_t OperandLayout::word(const std::string& field, std::size_t i, std::size_t n) const {
  auto [g, k] = find(field);
  const auto& grp = groups[g];
  return base(g, n) + (i / grp.block) * grp.block * grp.width + k * grp.block + i % grp.block;
}

const OperandLayout& Layout::operand(const std::string& name) const {
  for (const auto& o : operands)
    if (o.operand == name) return o;
  throw Error(fmt::format("internal: layout has no operand '{}'", name));
}

std::size_t Layout::scratch_bytes(std::size_t elem_bytes) const {
  std::size_t b = 0;
  for (const auto& e : scratch) b += e.tile * (e.field.type == FieldType::ip ? 4 : elem_bytes);
  return b;
}

std::string Layout::describe() const {
  std::string out;
  for (const auto& o : operands)
    for (const auto& g : o.groups) {
      if (!g.is_struct) continue;
      std::string f;
      for (const auto& x : g.fields) f += (f.empty() ? "" : ",") + x;
      out += fmt::format("{}{}{{{}}}{}", out.empty() ? "" : " ", g.name, f, g.aosoa ? fmt::format("/{}", g.block) : "");
    }
  for (const auto& e : scratch) out += fmt::format("{}local:{}/{}", out.empty() ? "" : " ", e.field.name, e.tile);
  return out.empty() ? "soa" : out;
}

namespace {

// Where a struct or field stands: "path:line" in the text form, "path: KEY" in JSON.
template <class T>
std::string where(const std::string& path, const T& e) {
  return e.line > 0 ? fmt::format("{}:{}", path, e.line) : e.key.empty() ? path : fmt::format("{}: {}", path, e.key);
}
// The same without the path, for "also at ...".
template <class T>
std::string place(const T& e) {
  return e.line > 0 ? fmt::format("line {}", e.line) : e.key;
}

std::string field_list(const FieldSet& fs) {
  std::string out;
  for (const auto& o : fs)
    for (const auto& f : o.fields) out += (out.empty() ? "" : ", ") + f;
  return out;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Layout resolve_layout(const LayoutFile& f, std::size_t arch_index, const FieldSet& fs, const std::string& op) {
  const ArchLayout& a = f.archs.at(arch_index);
  std::map<std::string, std::pair<std::size_t, bool>> owner;  // field -> (operand index, is_int)
  for (std::size_t o = 0; o < fs.size(); ++o)
    for (const auto& x : fs[o].fields) owner[x] = {o, fs[o].is_int};
  auto check_field = [&](const LayoutField& x) {
    auto it = owner.find(x.name);
    if (it == owner.end())
      throw InputError(fmt::format("{}: '{}': op {} has no field '{}' (its fields: {})", where(f.path, x), x.name,
                                   op, x.name, field_list(fs)));
    const bool want_int = it->second.second;
    if (want_int != (x.type == FieldType::ip))
      throw InputError(fmt::format("{}: '{}': field {} of op {} is {}, not {}", where(f.path, x), to_string(x.type),
                                   x.name, op, want_int ? "an integer (ip)" : "real (fp or dp)", to_string(x.type)));
    return it->second.first;
  };

  Layout l;
  l.arch = a.arch;
  l.path = f.path;
  for (const auto& o : fs) l.operands.push_back({o.operand, {}});
  std::map<std::string, std::string> placed;  // field -> where it was placed
  std::map<std::string, std::string> struct_names;
  for (const auto& s : a.structs) {
    if (auto it = struct_names.find(s.name); it != struct_names.end())
      throw InputError(fmt::format("{}: '{}': struct {} is already defined at {}", where(f.path, s), s.name,
                                   s.name, it->second));
    struct_names[s.name] = place(s);
    PlacedGroup g;
    g.name = s.name;
    g.is_struct = true;
    g.aosoa = s.block != 0;
    g.block = s.block ? s.block : 1;
    g.width = s.fields.size();
    std::size_t operand = fs.size();
    for (const auto& x : s.fields) {
      const std::size_t o = check_field(x);
      if (auto it = placed.find(x.name); it != placed.end())
        throw InputError(fmt::format("{}: '{}': field {} is in two structs (also at {}): a field has one place",
                                     where(f.path, x), x.name, x.name, it->second));
      placed[x.name] = x.line > 0 || !x.key.empty() ? place(x) : place(s);
      if (operand != fs.size() && operand != o)
        throw InputError(fmt::format("{}: '{}': struct {} mixes fields of operands {} and {}", where(f.path, x),
                                     x.name, s.name, fs[operand].operand, fs[o].operand));
      operand = o;
      g.fields.push_back(x.name);
    }
    l.operands[operand].groups.push_back(std::move(g));
  }
  for (std::size_t o = 0; o < fs.size(); ++o)
    for (const auto& x : fs[o].fields)
      if (!placed.count(x)) l.operands[o].groups.push_back({x, {x}, 1, 1, false, false});
  std::set<std::string> staged;
  for (const auto& e : a.scratch) {
    check_field(e.field);
    if (staged.count(e.field.name))
      throw InputError(fmt::format("{}: '{}': field {} is staged twice", where(f.path, e.field), e.field.name,
                                   e.field.name));
    staged.insert(e.field.name);
    if (!l.scratch.empty() && l.scratch.front().tile != e.tile)
      throw InputError(fmt::format("{}: '{}': tile {} differs from the {} of field {}: the staged fields share one tile",
                                   where(f.path, e.field), e.tile, e.tile, l.scratch.front().tile,
                                   l.scratch.front().field.name));
    l.scratch.push_back(e);
  }
  return l;
}

std::string layout_accessors(const Layout& l, const FieldSet& fs) {
  std::string s = fmt::format("// hetbench layout '{}' (arch {}): {}\n", l.name, l.arch, l.describe());
  for (const auto& o : l.operands) {
    const std::string op = upper(o.operand);
    bool is_int = false;
    std::string count = "n";
    for (const auto& x : fs)
      if (x.operand == o.operand) {
        is_int = x.is_int;
        count = x.count;
      }
    const char* word = is_int ? "int" : "REAL";
    // Region starts depend on the record count: the kernel's argument `count`.
    std::string base = "0";
    for (std::size_t g = 0; g < o.groups.size(); ++g) {
      const auto& grp = o.groups[g];
      const std::string tname = fmt::format("hb_{}_{}_t", o.operand, grp.name);
      if (grp.is_struct) {
        s += "typedef struct {";
        for (const auto& x : grp.fields)
          s += grp.aosoa ? fmt::format(" {} {}[{}];", word, x, grp.block) : fmt::format(" {} {};", word, x);
        s += fmt::format(" }} {};\n", tname);
      }
      for (std::size_t k = 0; k < grp.fields.size(); ++k) {
        const std::string acc = fmt::format("{}_{}", op, upper(grp.fields[k]));
        if (!grp.is_struct)
          s += fmt::format("#define {}(i) ({}[({}) + (i)])\n", acc, o.operand, base);
        else if (!grp.aosoa)
          s += fmt::format("#define {}(i) (((HB_GLOBAL_PTR {}*)({} + ({})))[(i)].{})\n", acc, tname, o.operand, base,
                           grp.fields[k]);
        else
          s += fmt::format("#define {}(i) (((HB_GLOBAL_PTR {}*)({} + ({})))[(i) / {}].{}[(i) % {}])\n", acc, tname,
                           o.operand, base, grp.block, grp.fields[k], grp.block);
      }
      base = fmt::format("{} + ({} + {}) / {} * {}", base == "0" ? std::string() : base, count, grp.block - 1, grp.block,
                         grp.block * grp.width);
      if (base.rfind(" + ", 0) == 0) base = base.substr(3);
    }
  }
  if (l.scratch.empty()) return s;
  // The staged fields of one record side by side, aligned so that an entry of 2 or 4 reals
  // is one vector load from local memory (what every work-item of a group reads at once).
  std::string members;
  bool all_real = true;
  for (const auto& e : l.scratch) {
    all_real = all_real && e.field.type != FieldType::ip;
    members += fmt::format(" {} {};", e.field.type == FieldType::ip ? "int" : "REAL", e.field.name);
  }
  const std::size_t k = l.scratch.size();
  const std::string align = all_real && (k == 2 || k == 4)
                                ? fmt::format("__attribute__((aligned({} * sizeof(REAL)))) ", k)
                                : std::string();
  s += "typedef struct " + align + "{" + members + " } hb_sp_t;\n";
  s += fmt::format("#define HB_SP_TILE {}\n#define HB_SP_DECL HB_LOCAL_MEM hb_sp_t hb_sp[{}];", l.scratch.front().tile,
                   l.scratch.front().tile);
  s += "\n#define HB_SP_FILL(j, src) do {";
  std::map<std::string, std::string> acc_of;  // field -> OPERAND_FIELD
  for (const auto& o : fs)
    for (const auto& x : o.fields) acc_of[x] = fmt::format("{}_{}", upper(o.operand), upper(x));
  for (const auto& e : l.scratch) s += fmt::format(" hb_sp[(j)].{} = {}(src);", e.field.name, acc_of[e.field.name]);
  s += " } while (0)\n";
  for (const auto& [field, acc] : acc_of) {
    const std::string& x = field;  // clang 14 cannot capture a structured binding
    bool st = std::any_of(l.scratch.begin(), l.scratch.end(), [&](const ScratchEntry& e) { return e.field.name == x; });
    s += st ? fmt::format("#define TILE_{}(j, src) (hb_sp[(j)].{})\n", acc, x)
            : fmt::format("#define TILE_{}(j, src) {}(src)\n", acc, acc);
  }
  return s;
}

namespace {

// Calls copy(word of record i, i) for each of the n records of one field: word by word,
// as the conversion happens once per problem, off the timed path.
template <class Copy>
void each_word(const OperandLayout& ol, const std::string& field, std::size_t n, Copy copy) {
  auto [g, k] = ol.find(field);
  const auto& grp = ol.groups[g];
  const std::size_t b = ol.base(g, n);
  for (std::size_t i = 0; i < n; ++i) copy(b + (i / grp.block) * grp.block * grp.width + k * grp.block + i % grp.block, i);
}

}  // namespace

void scatter_field(const OperandLayout& ol, const std::string& field, std::size_t n, std::size_t elem,
                   const unsigned char* src, unsigned char* buffer) {
  each_word(ol, field, n, [&](std::size_t w, std::size_t i) { std::memcpy(buffer + w * elem, src + i * elem, elem); });
}

void gather_field(const OperandLayout& ol, const std::string& field, std::size_t n, std::size_t elem,
                  const unsigned char* buffer, unsigned char* out) {
  each_word(ol, field, n, [&](std::size_t w, std::size_t i) { std::memcpy(out + i * elem, buffer + w * elem, elem); });
}

}  // namespace hetbench
