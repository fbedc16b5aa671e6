import sys

from qascore.cli import main

sys.exit(main())
