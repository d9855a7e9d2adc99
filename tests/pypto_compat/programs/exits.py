import sys

import pypto

print(pypto.__name__, sys.argv[1:])
sys.exit(int(sys.argv[1]))
