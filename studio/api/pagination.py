"""Pagination policies."""
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination


class RunPagination(PageNumberPagination):
    """Pages of runs: ``?page=<n>&page_size=<m>`` (default 50, at most 500); another page_size is a 400."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request):
        value = request.query_params.get(self.page_size_query_param)
        if value is None:
            return self.page_size
        if not (value.isdigit() and 1 <= int(value) <= self.max_page_size):
            raise ValidationError({self.page_size_query_param: [f"an integer from 1 to {self.max_page_size}"]})
        return int(value)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size)
        return parameters
