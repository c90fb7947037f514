//===- kiln-opt.cpp - mlir-opt with Kiln's dialects and pipelines ---------===//

#include "kiln/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
