"""``pypto`` under ``ptokit pypto``: the package's modules and the dtype and log-level names.

``pypto.language`` is ``ptokit.language``; ``pypto.ir``, ``pypto.runtime`` and ``pypto.backend`` are the surface modules beside this one,
``pypto.pypto_core`` is ``ptokit.pypto_core``.  ``DataType`` is the DSL's dtype
(``pypto.DT_FP32 is pl.FP32``).  ``Error`` is ptokit's base error (``PtokitError``: every error
ptokit raises on purpose) and ``InternalError`` its bug report.
"""
import ptokit as _ptokit
import ptokit.language as language
from ptokit.errors import InternalError  # noqa: F401
from ptokit.errors import PtokitError as Error  # noqa: F401

from ... import pypto_core
from . import backend, ir, runtime
from ._names import surface_getattr
from ...pypto_core import (DataType, LogLevel, get_log_level, log_debug, log_error, log_event, log_fatal,
                         log_info, log_warn, passes, set_log_level)

__version__ = _ptokit.__version__

# pypto.DT_FP32 ... : the dtypes ptokit has (pypto's others, e.g. DT_INT4, are NotProvided)
globals().update({f"DT_{dt.name}": dt for dt in DataType})

__getattr__ = surface_getattr("pypto")
