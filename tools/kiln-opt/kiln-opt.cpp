//===- kiln-opt.cpp - runs kiln passes on IR, for lit tests and debugging -===//
#include "compiler/dialect/KilnDialect.h"
#include "compiler/passes/Passes.h"
#include "compiler/passes/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<kiln::KilnDialect, mlir::func::FuncDialect>();
  kiln::registerTensorFolding(registry); // tensor_ops fold under -canonicalize
  kiln::registerKilnPasses();
  kiln::registerPipeline();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
