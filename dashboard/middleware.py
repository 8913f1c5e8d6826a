"""A request whose session has expired is sent to sign in, and back afterwards."""

from __future__ import annotations

from dashboard.signin import asks_to_sign_in, to_sign_in


class SignInMiddleware:
    """`login_required` answers an expired session with a redirect to sign in whose `next`
    is the address asked for. Under htmx that redirect was followed and the sign-in page
    pasted into the card the action targets; after a plain form post, `next` named the
    action's URL, which answers GET with a 405. Both are sent to sign in with the page the
    browser showed as `next` instead (`dashboard.signin`)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not asks_to_sign_in(request, response):
            return response
        if getattr(request, "htmx", False) or request.method not in ("GET", "HEAD"):
            return to_sign_in(request)
        return response
