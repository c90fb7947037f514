//===- InlineAsmLocation.cpp - The op that wrote a line of inline asm -----===//

#include "kiln/Target/InlineAsmLocation.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace {

/// `s` with runs of white space made one space, trimmed.
std::string squeeze(llvm::StringRef s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (llvm::isSpace(c)) {
      space = !out.empty();
      continue;
    }
    if (space)
      out += ' ';
    space = false;
    out += c;
  }
  return out;
}

/// The literal pieces of one line of an LLVM inline asm template: the text
/// between its operand references (`$N`, `${N}`, `${N:mod}`; `$$` is a
/// literal `$`), each squeezed, empty ones dropped.
llvm::SmallVector<std::string> literalPieces(llvm::StringRef tmpl) {
  llvm::SmallVector<std::string> pieces;
  std::string cur;
  auto flush = [&] {
    std::string s = squeeze(cur);
    if (!s.empty())
      pieces.push_back(std::move(s));
    cur.clear();
  };
  for (size_t i = 0; i < tmpl.size(); ++i) {
    char c = tmpl[i];
    if (c != '$') {
      cur += c;
      continue;
    }
    if (i + 1 < tmpl.size() && tmpl[i + 1] == '$') {
      cur += '$';
      ++i;
      continue;
    }
    flush();
    if (i + 1 < tmpl.size() && tmpl[i + 1] == '{') {
      size_t end = tmpl.find('}', i);
      i = end == llvm::StringRef::npos ? tmpl.size() : end;
    } else {
      while (i + 1 < tmpl.size() && llvm::isDigit(tmpl[i + 1]))
        ++i;
    }
  }
  flush();
  return pieces;
}

/// Characters of `pieces` matched in `text` in order, or 0 when one is
/// missing.
size_t matchInOrder(llvm::StringRef text, llvm::ArrayRef<std::string> pieces) {
  size_t pos = 0, matched = 0;
  for (const std::string &p : pieces) {
    size_t at = text.find(p, pos);
    if (at == llvm::StringRef::npos)
      return 0;
    pos = at + p.size();
    matched += p.size();
  }
  return matched;
}

} // namespace

std::optional<Location> kiln::locateInlineAsmLine(ModuleOp module,
                                                  llvm::StringRef line) {
  // Fewer literal characters than this (a lone "{" or "}") tell nothing.
  constexpr size_t kMinLiteral = 4;
  std::string text = squeeze(line);
  if (text.size() < kMinLiteral)
    return std::nullopt;
  size_t best = 0;
  std::optional<Location> found;
  bool ambiguous = false;
  module.walk([&](LLVM::InlineAsmOp op) {
    llvm::SmallVector<llvm::StringRef> lines;
    op.getAsmString().split(lines, '\n');
    size_t score = 0;
    for (llvm::StringRef l : lines)
      score = std::max(score, matchInOrder(text, literalPieces(l)));
    if (score < kMinLiteral || score < best)
      return;
    if (score > best) {
      best = score;
      found = op.getLoc();
      ambiguous = false;
    } else if (found && *found != op.getLoc()) {
      ambiguous = true;
    }
  });
  if (ambiguous)
    return std::nullopt;
  return found;
}

std::optional<Location> kiln::locateAssemblerError(ModuleOp module,
                                                   llvm::StringRef errors) {
  // "<inline asm>:1:2: invalid instruction, did you mean: ...\n  v_add_u33 v0,
  // v1\n  ^" (the statement on the line after the message)
  llvm::SmallVector<llvm::StringRef> lines;
  errors.split(lines, '\n');
  for (size_t i = 0; i + 1 < lines.size(); ++i)
    if (lines[i].contains("<inline asm>:"))
      return locateInlineAsmLine(module, lines[i + 1]);
  return std::nullopt;
}
