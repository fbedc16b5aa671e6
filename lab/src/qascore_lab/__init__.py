"""qascore-lab: training, data builders, benchmarks and paper studies beside the `qascore` package.

The lab depends on `qascore`; nothing in `qascore` imports the lab. Its command is `qascore-lab`.
"""

__version__ = "0.1.0"
