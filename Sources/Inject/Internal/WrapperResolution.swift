import CInjectShims

/// What the property wrappers share: which container they resolve through, and what they do with a failure.
@usableFromInline
enum WrapperResolution {
    /// The container a wrapper resolves through: the one it was given; else ``defaultHome()``.
    @inline(__always)
    static func home(_ given: DIContainer?) -> DIContainer {
        given ?? defaultHome()
    }

    /// The container a wrapper given no container resolves through: while a factory runs on this thread (or this
    /// task's async factory), the container that factory's dependencies come from (as `r.resolve()` there would);
    /// else ``DIContainer/shared``.
    @usableFromInline
    static func defaultHome() -> DIContainer {
        if let raw = c_inject_get_thread_context(),
            let home = Unmanaged<ResolutionContext>.fromOpaque(raw)._withUnsafeGuaranteedRef({ $0.buildingHome })
        {
            return home
        }
        return AsyncFrame.currentIfAny?.container ?? .shared
    }

    /// The validation recorder when `validate()` is building on this task, else `nil`: one thread-local read, and
    /// an atomic load outside any resolve.
    static var activeRecorder: ValidationRecorder? {
        if let raw = c_inject_get_thread_context() {
            let context = Unmanaged<ResolutionContext>.fromOpaque(raw).takeUnretainedValue()
            if context.isResolving {
                return context.overlay?.recorder
            }
        }
        if let frame = AsyncFrame.currentIfAny {
            return frame.resolution.overlay?.recorder
        }
        return Overlay.active()?.recorder
    }

    /// How long the resolution path is on this thread (or this task's async build) now: where a wrapper's own
    /// request would start.
    static var depth: Int {
        if let raw = c_inject_get_thread_context() {
            let frames = Unmanaged<ResolutionContext>.fromOpaque(raw).takeUnretainedValue().frames.count
            if frames > 0 {
                return frames
            }
        }
        return AsyncFrame.currentIfAny?.depth ?? 0
    }

    /// ``keep(_:site:)`` for the wrapper `wrapper` of `service` declared at `file:line`.
    @usableFromInline
    static func keep<Service>(
        _ error: any Error,
        _ wrapper: StaticString,
        _ service: Service.Type,
        _ name: DIContainer.Name?,
        _ file: StaticString,
        _ line: UInt
    ) -> WrapperFailure {
        keep(error, site: PropertySite(wrapper: wrapper, service: service, name: name, file: file, line: line))
    }

    /// A wrapper's resolve failed. Under `validate()` the failure, naming the property, is recorded and kept, so
    /// that validation goes on and reports everything else. In a factory that an async resolution (`resolveAsync`,
    /// `warmUp()`) runs, it is kept too, and fails that factory's build as if the factory had thrown it: the caller
    /// gets the error, and `warmUp()` builds again, once the async singleton the property needs is built. Anywhere
    /// else it traps, naming the property.
    static func keep(_ error: any Error, site: PropertySite) -> WrapperFailure {
        let named = named(error, site: site)
        guard let recorder = activeRecorder else {
            if let raw = c_inject_get_thread_context() {
                let context = Unmanaged<ResolutionContext>.fromOpaque(raw).takeUnretainedValue()
                if context.isResolving, context.asyncResolution != nil {
                    context.deferWrapperFailure(named)
                    return WrapperFailure(error: named, site: site, keptBy: "an async resolve (resolveAsync, warmUp())")
                }
            }
            fatalError(named.description, file: site.file, line: site.line)
        }
        recorder.recordFailure(named)
        return WrapperFailure(error: named, site: site, keptBy: "validate()")
    }

    /// Traps with `error`, naming the property: for a lazy wrapper's first read, which cannot keep a failure.
    static func trap(_ error: any Error, site: PropertySite) -> Never {
        let message = named(error, site: site).description
        fatalError(withStopNote(message), file: site.file, line: site.line)
    }

    /// The trap of a lazy wrapper read after the container it remembered was released.
    static func containerReleased(site: PropertySite, wasRoot: Bool) -> Never {
        let message =
            wasRoot
            ? """
            Inject: \(site) is read after the root container it resolves through was released. The object that \
            holds it was built for that container's own cache (a .singleton or .cached service, or by its factory), \
            and such an object needs its container kept, as the services it was built with do.
              fix: keep the container alive as long as objects it built are in use (a property of the app, or returned \
            with the object from a test's setup).
            """
            : """
            Inject: \(site) is read after the container it resolves through was released (a child container whose \
            session or request has ended, say), so there is nothing left to resolve it from.
              fix: read it while that container lives, or let go of this object when the container goes; for an \
            object meant to outlive it, resolve through a container that lives as long: \(site.wrapper)(container: ...).
            """
        fatalError(message, file: site.file, line: site.line)
    }

    /// `message`, and under `validate()` what it found before this trap ends it.
    static func withStopNote(_ message: String) -> String {
        guard let recorder = activeRecorder else { return message }
        return message + "\n" + recorder.stopNote(trapping: message)
    }

    /// `error` as a ``ResolutionError`` that names the property as the one asking.
    private static func named(_ error: any Error, site: PropertySite) -> ResolutionError {
        guard let error = error as? ResolutionError else {
            return ResolutionError(
                kind: .factoryThrew,
                service: Describe.service(site.service, site.name),
                path: [Describe.service(site.service, site.name)],
                registration: site.location,
                underlying: error,
                headline: "\(site) could not be resolved: \(error)",
                fix: "fix the cause of the error above."
            )
        }
        return error.asked(by: site, atDepth: depth)
    }

    /// Under `validate()`, records that a lazy wrapper was made, so that its dependency is resolved after the build
    /// that made it, as its first read would.
    ///
    /// - Parameter needsAClass: Whether the wrapper holds its instance weakly (`@WeakInjected`), so that its first
    ///   read traps on a value type: validation reports that as an error instead.
    static func recordLazyDependency<Service>(
        _ type: Service.Type,
        name: DIContainer.Name?,
        container: DIContainer,
        site: PropertySite,
        needsAClass: Bool = false
    ) {
        guard let recorder = activeRecorder else { return }
        let context = c_inject_get_thread_context().map {
            Unmanaged<ResolutionContext>.fromOpaque($0).takeUnretainedValue()
        }
        // As an error names the build under way: its factory, or its resolveProperties once the factory returned.
        // A synchronous one on this thread, else an async factory running on this task.
        let holder: String?
        let source: ValidationRecorder.Source?
        if let frame = context?.frames.last {
            let closure = frame.inProgress == nil ? "factory" : "resolveProperties closure"
            holder = "\(frame.entry.label)'s \(closure), registered at \(frame.entry.location)"
            source = context?.recordSource
        } else if let frame = AsyncFrame.currentIfAny {
            let closure = frame.instanceInProgress == nil ? "factory" : "resolveProperties closure"
            holder = "\(frame.entry.label)'s \(closure), registered at \(frame.entry.location)"
            source = frame.recordSource
        } else {
            holder = nil
            source = context?.recordSource
        }
        recorder.recordLazyCheck(
            ValidationRecorder.LazyCheck(
                source: source,
                site: site,
                initialisedBy: holder,
                container: container
            ) { container in
                let instance = try container.resolveThrowing(Service.self, name: name)
                if needsAClass, !(Swift.type(of: instance as Any) is AnyObject.Type) {
                    throw notAClass(Swift.type(of: instance as Any), for: site)
                }
            }
        )
    }

    /// Runs a lazy wrapper's first read: under validation, inside a build, marked as such, so that what it reads is
    /// judged as a read that cannot wait (see ``ValidationRecorder/LazyReadInBuild``).
    static func readLazily<Service>(_ site: PropertySite, _ read: () throws -> Service) rethrows -> Service {
        guard activeRecorder != nil else { return try read() }
        // The depth the read's own request is made at: this thread's build, or the async factory's it joins.
        let depth = ResolutionContext.withCurrent { context in
            context.isResolving ? context.frames.count : AsyncFrame.currentIfAny?.depth ?? 0
        }
        guard depth > 0 else { return try read() }
        let outer = ResolutionContext.withCurrent { context in
            defer { context.lazyRead = ResolutionContext.LazyRead(site: site, depth: depth) }
            return context.lazyRead
        }
        defer { ResolutionContext.withCurrent { $0.lazyRead = outer } }
        return try read()
    }

    /// What a `@WeakInjected` property's first read traps with when its service resolves to a value type.
    static func notAClass(_ type: Any.Type, for site: PropertySite) -> ResolutionError {
        ResolutionError(
            kind: .notAClass,
            service: Describe.service(site.service, site.name),
            path: [Describe.service(site.service, site.name)],
            registration: site.location,
            headline: """
                \(site) got a \(Describe.type(type)), which is not a class: a weak reference can only hold a class \
                instance.
                """,
            fix: "use @Injected or @LazyInjected for value types."
        )
    }
}

/// A wrapper's resolve that failed under `validate()`: kept so that validation goes on, and trapped on if the
/// property is read.
@usableFromInline
final class WrapperFailure: Sendable {
    let error: ResolutionError
    let site: PropertySite
    /// What built the owner and kept the failure instead of trapping at once: `validate()`, or an async resolve.
    let keptBy: String

    init(error: ResolutionError, site: PropertySite, keptBy: String) {
        self.error = error
        self.site = site
        self.keptBy = keptBy
    }

    /// The property was read although it could not be resolved.
    @usableFromInline
    func trap() -> Never {
        fatalError(
            WrapperResolution.withStopNote(
                """
                \(error.description)
                  note: \(site) was read, but it could not be resolved while \(keptBy) built its owner.
                """
            ),
            file: site.file,
            line: site.line
        )
    }
}

/// The value of an `@Injected` or `@OptionalInjected` property: resolved, or a failure kept under `validate()`.
@usableFromInline
enum InjectedValue<Service> {
    case resolved(Service)
    case failed(WrapperFailure)

    @inlinable
    var value: Service {
        switch self {
        case .resolved(let value): value
        case .failed(let failure): failure.trap()
        }
    }
}

extension InjectedValue: Sendable where Service: Sendable {}
