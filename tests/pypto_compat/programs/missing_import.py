from pypto.runtime import no_such_api  # noqa: F401
