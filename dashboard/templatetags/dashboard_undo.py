"""`{% undo_offer %}`: the undo the owner's last plain form post left for this page."""

from django import template

from dashboard.undo import done_text, take_offer

register = template.Library()


@register.inclusion_tag("dashboard/_undo.html", takes_context=True)
def undo_offer(context) -> dict:
    request = context.get("request")
    offer = take_offer(request) if request is not None else None
    return {"offer": offer, "csrf_token": context.get("csrf_token"), "request": request}


@register.filter
def undo_done_text(offer) -> str:
    """'Confirmed.', 'Archived.' …: what the action the offer takes back did."""
    return done_text(offer) if isinstance(offer, dict) else ""
