/// What a registration is stored under: the service type's identity and the interned name.
///
/// Keyed by `ObjectIdentifier`, never by the type's name, so two modules' types called `Service` never collide.
@usableFromInline
struct Key: Hashable, Sendable {
    let type: ObjectIdentifier
    /// ``DIContainer/Name/id``, or 0 for no name.
    let name: Int

    @inline(__always)
    init(_ type: Any.Type, _ name: DIContainer.Name?) {
        self.type = ObjectIdentifier(type)
        self.name = name?.id ?? 0
    }

    /// A well-mixed hash for the entry table: two multiplies, no SipHash.
    @inline(__always)
    var mixed: UInt {
        let bits = UInt(bitPattern: Int(bitPattern: type)) ^ (UInt(bitPattern: name) &* 0x9E37_79B9_7F4A_7C15)
        let product = bits &* 0xBF58_476D_1CE4_E5B9
        return product ^ (product >> 29)
    }
}
