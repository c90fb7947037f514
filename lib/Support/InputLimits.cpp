//===- InputLimits.cpp - Bounds on textual IR before it is parsed ---------===//

#include "kiln/Support/InputLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/thread.h"

using namespace mlir;

LogicalResult kiln::checkNestingDepth(llvm::StringRef text,
                                      llvm::StringRef bufferName,
                                      MLIRContext *context) {
  unsigned depth = 0, line = 1, col = 1;
  for (size_t i = 0; i < text.size(); ++i, ++col) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      col = 0;
      continue;
    }
    if (c == '"') { // a string literal, with backslash escapes
      for (++i, ++col; i < text.size() && text[i] != '"'; ++i, ++col) {
        if (text[i] == '\n') {
          ++line;
          col = 0;
        }
        if (text[i] == '\\' && i + 1 < text.size()) {
          ++i;
          ++col;
        }
      }
      continue;
    }
    if (c == '/' && text.substr(i).starts_with("//")) {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
      continue;
    }
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') {
      ++i; // `->` is an arrow, not a closing bracket
      ++col;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNestingDepth)
        return emitError(FileLineColLoc::get(context, bufferName, line, col))
               << "input is nested more than " << kMaxNestingDepth
               << " levels deep";
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
      --depth;
    }
  }
  return success();
}

int kiln::runWithLargeStack(llvm::function_ref<int()> fn) {
  int result = 1;
  // 512 MiB of address space, touched only as deep as the recursion goes.
  llvm::thread worker(std::optional<unsigned>(512u << 20),
                      [&] { result = fn(); });
  worker.join();
  return result;
}
