from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.definition_error import DefinitionError
from ...models.error import Error
from ...models.state_page import StatePage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: int,
    checkpoint_id: int,
    node: str,
    *,
    expression: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["expression"] = expression

    params["limit"] = limit

    params["offset"] = offset

    params["search"] = search

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/runs/{id}/checkpoints/{checkpoint_id}/state/operators/{node}/keys/".format(
            id=quote(str(id), safe=""),
            checkpoint_id=quote(str(checkpoint_id), safe=""),
            node=quote(str(node), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DefinitionError | Error | StatePage | None:
    if response.status_code == 200:
        response_200 = StatePage.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[DefinitionError | Error | StatePage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: int,
    checkpoint_id: int,
    node: str,
    *,
    client: AuthenticatedClient,
    expression: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> Response[DefinitionError | Error | StatePage]:
    """A page of an operator's keys and their state, in key order

     Gives ``self.run``: the URL's run if the user may view it (404 otherwise) and may do the action
    (403).

    Args:
        id (int):
        checkpoint_id (int):
        node (str):
        expression (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | StatePage]
    """

    kwargs = _get_kwargs(
        id=id,
        checkpoint_id=checkpoint_id,
        node=node,
        expression=expression,
        limit=limit,
        offset=offset,
        search=search,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: int,
    checkpoint_id: int,
    node: str,
    *,
    client: AuthenticatedClient,
    expression: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> DefinitionError | Error | StatePage | None:
    """A page of an operator's keys and their state, in key order

     Gives ``self.run``: the URL's run if the user may view it (404 otherwise) and may do the action
    (403).

    Args:
        id (int):
        checkpoint_id (int):
        node (str):
        expression (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | StatePage
    """

    return sync_detailed(
        id=id,
        checkpoint_id=checkpoint_id,
        node=node,
        client=client,
        expression=expression,
        limit=limit,
        offset=offset,
        search=search,
    ).parsed


async def asyncio_detailed(
    id: int,
    checkpoint_id: int,
    node: str,
    *,
    client: AuthenticatedClient,
    expression: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> Response[DefinitionError | Error | StatePage]:
    """A page of an operator's keys and their state, in key order

     Gives ``self.run``: the URL's run if the user may view it (404 otherwise) and may do the action
    (403).

    Args:
        id (int):
        checkpoint_id (int):
        node (str):
        expression (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | StatePage]
    """

    kwargs = _get_kwargs(
        id=id,
        checkpoint_id=checkpoint_id,
        node=node,
        expression=expression,
        limit=limit,
        offset=offset,
        search=search,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: int,
    checkpoint_id: int,
    node: str,
    *,
    client: AuthenticatedClient,
    expression: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    search: str | Unset = UNSET,
) -> DefinitionError | Error | StatePage | None:
    """A page of an operator's keys and their state, in key order

     Gives ``self.run``: the URL's run if the user may view it (404 otherwise) and may do the action
    (403).

    Args:
        id (int):
        checkpoint_id (int):
        node (str):
        expression (str | Unset):
        limit (int | Unset):
        offset (int | Unset):
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | StatePage
    """

    return (
        await asyncio_detailed(
            id=id,
            checkpoint_id=checkpoint_id,
            node=node,
            client=client,
            expression=expression,
            limit=limit,
            offset=offset,
            search=search,
        )
    ).parsed
