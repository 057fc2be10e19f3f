"""The validation report's schema (version :data:`SCHEMA_VERSION`), as typed dictionaries.

The report is a JSON document (``report.json``) first: TypedDicts give its keys and value
types to the type checker and to readers without changing what is written or how callers
index it (``report['passed']``). Lengths in rad or m (per joint type), times in s.
"""

from typing import Any, NotRequired, TypedDict

__all__ = ['SCHEMA_VERSION', 'ContactEntry', 'ContactsSummary', 'JointLimits', 'JointTracking',
           'OverallTracking', 'TrackingResult', 'ReportTopics', 'ModelSummary', 'ValidationReport']

SCHEMA_VERSION = 1


class JointLimits(TypedDict):
    """Thresholds applied to one joint; None: not checked."""

    max_rms: float | None
    max_abs: float | None


class JointTracking(TypedDict):
    """Tracking error of one joint (reference - measured)."""

    rms: float
    max_abs: float
    final: float
    time_in_band: float  # fraction of samples within the tolerance band
    settling_time: float  # from the first sample to the last one outside the band
    non_finite: int
    thresholds: NotRequired[JointLimits]  # added by the verdict


class OverallTracking(TypedDict):
    """All joints together."""

    rms: float
    max_abs: float
    samples: int
    duration: float
    excluded_after_stalls: int  # states within settle_after_stall of a stall [count]


class TrackingResult(TypedDict):
    """What the tracking metrics return."""

    joints: dict[str, JointTracking]
    overall: OverallTracking


class ReportTopics(TypedDict):
    """Topics compared (reference/command None when the bag has none)."""

    state: str
    reference: str | None
    command: str | None


class ModelSummary(TypedDict):
    """The robot model used for the residual, when given."""

    name: str
    joints: list[str]


class ContactEntry(TypedDict):
    """One contact the collision observer found: times from the first state [s]."""

    start: float
    end: float | None  # None: it lasted to the end of the bag
    detected: float  # when the debounce completed
    peak: dict[str, float]  # joint -> largest |r| in the contact [N m or N]


class ContactsSummary(TypedDict):
    """What ``--collision FILE`` found: the observer and detector of the controllers."""

    thresholds_file: str
    allowed: bool  # --allow-contacts: contacts were expected (no failure)
    count: int
    contacts: list[ContactEntry]
    peak: dict[str, float]  # joint -> largest |r| over the whole bag [N m or N]


class ValidationReport(TypedDict):
    """``report.json``: the verdict (``passed``, ``failures``) and what it rests on."""

    schema_version: int
    bag: str
    topics: ReportTopics
    units: str
    tolerance_band: float
    joints: dict[str, JointTracking]
    overall: OverallTracking
    timing: dict[str, dict[str, Any] | None]  # 'state', 'reference': stamp statistics
    torque: dict[str, Any]  # command statistics (peaks, time at the effort limit)
    diagnostics: dict[str, Any] | None  # the controller's /diagnostics, summarised
    residual: dict[str, Any] | None  # model residual per joint (rms, r2)
    # the error fitted to the reference's rates per joint (validation.error_fit)
    error_fit: dict[str, dict[str, float] | None]
    model: ModelSummary | None
    thresholds_source: str
    events: list[dict[str, Any]]  # the controller's transitions (time, level, state, text)
    warnings: list[str]  # includes every topic the verdict could not use
    failures: list[str]
    passed: bool
    start_time: NotRequired[float | None]  # the bag's first message [s since the epoch]
    recovered: NotRequired[bool]  # read from a killed recorder's files
    # a damaged bag judged with recover=True: messages complete, and listed in its metadata
    recovered_share: NotRequired[dict[str, int | None]]
    contacts: NotRequired[ContactsSummary]  # with --collision
    task_space: NotRequired[dict[str, Any]]  # with --task-space (validation/task_space.py)
    tool_tracking: NotRequired[dict[str, Any]]  # with --task-space (validation/tool_tracking.py)
    plots: NotRequired[dict[str, str]]  # plot name -> file, when plots were asked for
    out_dir: NotRequired[str]
