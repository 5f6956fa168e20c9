//===- SystemCContext.cpp - One SystemC kernel per simulation run ---------===//
//
// Why the destructor talks to AddressSanitizer: Debian's SystemC 2.3.4 runs
// SC_THREADs as QuickThreads coroutines on mmap'ed stacks and announces each
// switch to ASan (weak __sanitizer_{start,finish}_switch_fiber calls in
// sc_cor_pkg_qt::yield), but only half-way: a switch to the main coroutine
// announces an empty stack (main_cor has none recorded), and a thread that
// terminates leaves through sc_cor_pkg_qt::abort, which announces nothing.
// After sc_start returns, ASan therefore believes the main thread runs on the
// stack of the last coroutine that ended, a mapping that ~sc_simcontext then
// unmaps. LeakSanitizer's exit-time scan takes that stale range as the main
// thread's stack ("stack pointer not in stack range"), skips its unmapped
// leading pages and reads on; when a later mmap has reused part of the range,
// it reads into the next unmapped page and its tracer dies with SIGSEGV
// ("Tracer caught signal 11", issue 14). Which runs crash depends on where
// the kernel places later mappings, hence the flakiness. It also means the
// real main stack was never scanned for roots. Re-announcing the thread's own
// stack once the kernel is gone fixes both and keeps leak checking on.
//
//===----------------------------------------------------------------------===//
#include "systole/Simulator/SystemCContext.h"

#include <systemc>

#include <cstdlib>
#include <pthread.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYSTOLE_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SYSTOLE_ASAN 1
#endif
#ifdef SYSTOLE_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

using namespace systole::sim;

// libsystemc.so references sc_main; programs that use this library have
// their own main() and never call sc_elab_and_sim.
__attribute__((weak)) int sc_main(int, char **) { return 0; }

FreshSimContext::FreshSimContext() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  auto *c = new sc_core::sc_simcontext();
  sc_core::sc_curr_simcontext = c;
  sc_core::sc_default_global_context = c;
  ctx = c;
}

FreshSimContext::~FreshSimContext() {
  delete static_cast<sc_core::sc_simcontext *>(ctx);
  sc_core::sc_curr_simcontext = nullptr;
  sc_core::sc_default_global_context = nullptr;
  restoreSanitizerThreadStack();
}

bool systole::sim::restoreSanitizerThreadStack() {
#ifdef SYSTOLE_ASAN
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return false;
  void *bottom = nullptr;
  size_t size = 0;
  pthread_attr_getstack(&attr, &bottom, &size);
  pthread_attr_destroy(&attr);
  // A switch "to" the stack we are on: ASan records [bottom, bottom + size)
  // as the thread's stack and reports the range it believed before.
  void *fakeStack = nullptr;
  const void *oldBottom = nullptr;
  size_t oldSize = 0;
  __sanitizer_start_switch_fiber(&fakeStack, bottom, size);
  __sanitizer_finish_switch_fiber(fakeStack, &oldBottom, &oldSize);
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  auto lo = reinterpret_cast<uintptr_t>(oldBottom);
  return here >= lo && here < lo + oldSize;
#else
  return true;
#endif
}
