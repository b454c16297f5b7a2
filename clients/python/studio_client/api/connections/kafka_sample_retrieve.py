from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.definition_error import DefinitionError
from ...models.error import Error
from ...models.kafka_sample import KafkaSample
from ...models.kafka_sample_retrieve_emit import KafkaSampleRetrieveEmit
from ...models.kafka_sample_retrieve_value_format import KafkaSampleRetrieveValueFormat
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    bootstrap_servers: str,
    columns: str | Unset = UNSET,
    delimiter: str | Unset = UNSET,
    emit: KafkaSampleRetrieveEmit | Unset = UNSET,
    limit: int | Unset = UNSET,
    topic: str,
    value_format: KafkaSampleRetrieveValueFormat | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["bootstrap_servers"] = bootstrap_servers

    params["columns"] = columns

    params["delimiter"] = delimiter

    json_emit: str | Unset = UNSET
    if not isinstance(emit, Unset):
        json_emit = emit.value

    params["emit"] = json_emit

    params["limit"] = limit

    params["topic"] = topic

    json_value_format: str | Unset = UNSET
    if not isinstance(value_format, Unset):
        json_value_format = value_format.value

    params["value_format"] = json_value_format

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/kafka/sample/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DefinitionError | Error | KafkaSample | None:
    if response.status_code == 200:
        response_200 = KafkaSample.from_dict(response.json())

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
) -> Response[DefinitionError | Error | KafkaSample]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    bootstrap_servers: str,
    columns: str | Unset = UNSET,
    delimiter: str | Unset = UNSET,
    emit: KafkaSampleRetrieveEmit | Unset = UNSET,
    limit: int | Unset = UNSET,
    topic: str,
    value_format: KafkaSampleRetrieveValueFormat | Unset = UNSET,
) -> Response[DefinitionError | Error | KafkaSample]:
    """A topic's latest messages and the fields inferred from them

     Reads at most `limit` of the newest messages (across partitions), decodes them as a Kafka source
    with these parameters would, and infers the fields its records offer to expressions.

    Args:
        bootstrap_servers (str):
        columns (str | Unset):
        delimiter (str | Unset):
        emit (KafkaSampleRetrieveEmit | Unset):
        limit (int | Unset):
        topic (str):
        value_format (KafkaSampleRetrieveValueFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | KafkaSample]
    """

    kwargs = _get_kwargs(
        bootstrap_servers=bootstrap_servers,
        columns=columns,
        delimiter=delimiter,
        emit=emit,
        limit=limit,
        topic=topic,
        value_format=value_format,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    bootstrap_servers: str,
    columns: str | Unset = UNSET,
    delimiter: str | Unset = UNSET,
    emit: KafkaSampleRetrieveEmit | Unset = UNSET,
    limit: int | Unset = UNSET,
    topic: str,
    value_format: KafkaSampleRetrieveValueFormat | Unset = UNSET,
) -> DefinitionError | Error | KafkaSample | None:
    """A topic's latest messages and the fields inferred from them

     Reads at most `limit` of the newest messages (across partitions), decodes them as a Kafka source
    with these parameters would, and infers the fields its records offer to expressions.

    Args:
        bootstrap_servers (str):
        columns (str | Unset):
        delimiter (str | Unset):
        emit (KafkaSampleRetrieveEmit | Unset):
        limit (int | Unset):
        topic (str):
        value_format (KafkaSampleRetrieveValueFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | KafkaSample
    """

    return sync_detailed(
        client=client,
        bootstrap_servers=bootstrap_servers,
        columns=columns,
        delimiter=delimiter,
        emit=emit,
        limit=limit,
        topic=topic,
        value_format=value_format,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    bootstrap_servers: str,
    columns: str | Unset = UNSET,
    delimiter: str | Unset = UNSET,
    emit: KafkaSampleRetrieveEmit | Unset = UNSET,
    limit: int | Unset = UNSET,
    topic: str,
    value_format: KafkaSampleRetrieveValueFormat | Unset = UNSET,
) -> Response[DefinitionError | Error | KafkaSample]:
    """A topic's latest messages and the fields inferred from them

     Reads at most `limit` of the newest messages (across partitions), decodes them as a Kafka source
    with these parameters would, and infers the fields its records offer to expressions.

    Args:
        bootstrap_servers (str):
        columns (str | Unset):
        delimiter (str | Unset):
        emit (KafkaSampleRetrieveEmit | Unset):
        limit (int | Unset):
        topic (str):
        value_format (KafkaSampleRetrieveValueFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DefinitionError | Error | KafkaSample]
    """

    kwargs = _get_kwargs(
        bootstrap_servers=bootstrap_servers,
        columns=columns,
        delimiter=delimiter,
        emit=emit,
        limit=limit,
        topic=topic,
        value_format=value_format,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    bootstrap_servers: str,
    columns: str | Unset = UNSET,
    delimiter: str | Unset = UNSET,
    emit: KafkaSampleRetrieveEmit | Unset = UNSET,
    limit: int | Unset = UNSET,
    topic: str,
    value_format: KafkaSampleRetrieveValueFormat | Unset = UNSET,
) -> DefinitionError | Error | KafkaSample | None:
    """A topic's latest messages and the fields inferred from them

     Reads at most `limit` of the newest messages (across partitions), decodes them as a Kafka source
    with these parameters would, and infers the fields its records offer to expressions.

    Args:
        bootstrap_servers (str):
        columns (str | Unset):
        delimiter (str | Unset):
        emit (KafkaSampleRetrieveEmit | Unset):
        limit (int | Unset):
        topic (str):
        value_format (KafkaSampleRetrieveValueFormat | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DefinitionError | Error | KafkaSample
    """

    return (
        await asyncio_detailed(
            client=client,
            bootstrap_servers=bootstrap_servers,
            columns=columns,
            delimiter=delimiter,
            emit=emit,
            limit=limit,
            topic=topic,
            value_format=value_format,
        )
    ).parsed
