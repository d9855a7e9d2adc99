"""``python -m ptokit.cli ...`` is the ``ptokit`` command."""
import sys

from . import main

sys.exit(main())
