"""Signing in and out of the dashboard, with the login throttle in front of the password check."""

from __future__ import annotations

import math

from django.contrib.auth import views as auth_views

from accounts import login_throttle


class SignInView(auth_views.LoginView):
    template_name = "dashboard/signin.html"
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        wait = login_throttle.retry_after(request, request.POST.get("username"))
        if wait:
            context = self.get_context_data(
                form=self.get_form(), throttled_minutes=max(1, math.ceil(wait / 60))
            )
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)


class SignOutView(auth_views.LogoutView):
    """POST only (Django's LogoutView refuses GET), so a link cannot sign anyone out."""
