"""Level 5: HTML reports and figures (matplotlib) of results."""
