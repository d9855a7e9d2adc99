"""IR-to-IR passes run under a PassContext."""
from .context import (PassContext, RuntimeKind, runtime_kind_from_name,  # noqa: F401
                      runtime_kind_to_name)
