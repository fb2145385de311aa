"""eaglekit's data contract: versioned Arrow schemas kept as JSON files beside this module.

The JSON files are the source of truth so that any Arrow reader (not just eaglekit) can learn what a
column holds; `eaglekit.contract` turns them into `pyarrow.Schema` objects and validates files.
"""
from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parent
