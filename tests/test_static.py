"""Static assets come from the app itself (no CDN, no collectstatic step)."""

import pytest


@pytest.mark.parametrize(
    "path",
    [
        "/static/admin/css/base.css",
        "/static/ninja/swagger-ui.css",
        "/static/ninja/swagger-ui-bundle.js",
    ],
)
def test_static_assets_are_served_by_the_app(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert b"".join(response.streaming_content if response.streaming else [response.content])
