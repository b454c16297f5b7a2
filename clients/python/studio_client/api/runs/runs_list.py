from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.definition_error import DefinitionError
from ...models.error import Error
from ...models.paginated_run_summary_list import PaginatedRunSummaryList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    pipeline: int | Unset = UNSET,
    status: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["page"] = page

    params["page_size"] = page_size

    params["pipeline"] = pipeline

    params["status"] = status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/runs/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DefinitionError | Error | PaginatedRunSummaryList | None:
    if response.status_code == 200:
        response_200 = PaginatedRunSummaryList.from_dict(response.json())

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
) -> Response[DefinitionError | Error | PaginatedRunSummaryList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    pipeline: int | Unset = UNSET,
    status: str | Unset = UNSET,
) -> Response[DefinitionError | Error | PaginatedRunSummaryList]:
    """Runs you may view, newest first, paginated

     Runs: status, cancel, stop with a savepoint, the stored event log and metrics.

    Args:
        page (int | Unset):
        page_size (int | Unset):
        pipeline (int | Unset):
        status (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | PaginatedRunSummaryList]
    """

    kwargs = _get_kwargs(
        page=page,
        page_size=page_size,
        pipeline=pipeline,
        status=status,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    pipeline: int | Unset = UNSET,
    status: str | Unset = UNSET,
) -> DefinitionError | Error | PaginatedRunSummaryList | None:
    """Runs you may view, newest first, paginated

     Runs: status, cancel, stop with a savepoint, the stored event log and metrics.

    Args:
        page (int | Unset):
        page_size (int | Unset):
        pipeline (int | Unset):
        status (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | PaginatedRunSummaryList
    """

    return sync_detailed(
        client=client,
        page=page,
        page_size=page_size,
        pipeline=pipeline,
        status=status,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    pipeline: int | Unset = UNSET,
    status: str | Unset = UNSET,
) -> Response[DefinitionError | Error | PaginatedRunSummaryList]:
    """Runs you may view, newest first, paginated

     Runs: status, cancel, stop with a savepoint, the stored event log and metrics.

    Args:
        page (int | Unset):
        page_size (int | Unset):
        pipeline (int | Unset):
        status (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | PaginatedRunSummaryList]
    """

    kwargs = _get_kwargs(
        page=page,
        page_size=page_size,
        pipeline=pipeline,
        status=status,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    page: int | Unset = UNSET,
    page_size: int | Unset = UNSET,
    pipeline: int | Unset = UNSET,
    status: str | Unset = UNSET,
) -> DefinitionError | Error | PaginatedRunSummaryList | None:
    """Runs you may view, newest first, paginated

     Runs: status, cancel, stop with a savepoint, the stored event log and metrics.

    Args:
        page (int | Unset):
        page_size (int | Unset):
        pipeline (int | Unset):
        status (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | PaginatedRunSummaryList
    """

    return (
        await asyncio_detailed(
            client=client,
            page=page,
            page_size=page_size,
            pipeline=pipeline,
            status=status,
        )
    ).parsed
