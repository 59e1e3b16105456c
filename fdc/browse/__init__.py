"""`fdc browse`: a static task-suite browser. `data` builds what the page shows (an
index of every task, each task's details), `scenes` the maps and experience timelines it
draws, `site` writes the page (`assets/`: plain HTML, CSS and JS, no build step) and its
data files. docs/browse.md documents the site and its data format."""

from .site import Site, gather, read_report, score_runs, write_site

__all__ = ["Site", "gather", "read_report", "score_runs", "write_site"]
