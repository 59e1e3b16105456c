"""BEHAVIOR-1K's BDDL activities as fdc templates (`fdc import bddl`, docs/bddl.md).

`corpus` reads activities with the `bddl` package's own parser (an optional extra,
`pip install 'fdc[bddl]'`, imported only when used); `vocabulary` turns BDDL's synsets
into the generated domain's types and constants; `translate` turns one activity into a
template, or says why it cannot; `importer` runs the whole import and writes it.
"""
