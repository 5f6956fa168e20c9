//===- tb_main.cpp - Clock for the self-checking SV testbenches -----------===//
// The testbench module has one input, clk; it ends with $finish (pass) or
// $fatal (fail, nonzero exit). A testbench that never finishes fails.
#include "verilated.h"
#include TB_HEADER // defined by the including file (CMake)

#include <cstdio>
#include <memory>

int main(int argc, char **argv) {
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->commandArgs(argc, argv);
  auto tb = std::make_unique<TB_CLASS>(ctx.get());
  for (int i = 0; i < 2000000 && !ctx->gotFinish(); ++i) {
    tb->clk = i & 1;
    tb->eval();
  }
  if (!ctx->gotFinish()) {
    std::fprintf(stderr, "testbench did not finish\n");
    return 1;
  }
  tb->final();
  return 0;
}
