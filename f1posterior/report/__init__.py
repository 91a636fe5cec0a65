"""Level 5: HTML reports and figures (matplotlib) of results."""

from ._html import REPORT_FORMATS, render_comparison_report, render_report

__all__ = ["REPORT_FORMATS", "render_comparison_report", "render_report"]
