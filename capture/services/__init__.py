"""Capture's writes and rules: ingestion, candidate proposals, the owner's review."""
