"""The owner's dashboard (DESIGN §5): the shell's pages (overview, settings, tokens) and the
memory tabs, the memory card and its actions, which show several apps' nouns together.

Every view here is a thin door: it reads the request, calls a selector or one service as
`Actor.owner(request.user)`, and renders a full page, or only a fragment when htmx asked.
"""
