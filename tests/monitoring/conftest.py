from tests.backups.conftest import throwaway  # noqa: F401  (isolated, committing database)
