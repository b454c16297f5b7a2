"""Pagination policies."""
from rest_framework.pagination import PageNumberPagination


class RunPagination(PageNumberPagination):
    """Pages of runs: ``?page=<n>&page_size=<m>`` (default 50, at most 500)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
