"""Views nested under a run (``/api/runs/<run_pk>/...``): the run is looked up, checked, and cached."""
from __future__ import annotations

from django.shortcuts import get_object_or_404

from studio.access import runs_visible_to
from studio.api.permissions import check_pipeline_permission
from studio.models import Run


class RunNestedMixin:
    """Gives ``self.run``: the URL's run if the user may view it (404 otherwise) and may do the action (403)."""

    @property
    def run(self) -> Run:
        if not hasattr(self, "_run"):
            runs = runs_visible_to(self.request.user).select_related("pipeline", "version")
            self._run = get_object_or_404(runs, pk=self.kwargs["run_pk"])
            check_pipeline_permission(self.request, self, self._run)
        return self._run
