"""Storage: the workspace on disk. The bottom layer beside ``gcv.contract``.

``paths`` (where the workspace is), ``atomic`` (crash-safe writes), ``logs`` (append-only,
hash-chained JSON-lines logs read strictly), ``workflow_dir`` (one workflow's files),
``catalog`` (the SQLite index of workflows and baseline versions), ``locks`` (one writer per
workflow), ``inputs`` (reading a user's file without trusting it) and ``safezip`` (reading
a bundle someone sent you). Nothing here knows what a workflow *means*: the workflow layer
gives the state its types.
"""
