"""PARTNR's episodes and goals in and out: its tasks as templates, its evaluation
functions as goals. See docs/partnr.md."""
