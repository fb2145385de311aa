"""Apache Beam pipelines of the eaglekit loop: clean, generate, featurize (one chain of named transforms each)."""
import logging


class _DropApitoolsWarning(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "apitools not found" not in record.getMessage()


def _import_beam_quietly() -> None:
    """Import Apache Beam without its `WARNING:root:apitools not found ...` line: Beam's bigquery client
    stub logs it on every import where the gcp extra is absent, through the root logger, whose
    `logging.warning` would also install a stderr handler on the root logger (basicConfig). A null
    handler for the duration stops the latter, a filter the line itself; both are removed afterwards."""
    root = logging.getLogger()
    drop, guard = _DropApitoolsWarning(), logging.NullHandler()
    root.addFilter(drop)
    root.addHandler(guard)
    try:
        import apache_beam  # noqa: F401
    except ImportError:  # Beam missing: the stage that needs it says so when it runs
        pass
    finally:
        root.removeHandler(guard)
        root.removeFilter(drop)


_import_beam_quietly()
