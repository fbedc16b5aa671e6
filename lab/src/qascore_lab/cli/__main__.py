import sys

from qascore_lab.cli import main

sys.exit(main())
