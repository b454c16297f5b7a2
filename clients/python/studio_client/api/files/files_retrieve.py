from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.definition_error import DefinitionError
from ...models.error import Error
from ...models.file_listing import FileListing
from ...types import UNSET, Response, Unset


def _get_kwargs(
    location: str,
    *,
    path: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["path"] = path

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/files/{location}/".format(
            location=quote(str(location), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DefinitionError | Error | FileListing | None:
    if response.status_code == 200:
        response_200 = FileListing.from_dict(response.json())

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
) -> Response[DefinitionError | Error | FileListing]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    location: str,
    *,
    client: AuthenticatedClient,
    path: str | Unset = UNSET,
) -> Response[DefinitionError | Error | FileListing]:
    """A directory of a location: its entries with sizes

    Args:
        location (str):
        path (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | FileListing]
    """

    kwargs = _get_kwargs(
        location=location,
        path=path,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    location: str,
    *,
    client: AuthenticatedClient,
    path: str | Unset = UNSET,
) -> DefinitionError | Error | FileListing | None:
    """A directory of a location: its entries with sizes

    Args:
        location (str):
        path (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | FileListing
    """

    return sync_detailed(
        location=location,
        client=client,
        path=path,
    ).parsed


async def asyncio_detailed(
    location: str,
    *,
    client: AuthenticatedClient,
    path: str | Unset = UNSET,
) -> Response[DefinitionError | Error | FileListing]:
    """A directory of a location: its entries with sizes

    Args:
        location (str):
        path (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | FileListing]
    """

    kwargs = _get_kwargs(
        location=location,
        path=path,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    location: str,
    *,
    client: AuthenticatedClient,
    path: str | Unset = UNSET,
) -> DefinitionError | Error | FileListing | None:
    """A directory of a location: its entries with sizes

    Args:
        location (str):
        path (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | FileListing
    """

    return (
        await asyncio_detailed(
            location=location,
            client=client,
            path=path,
        )
    ).parsed
