/// A property wrapper's declaration, as messages name it: `@Injected Cart at Shop/HomeScreen.swift:12`.
///
/// Made from the wrapper's `file:`/`line:` arguments, whose defaults (`#fileID`, `#line`) are the property's
/// declaration. Cheap to make: the text is only built when a message needs it.
struct PropertySite: Sendable, CustomStringConvertible {
    /// The wrapper as written: `@Injected`, `@LazyInjected`, `@WeakInjected` or `@OptionalInjected`.
    let wrapper: StaticString
    let service: Any.Type
    let name: DIContainer.Name?
    let file: StaticString
    let line: UInt

    /// The declaration's `file:line`.
    var location: String { "\(file):\(line)" }

    /// `@Injected Cart at Shop/HomeScreen.swift:12`, or `@Injected Store["live"] at ...` for a named one.
    var description: String {
        "\(wrapper) \(Describe.service(service, name)) at \(location)"
    }
}
