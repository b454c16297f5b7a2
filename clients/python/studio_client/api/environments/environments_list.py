from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.definition_error import DefinitionError
from ...models.environment import Environment
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    pipeline: int | Unset = UNSET,
    usable: bool | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["pipeline"] = pipeline

    params["usable"] = usable

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/environments/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DefinitionError | Error | list[Environment] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = Environment.from_dict(response_200_item_data)

            response_200.append(response_200_item)

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

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[DefinitionError | Error | list[Environment]]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    pipeline: int | Unset = UNSET,
    usable: bool | Unset = UNSET,
) -> Response[DefinitionError | Error | list[Environment]]:
    """Your environments, your teams' and those you approve for

    Args:
        pipeline (int | Unset):
        usable (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | list[Environment]]
    """

    kwargs = _get_kwargs(
        pipeline=pipeline,
        usable=usable,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    pipeline: int | Unset = UNSET,
    usable: bool | Unset = UNSET,
) -> DefinitionError | Error | list[Environment] | None:
    """Your environments, your teams' and those you approve for

    Args:
        pipeline (int | Unset):
        usable (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | list[Environment]
    """

    return sync_detailed(
        client=client,
        pipeline=pipeline,
        usable=usable,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    pipeline: int | Unset = UNSET,
    usable: bool | Unset = UNSET,
) -> Response[DefinitionError | Error | list[Environment]]:
    """Your environments, your teams' and those you approve for

    Args:
        pipeline (int | Unset):
        usable (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | list[Environment]]
    """

    kwargs = _get_kwargs(
        pipeline=pipeline,
        usable=usable,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    pipeline: int | Unset = UNSET,
    usable: bool | Unset = UNSET,
) -> DefinitionError | Error | list[Environment] | None:
    """Your environments, your teams' and those you approve for

    Args:
        pipeline (int | Unset):
        usable (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | list[Environment]
    """

    return (
        await asyncio_detailed(
            client=client,
            pipeline=pipeline,
            usable=usable,
        )
    ).parsed
