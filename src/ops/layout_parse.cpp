// Reading layout files: the text grammar of Majeti et al. (Arch, Struct, Scratchpad
// local) with hetbench's AoSoA extension, and its JSON equivalent.
#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hetbench/error.hpp"
#include "ops/layout.hpp"
#include "util/json_file.hpp"

namespace hetbench {

const char* to_string(FieldType t) {
  switch (t) {
    case FieldType::fp: return "fp";
    case FieldType::dp: return "dp";
    case FieldType::ip: return "ip";
  }
  return "?";
}

namespace {

struct Token {
  std::string text;
  int line = 0;
};

std::vector<Token> tokenize(const std::string& text) {
  std::vector<Token> out;
  std::istringstream in(text);
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string w;
    while (words >> w) out.push_back({w, no});
  }
  return out;
}

bool is_keyword(const std::string& w) {
  return w == "Arch" || w == "Struct" || w == "AoSoA" || w == "Scratchpad";
}

class TextParser {
 public:
  TextParser(const std::string& text, const std::string& path) : toks_(tokenize(text)), path_(path) {}

  LayoutFile parse() {
    LayoutFile f;
    f.path = path_;
    while (pos_ < toks_.size()) {
      const Token& t = toks_[pos_++];
      if (t.text == "Arch") {
        ArchLayout a;
        a.line = t.line;
        a.arch = name(t, "an architecture name after Arch");
        // A second section of one name would never be measured, yet lend the first its label.
        for (const auto& o : f.archs)
          if (o.arch == a.arch) fail(t, fmt::format("Arch '{}' again: its first section is on line {}", a.arch, o.line));
        f.archs.push_back(std::move(a));
        continue;
      }
      if (!is_keyword(t.text))
        fail(t, "expected Arch, Struct, AoSoA or Scratchpad (AoSoA is hetbench's extension)");
      if (f.archs.empty()) fail(t, "the file must start with 'Arch NAME'");
      ArchLayout& a = f.archs.back();
      if (t.text == "Struct" || t.text == "AoSoA") {
        LayoutStruct s;
        s.line = t.line;
        s.name = name(t, fmt::format("a struct name after {}", t.text));
        if (t.text == "AoSoA") s.block = count(t, "the block width after 'AoSoA NAME'");
        while (pos_ < toks_.size() && toks_[pos_].text == "Field") s.fields.push_back(field(toks_[pos_++]));
        if (s.fields.empty()) fail(t, fmt::format("{} '{}' has no 'Field TYPE NAME'", t.text, s.name));
        a.structs.push_back(std::move(s));
      } else {  // Scratchpad local Field TYPE NAME TILESIZE LINE
        const Token& kind = next(t, "'local' after Scratchpad");
        if (kind.text != "local") fail(kind, "expected 'local' after Scratchpad (the only scratchpad hetbench has)");
        const Token& fw = next(kind, "'Field' after 'Scratchpad local'");
        if (fw.text != "Field") fail(fw, "expected 'Field TYPE NAME TILESIZE LINE' after 'Scratchpad local'");
        ScratchEntry e;
        e.field = field(fw);
        e.tile = count(t, "the tile size (records) after the scratchpad field");
        e.at = static_cast<long long>(count(t, "the LINE after the tile size"));
        a.scratch.push_back(std::move(e));
      }
    }
    if (f.archs.empty()) throw InputError(fmt::format("{}:1: empty layout file: expected 'Arch NAME'", path_));
    return f;
  }

 private:
  std::vector<Token> toks_;
  std::string path_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const Token& t, const std::string& why) const {
    throw InputError(fmt::format("{}:{}: '{}': {}", path_, t.line, t.text, why));
  }
  const Token& next(const Token& after, const std::string& what) {
    if (pos_ >= toks_.size()) fail(toks_.back(), fmt::format("expected {}, but the file ends here", what));
    if (is_keyword(toks_[pos_].text)) fail(toks_[pos_], fmt::format("expected {}", what));
    (void)after;
    return toks_[pos_++];
  }
  std::string name(const Token& after, const std::string& what) {
    const Token& t = next(after, what);
    bool ok = std::isalpha(static_cast<unsigned char>(t.text[0])) || t.text[0] == '_';
    for (char c : t.text) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok) fail(t, fmt::format("expected {} (letters, digits, _)", what));
    return t.text;
  }
  std::size_t count(const Token& after, const std::string& what) {
    const Token& t = next(after, what);
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(t.text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.text.size() || v < 1) fail(t, fmt::format("expected {}: a positive integer", what));
    return static_cast<std::size_t>(v);
  }
  LayoutField field(const Token& fw) {
    LayoutField f;
    f.line = fw.line;
    const Token& ty = next(fw, "TYPE (fp, dp or ip) after Field");
    if (ty.text == "fp") f.type = FieldType::fp;
    else if (ty.text == "dp") f.type = FieldType::dp;
    else if (ty.text == "ip") f.type = FieldType::ip;
    else fail(ty, "unknown field type: expected fp, dp or ip");
    f.name = name(ty, "a field name after the type");
    return f;
  }
};

FieldType json_type(const nlohmann::json& v, const std::string& where) {
  const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s == "fp") return FieldType::fp;
  if (s == "dp") return FieldType::dp;
  if (s == "ip") return FieldType::ip;
  throw InputError(fmt::format("{}: '{}': unknown field type: expected fp, dp or ip", where, s));
}

std::string json_string(const nlohmann::json& o, const char* key, const std::string& where) {
  if (!o.is_object() || !o.contains(key) || !o[key].is_string())
    throw InputError(fmt::format("{}: key '{}' must be a string", where, key));
  return o[key].get<std::string>();
}

std::size_t json_count(const nlohmann::json& o, const char* key, const std::string& where) {
  if (!o.contains(key) || !o[key].is_number_integer() || o[key].get<long long>() < 1)
    throw InputError(fmt::format("{}: key '{}' must be a positive integer", where, key));
  return o[key].get<std::size_t>();
}

// A misspelt key ("tiel") would leave its value at the default without a word.
void only_keys(const nlohmann::json& o, std::initializer_list<const char*> keys, const std::string& where) {
  if (!o.is_object()) throw InputError(fmt::format("{}: expected an object", where));
  for (auto it = o.begin(); it != o.end(); ++it)
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return it.key() == k; }))
      throw InputError(fmt::format("{}: unknown key '{}'", where, it.key()));
}

LayoutField json_field(const nlohmann::json& j, const std::string& where) {
  return {json_string(j, "name", where), json_type(j.value("type", nlohmann::json("?")), where + ".type"), 0, ""};
}

}  // namespace

LayoutFile parse_layout_text(const std::string& text, const std::string& path) {
  return TextParser(text, path).parse();
}

// {"archs": [{"arch": "gpu", "structs": [{"name": "pos", "block": 8, "fields":
//   [{"type": "fp", "name": "x"}, ...]}], "scratchpad": [{"type": "fp", "name": "x",
//   "tile": 256, "line": 0}]}]}; "block" absent: a Struct, present: AoSoA.
LayoutFile parse_layout_json(const std::string& text, const std::string& path) {
  nlohmann::json j;
  try {
    j = parse_json_text(text, path);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {  // a layout file is an input: exit 2 and the file named, as for the text form
    throw InputError(e.what());
  }
  LayoutFile f;
  f.path = path;
  if (!j.is_object() || !j.contains("archs") || !j["archs"].is_array() || j["archs"].empty())
    throw InputError(fmt::format("{}: key 'archs' must be a non-empty array", path));
  only_keys(j, {"archs"}, path);
  for (std::size_t a = 0; a < j["archs"].size(); ++a) {
    const auto& ja = j["archs"][a];
    const std::string wa = fmt::format("{}: archs[{}]", path, a);
    ArchLayout al;
    only_keys(ja, {"arch", "structs", "scratchpad"}, wa);
    al.arch = json_string(ja, "arch", wa);
    for (const auto& o : f.archs)
      if (o.arch == al.arch) throw InputError(fmt::format("{}: key 'arch': '{}' is named twice", wa, al.arch));
    for (const char* key : {"structs", "scratchpad"})
      if (ja.contains(key) && !ja[key].is_array()) throw InputError(fmt::format("{}: key '{}' must be an array", wa, key));
    std::size_t si = 0;
    for (const auto& js : ja.value("structs", nlohmann::json::array())) {
      const std::string ws = fmt::format("{}.structs[{}]", wa, si++);
      LayoutStruct s;
      s.key = ws.substr(path.size() + 2);
      only_keys(js, {"name", "block", "fields"}, ws);
      s.name = json_string(js, "name", ws);
      if (js.contains("block")) s.block = json_count(js, "block", ws);
      if (!js.contains("fields") || !js["fields"].is_array() || js["fields"].empty())
        throw InputError(fmt::format("{}: key 'fields' must be a non-empty array", ws));
      for (std::size_t k = 0; k < js["fields"].size(); ++k) {
        const auto wf = fmt::format("{}.fields[{}]", ws, k);
        only_keys(js["fields"][k], {"type", "name"}, wf);
        s.fields.push_back(json_field(js["fields"][k], wf));
        s.fields.back().key = wf.substr(path.size() + 2);
      }
      al.structs.push_back(std::move(s));
    }
    std::size_t ei = 0;
    for (const auto& je : ja.value("scratchpad", nlohmann::json::array())) {
      const std::string we = fmt::format("{}.scratchpad[{}]", wa, ei++);
      ScratchEntry e;
      only_keys(je, {"type", "name", "tile", "line"}, we);
      e.field = json_field(je, we);
      e.field.key = we.substr(path.size() + 2);
      e.tile = json_count(je, "tile", we);
      e.at = je.contains("line") && je["line"].is_number_integer() ? je["line"].get<long long>() : 0;
      al.scratch.push_back(std::move(e));
    }
    f.archs.push_back(std::move(al));
  }
  return f;
}

LayoutFile read_layout_file(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const Error& e) {
    throw InputError(e.what());
  }
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  return json ? parse_layout_json(text, path) : parse_layout_text(text, path);
}

std::string to_json_text(const LayoutFile& f) {
  nlohmann::ordered_json archs = nlohmann::ordered_json::array();
  auto field = [](const LayoutField& x) { return nlohmann::ordered_json{{"type", to_string(x.type)}, {"name", x.name}}; };
  for (const auto& a : f.archs) {
    nlohmann::ordered_json ja{{"arch", a.arch}, {"structs", nlohmann::ordered_json::array()}};
    for (const auto& s : a.structs) {
      nlohmann::ordered_json js{{"name", s.name}};
      if (s.block) js["block"] = s.block;
      js["fields"] = nlohmann::ordered_json::array();
      for (const auto& x : s.fields) js["fields"].push_back(field(x));
      ja["structs"].push_back(js);
    }
    ja["scratchpad"] = nlohmann::ordered_json::array();
    for (const auto& e : a.scratch) {
      auto je = field(e.field);
      je["tile"] = e.tile;
      je["line"] = e.at;
      ja["scratchpad"].push_back(je);
    }
    archs.push_back(ja);
  }
  return nlohmann::ordered_json{{"archs", archs}}.dump(2) + "\n";
}

std::string to_layout_text(const LayoutFile& f) {
  std::string out;
  auto field = [](const LayoutField& x) { return fmt::format(" Field {} {}", to_string(x.type), x.name); };
  for (const auto& a : f.archs) {
    out += fmt::format("Arch {}\n", a.arch);
    for (const auto& s : a.structs) {
      out += s.block ? fmt::format("AoSoA {} {}", s.name, s.block) : fmt::format("Struct {}", s.name);
      for (const auto& x : s.fields) out += field(x);
      out += "\n";
    }
    for (const auto& e : a.scratch) out += fmt::format("Scratchpad local{} {} {}\n", field(e.field), e.tile, e.at);
  }
  return out;
}

std::string layout_file_text(const LayoutFile& f, const std::string& path) {
  return path.ends_with(".json") ? to_json_text(f) : to_layout_text(f);
}

}  // namespace hetbench
