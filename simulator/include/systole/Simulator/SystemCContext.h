//===- SystemCContext.h - One SystemC kernel per simulation run -*- C++ -*-===//
//
// Every SystemC-based backend (the cycle model, the RTL co-simulation) runs a
// segment in its own sc_simcontext, so one process can simulate any number of
// segments and configurations. The destructor also hands the thread's stack
// back to AddressSanitizer: see SystemCContext.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_SYSTEMCCONTEXT_H
#define SYSTOLE_SIMULATOR_SYSTEMCCONTEXT_H

namespace systole::sim {

/// A fresh sc_simcontext, current for the lifetime of this object.
class FreshSimContext {
public:
  FreshSimContext();
  ~FreshSimContext();
  FreshSimContext(const FreshSimContext &) = delete;
  FreshSimContext &operator=(const FreshSimContext &) = delete;

private:
  void *ctx; ///< the sc_core::sc_simcontext (SystemC stays out of this header)
};

/// Tells AddressSanitizer that the calling thread runs on its own stack again
/// (a no-op without ASan). Returns false if the sanitizer's view of the stack
/// did not contain the caller's frame before the call: what SystemC's
/// coroutine switches leave behind (SystemCContext.cpp says why).
bool restoreSanitizerThreadStack();

} // namespace systole::sim

#endif // SYSTOLE_SIMULATOR_SYSTEMCCONTEXT_H
