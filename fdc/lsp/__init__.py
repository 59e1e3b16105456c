"""`fdc lsp`: a language server for fdc's PDDL dialect and its instruction files.

The server (`server.py`, pygls over stdio) is a thin layer over plain functions that
know nothing of the protocol: the workspace and its check (`workspace.py`, the same
`check_sources` as `fdc check`), what a name in a file is (`symbols.py`: definitions,
references, renames), hovers (`hover.py`), completions (`complete.py`), quick fixes and
formatting (`fixes.py`) and semantic tokens (`tokens.py`). Each takes a `Workspace` and
file offsets and returns offsets; `server.py` turns them into LSP positions.
See docs/editor.md.
"""
