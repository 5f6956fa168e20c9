//===- systole-translate.cpp - MlirTranslateMain over Systole's formats ---===//
#include "systole/Target/NPUBinary/NPUBinary.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  systole::npu::registerNPUTranslations();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv,
                                              "Systole translation driver\n"))
             ? 1
             : 0;
}
