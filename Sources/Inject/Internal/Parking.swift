#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Something a thread can wait for: a first build under way on another thread.
protocol Gate: AnyObject, Sendable {
    /// The thread (its ``ResolutionContext``) building the instance now, or `nil`.
    var builder: ObjectIdentifier? { get }
    /// The service being built, as a person reads it.
    var label: String { get }
    /// Returns once no build is under way, suspending meanwhile (or at once when the task is cancelled).
    func buildEnded() async
    /// Returns once no build is under way, blocking the calling thread (whose context is `thread`) meanwhile.
    func waitForBuildEnd(thread: ObjectIdentifier)
}

/// Where a thread waits while another thread builds the instance it asked for.
///
/// One process-wide condition serves every slot: waits happen only while a first build is under way, so they are
/// rare and short, and a shared condition costs no memory per registration. A pthread mutex and condition on every
/// platform (a condition needs a pthread mutex). The mutex is never held while user code runs.
///
/// Before each wait the thread follows the wait-for chain: if the thread building what it waits for is itself
/// waiting, through any number of other builds, for something this thread is building, the wait could never end,
/// and ``wait(for:thread:)`` throws ``Deadlock`` instead. A wait that other code (a semaphore, `DispatchQueue.sync`)
/// keeps from ending is not visible here; after ``warningSeconds`` Inject says so on standard error.
final class Parking: @unchecked Sendable {
    // @unchecked: `waits` and `warned` are only touched while holding `mutex`.
    static let shared = Parking()

    /// How long a wait lasts before Inject prints that it may be a deadlock it cannot see.
    static let warningSeconds = 10

    struct Deadlock: Error {
        /// The services in the wait-for cycle, starting with the one this thread waits for.
        let chain: [String]
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var waits: [ObjectIdentifier: any Gate] = [:]
    /// The thread running each synchronous build of an async resolution: its slot's builder is the build's frame,
    /// and the waits the build makes are this thread's.
    private var inlineBuilds: [ObjectIdentifier: ObjectIdentifier] = [:]

    private init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "Inject: pthread_mutex_init failed")
        precondition(pthread_cond_init(condition, nil) == 0, "Inject: pthread_cond_init failed")
    }

    /// Blocks until no other thread is building `gate`'s instance.
    ///
    /// - Throws: ``Deadlock`` when the build it waits for (transitively) waits for a build of this thread.
    func wait(for gate: any Gate, thread: ObjectIdentifier) throws {
        pthread_mutex_lock(mutex)
        defer {
            waits[thread] = nil
            pthread_mutex_unlock(mutex)
        }
        waits[thread] = gate
        var waitedSeconds = 0
        while let builder = gate.builder.map(threadRunning), builder != thread {
            if let chain = cycle(waitingFor: gate, builtBy: builder, from: thread) {
                throw Deadlock(chain: chain)
            }
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_sec += 1
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT {
                waitedSeconds += 1
                if waitedSeconds == Self.warningSeconds {
                    warnOfLongWait(for: gate.label, seconds: waitedSeconds)
                }
            }
        }
    }

    /// Notes that `thread` runs the synchronous build known to its slot as `builder` (a frame of an async
    /// resolution), until ``endInlineBuild(_:)``.
    func beginInlineBuild(_ builder: ObjectIdentifier, on thread: ObjectIdentifier) {
        pthread_mutex_lock(mutex)
        inlineBuilds[builder] = thread
        pthread_mutex_unlock(mutex)
    }

    func endInlineBuild(_ builder: ObjectIdentifier) {
        pthread_mutex_lock(mutex)
        inlineBuilds[builder] = nil
        pthread_mutex_unlock(mutex)
    }

    /// The thread behind a slot's builder: the builder itself, or the thread running it inline. Under `mutex`.
    private func threadRunning(_ builder: ObjectIdentifier) -> ObjectIdentifier {
        inlineBuilds[builder] ?? builder
    }

    /// Wakes every waiting thread so that each looks at the gate it waits for again.
    func wakeAll() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The services in a wait-for cycle that leads back to `thread`, or `nil`. Under `mutex`.
    private func cycle(
        waitingFor gate: any Gate,
        builtBy builder: ObjectIdentifier,
        from thread: ObjectIdentifier
    ) -> [String]? {
        var chain = [gate.label]
        var current = builder
        while chain.count <= 64, let next = waits[current] {
            guard let nextBuilder = next.builder.map(threadRunning) else { return nil }
            chain.append(next.label)
            if nextBuilder == thread {
                return chain
            }
            current = nextBuilder
        }
        return nil
    }

    /// Says, on standard error, that a task has waited ``warningSeconds`` for `label`'s build: the async form of
    /// the thread's warning, for a wait that no task Inject can see keeps from ending (a build that awaits, through
    /// `Task.detached` or a continuation of its own, the very task that waits for it).
    static func warnOfLongAsyncWait(for label: String) {
        let message = """
            Inject: a task has waited \(warningSeconds) s for \(label), which another resolve is building. If that \
            build is itself waiting for this task's work in a way Inject cannot see (through Task.detached, or a \
            continuation or semaphore of its own, while it resolves \(label) again), this is a deadlock Inject cannot \
            break: see Docs/ThreadSafety.md.

            """
        var bytes = Array(message.utf8)
        _ = write(2, &bytes, bytes.count)
    }

    private func warnOfLongWait(for label: String, seconds: Int) {
        let message = """
            Inject: a thread has waited \(seconds) s for \(label), which another thread is building. If that \
            thread is itself waiting for this one (say a factory that blocks on DispatchQueue.sync or a \
            semaphore while the other thread resolves \(label)), this is a deadlock Inject cannot break: \
            see Docs/ThreadSafety.md.

            """
        var bytes = Array(message.utf8)
        _ = write(2, &bytes, bytes.count)
    }
}
