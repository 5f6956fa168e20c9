//===- ImportHostConv.cpp - (being written) ------------------------------------===//
#include "ImportContext.h"

namespace systole::frontend {

void registerHostConvImporters(llvm::StringMap<OpImporter> &table) { (void)table; }

} // namespace systole::frontend
