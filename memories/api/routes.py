"""Agent API routes for memories: remember, checkpoint, get, history, forget, link, recall,
context, bootstrap and multi-step query (DESIGN §5; argument names are the MCP tools').

Each handler parses, calls one service or selector with the token's Actor (`request.actor`),
and shapes the answer with `memories.shapes` for the agent audience, as the MCP tools do;
every rule is the service's. Services raise ServiceError, which
`foundation.ninja_door` renders in the error envelope.
"""

from __future__ import annotations

from uuid import UUID

from django.http import HttpRequest
from ninja import Query, Router, Schema
from ninja.responses import Status as Reply

from foundation.ninja_door import READ_ERRORS, WRITE_ERRORS, refuse_unknown_parameters
from memories import retrieval, services
from memories.api.receipts import RememberOut
from memories.api.schemas import (
    BootstrapOut,
    BootstrapParams,
    CheckpointIn,
    CheckpointOut,
    ContextIn,
    ContextOut,
    ForgetIn,
    HistoryOut,
    HistoryParams,
    LinkIn,
    LinkOut,
    MemoryOut,
    QueryIn,
    QueryOut,
    RecallIn,
    RecallOut,
    RecallParams,
    RememberIn,
)
from memories.selectors import memory_get, memory_history
from memories.shapes import event_shape, link_shape, memory_shape

router = Router(tags=["memories"])

NOTHING_WRITTEN = ("duplicate", "unchanged")


def _given(payload: Schema | None) -> dict:
    """The arguments the caller set, as plain JSON values; the service supplies defaults."""
    return payload.model_dump(mode="json", exclude_none=True) if payload is not None else {}


# --- writing -------------------------------------------------------------------------------


@router.post(
    "/memories",
    response={200: RememberOut, 201: RememberOut, **WRITE_ERRORS},
    summary="Remember one statement",
)
def remember(request: HttpRequest, payload: RememberIn):
    """Write one stable statement. 201 when something was written (created, replaced,
    merged, or disputed beside a memory the owner confirmed); 200 when an identical memory
    already exists (`duplicate`) or a keyed write changes nothing (`unchanged`)."""
    receipt = services.memory_remember(actor=request.actor, **_given(payload)).as_dict()
    return Reply(200 if receipt["evolution"]["action"] in NOTHING_WRITTEN else 201, receipt)


@router.post(
    "/checkpoints",
    response={201: CheckpointOut, **WRITE_ERRORS},
    summary="Save progress: a summary and what was learned",
)
def checkpoint(request: HttpRequest, payload: CheckpointIn):
    """One summary of progress plus durable memories learned along the way, all or nothing."""
    return Reply(201, services.memory_checkpoint(actor=request.actor, **_given(payload)))


@router.post(
    "/memories/{id}/forget", response={200: MemoryOut, **WRITE_ERRORS}, summary="Forget a memory"
)
def forget(request: HttpRequest, id: UUID, payload: ForgetIn | None = None):
    """Archive the memory, or supersede it when `superseded_by` names its replacement.
    Nothing is deleted: only the owner deletes. The body may be left out."""
    memory = services.memory_forget(actor=request.actor, memory_id=id, **_given(payload))
    return memory_shape(memory, "agent")


@router.post(
    "/memories/{id}/links", response={200: LinkOut, **WRITE_ERRORS}, summary="Link a memory"
)
def link(request: HttpRequest, id: UUID, payload: LinkIn):
    """Link this memory to another memory (`to_id`) or to a resource (`uri`). The same link
    twice is one link."""
    link = services.memory_link(actor=request.actor, from_id=id, **_given(payload))
    return link_shape(link, "agent")


# --- reading -------------------------------------------------------------------------------


@router.get("/memories/{id}", response={200: MemoryOut, **READ_ERRORS}, summary="One memory")
def get(request: HttpRequest, id: UUID):
    refuse_unknown_parameters(request, ())
    return memory_shape(memory_get(actor=request.actor, memory_id=id), "agent")


@router.get(
    "/memories/{id}/history",
    response={200: HistoryOut, **READ_ERRORS},
    summary="A memory's history",
)
def history(request: HttpRequest, id: UUID, params: Query[HistoryParams]):
    """Events of this memory and of its earlier versions, newest first."""
    refuse_unknown_parameters(request, HistoryParams.model_fields)
    page = memory_history(
        actor=request.actor, memory_id=id, limit=params.limit, cursor=params.cursor
    )
    events = [event_shape(event, "agent") for event in page.events]
    return {"events": events, "next_cursor": page.next_cursor}


@router.get("/recall", response={200: RecallOut, **READ_ERRORS}, summary="Recall memories")
def recall(request: HttpRequest, params: Query[RecallParams]):
    """The memories that answer a query, best first. `no_confident_match` says when nothing
    relevant was found; page with `next_cursor`."""
    refuse_unknown_parameters(request, RecallParams.model_fields)
    return retrieval.recall(actor=request.actor, **_given(params)).as_dict()


@router.post(
    "/recall", response={200: RecallOut, **READ_ERRORS}, summary="Recall memories (JSON body)"
)
def recall_with_body(request: HttpRequest, payload: RecallIn):
    """The same as GET /recall, for arguments that do not fit a URL."""
    return retrieval.recall(actor=request.actor, **_given(payload)).as_dict()


@router.post(
    "/context", response={200: ContextOut, **READ_ERRORS}, summary="A token-budgeted context"
)
def context(request: HttpRequest, payload: ContextIn):
    """Recall, then whole memories fitted into a token budget; says what was omitted and why."""
    return retrieval.context_pack(actor=request.actor, **_given(payload)).as_dict()


@router.get(
    "/bootstrap", response={200: BootstrapOut, **READ_ERRORS}, summary="Session start context"
)
def bootstrap(request: HttpRequest, params: Query[BootstrapParams]):
    """What an agent should know when a session starts: call it once per session, not
    every turn."""
    refuse_unknown_parameters(request, BootstrapParams.model_fields)
    return retrieval.bootstrap(actor=request.actor, **_given(params)).as_dict()


@router.post("/query", response={200: QueryOut, **READ_ERRORS}, summary="Multi-step query")
def query(request: HttpRequest, payload: QueryIn):
    """A compound question answered part by part within a step and time budget; says how
    well the evidence covers it (`sufficiency`) and why it stopped short (`fallback`)."""
    return retrieval.multi_query(actor=request.actor, **_given(payload)).as_dict()
