"""The environment variables the contract layer reads (a leaf module: the CLI's option help
texts name them, and `gcv --help` must not import the models to do so)."""

from __future__ import annotations

BASELINE_ENV = "GCV_BASELINE"  # a baseline config file to use instead of the committed one
