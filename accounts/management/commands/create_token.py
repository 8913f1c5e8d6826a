"""Issue a personal access token for an agent from the command line.

    manage.py create_token --user ada --agent claude-code \
        --scopes memories:read,memories:write --expires-in 90 [--name N] [--project KEY ...]

The raw token is the only thing written to stdout (so `TOKEN=$(manage.py create_token ...)`
captures it); the notes around it go to stderr. It is shown once and never stored.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Scope
from accounts.tokens import token_create
from foundation.actors import Actor
from foundation.errors import ServiceError


class Command(BaseCommand):
    help = "Create a personal access token for an agent; prints the token once."

    def add_arguments(self, parser):
        parser.add_argument("--user", required=True, help="username of the owner")
        parser.add_argument(
            "--agent",
            required=True,
            help="agent name the token is bound to; every write made with it carries this name",
        )
        parser.add_argument(
            "--scopes",
            required=True,
            help=f"comma-separated, from: {', '.join(Scope.values)}",
        )
        parser.add_argument(
            "--expires-in", required=True, type=int, metavar="DAYS", help="days until expiry"
        )
        parser.add_argument("--name", help="a name for the token (default: '<agent> token')")
        parser.add_argument("--purpose", default="", help="what the token is for")
        parser.add_argument(
            "--project",
            action="append",
            default=[],
            metavar="KEY",
            help="restrict the token to this project key; repeat for several (default: all)",
        )

    def handle(self, *args, **options):
        user_model = get_user_model()
        username = options["user"]
        try:
            user = user_model._default_manager.get_by_natural_key(username)
        except user_model.DoesNotExist:
            raise CommandError(f"No user named {username!r}.") from None
        if not user.is_active:
            raise CommandError(f"User {username!r} is inactive; a token of theirs would not work.")

        agent = options["agent"]
        scopes = [scope.strip() for scope in options["scopes"].split(",") if scope.strip()]
        name = options["name"] if options["name"] is not None else f"{agent} token"[:100]
        try:
            token, raw = token_create(
                actor=Actor.owner(user),
                name=name,
                agent_name=agent,
                scopes=scopes,
                expires_in_days=options["expires_in"],
                allowed_projects=options["project"],
                purpose=options["purpose"],
            )
        except ServiceError as error:
            raise CommandError(error.message) from None

        projects = (
            f"projects {', '.join(token.allowed_projects)}"
            if token.allowed_projects
            else "all projects"
        )
        self.stderr.write(
            f"Created token {token.name!r} for agent {token.agent_name} of {username}: "
            f"scopes {', '.join(token.scopes)}; {projects}; "
            f"expires {token.expires_at:%Y-%m-%d %H:%M} UTC.",
            style_func=self.style.SUCCESS,
        )
        self.stdout.write(raw)
        self.stderr.write("Copy it now: it will not be shown again.", style_func=self.style.WARNING)
