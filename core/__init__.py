"""fdc's core (layer 0, imports nothing of fdc): one problem shape (`Diagnostic`), one
error root, JSONL and JSON paths, limits and bounded input reading, atomic files,
hashing and the version. See docs/architecture.md ("Where does X live") and
docs/diagnostics.md."""
