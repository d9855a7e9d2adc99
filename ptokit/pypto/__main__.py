"""``python -m ptokit.pypto SCRIPT.py [ARGS...]`` is ``ptokit pypto SCRIPT.py [ARGS...]``."""
import sys

from ..cli import main

sys.exit(main(["pypto", *sys.argv[1:]]))
