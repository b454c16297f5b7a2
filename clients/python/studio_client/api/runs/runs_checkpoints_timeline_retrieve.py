from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.checkpoint_timeline import CheckpointTimeline
from ...models.definition_error import DefinitionError
from ...models.error import Error
from ...models.runs_checkpoints_timeline_retrieve_resolution import RunsCheckpointsTimelineRetrieveResolution
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: int,
    *,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    resolution: RunsCheckpointsTimelineRetrieveResolution | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["before"] = before

    params["limit"] = limit

    json_resolution: str | Unset = UNSET
    if not isinstance(resolution, Unset):
        json_resolution = resolution.value

    params["resolution"] = json_resolution

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/runs/{id}/checkpoints/timeline/".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CheckpointTimeline | DefinitionError | Error | None:
    if response.status_code == 200:
        response_200 = CheckpointTimeline.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = DefinitionError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[CheckpointTimeline | DefinitionError | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: int,
    *,
    client: AuthenticatedClient,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    resolution: RunsCheckpointsTimelineRetrieveResolution | Unset = UNSET,
) -> Response[CheckpointTimeline | DefinitionError | Error]:
    """Checkpoints per minute or hour of trigger time, newest first: counts and summary, the folded ones
    included

     A run's checkpoints and savepoints: the overview, one checkpoint's statistics, the configuration and
    what the run can be restarted from.

    Args:
        id (int):
        before (int | Unset):
        limit (int | Unset):
        resolution (RunsCheckpointsTimelineRetrieveResolution | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointTimeline | DefinitionError | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        before=before,
        limit=limit,
        resolution=resolution,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: int,
    *,
    client: AuthenticatedClient,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    resolution: RunsCheckpointsTimelineRetrieveResolution | Unset = UNSET,
) -> CheckpointTimeline | DefinitionError | Error | None:
    """Checkpoints per minute or hour of trigger time, newest first: counts and summary, the folded ones
    included

     A run's checkpoints and savepoints: the overview, one checkpoint's statistics, the configuration and
    what the run can be restarted from.

    Args:
        id (int):
        before (int | Unset):
        limit (int | Unset):
        resolution (RunsCheckpointsTimelineRetrieveResolution | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointTimeline | DefinitionError | Error
    """

    return sync_detailed(
        id=id,
        client=client,
        before=before,
        limit=limit,
        resolution=resolution,
    ).parsed


async def asyncio_detailed(
    id: int,
    *,
    client: AuthenticatedClient,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    resolution: RunsCheckpointsTimelineRetrieveResolution | Unset = UNSET,
) -> Response[CheckpointTimeline | DefinitionError | Error]:
    """Checkpoints per minute or hour of trigger time, newest first: counts and summary, the folded ones
    included

     A run's checkpoints and savepoints: the overview, one checkpoint's statistics, the configuration and
    what the run can be restarted from.

    Args:
        id (int):
        before (int | Unset):
        limit (int | Unset):
        resolution (RunsCheckpointsTimelineRetrieveResolution | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointTimeline | DefinitionError | Error]
    """

    kwargs = _get_kwargs(
        id=id,
        before=before,
        limit=limit,
        resolution=resolution,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: int,
    *,
    client: AuthenticatedClient,
    before: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    resolution: RunsCheckpointsTimelineRetrieveResolution | Unset = UNSET,
) -> CheckpointTimeline | DefinitionError | Error | None:
    """Checkpoints per minute or hour of trigger time, newest first: counts and summary, the folded ones
    included

     A run's checkpoints and savepoints: the overview, one checkpoint's statistics, the configuration and
    what the run can be restarted from.

    Args:
        id (int):
        before (int | Unset):
        limit (int | Unset):
        resolution (RunsCheckpointsTimelineRetrieveResolution | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointTimeline | DefinitionError | Error
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            before=before,
            limit=limit,
            resolution=resolution,
        )
    ).parsed
