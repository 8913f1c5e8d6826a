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
SUPERSEDED = gettext_noop("superseded by a newer memory")
# The judge's signals stay as it wrote them (evidence, like a rule's name).
SUPERSEDED_BECAUSE = known(gettext_noop("superseded by a newer memory: %(signals)s"))
SAME_AGAIN = known(gettext_noop("the same statement again, from %(writer)s: %(signal)s"))
UNDID = known(gettext_noop("undid %(event)s"))
IMPORTED_DISPUTED = known(gettext_noop("imported as disputed: the key is held by %(holder)s"))
IMPORTED_FROM = known(gettext_noop("imported from %(source)s %(id)s"))
# Compaction (memories.compaction) writes these as the owner.
EXACT_DUPLICATE = gettext_noop("compaction: exact duplicate")
EXACT_DUPLICATE_OF = known(gettext_noop("compaction: exact duplicate of %(id)s"))
LATE_EPISODES = gettext_noop("compaction: late episodes for this week")
WEEKLY_ROLLUP = known(gettext_noop("compaction: weekly rollup of %(count)s episodes"))
ROLLED_UP = known(gettext_noop("compaction: rolled up into %(id)s"))


def contradicts(trust: str, memory_id) -> str:
    return rendered(CONTRADICTS, trust=trust, id=memory_id)


def quarantined(rules) -> str:
    return rendered(QUARANTINED, rules=", ".join(rules))
