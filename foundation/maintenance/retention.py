"""Retention: what expires, after how long, and the bounded purge that removes it.

A table joins retention with one `RetentionRule`, declared in a `retention.py` module of its
app (found by autodiscovery, like admin.py) — capture's raw events, candidates and receipts
and handoff's capsules will each add one. A rule names the model, the age field(s), the
window (an environment-backed setting with a default, overridable by the owner) and how
to retire a row: delete it, or update it (candidates become `expired`, keeping evidence).

Purging goes in batches of primary keys, one short transaction each, so the web process
never waits long for SQLite's write lock and memory stays flat however many rows expire.
A run that reaches its time budget stops between batches and says `complete: false`; the
next run carries on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.apps import apps
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.module_loading import autodiscover_modules
from django.utils.translation import gettext_noop

from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, forbidden, validation_error
from foundation.maintenance.runs import Deadline
from foundation.models import RetentionOverride

UNITS = ("hours", "days")


@dataclass(frozen=True)
class RetentionRule:
    name: str  # stable identifier: the override's key, the key in a run's result
    model: str  # "app_label.ModelName"
    age_fields: tuple[str, ...]  # a row expires when ANY of these is older than the window
    setting: str  # settings attribute with the default window (from CONTINUITY_RETENTION_*)
    default: int  # used when the setting is absent
    unit: str  # "hours" | "days"
    description: str
    extra: Q | None = None  # a further condition on expiring rows (e.g. status=pending)
    update: dict | None = None  # retire by updating these fields instead of deleting
    # Also keep at most this many rows (newest by the first age field); a setting name.
    max_rows_setting: str | None = None
    batch_size: int = 2000
    max_value: int = 3650
    labels: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.unit not in UNITS:
            raise ValueError(f"retention rule {self.name}: unit must be one of {UNITS}")
        if self.update and self.extra is None:
            raise ValueError(
                f"retention rule {self.name}: an updating rule needs `extra`, or it never ends"
            )

    def delta(self, window: int) -> timedelta:
        return timedelta(**{self.unit: window})


RULES: dict[str, RetentionRule] = {}
_discovered = False


def register_rule(rule: RetentionRule) -> RetentionRule:
    RULES[rule.name] = rule
    return rule


def rules() -> list[RetentionRule]:
    """Every registered rule, after importing each installed app's `retention` module."""
    global _discovered
    if not _discovered:
        autodiscover_modules("retention")
        _discovered = True
    return list(RULES.values())


def rule_get(name: str) -> RetentionRule:
    rules()
    try:
        return RULES[name]
    except KeyError:
        raise ServiceError(
            ErrorCode.NOT_FOUND,
            gettext_noop("No retention rule named '%(rule)s'."),
            params={"rule": name},
        ) from None


# --- windows: environment default, owner override ---------------------------------------------


def default_window(rule: RetentionRule) -> int:
    return int(getattr(settings, rule.setting, rule.default))


def retention_windows() -> list[dict]:
    """Each rule's window as the owner's settings page shows it."""
    overrides = dict(RetentionOverride.objects.values_list("rule", "value"))
    return [
        {
            "rule": rule.name,
            "description": rule.description,
            "unit": rule.unit,
            "default": default_window(rule),
            "override": overrides.get(rule.name),
            "window": overrides.get(rule.name, default_window(rule)),
            "max_value": rule.max_value,
        }
        for rule in rules()
    ]


def effective_window(rule: RetentionRule) -> int:
    override = (
        RetentionOverride.objects.filter(rule=rule.name).values_list("value", flat=True).first()
    )
    return override if override is not None else default_window(rule)


def _require_instance_owner(actor: Actor, action: str) -> None:
    # Windows apply to the whole instance, so only its owner (a superuser: the account
    # `serve` creates) sets them; another user's own memories are not the only ones at stake.
    actor.require_owner(action)
    if not actor.user.is_superuser:
        raise forbidden(gettext_noop("Only the instance owner can %(action)s."), action=action)


def retention_overview(*, actor: Actor, runs: int = 10) -> dict:
    """The settings page's retention section: every window, and what recent cleanups did."""
    from foundation.models import MaintenanceRun

    _require_instance_owner(actor, gettext_noop("see retention settings"))
    recent = MaintenanceRun.objects.filter(task="continuity.retention_cleanup").exclude(
        status="skipped"
    )
    return {
        "rules": retention_windows(),
        "recent_runs": [
            {
                "id": run.pk,
                "status": run.status,
                "started_at": run.started_at,
                "finished_at": run.finished_at,
                "error": run.error,
                "removed": {
                    name: rule.get("removed") for name, rule in run.result.get("rules", {}).items()
                },
            }  # fmt: skip
            for run in recent.order_by("-started_at", "-id")[:runs]
        ],
    }


@transaction.atomic
def retention_window_set(*, actor: Actor, rule: str, value: int | None) -> dict:
    """Instance owner only: set a rule's window (in the rule's unit), or reset it to the
    environment's default with None. Idempotent."""
    _require_instance_owner(actor, gettext_noop("change retention windows"))
    found = rule_get(rule)
    if value is None:
        RetentionOverride.objects.filter(rule=found.name).delete()
    else:
        if isinstance(value, bool) or not isinstance(value, int):
            raise validation_error(
                gettext_noop("The window must be a whole number."), field="value"
            )
        if not 1 <= value <= found.max_value:
            raise validation_error(
                gettext_noop("The window must be between 1 and %(max)s %(unit)s."),
                field="value", max=found.max_value, unit=found.unit,
            )  # fmt: skip
        RetentionOverride.objects.update_or_create(
            rule=found.name,
            defaults={"value": value, "updated_at": timezone.now(), "updated_by": actor.user},
        )
    return next(item for item in retention_windows() if item["rule"] == found.name)


# --- purging ------------------------------------------------------------------------------------


def expired_rows(rule: RetentionRule, *, now: datetime, window: int):
    model = apps.get_model(rule.model)
    cutoff = now - rule.delta(window)
    condition = Q()
    for name in rule.age_fields:
        condition |= Q(**{f"{name}__lt": cutoff})
    if rule.extra is not None:
        condition &= rule.extra
    return model._default_manager.filter(condition), cutoff


def _retire(rule: RetentionRule, model, pks: list) -> int:
    rows = model._default_manager.filter(pk__in=pks)
    if rule.update:
        return rows.update(**rule.update)
    _, per_model = rows.delete()
    return per_model.get(model._meta.label, 0)


def _in_batches(rule: RetentionRule, model, pick, deadline: Deadline) -> tuple[int, int, bool]:
    """Retire the rows `pick()` names, one batch per transaction. (removed, batches, complete)."""
    removed = batches = 0
    while True:
        if deadline.passed:
            return removed, batches, False
        with transaction.atomic():
            pks = list(pick())
            if not pks:
                return removed, batches, True
            removed += _retire(rule, model, pks)
        batches += 1


def purge(rule: RetentionRule, *, deadline: Deadline, now: datetime | None = None) -> dict:
    """Retire what `rule` says has expired, in bounded batches. Idempotent: a rerun finds
    nothing left to do. Returns what it did, for the run record."""
    now = now or timezone.now()
    window = effective_window(rule)
    expiring, cutoff = expired_rows(rule, now=now, window=window)
    model = expiring.model
    batch = rule.batch_size
    removed, batches, complete = _in_batches(
        rule, model, lambda: expiring.order_by().values_list("pk", flat=True)[:batch], deadline
    )
    report = {
        "action": "updated" if rule.update else "deleted",
        "removed": removed,
        "batches": batches,
        "window": window,
        "unit": rule.unit,
        "cutoff": cutoff.isoformat(),
    }
    if rule.max_rows_setting and complete and not rule.update:
        keep = int(getattr(settings, rule.max_rows_setting))
        newest_first = model._default_manager.order_by(f"-{rule.age_fields[0]}", "-pk")
        over, more_batches, complete = _in_batches(
            rule,
            model,
            lambda: newest_first.values_list("pk", flat=True)[keep : keep + batch],
            deadline,
        )
        report.update(over_cap=over, cap=keep)
        report["removed"] += over
        report["batches"] += more_batches
    report["complete"] = complete
    return report


def retention_cleanup(*, deadline: Deadline, now: datetime | None = None) -> dict:
    """One pass over every rule; the run's result is what each rule removed. A rule that
    fails is reported and the others still run; the run then fails as a whole."""
    now = now or timezone.now()
    report: dict = {"rules": {}, "removed": 0, "complete": True}
    failures = []
    for rule in rules():
        try:
            result = purge(rule, deadline=deadline, now=now)
        except Exception as error:  # one broken table must not stop retention of the others
            failures.append(f"{rule.name}: {type(error).__name__}: {error}")
            report["rules"][rule.name] = {"error": type(error).__name__}
            continue
        report["rules"][rule.name] = result
        report["removed"] += result["removed"]
        report["complete"] = report["complete"] and result["complete"]
    if failures:
        raise RetentionFailed("; ".join(failures), report)
    return report


class RetentionFailed(Exception):
    """Some rules failed; `report` holds what every rule did (recorded with the run)."""

    def __init__(self, message: str, report: dict):
        super().__init__(message)
        self.report = report

    def __reduce__(self):  # Celery pickles exceptions across processes
        return (type(self), (self.args[0], self.report))


# --- this floor's own rule; every app registers its tables' rules in its retention.py ------

register_rule(RetentionRule(
    name="maintenance_runs",
    model="foundation.MaintenanceRun",
    age_fields=("started_at",),
    setting="CONTINUITY_RETENTION_MAINTENANCE_RUNS_DAYS",
    default=30,
    unit="days",
    extra=~Q(status="running"),
    description=gettext_noop("Records of past background runs."),
))  # fmt: skip
