"""Batch runs for build machines: many configs x seeds x players x engines, one table.

``spec`` reads the TOML batch spec, ``matrix`` expands it into cells, ``executors`` runs
cells (a local process pool or a Dask cluster), ``results`` keeps the table, ``stats``
summarizes each config/player group, ``gate`` decides pass or fail, ``job`` ties them
together for ``gcv batch``, and ``population`` is the API the workflow calls.
"""
