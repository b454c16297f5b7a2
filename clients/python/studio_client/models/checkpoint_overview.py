from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.checkpoint_counts import CheckpointCounts
    from ..models.checkpoint_row import CheckpointRow
    from ..models.checkpoint_summary import CheckpointSummary
    from ..models.folded_checkpoints import FoldedCheckpoints
    from ..models.latest_checkpoints import LatestCheckpoints


T = TypeVar("T", bound="CheckpointOverview")


@_attrs_define
class CheckpointOverview:
    """
    Attributes:
        counts (CheckpointCounts):
        summary (CheckpointSummary):
        latest (LatestCheckpoints):
        history (list[CheckpointRow]):
        folded (FoldedCheckpoints | None): Older checkpoints kept only in rollups (counted in counts and summary, not in
            history); null: none.
        summary_exact (bool): Whether the summary's percentiles are exact; false once folded checkpoints count in them
            (min, max and avg stay exact).
    """

    counts: CheckpointCounts
    summary: CheckpointSummary
    latest: LatestCheckpoints
    history: list[CheckpointRow]
    folded: FoldedCheckpoints | None
    summary_exact: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.folded_checkpoints import FoldedCheckpoints  # noqa: PLC0415

        counts = self.counts.to_dict()

        summary = self.summary.to_dict()

        latest = self.latest.to_dict()

        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)

        folded: dict[str, Any] | None
        if isinstance(self.folded, FoldedCheckpoints):
            folded = self.folded.to_dict()
        else:
            folded = self.folded

        summary_exact = self.summary_exact

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "counts": counts,
                "summary": summary,
                "latest": latest,
                "history": history,
                "folded": folded,
                "summary_exact": summary_exact,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint_counts import CheckpointCounts  # noqa: PLC0415
        from ..models.checkpoint_row import CheckpointRow  # noqa: PLC0415
        from ..models.checkpoint_summary import CheckpointSummary  # noqa: PLC0415
        from ..models.folded_checkpoints import FoldedCheckpoints  # noqa: PLC0415
        from ..models.latest_checkpoints import LatestCheckpoints  # noqa: PLC0415

        d = dict(src_dict)
        counts = CheckpointCounts.from_dict(d.pop("counts"))

        summary = CheckpointSummary.from_dict(d.pop("summary"))

        latest = LatestCheckpoints.from_dict(d.pop("latest"))

        history = []
        _history = d.pop("history")
        for history_item_data in _history:
            history_item = CheckpointRow.from_dict(history_item_data)

            history.append(history_item)

        def _parse_folded(data: object) -> FoldedCheckpoints | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                folded_type_1 = FoldedCheckpoints.from_dict(data)

                return folded_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FoldedCheckpoints | None, data)

        folded = _parse_folded(d.pop("folded"))

        summary_exact = d.pop("summary_exact")

        checkpoint_overview = cls(
            counts=counts,
            summary=summary,
            latest=latest,
            history=history,
            folded=folded,
            summary_exact=summary_exact,
        )

        checkpoint_overview.additional_properties = d
        return checkpoint_overview

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
