"""The report's page, ``index.html``: cards built from the claim records
(:mod:`tasksim.reports.html.cards`), math rendered to MathML at build time
(:mod:`tasksim.reports.html.mathml`), Jinja2 templates (:mod:`tasksim.reports.html.page`)."""
from .page import build_page, render_page, statement_rows

__all__ = ["build_page", "render_page", "statement_rows"]
