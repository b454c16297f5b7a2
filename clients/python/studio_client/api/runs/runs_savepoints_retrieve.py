from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.definition_error import DefinitionError
from ...models.error import Error
from ...models.savepoint_request import SavepointRequest
from ...types import Response


def _get_kwargs(
    id: int,
    request_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/runs/{id}/savepoints/{request_id}/".format(
            id=quote(str(id), safe=""),
            request_id=quote(str(request_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DefinitionError | Error | SavepointRequest | None:
    if response.status_code == 200:
        response_200 = SavepointRequest.from_dict(response.json())

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
) -> Response[DefinitionError | Error | SavepointRequest]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: int,
    request_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[DefinitionError | Error | SavepointRequest]:
    """A savepoint request: IN_PROGRESS, COMPLETED with location, FAILED with cause

     A run's savepoint requests: trigger one, poll it by its request id.

    Args:
        id (int):
        request_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | SavepointRequest]
    """

    kwargs = _get_kwargs(
        id=id,
        request_id=request_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: int,
    request_id: str,
    *,
    client: AuthenticatedClient,
) -> DefinitionError | Error | SavepointRequest | None:
    """A savepoint request: IN_PROGRESS, COMPLETED with location, FAILED with cause

     A run's savepoint requests: trigger one, poll it by its request id.

    Args:
        id (int):
        request_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | SavepointRequest
    """

    return sync_detailed(
        id=id,
        request_id=request_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: int,
    request_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[DefinitionError | Error | SavepointRequest]:
    """A savepoint request: IN_PROGRESS, COMPLETED with location, FAILED with cause

     A run's savepoint requests: trigger one, poll it by its request id.

    Args:
        id (int):
        request_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | SavepointRequest]
    """

    kwargs = _get_kwargs(
        id=id,
        request_id=request_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: int,
    request_id: str,
    *,
    client: AuthenticatedClient,
) -> DefinitionError | Error | SavepointRequest | None:
    """A savepoint request: IN_PROGRESS, COMPLETED with location, FAILED with cause

     A run's savepoint requests: trigger one, poll it by its request id.

    Args:
        id (int):
        request_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | SavepointRequest
    """

    return (
        await asyncio_detailed(
            id=id,
            request_id=request_id,
            client=client,
        )
    ).parsed
