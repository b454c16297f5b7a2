"""The REST API (Django REST framework): one module per concern."""
