"""Views nested under a run (``/api/runs/<id>/...``, ``studio.api.routers.RUN``): the run is looked up, checked, and cached."""
from __future__ import annotations

from django.http import Http404

from studio.access import visible_run
from studio.api.permissions import check_pipeline_permission
from studio.models import Run


class RunNestedMixin:
    """Gives ``self.run``: the URL's run if the user may view it (404 otherwise) and may do the action (403)."""

    @property
    def run_id(self) -> str:
        """The URL's run id (``id``; ``run_pk`` in a route written before the tree's names were made alike)."""
        return self.kwargs["id"] if "id" in self.kwargs else self.kwargs["run_pk"]

    @property
    def run(self) -> Run:
        if not hasattr(self, "_run"):
            run = visible_run(self.request.user, self.run_id, "version")
            if run is None:
                raise Http404("No run matches the given query.")
            self._run = run
            check_pipeline_permission(self.request, self, self._run)
        return self._run
