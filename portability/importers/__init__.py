"""Importers from other tools: a context-keeper store and a generic JSONL file."""

from portability.importers.context_keeper import context_keeper_import
from portability.importers.jsonl import jsonl_import

__all__ = ["context_keeper_import", "jsonl_import"]
