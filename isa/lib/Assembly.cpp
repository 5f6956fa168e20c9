//===- Assembly.cpp - Assembler, disassembler, generated tables -----------===//
#include "systole/ISA/Assembly.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

using namespace systole::isa;
using llvm::createStringError;
using llvm::inconvertibleErrorCode;

namespace {
const char *kDepNames[4] = {"pop_prev", "pop_next", "push_prev", "push_next"};

std::string formatF32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", f);
  float back = std::strtof(buf, nullptr);
  uint32_t backBits;
  std::memcpy(&backBits, &back, 4);
  if (backBits == bits && std::strchr(buf, 'n') == nullptr) // not nan/inf
    return buf;
  std::snprintf(buf, sizeof buf, "0x%08x", bits);
  return buf;
}

std::optional<uint32_t> parseF32(llvm::StringRef s) {
  if (s.starts_with_insensitive("0x")) {
    uint64_t v;
    if (s.getAsInteger(0, v) || v > 0xffffffffu)
      return std::nullopt;
    return static_cast<uint32_t>(v);
  }
  std::string str = s.str();
  char *end = nullptr;
  float f = std::strtof(str.c_str(), &end);
  if (str.empty() || *end)
    return std::nullopt;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

std::string quote(llvm::StringRef s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c < 0x20 || c >= 0x7f) {
      out += llvm::formatv("\\x{0:x-2}", unsigned(c)).str();
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string hexBytes(llvm::ArrayRef<uint8_t> b) {
  if (b.empty())
    return "\"\"";
  return llvm::toHex(b, /*LowerCase=*/true);
}

struct Token {
  std::string text;
  unsigned col; // 1-based
  bool quoted = false;
};

// --- line tokenizer ----------------------------------------------------------
llvm::Expected<std::vector<Token>> tokenize(llvm::StringRef line,
                                            unsigned &errCol) {
  std::vector<Token> toks;
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == ';' || c == '#')
      break;
    Token t;
    t.col = i + 1;
    // A token is a run of non-space characters, in which "..." quotes may
    // appear (e.g. a whole quoted name, or key="value").
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' &&
           line[i] != '\r' && line[i] != ';' && line[i] != '#') {
      if (line[i] != '"') {
        t.text += line[i++];
        continue;
      }
      t.quoted = true;
      size_t start = i++;
      bool closed = false;
      while (i < line.size()) {
        char d = line[i];
        if (d == '"') {
          closed = true;
          ++i;
          break;
        }
        if (d == '\\' && i + 1 < line.size()) {
          char e = line[i + 1];
          if (e == 'x') {
            unsigned v;
            if (i + 4 > line.size() ||
                line.substr(i + 2, 2).getAsInteger(16, v)) {
              errCol = i + 1;
              return createStringError(inconvertibleErrorCode(),
                                       "bad \\x escape");
            }
            t.text += char(v);
            i += 4;
            continue;
          }
          t.text += e;
          i += 2;
          continue;
        }
        t.text += d;
        ++i;
      }
      if (!closed) {
        errCol = start + 1;
        return createStringError(inconvertibleErrorCode(),
                                 "unterminated string");
      }
    }
    toks.push_back(std::move(t));
  }
  return toks;
}

class Parser {
public:
  Parser(llvm::StringRef name) : name(name) {}
  llvm::Error fail(unsigned line, unsigned col, const llvm::Twine &msg) {
    return createStringError(
        inconvertibleErrorCode(),
        llvm::formatv("{0}:{1}:{2}: error: {3}", name, line, col, msg.str())
            .str());
  }
  llvm::StringRef name;
};

template <typename T> bool parseInt(llvm::StringRef s, T &out) {
  return !s.getAsInteger(0, out);
}

// "[1,2,3]" or "[]"
template <typename T> bool parseList(llvm::StringRef s, std::vector<T> &out) {
  if (!s.consume_front("[") || !s.consume_back("]"))
    return false;
  out.clear();
  if (s.empty())
    return true;
  llvm::SmallVector<llvm::StringRef, 8> parts;
  s.split(parts, ',');
  for (llvm::StringRef p : parts) {
    T v;
    if (!parseInt(p.trim(), v))
      return false;
    out.push_back(v);
  }
  return true;
}

template <typename T> std::string printList(const std::vector<T> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

bool parseHex(llvm::StringRef s, std::vector<uint8_t> &out) {
  out.clear();
  if (s.size() % 2)
    return false;
  std::string bytes;
  if (!llvm::tryGetFromHex(s, bytes))
    return false;
  out.assign(bytes.begin(), bytes.end());
  return true;
}

// Parses `mnemonic key=value...` from tokens; errors carry token columns.
llvm::Expected<Instruction> parseInstructionTokens(llvm::ArrayRef<Token> toks,
                                                   unsigned &errCol) {
  auto err = [&](unsigned col, const llvm::Twine &msg) {
    errCol = col;
    return createStringError(inconvertibleErrorCode(), msg.str());
  };
  auto op = opcodeByMnemonic(toks[0].text);
  if (!op)
    return err(toks[0].col, "unknown instruction '" + toks[0].text + "'");
  Instruction I(*op);
  Deps deps;
  std::set<std::string> seen;
  for (const Token &t : toks.drop_front()) {
    auto [key, value] = llvm::StringRef(t.text).split('=');
    if (!llvm::StringRef(t.text).contains('='))
      return err(t.col, "expected field=value, got '" + t.text + "'");
    if (!seen.insert(key.str()).second)
      return err(t.col, "duplicate field '" + key + "'");
    unsigned valueCol = t.col + key.size() + 1;
    for (int d = 0; d < 4; ++d) {
      if (key != kDepNames[d])
        continue;
      if (value != "0" && value != "1")
        return err(valueCol, llvm::Twine(kDepNames[d]) + " must be 0 or 1");
      bool v = value == "1";
      (d == 0   ? deps.popPrev
       : d == 1 ? deps.popNext
       : d == 2 ? deps.pushPrev
                : deps.pushNext) = v;
      goto nextToken;
    }
    {
      auto f = fieldByName(*op, key);
      if (!f)
        return err(t.col, llvm::formatv("unknown field '{0}' for {1}", key,
                                        opcodeInfo(*op).mnemonic));
      const FieldInfo &fi = fieldInfo(*f);
      switch (fi.kind) {
      case FieldKind::ENUM: {
        auto v = enumValue(fi.enumType, value);
        if (!v) {
          std::string allowed;
          for (const EnumInfo &e : allEnumValues())
            if (e.type == fi.enumType)
              allowed += (allowed.empty() ? "" : ", ") + std::string(e.name);
          return err(valueCol,
                     llvm::formatv(
                         "invalid value '{0}' for {1} (expected one of: {2})",
                         value, key, allowed));
        }
        I.set(*f, *v);
        break;
      }
      case FieldKind::F32: {
        auto bits = parseF32(value);
        if (!bits)
          return err(valueCol, "expected a float or 0x bit pattern for " + key);
        I.setRaw(*f, *bits);
        break;
      }
      default: {
        if (fi.width == 64 && fi.kind == FieldKind::U) {
          uint64_t v;
          if (!parseInt(value, v))
            return err(valueCol, "expected an unsigned integer for " + key);
          I.setRaw(*f, v);
          break;
        }
        int64_t v;
        if (!parseInt(value, v))
          return err(valueCol, "expected an integer for " + key);
        if (!Instruction::fits(*f, v))
          return err(valueCol,
                     llvm::formatv("value {0} does not fit {1} ({2}-bit {3})",
                                   v, key, unsigned(fi.width),
                                   fieldKindName(fi.kind)));
        I.set(*f, v);
      }
      }
    }
  nextToken:;
  }
  I.setDeps(deps);
  // Reuse the decoder's structural checks (dependency flags vs. queue).
  auto checked = decodeInstruction(I.encode());
  if (!checked)
    return err(toks[0].col, llvm::toString(checked.takeError()));
  return I;
}
} // namespace

std::string systole::isa::printInstruction(const Instruction &I) {
  std::string s = opcodeInfo(I.opcode()).mnemonic;
  Deps d = I.deps();
  bool flags[4] = {d.popPrev, d.popNext, d.pushPrev, d.pushNext};
  for (int i = 0; i < 4; ++i)
    if (flags[i])
      s += std::string(" ") + kDepNames[i] + "=1";
  for (Field f : fieldsOf(I.opcode())) {
    const FieldInfo &fi = fieldInfo(f);
    uint64_t raw = I.raw(f);
    if (raw == 0 && fi.kind != FieldKind::ENUM)
      continue;
    s += std::string(" ") + fi.name + "=";
    switch (fi.kind) {
    case FieldKind::ENUM:
      s += enumName(fi.enumType, raw) ? enumName(fi.enumType, raw) : "?";
      break;
    case FieldKind::F32:
      s += formatF32(static_cast<uint32_t>(raw));
      break;
    case FieldKind::S:
      s += std::to_string(I.get(f));
      break;
    default:
      s += std::to_string(raw);
      break;
    }
  }
  return s;
}

llvm::Expected<Instruction>
systole::isa::parseInstruction(llvm::StringRef text) {
  unsigned col = 1;
  auto toks = tokenize(text, col);
  if (!toks)
    return createStringError(inconvertibleErrorCode(), "column %u: %s", col,
                             llvm::toString(toks.takeError()).c_str());
  if (toks->empty())
    return createStringError(inconvertibleErrorCode(), "empty instruction");
  auto I = parseInstructionTokens(*toks, col);
  if (!I)
    return createStringError(inconvertibleErrorCode(), "column %u: %s", col,
                             llvm::toString(I.takeError()).c_str());
  return I;
}

std::string systole::isa::printProgramAsm(const Program &p) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "; Systole NPU assembly (format " << p.versionMajor << "."
     << p.versionMinor << ")\n";
  if (!p.producer.empty())
    os << ".producer " << quote(p.producer) << "\n";
  os << ".hw " << quote(p.config.name) << "\n";
  os << ".dram_size " << p.memoryPlan.dramSize << "\n";
  for (const MemoryRegion &r : p.memoryPlan.regions)
    os << ".region " << quote(r.name) << " " << regionKindName(r.kind) << " "
       << r.offset << " " << r.size << "\n";
  for (const TensorDesc &t : p.tensors) {
    os << ".tensor " << quote(t.name) << " " << tensorKindName(t.kind) << " "
       << dtypeName(t.dtype) << " " << printList(t.shape) << " " << t.dramOffset
       << " " << t.sizeBytes;
    if (t.quant) {
      os << " scales=[";
      for (size_t i = 0; i < t.quant->scales.size(); ++i) {
        uint32_t bits;
        std::memcpy(&bits, &t.quant->scales[i], 4);
        os << (i ? "," : "") << formatF32(bits);
      }
      os << "] zero_points=" << printList(t.quant->zeroPoints)
         << " axis=" << t.quant->axis;
    }
    os << "\n";
  }
  for (const ConstantSegment &c : p.constants)
    os << ".const " << quote(c.name) << " " << c.dramOffset << " "
       << hexBytes(c.data) << "\n";
  for (const Segment &s : p.segments) {
    if (s.isNpu()) {
      os << ".segment " << quote(s.name) << "\n";
      for (const Instruction &I : s.npu().instructions)
        os << "  " << printInstruction(I) << "\n";
    } else {
      const HostSegment &h = s.host();
      os << ".host " << quote(s.name) << " " << hostCodeKindName(h.kind) << " "
         << quote(h.entry) << " " << printList(h.args) << " "
         << hexBytes(h.code);
      if (!h.params.empty())
        os << " " << printList(h.params);
      if (h.ops)
        os << " ops=" << h.ops;
      os << "\n";
    }
  }
  for (const LayerDebugInfo &l : p.layers)
    os << ".layer " << quote(l.name) << " " << l.segment << " "
       << l.firstInstruction << " " << l.instructionCount << "\n";
  for (const OpPlacement &o : p.placement)
    os << ".placement " << quote(o.name) << " " << quote(o.op) << " "
       << (o.onHost ? "host" : "npu") << " " << o.macs << " " << quote(o.reason)
       << " " << quote(o.note) << "\n";
  if (!p.hostLibrary.empty())
    os << ".host_library " << hexBytes(p.hostLibrary) << "\n";
  return out;
}

llvm::Expected<Program>
systole::isa::parseProgramAsm(llvm::StringRef text, const HwConfig &config,
                              llvm::StringRef bufferName) {
  Parser P(bufferName);
  Program prog;
  prog.config = config;
  prog.memoryPlan.dramSize = config.dram.capacityBytes;
  Segment *current = nullptr;
  llvm::SmallVector<llvm::StringRef, 0> lines;
  text.split(lines, '\n');
  for (unsigned ln = 1; ln <= lines.size(); ++ln) {
    unsigned col = 1;
    auto toksOr = tokenize(lines[ln - 1], col);
    if (!toksOr)
      return P.fail(ln, col, llvm::toString(toksOr.takeError()));
    std::vector<Token> &toks = *toksOr;
    if (toks.empty())
      continue;
    llvm::StringRef head = toks[0].text;
    auto need = [&](size_t n, const char *usage) -> llvm::Error {
      if (toks.size() < n + 1)
        return P.fail(ln, toks.back().col + toks.back().text.size(),
                      llvm::formatv("{0} expects: {0} {1}", head, usage));
      return llvm::Error::success();
    };
    auto num = [&](size_t i, uint64_t &v) -> llvm::Error {
      if (!parseInt(llvm::StringRef(toks[i].text), v))
        return P.fail(ln, toks[i].col,
                      "expected an unsigned integer, got '" + toks[i].text +
                          "'");
      return llvm::Error::success();
    };
    if (head.starts_with(".") && !toks[0].quoted) {
      if (head == ".producer") {
        if (auto e = need(1, "\"text\""))
          return std::move(e);
        prog.producer = toks[1].text;
      } else if (head == ".hw") {
        if (auto e = need(1, "\"config-name\""))
          return std::move(e);
        if (toks[1].text != config.name)
          return P.fail(
              ln, toks[1].col,
              llvm::formatv(
                  "program was written for hardware config '{0}', but the "
                  "given config is '{1}'",
                  toks[1].text, config.name));
      } else if (head == ".dram_size") {
        if (auto e = need(1, "BYTES"))
          return std::move(e);
        if (auto e = num(1, prog.memoryPlan.dramSize))
          return std::move(e);
      } else if (head == ".region") {
        if (auto e = need(4, "\"name\" KIND OFFSET SIZE"))
          return std::move(e);
        MemoryRegion r;
        r.name = toks[1].text;
        auto k = regionKindByName(toks[2].text);
        if (!k)
          return P.fail(ln, toks[2].col,
                        "unknown region kind '" + toks[2].text +
                            "' (constants, io, activations, scratch)");
        r.kind = *k;
        if (auto e = num(3, r.offset))
          return std::move(e);
        if (auto e = num(4, r.size))
          return std::move(e);
        prog.memoryPlan.regions.push_back(r);
      } else if (head == ".tensor") {
        if (auto e =
                need(6, "\"name\" KIND DTYPE [SHAPE] OFFSET SIZE [scales=[..] "
                        "zero_points=[..] axis=N]"))
          return std::move(e);
        TensorDesc t;
        t.name = toks[1].text;
        auto k = tensorKindByName(toks[2].text);
        if (!k)
          return P.fail(ln, toks[2].col,
                        "unknown tensor kind '" + toks[2].text + "'");
        t.kind = *k;
        auto d = dtypeByName(toks[3].text);
        if (!d)
          return P.fail(ln, toks[3].col,
                        "unknown dtype '" + toks[3].text +
                            "' (int8, uint8, int32, float32)");
        t.dtype = *d;
        if (!parseList(llvm::StringRef(toks[4].text), t.shape))
          return P.fail(ln, toks[4].col, "expected a shape like [1,3,224,224]");
        if (auto e = num(5, t.dramOffset))
          return std::move(e);
        if (auto e = num(6, t.sizeBytes))
          return std::move(e);
        for (size_t i = 7; i < toks.size(); ++i) {
          if (!t.quant)
            t.quant = QuantParams();
          auto [key, value] = llvm::StringRef(toks[i].text).split('=');
          unsigned vcol = toks[i].col + key.size() + 1;
          if (key == "scales") {
            if (!value.consume_front("[") || !value.consume_back("]"))
              return P.fail(ln, vcol, "expected scales=[f,f,...]");
            llvm::SmallVector<llvm::StringRef, 8> parts;
            if (!value.empty())
              value.split(parts, ',');
            for (llvm::StringRef s : parts) {
              auto bits = parseF32(s.trim());
              if (!bits)
                return P.fail(ln, vcol, "bad float '" + s + "'");
              float f;
              std::memcpy(&f, &*bits, 4);
              t.quant->scales.push_back(f);
            }
          } else if (key == "zero_points") {
            if (!parseList(value, t.quant->zeroPoints))
              return P.fail(ln, vcol, "expected zero_points=[i,i,...]");
          } else if (key == "axis") {
            if (!parseInt(value, t.quant->axis))
              return P.fail(ln, vcol, "expected axis=N");
          } else {
            return P.fail(ln, toks[i].col,
                          "unknown tensor attribute '" + key + "'");
          }
        }
        prog.tensors.push_back(std::move(t));
      } else if (head == ".host_library") {
        if (auto e = need(1, "HEXBYTES"))
          return std::move(e);
        if (!parseHex(toks[1].text, prog.hostLibrary))
          return P.fail(ln, toks[1].col, "expected hex bytes");
      } else if (head == ".const") {
        if (auto e = need(3, "\"name\" OFFSET HEXBYTES"))
          return std::move(e);
        ConstantSegment c;
        c.name = toks[1].text;
        if (auto e = num(2, c.dramOffset))
          return std::move(e);
        if (!parseHex(toks[3].text, c.data))
          return P.fail(ln, toks[3].col, "expected hex bytes");
        prog.constants.push_back(std::move(c));
      } else if (head == ".segment") {
        if (auto e = need(1, "\"name\""))
          return std::move(e);
        prog.segments.push_back({toks[1].text, NpuSegment()});
        current = &prog.segments.back();
      } else if (head == ".host") {
        if (auto e = need(5, "\"name\" KIND \"entry\" [ARGS] HEXCODE"))
          return std::move(e);
        HostSegment h;
        auto k = hostCodeKindByName(toks[2].text);
        if (!k)
          return P.fail(ln, toks[2].col,
                        "unknown host code kind '" + toks[2].text +
                            "' (cpu_object, ptx, builtin)");
        h.kind = *k;
        h.entry = toks[3].text;
        if (!parseList(llvm::StringRef(toks[4].text), h.args))
          return P.fail(ln, toks[4].col, "expected tensor indices like [0,1]");
        if (!parseHex(toks[5].text, h.code))
          return P.fail(ln, toks[5].col, "expected hex bytes");
        // Optional: the parameter list, then ops=N (format 1.2).
        for (size_t t = 6; t < toks.size(); ++t) {
          llvm::StringRef text(toks[t].text);
          if (text.consume_front("ops=")) {
            if (text.getAsInteger(10, h.ops))
              return P.fail(ln, toks[t].col, "expected ops=N");
          } else if (t != 6 || !parseList(text, h.params)) {
            return P.fail(ln, toks[t].col,
                          "expected parameters like [0,2,3,1] or ops=N");
          }
        }
        prog.segments.push_back({toks[1].text, std::move(h)});
        current = nullptr;
      } else if (head == ".layer") {
        if (auto e = need(4, "\"name\" SEGMENT FIRST COUNT"))
          return std::move(e);
        uint64_t s, f, c;
        if (auto e = num(2, s))
          return std::move(e);
        if (auto e = num(3, f))
          return std::move(e);
        if (auto e = num(4, c))
          return std::move(e);
        if (s > UINT32_MAX || f > UINT32_MAX || c > UINT32_MAX)
          return P.fail(ln, toks[2].col, "value out of range");
        prog.layers.push_back(
            {toks[1].text, uint32_t(s), uint32_t(f), uint32_t(c)});
      } else if (head == ".placement") {
        if (auto e = need(6, "\"name\" \"op\" npu|host MACS \"reason\" "
                             "\"note\""))
          return std::move(e);
        OpPlacement o;
        o.name = toks[1].text;
        o.op = toks[2].text;
        if (toks[3].text != "npu" && toks[3].text != "host")
          return P.fail(ln, toks[3].col,
                        "expected npu or host, got '" + toks[3].text + "'");
        o.onHost = toks[3].text == "host";
        if (auto e = num(4, o.macs))
          return std::move(e);
        o.reason = toks[5].text;
        o.note = toks[6].text;
        prog.placement.push_back(std::move(o));
      } else {
        return P.fail(ln, toks[0].col, "unknown directive '" + head + "'");
      }
      continue;
    }
    if (!current) {
      prog.segments.push_back({"main", NpuSegment()});
      current = &prog.segments.back();
    }
    unsigned errCol = 1;
    auto I = parseInstructionTokens(toks, errCol);
    if (!I)
      return P.fail(ln, errCol, llvm::toString(I.takeError()));
    current->npu().instructions.push_back(*I);
  }
  return prog;
}

std::string systole::isa::emitInstructionTableMarkdown() {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "| opcode | mnemonic | queue | field | word | bits | kind | meaning |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const OpcodeInfo &o : allOpcodes()) {
    os << llvm::formatv(
        "| 0x{0:x-2} | `{1}` | {2} | (header) | 0 | [11:0] | | {3} |\n",
        unsigned(o.opcode), o.mnemonic,
        o.queue == Queue::Selected ? "`queue` field" : queueName(o.queue),
        o.summary);
    for (Field f : fieldsOf(o.opcode)) {
      const FieldInfo &fi = fieldInfo(f);
      std::string kind = fieldKindName(fi.kind).str();
      if (fi.kind == FieldKind::ENUM) {
        kind += ":";
        for (const EnumInfo &e : allEnumValues())
          if (e.type == fi.enumType)
            kind += llvm::formatv(" {0}={1}", e.name, unsigned(e.value)).str();
      }
      os << llvm::formatv("| | | | `{0}` | {1} | [{2}:{3}] | {4} | {5} |\n",
                          fi.name, unsigned(fi.word), fi.lsb + fi.width - 1,
                          unsigned(fi.lsb), kind, fi.summary);
    }
  }
  return out;
}

std::string systole::isa::emitSystemVerilogPackage() {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "// Generated from isa/include/systole/ISA/Instructions.def. Do not "
        "edit.\n"
        "package systole_isa_pkg;\n"
        "  localparam int INSTR_BITS = 512;\n";
  for (const OpcodeInfo &o : allOpcodes())
    os << llvm::formatv("  localparam logic [7:0] OP_{0} = 8'h{1:x-2};\n",
                        llvm::StringRef(o.mnemonic).upper(),
                        unsigned(o.opcode));
  for (const EnumInfo &e : allEnumValues())
    os << llvm::formatv("  localparam int {0}_{1} = {2};\n",
                        llvm::StringRef(enumTypeName(e.type)).upper(),
                        llvm::StringRef(e.name).upper(), unsigned(e.value));
  for (const FieldInfo &fi : allFields()) {
    std::string base =
        (llvm::StringRef(opcodeInfo(fi.opcode).mnemonic).upper() + "_" +
         llvm::StringRef(fi.name).upper());
    unsigned lsb = fi.word * 64 + fi.lsb;
    os << llvm::formatv(
        "  localparam int {0}_LSB = {1};\n  localparam int {0}_W = {2};\n",
        base, lsb, unsigned(fi.width));
  }
  os << "endpackage\n";
  return out;
}
