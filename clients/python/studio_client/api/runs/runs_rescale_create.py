from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.definition_error import DefinitionError
from ...models.error import Error
from ...models.rescale import Rescale
from ...models.rescale_request_request import RescaleRequestRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    body: RescaleRequestRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/runs/{id}/rescale/".format(
            id=quote(str(id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DefinitionError | Error | Rescale | None:
    if response.status_code == 202:
        response_202 = Rescale.from_dict(response.json())

        return response_202

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

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[DefinitionError | Error | Rescale]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: RescaleRequestRequest | Unset = UNSET,
) -> Response[DefinitionError | Error | Rescale]:
    """Rescale in one click: stop with a savepoint, then start a rescaled version from it (on failure the
    old parallelism starts again from the same savepoint); follow it through the run's rescale events or
    GET rescales

     Runs: status, cancel, stop with a savepoint, the stored event log and metrics.

    Args:
        id (str):
        body (RescaleRequestRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | Rescale]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    body: RescaleRequestRequest | Unset = UNSET,
) -> DefinitionError | Error | Rescale | None:
    """Rescale in one click: stop with a savepoint, then start a rescaled version from it (on failure the
    old parallelism starts again from the same savepoint); follow it through the run's rescale events or
    GET rescales

     Runs: status, cancel, stop with a savepoint, the stored event log and metrics.

    Args:
        id (str):
        body (RescaleRequestRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | Rescale
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: RescaleRequestRequest | Unset = UNSET,
) -> Response[DefinitionError | Error | Rescale]:
    """Rescale in one click: stop with a savepoint, then start a rescaled version from it (on failure the
    old parallelism starts again from the same savepoint); follow it through the run's rescale events or
    GET rescales

     Runs: status, cancel, stop with a savepoint, the stored event log and metrics.

    Args:
        id (str):
        body (RescaleRequestRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | Rescale]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: RescaleRequestRequest | Unset = UNSET,
) -> DefinitionError | Error | Rescale | None:
    """Rescale in one click: stop with a savepoint, then start a rescaled version from it (on failure the
    old parallelism starts again from the same savepoint); follow it through the run's rescale events or
    GET rescales

     Runs: status, cancel, stop with a savepoint, the stored event log and metrics.

    Args:
        id (str):
        body (RescaleRequestRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | Rescale
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
