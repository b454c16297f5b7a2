"""``/api/files/`` (the file browser) and ``/api/uploads`` (an upload)."""
from studio.api.routers import route
from studio.uploads.api import DirectoryView, PlacesView, FilePreviewView, UploadView

LOCATION = r"files/(?P<location>[^/]{1,100})"

urlpatterns = [
    route("files", PlacesView.as_view(), "file-places"),
    route(f"{LOCATION}/preview", FilePreviewView.as_view(), "file-preview"),
    route(LOCATION, DirectoryView.as_view(), "file-directory"),
    route("uploads", UploadView.as_view(), "uploads"),
]
