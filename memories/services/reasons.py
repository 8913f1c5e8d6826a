"""The reasons memory events record, as English templates: stored rendered (the history is
English, like the agent API), shown in the owner's language by the dashboard, which
recognises each template (`foundation.messages.known`)."""

from django.utils.translation import gettext_noop

from foundation.messages import known, rendered

CONTRADICTS = known(gettext_noop("contradicts %(trust)s memory %(id)s"))
QUARANTINED = known(gettext_noop("quarantined: reads as instructions to agents (%(rules)s)"))
NEAR_DUPLICATE = known(gettext_noop("near-duplicate of %(id)s, merged in Review"))
KEPT_OTHER = known(gettext_noop("conflicts with %(id)s; the owner kept that one in Review"))
TOOK_OTHER = known(gettext_noop("the owner took %(id)s in its place in Review"))


def contradicts(trust: str, memory_id) -> str:
    return rendered(CONTRADICTS, trust=trust, id=memory_id)


def quarantined(rules) -> str:
    return rendered(QUARANTINED, rules=", ".join(rules))
