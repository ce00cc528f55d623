"""Evidence a reviewer can trust: bundle export, verification and replay, the HTML report.

Entry points: ``export_bundle`` (gcv.evidence.bundle), ``verify_bundle``
(gcv.evidence.verify), ``write_report`` (gcv.evidence.report) and ``finalize_evidence``
(gcv.evidence.finalize, what ``gcv run`` calls at the end). See docs/evidence.md.
"""
