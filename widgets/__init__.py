"""Jupyter layer of the workbench: the interactive derivation widget (built on workbench)."""
