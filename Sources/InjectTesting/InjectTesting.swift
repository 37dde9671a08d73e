@_exported import Inject
