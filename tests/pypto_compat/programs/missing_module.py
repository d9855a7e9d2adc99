import pypto.tools.memory_map  # noqa: F401
