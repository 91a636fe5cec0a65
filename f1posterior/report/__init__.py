"""Level 5: HTML reports and figures (matplotlib) of results."""

from ._html import REPORT_FORMATS as REPORT_FORMATS
from ._html import render_comparison_report as render_comparison_report
from ._html import render_report as render_report

__all__ = ["REPORT_FORMATS", "render_comparison_report", "render_report"]
