"""The API's JSON renderer: DRF's, except that no answer fails for the data it carries (``studio.json_out``)."""
from __future__ import annotations

import json

from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

from studio.json_out import finite


class StudioJSONRenderer(JSONRenderer):
    """Non-finite floats are named (``"NaN"``), lone surrogates escaped; other answers are DRF's, byte for byte."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except ValueError:  # a non-finite float, or a lone surrogate (UnicodeEncodeError)
            return json.dumps(finite(data), cls=JSONEncoder, ensure_ascii=True, allow_nan=False,
                              separators=(",", ":")).encode()
