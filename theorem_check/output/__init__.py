"""Output: terminal text and progress, JSON records, LaTeX, Markdown and PDF reports, generated docs."""
