from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.rescale_status_enum import RescaleStatusEnum

if TYPE_CHECKING:
    from ..models.rescale_nodes import RescaleNodes


T = TypeVar("T", bound="Rescale")


@_attrs_define
class Rescale:
    """
    Attributes:
        id (int):
        run (int):
        status (RescaleStatusEnum): * `STOPPING` - STOPPING
            * `STARTING` - STARTING
            * `COMPLETED` - COMPLETED
            * `ROLLED_BACK` - ROLLED_BACK
            * `FAILED` - FAILED
        message (str):
        from_version (int):
        to_version (int):
        parallelism (int | None):
        nodes (RescaleNodes):
        savepoint_request_id (None | str):
        new_run (int | None): The run at the new parallelism, once started.
        rollback_run (int | None): The run at the old parallelism, if the new one failed.
    """

    id: int
    run: int
    status: RescaleStatusEnum
    message: str
    from_version: int
    to_version: int
    parallelism: int | None
    nodes: RescaleNodes
    savepoint_request_id: None | str
    new_run: int | None
    rollback_run: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        run = self.run

        status = self.status.value

        message = self.message

        from_version = self.from_version

        to_version = self.to_version

        parallelism: int | None
        parallelism = self.parallelism

        nodes = self.nodes.to_dict()

        savepoint_request_id: None | str
        savepoint_request_id = self.savepoint_request_id

        new_run: int | None
        new_run = self.new_run

        rollback_run: int | None
        rollback_run = self.rollback_run

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "run": run,
                "status": status,
                "message": message,
                "from_version": from_version,
                "to_version": to_version,
                "parallelism": parallelism,
                "nodes": nodes,
                "savepoint_request_id": savepoint_request_id,
                "new_run": new_run,
                "rollback_run": rollback_run,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rescale_nodes import RescaleNodes  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        run = d.pop("run")

        status = RescaleStatusEnum(d.pop("status"))

        message = d.pop("message")

        from_version = d.pop("from_version")

        to_version = d.pop("to_version")

        def _parse_parallelism(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        parallelism = _parse_parallelism(d.pop("parallelism"))

        nodes = RescaleNodes.from_dict(d.pop("nodes"))

        def _parse_savepoint_request_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        savepoint_request_id = _parse_savepoint_request_id(d.pop("savepoint_request_id"))

        def _parse_new_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        new_run = _parse_new_run(d.pop("new_run"))

        def _parse_rollback_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        rollback_run = _parse_rollback_run(d.pop("rollback_run"))

        rescale = cls(
            id=id,
            run=run,
            status=status,
            message=message,
            from_version=from_version,
            to_version=to_version,
            parallelism=parallelism,
            nodes=nodes,
            savepoint_request_id=savepoint_request_id,
            new_run=new_run,
            rollback_run=rollback_run,
        )

        rescale.additional_properties = d
        return rescale

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
