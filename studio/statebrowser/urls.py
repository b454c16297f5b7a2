"""``/api/runs/<run>/checkpoints/<checkpoint_id>/state``: the state browser's routes."""
from studio.api.routers import RUN, route
from studio.statebrowser.api import StateBrowserViewSet

STATE = rf"{RUN}/checkpoints/(?P<checkpoint_id>\d{{1,9}})/state"
OPERATOR = rf"{STATE}/operators/(?P<node>[A-Za-z0-9_.:-]{{1,100}})"

urlpatterns = [
    route(STATE, StateBrowserViewSet.as_view({"get": "overview"}), "run-checkpoint-state"),
    route(f"{OPERATOR}/keys", StateBrowserViewSet.as_view({"get": "keys"}), "run-checkpoint-state-keys"),
    route(f"{OPERATOR}/key", StateBrowserViewSet.as_view({"get": "key"}), "run-checkpoint-state-key"),
    route(f"{OPERATOR}/sizes", StateBrowserViewSet.as_view({"get": "sizes"}), "run-checkpoint-state-sizes"),
    route(f"{OPERATOR}/diff", StateBrowserViewSet.as_view({"get": "diff"}), "run-checkpoint-state-diff"),
    route(f"{OPERATOR}/export", StateBrowserViewSet.as_view({"get": "export"}), "run-checkpoint-state-export"),
]
