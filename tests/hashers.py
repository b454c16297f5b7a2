"""The password hash test users get (``tests/conftest.py``)."""
from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FewRoundsPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """The studio's password hash at 1,000 rounds: a full-strength hash costs half a CPU-second."""

    iterations = 1_000
