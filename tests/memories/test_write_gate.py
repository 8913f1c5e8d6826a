"""One gate sees every field of every write path.

The paths and their fields are read from the code (the services' keyword-only parameters,
the models' text and JSON fields), not listed by hand: a field or a parameter added later is
enumerated here too, and a secret in it must be refused with nothing written.
"""

from __future__ import annotations

import inspect

import pytest

from foundation.errors import ErrorCode, ServiceError
from handoff.models import HandoffCapsule
from handoff.services import handoff_create
from memories import gates
from memories.models import Memory, MemoryLink
from memories.services import (
    memory_checkpoint,
    memory_correct,
    memory_forget,
    memory_link,
    memory_remember,
)
from memories.services.checkpoint import ATOM_FIELDS
from memories.services.remember import WRITE_MODES
from tests.api.helpers import database_dump
from tests.memories.helpers import (
    expected_refusal,
    free_text_fields,
    is_free_text,
    planted_token,
    remember,
    shaped,
)

pytestmark = pytest.mark.django_db

SECRET = planted_token()
PROJECT = "github:ada/app"
# Columns a writer never gives: derived from other fields, or taken from the caller's token.
DERIVED = {"fingerprint": "sha256 of content and scope", "source_agent": "the token's agent"}


def parameters(service) -> dict[str, str]:
    """A service's keyword-only parameters (besides who acts on what), with annotations."""
    return {
        name: str(parameter.annotation) if parameter.annotation is not parameter.empty else ""
        for name, parameter in inspect.signature(service).parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY and name not in ("actor", "memory_id")
    }


def memory_parameter_is_free_text(name: str, annotation: str) -> bool:
    # write_mode is a closed set of remember's own (WRITE_MODES), not a column.
    closed = {"write_mode": WRITE_MODES}
    return name not in closed and is_free_text(Memory, name, annotation)


def refuses_unchanged(write, codes) -> None:
    before = database_dump()
    with pytest.raises(ServiceError) as caught:
        write()
    assert caught.value.code in codes, (caught.value.code, caught.value.message)
    assert SECRET not in caught.value.message
    assert database_dump() == before


REMEMBER = parameters(memory_remember)
CORRECT = parameters(memory_correct)
CHECKPOINT = parameters(memory_checkpoint)
HANDOFF = parameters(handoff_create)


def test_the_gate_takes_every_text_and_json_field_of_a_memory():
    gate_fields = set(parameters(gates.gate_memory))
    assert free_text_fields(Memory) - gate_fields == {"fingerprint"}
    assert {"reason", "idempotency_key"} <= gate_fields  # what the memory's history keeps


def test_remember_takes_every_text_field_a_writer_may_give():
    assert free_text_fields(Memory) - set(REMEMBER) == set(DERIVED)


@pytest.mark.parametrize("who", ["owner_actor", "agent_actor"])
@pytest.mark.parametrize("name", sorted(REMEMBER))
def test_a_secret_in_any_field_of_remember_is_refused(request, who, name):
    actor = request.getfixturevalue(who)
    fields = {"content": "Deploys happen on Tuesdays.", "kind": "fact", "key": "deploy.day",
              "scope_type": "project", "scope_key": PROJECT}  # fmt: skip
    fields[name] = shaped(SECRET, annotation=REMEMBER[name])
    refuses_unchanged(
        lambda: memory_remember(actor=actor, **fields),
        expected_refusal(memory_parameter_is_free_text(name, REMEMBER[name])),
    )


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_a_secret_in_any_field_of_an_owner_correction_is_refused(owner_actor, name):
    receipt = remember(
        owner_actor, "Deploys happen on Tuesdays.", kind="fact", key="deploy.day",
        value={"day": "tuesday"}, scope_type="project", scope_key=PROJECT,
    )  # fmt: skip
    fields = {
        "content": "Deploys happen on Wednesdays.",
        name: shaped(SECRET, annotation=CORRECT[name]),
    }
    refuses_unchanged(
        lambda: memory_correct(actor=owner_actor, memory_id=receipt.id, **fields),
        expected_refusal(memory_parameter_is_free_text(name, CORRECT[name])),
    )


def test_an_owner_correction_cannot_store_a_token_in_value_that_remember_refuses(owner_actor):
    receipt = remember(owner_actor, "The CI token lives in the vault.", kind="fact")
    with pytest.raises(ServiceError) as caught:
        memory_remember(actor=owner_actor, content="CI token.", kind="fact", value={"t": SECRET})
    assert caught.value.code == ErrorCode.SECRET_REJECTED
    refuses_unchanged(
        lambda: memory_correct(
            actor=owner_actor, memory_id=receipt.id, content="The CI token.", value={"t": SECRET}
        ),
        {ErrorCode.SECRET_REJECTED},
    )
    assert not Memory.objects.filter(value__t=SECRET).exists()


@pytest.mark.parametrize("name", sorted(set(CHECKPOINT) - {"memories"}))
def test_a_secret_in_any_field_of_a_checkpoint_is_refused(agent_actor, name):
    fields = {"summary": "Parser done; CLI next.", "project_key": PROJECT, "task_id": "TASK-1",
              "memories": [{"content": "The parser is hand-written.", "kind": "decision"}]}  # fmt: skip
    fields[name] = shaped(SECRET, annotation=CHECKPOINT[name])
    refuses_unchanged(
        lambda: memory_checkpoint(actor=agent_actor, **fields),
        expected_refusal(memory_parameter_is_free_text(name, CHECKPOINT[name])),
    )


def test_a_checkpoint_atom_takes_only_what_remember_takes():
    assert ATOM_FIELDS <= set(REMEMBER)


@pytest.mark.parametrize("name", sorted(ATOM_FIELDS))
def test_a_secret_in_any_field_of_a_checkpoint_atom_is_refused(agent_actor, name):
    atom = {"content": "The parser is hand-written.", "kind": "decision", "key": "parser"}
    atom[name] = shaped(SECRET, annotation=REMEMBER[name])
    refuses_unchanged(
        lambda: memory_checkpoint(
            actor=agent_actor, summary="Parser done.", project_key=PROJECT, memories=[atom]
        ),
        expected_refusal(memory_parameter_is_free_text(name, REMEMBER[name])),
    )


@pytest.mark.parametrize("name", sorted(parameters(memory_forget)))
def test_a_secret_in_any_field_of_forget_is_refused(agent_actor, name):
    receipt = remember(agent_actor, "The staging database is rebuilt nightly.", kind="fact")
    annotation = parameters(memory_forget)[name]
    refuses_unchanged(
        lambda: memory_forget(
            actor=agent_actor, memory_id=receipt.id, **{name: shaped(SECRET, annotation=annotation)}
        ),
        expected_refusal(memory_parameter_is_free_text(name, annotation)),
    )


@pytest.mark.parametrize("name", sorted(set(parameters(memory_link)) - {"from_id"}))
def test_a_secret_in_any_field_of_a_link_is_refused(agent_actor, name):
    receipt = remember(agent_actor, "The staging database is rebuilt nightly.", kind="fact")
    annotation = parameters(memory_link)[name]
    fields = {"relation": "related_to", "uri": "https://example.org/notes"}
    if name == "to_id":
        del fields["uri"]
    # A secret where a URI goes is shaped like one (anything else fails the URI check).
    fields[name] = f"https://example.org/notes?t={SECRET}" if name == "uri" else SECRET
    refuses_unchanged(
        lambda: memory_link(actor=agent_actor, from_id=receipt.id, **fields),
        expected_refusal(is_free_text(MemoryLink, name, annotation)),
    )


def test_every_text_field_of_a_capsule_is_a_field_of_handoff_create():
    writer_given = free_text_fields(HandoffCapsule) - {"from_agent", "resumed_by"}  # the tokens'
    assert writer_given <= set(HANDOFF)


@pytest.mark.parametrize("name", sorted(HANDOFF))
def test_a_secret_in_any_field_of_a_handoff_capsule_is_refused(agent_actor, name):
    fields = {"task_id": "TASK-1", "summary": "Parser half done."}
    fields[name] = shaped(SECRET, annotation=HANDOFF[name])
    refuses_unchanged(
        lambda: handoff_create(actor=agent_actor, **fields),
        expected_refusal(is_free_text(HandoffCapsule, name, HANDOFF[name])),
    )
