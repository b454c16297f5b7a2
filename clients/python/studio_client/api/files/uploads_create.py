from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.definition_error import DefinitionError
from ...models.error import Error
from ...models.uploaded_file import UploadedFile
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    *,
    body: File | Unset = UNSET,
    directory: str | Unset = UNSET,
    location: str,
    name: str,
    overwrite: bool | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["directory"] = directory

    params["location"] = location

    params["name"] = name

    params["overwrite"] = overwrite

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/uploads/",
        "params": params,
    }

    if not isinstance(body, Unset):
        _kwargs["content"] = body.payload
    headers["Content-Type"] = "application/octet-stream"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DefinitionError | Error | UploadedFile | None:
    if response.status_code == 201:
        response_201 = UploadedFile.from_dict(response.json())

        return response_201

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
) -> Response[DefinitionError | Error | UploadedFile]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: File | Unset = UNSET,
    directory: str | Unset = UNSET,
    location: str,
    name: str,
    overwrite: bool | Unset = UNSET,
) -> Response[DefinitionError | Error | UploadedFile]:
    """Upload a file into a location you may write (the body is the file)

     The body is the file's bytes (`application/octet-stream`), at most STUDIO_MAX_UPLOAD_BYTES (413
    beyond). Missing directories are created. The name is sanitised (letters, digits, spaces and ._=+@-;
    no leading . or _, which a file source would skip); an existing file is replaced only with
    overwrite=true (409 otherwise).

    Args:
        directory (str | Unset):
        location (str):
        name (str):
        overwrite (bool | Unset):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | UploadedFile]
    """

    kwargs = _get_kwargs(
        body=body,
        directory=directory,
        location=location,
        name=name,
        overwrite=overwrite,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: File | Unset = UNSET,
    directory: str | Unset = UNSET,
    location: str,
    name: str,
    overwrite: bool | Unset = UNSET,
) -> DefinitionError | Error | UploadedFile | None:
    """Upload a file into a location you may write (the body is the file)

     The body is the file's bytes (`application/octet-stream`), at most STUDIO_MAX_UPLOAD_BYTES (413
    beyond). Missing directories are created. The name is sanitised (letters, digits, spaces and ._=+@-;
    no leading . or _, which a file source would skip); an existing file is replaced only with
    overwrite=true (409 otherwise).

    Args:
        directory (str | Unset):
        location (str):
        name (str):
        overwrite (bool | Unset):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | UploadedFile
    """

    return sync_detailed(
        client=client,
        body=body,
        directory=directory,
        location=location,
        name=name,
        overwrite=overwrite,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: File | Unset = UNSET,
    directory: str | Unset = UNSET,
    location: str,
    name: str,
    overwrite: bool | Unset = UNSET,
) -> Response[DefinitionError | Error | UploadedFile]:
    """Upload a file into a location you may write (the body is the file)

     The body is the file's bytes (`application/octet-stream`), at most STUDIO_MAX_UPLOAD_BYTES (413
    beyond). Missing directories are created. The name is sanitised (letters, digits, spaces and ._=+@-;
    no leading . or _, which a file source would skip); an existing file is replaced only with
    overwrite=true (409 otherwise).

    Args:
        directory (str | Unset):
        location (str):
        name (str):
        overwrite (bool | Unset):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | UploadedFile]
    """

    kwargs = _get_kwargs(
        body=body,
        directory=directory,
        location=location,
        name=name,
        overwrite=overwrite,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: File | Unset = UNSET,
    directory: str | Unset = UNSET,
    location: str,
    name: str,
    overwrite: bool | Unset = UNSET,
) -> DefinitionError | Error | UploadedFile | None:
    """Upload a file into a location you may write (the body is the file)

     The body is the file's bytes (`application/octet-stream`), at most STUDIO_MAX_UPLOAD_BYTES (413
    beyond). Missing directories are created. The name is sanitised (letters, digits, spaces and ._=+@-;
    no leading . or _, which a file source would skip); an existing file is replaced only with
    overwrite=true (409 otherwise).

    Args:
        directory (str | Unset):
        location (str):
        name (str):
        overwrite (bool | Unset):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | UploadedFile
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            directory=directory,
            location=location,
            name=name,
            overwrite=overwrite,
        )
    ).parsed
