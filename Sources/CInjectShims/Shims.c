#if defined(__linux__)
#define _GNU_SOURCE  // syscall(SYS_gettid); must precede every system header
#endif

#include "CInjectShims.h"

_Thread_local void *c_inject_thread_context = 0;

intptr_t c_inject_process_counters[5] = {0, 0, 0, 0, 0};

#if defined(__APPLE__)
#include <pthread.h>

bool c_inject_is_main_thread(void) { return pthread_main_np() != 0; }

#elif defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>

// On Linux the main thread's kernel thread id is the process id.
bool c_inject_is_main_thread(void) { return syscall(SYS_gettid) == getpid(); }

#else
#include <pthread.h>

bool c_inject_is_main_thread(void) { return false; }
#endif
