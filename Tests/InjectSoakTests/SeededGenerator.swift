/// A small deterministic random number generator (SplitMix64), so that a soak run can be replayed from its seed.
///
/// `SystemRandomNumberGenerator` cannot be seeded. SplitMix64 is a few arithmetic operations per number, passes the
/// usual statistical tests, and every seed, zero included, gives a full-period sequence.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Makes a generator whose sequence is fixed by `seed`.
    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A generator of its own for stream `index` (a worker), independent of this one's and of the other streams.
    func stream(_ index: Int) -> SeededGenerator {
        var mixer = SeededGenerator(seed: state ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return SeededGenerator(seed: mixer.next())
    }

    /// Whether an event of probability `probability` happens.
    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    /// A random element of `elements`, which must not be empty.
    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[Int.random(in: 0..<elements.count, using: &self)]
    }
}
