//===- ImportNorm.cpp - (being written) ------------------------------------===//
#include "ImportContext.h"

namespace systole::frontend {

void registerNormImporters(llvm::StringMap<OpImporter> &table) { (void)table; }

} // namespace systole::frontend
