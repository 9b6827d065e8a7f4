"""Experiments of the source documents, one module per paper or thesis chapter.

Each module builds the document's scenarios from its stated parameters (and
names the choices made where the document is silent), runs them, and compares
with the published numbers. The reproduction registry (``pertlab reproduce``)
exposes them with quick and full modes.
"""
