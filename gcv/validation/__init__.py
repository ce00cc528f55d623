"""Validation: the schema, reference, rules and safety layers, and the report they produce.

Imports only point down (``gcv.contract``, ``gcv.sim``). Entry point:
:func:`gcv.validation.validate.validate`; the field diff is ``gcv.validation.diff`` and the
report's models ``gcv.validation.report``.

Nothing is imported here, so that reading a model or a diff (``gcv status``, ``gcv list``)
does not load the validators and jsonschema behind them; import from the modules.
"""
