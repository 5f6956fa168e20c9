//===- Npy.cpp - Read and write NumPy .npy files --------------------------===//
//
// Only the subset NumPy writes for plain arrays: little-endian or
// byte-order-free dtypes, C order. Everything else is rejected by name, since
// a silently transposed or byte-swapped input would be a wrong answer.
//
//===----------------------------------------------------------------------===//
#include "systole/Support/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using llvm::StringRef;

namespace systole {

static llvm::Error npyError(StringRef what, const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 what + ": " + msg);
}

static bool descrToType(StringRef descr, ElementType &type) {
  // '|' = not applicable (1-byte), '<' = little-endian; '=' native is
  // little-endian on every host we support.
  if (descr.size() < 3 ||
      (descr[0] != '<' && descr[0] != '|' && descr[0] != '='))
    return false;
  StringRef t = descr.drop_front();
  static const std::pair<const char *, ElementType> table[] = {
      {"i1", ElementType::Int8},    {"u1", ElementType::UInt8},
      {"i2", ElementType::Int16},   {"i4", ElementType::Int32},
      {"i8", ElementType::Int64},   {"f4", ElementType::Float32},
      {"f8", ElementType::Float64}, {"b1", ElementType::Bool},
      {"f2", ElementType::Float16}, {"u2", ElementType::UInt16},
      {"u4", ElementType::UInt32},  {"u8", ElementType::UInt64}};
  for (auto &[name, ty] : table)
    if (t == name) {
      type = ty;
      return true;
    }
  return false;
}

static const char *typeToDescr(ElementType type) {
  switch (type) {
  case ElementType::Int8:
    return "|i1";
  case ElementType::UInt8:
    return "|u1";
  case ElementType::Int16:
    return "<i2";
  case ElementType::Int32:
    return "<i4";
  case ElementType::Int64:
    return "<i8";
  case ElementType::Float32:
    return "<f4";
  case ElementType::Float64:
    return "<f8";
  case ElementType::Bool:
    return "|b1";
  case ElementType::Float16:
    return "<f2";
  case ElementType::UInt16:
    return "<u2";
  case ElementType::UInt32:
    return "<u4";
  case ElementType::UInt64:
    return "<u8";
  case ElementType::BFloat16:
    return "<u2"; // numpy has no bfloat16: its 16 bits
  }
  return "|i1";
}

/// Extracts the value text of `'key': value` from the header dict.
static bool headerValue(StringRef header, StringRef key, StringRef &value) {
  std::string quoted = ("'" + key + "'").str();
  size_t pos = header.find(quoted);
  if (pos == StringRef::npos)
    return false;
  StringRef rest = header.drop_front(pos + quoted.size()).ltrim();
  if (!rest.consume_front(":"))
    return false;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    if (close == StringRef::npos)
      return false;
    value = rest.take_front(close + 1);
    return true;
  }
  size_t end = rest.find_first_of(",}");
  if (end == StringRef::npos)
    return false;
  value = rest.take_front(end).trim();
  return true;
}

llvm::Expected<HostTensor> parseNpy(StringRef bytes, StringRef what) {
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return npyError(what, "not a .npy file (missing \\x93NUMPY magic)");
  uint8_t major = bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return npyError(what, "truncated .npy header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    return npyError(what, "unsupported .npy format version " +
                              llvm::Twine(unsigned(major)));
  }
  if (headerStart + headerLen > bytes.size())
    return npyError(what, "truncated .npy header");
  StringRef header = bytes.substr(headerStart, headerLen);

  StringRef descr, fortran, shapeText;
  if (!headerValue(header, "descr", descr) ||
      !headerValue(header, "fortran_order", fortran) ||
      !headerValue(header, "shape", shapeText))
    return npyError(what, "malformed .npy header '" + header.trim() + "'");
  descr = descr.trim("'\"");
  ElementType type;
  if (!descrToType(descr, type))
    return npyError(what, "unsupported dtype '" + descr +
                              "' (expected little-endian int8/uint8/int16/"
                              "int32/int64/float32/float64/bool)");
  if (fortran != "False")
    return npyError(what, "Fortran-order arrays are not supported; save "
                          "with np.ascontiguousarray");

  std::vector<int64_t> shape;
  StringRef dimsText = shapeText.trim("() ");
  while (!dimsText.empty()) {
    auto [dim, rest] = dimsText.split(',');
    dim = dim.trim();
    if (!dim.empty()) {
      int64_t d;
      if (dim.getAsInteger(10, d) || d < 0)
        return npyError(what, "bad dimension '" + dim + "' in shape");
      shape.push_back(d);
    }
    dimsText = rest;
  }
  int64_t n = checkedNumElements(shape);
  if (n < 0)
    return npyError(what, "shape " + shapeText + " is too large");
  size_t dataStart = headerStart + headerLen;
  uint64_t need = uint64_t(n) * elementSize(type);
  if (bytes.size() - dataStart != need)
    return npyError(what, "data size " + llvm::Twine(bytes.size() - dataStart) +
                              " bytes does not match shape " + shapeText +
                              " of " + descr + " (" + llvm::Twine(need) +
                              " bytes)");
  HostTensor t(type, std::move(shape));
  if (need)
    std::memcpy(t.data(), bytes.data() + dataStart, need);
  return t;
}

llvm::Expected<HostTensor> readNpy(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return npyError(path, "cannot read: " + buf.getError().message());
  return parseNpy((*buf)->getBuffer(), path);
}

std::string serializeNpy(const HostTensor &tensor) {
  std::string dict = "{'descr': '";
  dict += typeToDescr(tensor.type());
  dict += "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    dict += std::to_string(tensor.shape()[i]);
    if (tensor.shape().size() == 1 || i + 1 < tensor.shape().size())
      dict += ",";
    if (i + 1 < tensor.shape().size())
      dict += " ";
  }
  dict += "), }";
  // Pad so the data starts on a 64-byte boundary, as NumPy does.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(dict.size() & 0xff);
  out += char(dict.size() >> 8);
  out += dict;
  out.append(reinterpret_cast<const char *>(tensor.data()), tensor.byteSize());
  return out;
}

llvm::Error writeNpy(StringRef path, const HostTensor &tensor) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return npyError(path, "cannot write: " + ec.message());
  os << serializeNpy(tensor);
  return llvm::Error::success();
}

} // namespace systole
