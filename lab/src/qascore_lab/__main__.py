"""`python -m qascore_lab ...` is the `qascore-lab` command (for a checkout run with PYTHONPATH, not installed)."""

import sys

from qascore_lab.cli import main

sys.exit(main())
