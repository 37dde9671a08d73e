// Test files import InjectTesting and get Inject with it.
@_exported import Inject
