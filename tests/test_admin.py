"""The Django admin: read-mostly pages with filters, and the token revoke action."""

from __future__ import annotations

import hashlib

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from accounts.tokens import token_authenticate
from foundation.errors import ServiceError
from memories.admin import INLINE_EVENT_LIMIT
from memories.models import Memory, MemoryEvent, MemoryLink

pytestmark = pytest.mark.django_db


def make_memory(owner, content="Prefers uv over pip for Python projects.", **fields) -> Memory:
    """A row written directly: the admin only reads, so no service rules are needed here."""
    values = dict(
        owner=owner,
        content=content,
        type="semantic",
        kind="preference",
        trust="observed",
        origin="agent",
        source_agent="claude-code",
        fingerprint=hashlib.sha256(f"{owner.pk}|{content}".encode()).hexdigest(),
    )
    values.update(fields)
    return Memory.objects.create(**values)


def make_event(memory, event_type="created", **fields) -> MemoryEvent:
    values = dict(
        owner=memory.owner,
        memory_id=memory.pk,
        event_type=event_type,
        version=memory.version,
        actor_agent=memory.source_agent,
        result={"content": memory.content},
    )
    values.update(fields)
    return MemoryEvent.objects.create(**values)


@pytest.fixture
def superuser_owner(owner):
    owner.is_staff = owner.is_superuser = True
    owner.save()
    return owner


@pytest.fixture
def admin_client(client, superuser_owner):
    client.force_login(superuser_owner)
    return client


@pytest.fixture
def staff_client(client, owner):
    """The owner as non-superuser staff with view permissions on the four models."""
    owner.is_staff = True
    owner.save()
    codenames = ["view_memory", "view_memoryevent", "view_memorylink", "view_personalaccesstoken"]
    owner.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client.force_login(owner)
    return client


@pytest.fixture
def stored(owner, make_token):
    """A small store: two memories with history and a link, and a token."""
    fact = make_memory(
        owner,
        "The API runs on port 8080.",
        kind="fact",
        scope_type="project",
        scope_key="github:ada/site",
    )
    preference = make_memory(owner, trust="confirmed", origin="user", source_agent="")
    make_event(fact, reason="first seen in a session")
    make_event(preference, "confirmed", actor_agent="", reason="owner confirmed")
    MemoryLink.objects.create(
        owner=owner, from_memory=fact, to_memory=preference, relation="related_to"
    )
    token, raw = make_token("codex")
    return {"fact": fact, "preference": preference, "token": token, "raw": raw}


def changelist(model: str) -> str:
    return reverse(f"admin:{model}_changelist")


CHANGELISTS = {
    "memories_memory": [
        "By kind",
        "By type",
        "By trust",
        "By status",
        "By scope type",
        "By visibility",
        "By origin",
        "By source agent",
    ],
    "memories_memoryevent": ["By event type", "By actor agent"],
    "memories_memorylink": ["By relation", "By created by agent"],
    "accounts_personalaccesstoken": ["By state", "By agent name"],
}


@pytest.mark.parametrize("model", CHANGELISTS)
def test_changelist_renders_with_its_filters(admin_client, stored, model):
    response = admin_client.get(changelist(model))

    assert response.status_code == 200
    html = response.content.decode()
    for title in CHANGELISTS[model]:
        assert title in html, title


def test_memory_changelist_shows_short_content_and_columns(admin_client, stored, owner):
    long = make_memory(owner, "x" * 300)

    html = admin_client.get(changelist("memories_memory")).content.decode()

    assert "The API runs on port 8080." in html
    assert "github:ada/site" in html
    assert "x" * 300 not in html
    assert "x" * 79 + "…" in html
    assert reverse("admin:memories_memory_change", args=[long.pk]) in html


def test_memory_filters_narrow_the_list(admin_client, stored):
    response = admin_client.get(changelist("memories_memory"), {"kind__exact": "fact"})

    listed = list(response.context["cl"].result_list)
    assert listed == [stored["fact"]]


def test_memory_search_looks_in_content_and_scope_key(admin_client, stored):
    by_content = admin_client.get(changelist("memories_memory"), {"q": "port 8080"})
    by_scope = admin_client.get(changelist("memories_memory"), {"q": "ada/site"})

    assert list(by_content.context["cl"].result_list) == [stored["fact"]]
    assert list(by_scope.context["cl"].result_list) == [stored["fact"]]


def test_memory_change_page_is_read_only_with_history_and_links(admin_client, stored):
    url = reverse("admin:memories_memory_change", args=[stored["fact"].pk])

    response = admin_client.get(url)

    assert response.status_code == 200
    html = response.content.decode()
    assert "The API runs on port 8080." in html
    assert 'name="content"' not in html
    assert 'name="_save"' not in html
    assert "first seen in a session" in html  # the event inline
    assert "related_to" in html or "Related to" in html  # the link inline
    assert reverse("admin:memories_memoryevent_changelist") + f"?memory={stored['fact'].pk}" in html


def test_memory_page_shows_only_the_newest_events_inline(admin_client, stored):
    memory = stored["fact"]
    for number in range(INLINE_EVENT_LIMIT + 5):
        make_event(memory, "merged", reason=f"merge {number}")

    response = admin_client.get(reverse("admin:memories_memory_change", args=[memory.pk]))

    history = response.context["inline_admin_formsets"][0].formset
    reasons = [form.instance.reason for form in history.forms]
    assert len(reasons) == INLINE_EVENT_LIMIT
    assert reasons[0] == f"merge {INLINE_EVENT_LIMIT + 4}"
    assert "first seen in a session" not in reasons


def test_posting_to_a_memory_change_page_changes_nothing(admin_client, stored):
    memory = stored["fact"]
    url = reverse("admin:memories_memory_change", args=[memory.pk])

    response = admin_client.post(url, {"content": "rewritten", "trust": "locked"})

    assert response.status_code == 403
    memory.refresh_from_db()
    assert memory.content == "The API runs on port 8080." and memory.trust == "observed"


@pytest.mark.parametrize("model", CHANGELISTS)
def test_admin_offers_no_add_or_delete(admin_client, stored, model):
    html = admin_client.get(changelist(model)).content.decode()

    assert "delete_selected" not in html
    assert admin_client.get(reverse(f"admin:{model}_add")).status_code == 403


def test_memory_delete_page_is_refused(admin_client, stored):
    memory = stored["fact"]
    detail = admin_client.get(reverse("admin:memories_memory_change", args=[memory.pk]))
    delete_url = reverse("admin:memories_memory_delete", args=[memory.pk])

    assert delete_url not in detail.content.decode()
    assert admin_client.post(delete_url, {"post": "yes"}).status_code == 403
    assert Memory.objects.filter(pk=memory.pk).exists()


def test_event_list_filters_by_memory_and_keeps_tombstones(admin_client, stored, owner):
    gone = make_memory(owner, "Deleted by the owner.")
    tombstone = make_event(gone, "deleted", actor_agent="", result={}, reason="owner delete")
    Memory.objects.filter(pk=gone.pk).delete()

    everything = admin_client.get(changelist("memories_memoryevent"))
    one_memory = admin_client.get(changelist("memories_memoryevent"), {"memory": stored["fact"].pk})
    tombstone_page = admin_client.get(
        reverse("admin:memories_memoryevent_change", args=[tombstone.pk])
    )

    assert tombstone in everything.context["cl"].result_list
    assert [event.memory_id for event in one_memory.context["cl"].result_list] == [
        stored["fact"].pk
    ]
    assert tombstone_page.status_code == 200
    assert "owner delete" in tombstone_page.content.decode()


def test_token_pages_never_show_the_hash_or_prefix(admin_client, stored):
    token = stored["token"]

    listing = admin_client.get(changelist("accounts_personalaccesstoken")).content.decode()
    detail = admin_client.get(
        reverse("admin:accounts_personalaccesstoken_change", args=[token.pk])
    ).content.decode()

    for html in (listing, detail):
        assert "codex token" in html
        assert token.secret_hash not in html
        assert token.prefix not in html
        assert stored["raw"] not in html
    assert "memories:read, memories:write" in listing


def test_revoke_action_revokes_the_selected_tokens(admin_client, stored, make_token):
    kept, kept_raw = make_token("cursor")
    token = stored["token"]

    response = admin_client.post(
        changelist("accounts_personalaccesstoken"),
        {"action": "revoke_selected", "_selected_action": [token.pk]},
        follow=True,
    )

    assert response.status_code == 200
    assert "Revoked 1 token." in response.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is not None
    with pytest.raises(ServiceError):
        token_authenticate(stored["raw"])
    assert token_authenticate(kept_raw) == kept


def test_revoke_action_on_a_revoked_token_keeps_the_first_time(admin_client, stored):
    token = stored["token"]
    url = changelist("accounts_personalaccesstoken")
    data = {"action": "revoke_selected", "_selected_action": [token.pk]}
    admin_client.post(url, data)
    token.refresh_from_db()
    first = token.revoked_at

    response = admin_client.post(url, data, follow=True)

    assert "1 token was already revoked." in response.content.decode()
    token.refresh_from_db()
    assert token.revoked_at == first


def test_superuser_cannot_revoke_another_owners_token(admin_client, other_owner, make_token):
    theirs, raw = make_token("codex", user=other_owner)

    response = admin_client.post(
        changelist("accounts_personalaccesstoken"),
        {"action": "revoke_selected", "_selected_action": [theirs.pk]},
        follow=True,
    )

    assert "Not revoked" in response.content.decode()
    theirs.refresh_from_db()
    assert theirs.revoked_at is None
    assert token_authenticate(raw) == theirs


def test_staff_owner_sees_only_their_own_rows(staff_client, stored, other_owner, make_token):
    theirs = make_memory(other_owner, "Grace's own memory.")
    make_event(theirs, reason="grace event")
    their_token, _ = make_token("grace-agent", user=other_owner)

    memories = staff_client.get(changelist("memories_memory"))
    events = staff_client.get(changelist("memories_memoryevent"))
    tokens = staff_client.get(changelist("accounts_personalaccesstoken"))
    their_page = staff_client.get(reverse("admin:memories_memory_change", args=[theirs.pk]))
    own_page = staff_client.get(reverse("admin:memories_memory_change", args=[stored["fact"].pk]))

    assert theirs not in memories.context["cl"].result_list
    assert set(memories.context["cl"].result_list) == {stored["fact"], stored["preference"]}
    assert all(event.owner_id != other_owner.pk for event in events.context["cl"].result_list)
    assert list(tokens.context["cl"].result_list) == [stored["token"]]
    assert their_token not in tokens.context["cl"].result_list
    assert own_page.status_code == 200
    assert "first seen in a session" in own_page.content.decode()
    # Another owner's memory does not exist for this user: the admin redirects away.
    assert their_page.status_code == 302
    assert "Grace" not in staff_client.get(their_page.url).content.decode()


def test_staff_owner_filter_choices_come_only_from_their_rows(staff_client, stored, other_owner):
    make_memory(other_owner, "Grace's memory.", source_agent="grace-secret-agent")

    html = staff_client.get(changelist("memories_memory")).content.decode()

    assert "grace-secret-agent" not in html
    assert "claude-code" in html


def test_admin_requires_a_staff_sign_in(client, owner, stored):
    client.force_login(owner)  # an active user, but not staff

    response = client.get(changelist("memories_memory"))

    assert response.status_code == 302
    assert reverse("admin:login") in response.url
