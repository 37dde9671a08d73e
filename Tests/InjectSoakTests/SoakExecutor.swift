import Foundation

/// A task executor with threads of its own, for the soak's task workers.
///
/// The test process shares one concurrency pool, two threads on a 2-core machine. The soak's task workers run CPU-bound
/// operations back to back for as long as the soak lasts (a `validate()` of the whole tree is one operation); on the
/// shared pool every other async test would queue behind them at each of its suspension points and run out of its
/// time limit. On these threads the workers still run as Swift concurrency tasks (task-locals, the asynchronous
/// `withOverrides`, suspensions), and the pool stays free for the rest of the suite.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class SoakExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `head` are only touched under `condition`.
    static let shared = SoakExecutor(threads: 2)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0

    private init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in work() }  // lives as long as the process, as `shared` does
            thread.name = "SoakExecutor \(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
