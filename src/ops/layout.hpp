// Data layouts of multi-field records, after Majeti, Meel, Barik and Sarkar, "Automatic
// data layout generation and kernel mapping for CPU+GPU architectures" (the ADHA layout
// file): which fields are grouped into structs (AoS / SoAoS), which stay separate arrays
// (SoA), hetbench's AoSoA extension (structs of blocks of B records), and which fields are
// staged in scratchpad (local / shared) memory. One layout serves every API: the kernels
// name fields through generated accessors, the host through FieldView, and the inputs,
// references and validation only ever see one array per field (docs/layouts.md).
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace hetbench {

enum class FieldType { fp, dp, ip };  // the paper's types: float, double, int
const char* to_string(FieldType t);

struct LayoutField {
  std::string name;
  FieldType type = FieldType::fp;
  int line = 0;     // where the file names it (the text form)
  std::string key;  // or its JSON key, "archs[0].structs[1].fields[2]" (the JSON form)
};

// A Struct (block == 0: AoS of its fields) or an AoSoA group (block == B >= 1).
struct LayoutStruct {
  std::string name;
  std::vector<LayoutField> fields;
  std::size_t block = 0;
  int line = 0;
  std::string key;  // as LayoutField's
};

struct ScratchEntry {
  LayoutField field;
  std::size_t tile = 0;  // records per tile
  long long at = 0;      // the grammar's LINE: the program point the paper stages at (kept, recorded)
};

struct ArchLayout {
  std::string arch;
  int line = 0;
  std::vector<LayoutStruct> structs;
  std::vector<ScratchEntry> scratch;
};

struct LayoutFile {
  std::string path;
  std::vector<ArchLayout> archs;
};

// The text grammar and its JSON equivalent; both throw InputError naming file, line and
// token (JSON: the key). read_layout_file picks by extension (.json or anything else).
LayoutFile parse_layout_text(const std::string& text, const std::string& path);
LayoutFile parse_layout_json(const std::string& text, const std::string& path);
LayoutFile read_layout_file(const std::string& path);
std::string to_json_text(const LayoutFile& f);  // the JSON equivalent of any layout file
std::string to_layout_text(const LayoutFile& f);  // the text grammar of any layout file
// The file's text in the form its path asks for (.json: JSON, else the text grammar).
std::string layout_file_text(const LayoutFile& f, const std::string& path);

// A layout token "FILE#ARCH" split into FILE and the Arch section it names ("" for none):
// the one place that knows the '#' (docs/layouts.md, "Several devices").
struct LayoutToken {
  std::string file, arch;
};
inline LayoutToken split_layout_token(const std::string& token) {
  const auto h = token.rfind('#');
  if (h == std::string::npos) return {token, ""};
  return {token.substr(0, h), token.substr(h + 1)};
}

// What an op's records consist of: each operand a record set of named fields.
struct FieldSetOperand {
  std::string operand;               // the buffer kernels receive (e.g. "body")
  std::vector<std::string> fields;   // its fields in canonical order (e.g. x, y, z, m)
  bool is_int = false;
  std::string count = "n";           // the kernel argument holding its record count (MRI-Q: "nk")
};
using FieldSet = std::vector<FieldSetOperand>;

// One group of one operand placed in memory: `width` fields interleaved in blocks of
// `block` records (block 1: AoS; a lone field with width 1: SoA), starting at word `base`
// for n records. Word of field k of record i: base + (i/block)*block*width + k*block + i%block.
struct PlacedGroup {
  std::string name;  // the struct's name, or the field's for a SoA array
  std::vector<std::string> fields;
  std::size_t width = 1, block = 1;
  bool is_struct = false, aosoa = false;
};

struct OperandLayout {
  std::string operand;
  std::vector<PlacedGroup> groups;  // structs in file order, then the SoA fields
  // words of the operand's buffer for n records, and where group g starts
  std::size_t words(std::size_t n) const;
  std::size_t base(std::size_t g, std::size_t n) const;
  // (group, position) of a field; throws when absent
  std::pair<std::size_t, std::size_t> find(const std::string& field) const;
  std::size_t word(const std::string& field, std::size_t i, std::size_t n) const;
};

struct Layout {
  std::string name, arch, path;
  std::vector<OperandLayout> operands;
  std::vector<ScratchEntry> scratch;
  const OperandLayout& operand(const std::string& name) const;
  // bytes of local memory a work-group needs for the scratchpad tiles
  std::size_t scratch_bytes(std::size_t elem_bytes) const;
  std::string describe() const;  // "pos{x,y,z,m}/8 acc{ax,ay,az} ..." for records
};

// Checks an Arch section against an op's fields (every named field is the op's, none
// twice, types match, structs stay within one operand, one tile size) and places the
// fields it leaves out as SoA arrays. `op` names the op in errors.
Layout resolve_layout(const LayoutFile& f, std::size_t arch_index, const FieldSet& fs, const std::string& op);

// The kernel source text for a layout: struct typedefs and accessor macros
// OPERAND_FIELD(i) (upper case), and for scratchpad entries HB_SP_TILE, HB_SP_DECL,
// HB_SP_FILL(j, src) and TILE_OPERAND_FIELD(j, src). Written with the portable prelude's
// macros, so it serves OpenCL C and CUDA alike; accessors of an operand use the kernel
// argument its FieldSetOperand::count names (n unless the op has two record counts).
std::string layout_accessors(const Layout& l, const FieldSet& fs);

// Host side: one field of n records (words of `elem` bytes) between its own array and the
// operand's buffer in the layout, so that inputs and validation never see the layout.
void scatter_field(const OperandLayout& ol, const std::string& field, std::size_t n, std::size_t elem,
                   const unsigned char* src, unsigned char* buffer);
void gather_field(const OperandLayout& ol, const std::string& field, std::size_t n, std::size_t elem,
                  const unsigned char* buffer, unsigned char* out);

// Element access for host variants: constant stride when block == 1.
template <class T>
struct FieldView {
  T* p = nullptr;
  std::size_t stride = 1, block = 1, width = 1;
  T& operator[](std::size_t i) const {
    return block == 1 ? p[i * stride] : p[(i / block) * block * width + i % block];
  }
};
template <class T>
FieldView<T> field_view(const OperandLayout& ol, const std::string& field, std::size_t n, T* buffer) {
  auto [g, k] = ol.find(field);
  const auto& grp = ol.groups[g];
  FieldView<T> v;
  v.p = buffer + ol.base(g, n) + k * grp.block;
  v.stride = grp.width;
  v.block = grp.block;
  v.width = grp.width;
  return v;
}

}  // namespace hetbench
