// Inject's platform shims: pointer-sized atomics and the main-thread test.
//
// Swift gained atomics (the Synchronization module) only with iOS 18 / macOS 15; Inject supports iOS 13 /
// macOS 10.15, so the few atomic operations its lock-free read path needs live here, as C11 atomics that the
// thread sanitizer understands. The functions are `static inline` so that they inline into Swift callers.
//
// The cells are ordinary pointer-sized memory that Swift allocates; these functions treat them as `_Atomic`.

#ifndef C_INJECT_SHIMS_H
#define C_INJECT_SHIMS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/// Loads a pointer cell with acquire ordering: everything written before the matching release store is visible.
static inline void *_Nullable c_inject_load_acquire(void *_Nullable const *_Nonnull cell) {
    return atomic_load_explicit((_Atomic(void *) const *)cell, memory_order_acquire);
}

/// Stores a pointer cell with release ordering.
static inline void c_inject_store_release(void *_Nullable *_Nonnull cell, void *_Nullable value) {
    atomic_store_explicit((_Atomic(void *) *)cell, value, memory_order_release);
}

/// Replaces `expected` with `desired` if the cell still holds `expected`; returns whether it did (acq_rel).
static inline bool c_inject_compare_exchange(
    void *_Nullable *_Nonnull cell, void *_Nullable expected, void *_Nullable desired) {
    return atomic_compare_exchange_strong_explicit(
        (_Atomic(void *) *)cell, &expected, desired, memory_order_acq_rel, memory_order_acquire);
}

/// Loads an integer cell with acquire ordering.
static inline intptr_t c_inject_int_load(intptr_t const *_Nonnull cell) {
    return atomic_load_explicit((_Atomic(intptr_t) const *)cell, memory_order_acquire);
}

/// Adds `delta` to an integer cell and returns the new value (acq_rel).
static inline intptr_t c_inject_int_add(intptr_t *_Nonnull cell, intptr_t delta) {
    return atomic_fetch_add_explicit((_Atomic(intptr_t) *)cell, delta, memory_order_acq_rel) + delta;
}

/// Process-wide counters that a resolve reads on its hot path: plain C globals, so that a read costs one atomic
/// load, where a Swift `static let` costs a `swift_once` call before it. Index with the constants below.
extern intptr_t c_inject_process_counters[5];

/// How many test overrides (and validation layers) are active anywhere in the process.
#define C_INJECT_ACTIVE_OVERLAYS 0
/// How many `onBuild` observers are set on live containers.
#define C_INJECT_BUILD_OBSERVERS 1
/// How many async factories are running anywhere in the process.
#define C_INJECT_ASYNC_FACTORIES 2
/// How many test overrides' closures are registering their overrides right now.
#define C_INJECT_OVERRIDES_BEING_MADE 3
/// How many instances with an `onRelease` were stored: the order in which they are released newest first.
#define C_INJECT_STORED_RELEASABLES 4

/// Loads process-wide counter `which` (acquire).
static inline intptr_t c_inject_process_counter(int which) {
    return c_inject_int_load(&c_inject_process_counters[which]);
}

/// Adds `delta` to process-wide counter `which`; returns the new value (acq_rel).
static inline intptr_t c_inject_process_counter_add(int which, intptr_t delta) {
    return c_inject_int_add(&c_inject_process_counters[which], delta);
}

/// The calling thread's resolution context (a retained Swift object), or null: a thread-local read that costs one
/// load, where `pthread_getspecific` behind a `static let` key costs a `swift_once` call and a library call.
/// Swift keeps a pthread key as well, only so that the context is released when the thread ends.
#if defined(__linux__)
extern _Thread_local void *_Nullable c_inject_thread_context __attribute__((tls_model("initial-exec")));
#else
extern _Thread_local void *_Nullable c_inject_thread_context;
#endif

static inline void *_Nullable c_inject_get_thread_context(void) { return c_inject_thread_context; }

static inline void c_inject_set_thread_context(void *_Nullable context) { c_inject_thread_context = context; }

/// The Swift runtime's current task (unretained), or null outside any task: what the standard library's
/// `withUnsafeCurrentTask` reads, without its generic closure (about 200 instructions a call). An exported entry
/// point of the concurrency runtime, with the Swift calling convention.
extern void *_Nullable swift_task_getCurrent(void) __attribute__((swiftcall));

static inline void *_Nullable c_inject_current_task(void) { return swift_task_getCurrent(); }

/// The metatype of an existential type, `any P.Type` for `any P`, from the Swift runtime: what a cast to `any P.Type`
/// needs, which Swift code cannot spell for a protocol it only has as a metatype value. An exported entry point of the
/// runtime (the one the compiler calls to make that metadata), with the C calling convention.
extern const void *_Nonnull swift_getExistentialMetatypeMetadata(const void *_Nonnull instanceType);

static inline const void *_Nonnull c_inject_existential_metatype(const void *_Nonnull type) {
    return swift_getExistentialMetatypeMetadata(type);
}

/// Whether the calling thread is the process's main thread.
bool c_inject_is_main_thread(void);

#endif
