import Benchmark

// The benchmark suite of Inject: `cd Benchmarks && swift package benchmark`. See Benchmarks/README.md for what each
// workload measures and the goals, and Scripts/ratios.py for the table that compares the wirings.
//
// Every benchmark is named "<workload>[, <parameter>...]: <wiring> (ops: <n>)", e.g.
// "W2 resolve graph, heavy, n=500: Inject (ops: 19687)"; `ops` is how many operations (resolves, registrations,
// objects built) one sample performs. The text output divides `*` metrics by the scaling factor (per resolve for
// W3, W4, W5, W7 and W10); ratios.py divides medians by `ops`. W8 and W9 time one start-up per sample, on a fresh
// container, and take few samples.
let benchmarks: @Sendable () -> Void = {
    registerW1Register()
    registerW1Autowired()
    registerW2ResolveGraph()
    registerW3Singleton()
    registerW3Argument()
    registerW4Chain()
    registerW4Autowired()
    registerW5TwoThreads()
    registerW6Validate()
    registerW7PropertyWrappers()
    registerW8WarmUp()
    registerW9AsyncStartup()
    registerW10ResolveAsync()
}
