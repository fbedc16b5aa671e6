"""Engines that score the chunks of `score --chunk-size` somewhere other than this process (Ray)."""
