from tests.sauvegardes.conftest import throwaway  # noqa: F401  (isolated, committing database)
